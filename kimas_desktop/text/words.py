"""The word toolkit every stage shares, model-free: tokens (``words``), content words, names, numbers
and stems.

- ``words``: word tokens in their original case; ``content_words``: lower-cased, without stopwords and
  single characters.
- ``is_name``/``names``: a capitalised word that does not start the text and is not a stopword is taken
  for a name ("Tesla", "Paris"); the support check requires it in a source, the quote scorer looks for one
  when the question asks who or where, and the topic carried into a follow-up weighs it up.
- ``numbers``: numbers and dates as written ("1,200" → "1200", "3.5", "12:30", "1/2/2020").
- ``stem``: a light hand-written stemmer (plural and verb endings: "cities"/"city", "founded"/"founding");
  a token holding a digit is kept as it is. The Snowball stemmer was measured in its place on the dev kit
  and not kept: it declined 0.03 fewer unanswerable questions (bench/RESULTS.md, "Text toolkit (issue 22)").
  ``stems``: the stems of a text's content words; ``meaningful_stems``: its numbers and content words,
  stemmed, in order.

Every script goes through one tokenizer (``tokenizer.Tokenizer``, issue 42): combining marks stay inside
words (Devanagari, Thai, Arabic), Chinese is segmented by jieba's dictionary, Japanese, Korean and Thai
give character bigrams, digits inside Chinese text are numbers of their own. English tokenizes exactly as
before. Stopwords are English, Chinese and Hindi (``stopwords.py``); stemming changes Latin words
(English endings) and Devanagari ones (Hindi endings, ``devanagari.py``). A length rule ("not a single character", "at least three") counts a
Chinese or Japanese character as two, the width it is written with: "图" is a word, "的" a stopword.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

from kimas_desktop.text import devanagari
from kimas_desktop.text.scripts import has_marks, has_unspaced
from kimas_desktop.text.segmenter import ChineseSegmenter
from kimas_desktop.text.stopwords import STOPWORDS
from kimas_desktop.text.tokenizer import Tokenizer

__all__ = [
    "STOPWORDS",
    "content_words",
    "is_name",
    "keywords",
    "meaningful_stems",
    "named",
    "names",
    "numbers",
    "salient_terms",
    "spaced",
    "stem",
    "stems",
    "truncate",
    "width",
    "words",
]

# The one tokenizer; its constructor is cheap, jieba's dictionary is read on the first Chinese text.
_TOKENIZER = Tokenizer(ChineseSegmenter())
_ALNUM = re.compile(r"[^\W_]+")
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


def words(text: str) -> list[str]:
    """Word tokens, original case, punctuation stripped (any script: see the module docstring)."""
    return _TOKENIZER.tokens(text)


def spaced(text: str) -> str:
    """``text`` as the full-text index reads it: its words separated by single spaces, for an index that
        splits at spaces only (LanceDB's ``simple`` tokenizer splits a Devanagari word at its virama, and
        leaves a Chinese sentence whole). A word that holds combining marks or an unspaced script stays one
        word (jieba's words, Japanese and Korean bigrams); any other word is cut where ``simple`` cut it, at
        every character that is no letter or digit, so an English text gives the terms it gave before. A Hindi
    word is folded and stemmed (``devanagari.py``), and a Hindi stopword left out, as the index does for
    English words."""
    if text.isascii():
        return " ".join(_ALNUM.findall(text))
    out: list[str] = []
    for token in _TOKENIZER.tokens(text):
        if devanagari.is_devanagari(token):
            if token not in STOPWORDS:
                out.append(devanagari.stem(token))
        elif has_unspaced(token) or has_marks(token):
            out.append(token)
        else:
            out.extend(_ALNUM.findall(token))
    return " ".join(out)


def width(word: str) -> int:
    """``len(word)``, a wide (Chinese, Japanese, Korean) character counted twice."""
    if word.isascii():
        return len(word)
    return len(word) + sum(1 for ch in word if unicodedata.east_asian_width(ch) in "WF")


def content_words(text: str) -> list[str]:
    """Lower-cased words that are not stopwords or single characters."""
    return [w.lower() for w in words(text) if w.lower() not in STOPWORDS and width(w) > 1]


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


def named(text: str) -> list[str]:
    """The words of ``text`` that name something, in order: names (``is_name``) and acronyms ("KAG"),
    and, in a text in another script (Chinese, Japanese, Korean, Thai, Hindi), every word of two or more
    Latin letters ("RAGentA 的检索是怎么做的？", "它的 solver", "RAGentA का दूसरा चरण"): there a word in Latin
    letters is a name or a term, first word or not. An English text gives its names and acronyms only."""
    tokens = words(text)
    foreign = any(has_unspaced(w) or devanagari.is_devanagari(w) for w in tokens)
    return [w for i, w in enumerate(tokens) if is_name(w, i) or _acronym(w) or (foreign and _latin_term(w))]


def _acronym(word: str) -> bool:
    return len(word) > 1 and word.isupper() and word.isalpha()


def _latin_term(word: str) -> bool:
    """A word of Latin letters (digits and hyphens inside: "Agent-4", "e5-base-v2"), not a stopword."""
    return (
        word.isascii()
        and sum(ch.isalpha() for ch in word) >= 2
        and word[0].isalpha()
        and word.lower() not in STOPWORDS
    )


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
    if devanagari.is_devanagari(w):
        return devanagari.stem(w)
    return _stem_word(w)


def stems(text: str) -> set[str]:
    """The stems of ``text``'s content words."""
    return {stem(w) for w in content_words(text)}


def meaningful_stems(text: str) -> list[str]:
    """Numbers and content words of ``text``, stemmed, in order (a run to compare with another text's)."""
    return [
        stem(w)
        for w in words(text.lower())
        if any(ch.isdigit() for ch in w) or (width(w) > 1 and w not in STOPWORDS)
    ]


def keywords(text: str) -> str:
    """The keyword rewrite without an LLM: the question's content words, in order, once each."""
    seen: dict[str, None] = {}
    for w in words(text):
        low = w.lower()
        if low not in STOPWORDS and width(w) > 1 and low not in seen:
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
            if low in STOPWORDS or low in skip or width(w) < 3:
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
