"""A frozen copy of kimas_desktop/text/words.py as it was before issue 42 (commit c77d906), kept only so
that tests/kimas_desktop/text/test_english_unchanged.py can prove English tokenizes exactly as it did.
Never import it from the product."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

_WORD = re.compile(r"[\w][\w'\-.]*[\w]|[\w]", re.UNICODE)
_NUMBER = re.compile(r"\d[\d,.:/-]*\d|\d")
_SUFFIXES = ("ingly", "edly", "ing", "ies", "ied", "es", "ed", "ly", "s")


def _suffix_stem(w: str) -> str:
    """A lower-case word without its plural or verb ending ("changed"/"changing" → "chang")."""
    for suffix in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            if suffix in ("ies", "ied"):
                return w[: -len(suffix)] + "y"
            if suffix == "s" and w.endswith("ss"):
                return w
            w = w[: -len(suffix)]
            break
    return w[:-1] if len(w) > 4 and w.endswith("e") else w


_stem_word = _suffix_stem  # bench/text_toolkit.py puts the Snowball stemmer here to compare the two

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are aren't as at be because been before
    being below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't
    down during each else ever few for from further get gets got had hadn't has hasn't have haven't having
    he he'd he'll he's her here here's hers herself him himself his how how's i i'd i'll i'm i've if in
    into is isn't it it's its itself just know let's like make many may me might more most much must
    mustn't my myself need no nor not now of off on once one only or other ought our ours ourselves out
    over own please same say said shall shan't she she'd she'll she's should shouldn't so some such tell
    than that that's the their theirs them themselves then there there's these they they'd they'll
    they're they've thing things this those through to too under until up upon us very via was wasn't we
    we'd we'll we're we've well were weren't what what's when when's where where's whether which while
    who who's whom why why's will with within without won't would wouldn't yes yet you you'd you'll
    you're you've your yours yourself yourselves explain describe anything something else more
    other another give show find""".split()
)


def words(text: str) -> list[str]:
    """Word tokens, original case, punctuation stripped."""
    return _WORD.findall(text)


def content_words(text: str) -> list[str]:
    """Lower-cased words that are not stopwords or single characters."""
    return [w.lower() for w in words(text) if w.lower() not in STOPWORDS and len(w) > 1]


def is_name(word: str, position: int) -> bool:
    """Whether the token ``word``, the ``position``-th of its text, reads as a name: capitalised, not the
    text's first word, not a stopword ("I", "The"), no digit."""
    return (
        position > 0
        and word[0].isupper()
        and word.lower() not in STOPWORDS
        and not any(ch.isdigit() for ch in word)
    )


def names(text: str) -> list[str]:
    """The names in ``text`` (see ``is_name``), in order, as written."""
    return [w for i, w in enumerate(words(text)) if is_name(w, i)]


def numbers(text: str) -> list[str]:
    """The numbers in ``text``, in order, without thousands separators or a trailing period."""
    return [m.group().replace(",", "").rstrip(".") for m in _NUMBER.finditer(text)]


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """The stem of ``word``, lower-cased ("Cities" → "city", "founded" → "found")."""
    w = word.lower().strip(".'-’")
    if w.endswith(("'s", "’s")):
        w = w[:-2]
    if any(ch.isdigit() for ch in w):
        return w
    return _stem_word(w)


def stems(text: str) -> set[str]:
    """The stems of ``text``'s content words."""
    return {stem(w) for w in content_words(text)}


def meaningful_stems(text: str) -> list[str]:
    """Numbers and content words of ``text``, stemmed, in order (a run to compare with another text's)."""
    return [
        stem(w)
        for w in words(text.lower())
        if any(ch.isdigit() for ch in w) or (len(w) > 1 and w not in STOPWORDS)
    ]


def keywords(text: str) -> str:
    """The keyword rewrite without an LLM: the question's content words, in order, once each."""
    seen: dict[str, None] = {}
    for w in words(text):
        low = w.lower()
        if low not in STOPWORDS and len(w) > 1 and low not in seen:
            seen[low] = None
    return " ".join(seen) or text.strip()


def salient_terms(texts: Iterable[str], *, exclude: Iterable[str] = (), limit: int = 8) -> list[str]:
    """The most telling words of ``texts``: frequent content words, capitalized names first.

    Used to carry a conversation's topic into a follow-up question without an LLM.
    """
    skip = {w.lower() for w in exclude}
    counts: dict[str, float] = {}
    shown: dict[str, str] = {}
    for text in texts:
        for i, w in enumerate(words(text)):
            low = w.lower()
            if low in STOPWORDS or low in skip or len(w) < 3:
                continue
            weight = 2.0 if is_name(w, i) else 1.0
            if any(ch.isdigit() for ch in w):
                weight = 1.5
            counts[low] = counts.get(low, 0.0) + weight
            shown.setdefault(low, w)
    ranked = sorted(counts, key=lambda w: counts[w], reverse=True)
    return [shown[w] for w in ranked[:limit]]


def truncate(text: str, max_chars: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= max_chars else text[: max_chars - 1].rstrip() + "…"
