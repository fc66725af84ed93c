"""How a known-item question is worded (issue 46): about a phrase of the evidence sentence, as a person
asks ("What do the documents say about the Calloway signal box?"), not about four words drawn from
all over it ("… about breakfast morning kinywa Reykjavik?").

A phrase is a run of the sentence's words with no punctuation and no stopword inside (a rough noun
phrase in English and Chinese alike: "Calloway signal box", "检索增强生成"), optionally two runs joined by
"of" / "的", trimmed of the prepositions English stopwords lack ("near", "called"), cut before an English
word that reads as a verb (a lower-case word ending in -ed, or in -s before an article: "improves
the"), and with the article before it when there is one. Of the runs with one to four words that leave
the answer out, the most distinctive (inverse document frequency, summed; a single word counts half)
is asked about, a run after an article or at the sentence's start (a noun phrase, the subject as a
rule) a third more, the earlier one on a tie. The question is written in the sentence's script's language (Chinese, Japanese, Hindi), English
otherwise. All word rules go through the shared text layer (``kimas_desktop.text.words``).

German (issue 42): a sentence in Latin script is asked in German when ``LanguageDetector`` (py3langid)
finds it German, in English otherwise (another language, or none found). Its phrase is picked with the
German stopwords too (``stopwords_for("de")``, never applied to an English sentence), two runs may be
joined by "von", "für" or a genitive article ("Format einer Textdatei"), a run's last lower-case
words after a capitalised one are cut (the verb a German clause puts last: "Liste bekommen" → "Liste"),
and the question names the phrase bare, without the article before it ("Was steht in den Dokumenten
über Format einer Textdatei?"): a German article agrees in case with the words around it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise

from kimas_desktop.text.language import LanguageDetector, script_language
from kimas_desktop.text.stopwords import stopwords_for
from kimas_desktop.text.words import words

MAX_WORDS = 4  # content words in a phrase
LINKS = ("of", "的")  # one of these may join two runs into one phrase
GERMAN_LINKS = ("von", "für", "des", "der", "einer", "eines")  # and, in a German sentence, one of these
ARTICLES = ("the", "a", "an")
EDGES = frozenset(
    "near called named among across around behind beside beyond toward towards per since along using "
    "used based including such".split()
)  # words no phrase starts or ends with that the stopword list lacks
ASK = {
    "en": "What do the documents say about {}?",
    "zh": "文档中关于{}是怎么说的？",
    "ja": "文書では{}について何と書かれていますか？",
    "hi": "दस्तावेज़ {} के बारे में क्या कहते हैं?",
    "de": "Was steht in den Dokumenten über {}?",
}
LATIN = ("de",)  # languages in Latin script with a template of their own (English is the default)
GERMAN_ARTICLES = (
    "der",
    "die",
    "das",
    "den",
    "dem",
    "des",
    "ein",
    "eine",
    "einen",
    "einem",
    "einer",
    "eines",
)
_DETECTOR = LanguageDetector()  # cheap; its model loads the first time a Latin sentence is asked about


@dataclass(frozen=True)
class Phrase:
    text: str  # as written in the sentence (a contiguous part of it)
    words: tuple[str, ...]  # its content words, in order
    language: str  # the question's template: a key of ASK


@dataclass(frozen=True)
class _Rules:
    """The word rules of the sentence's language."""

    language: str  # a key of ASK
    stop: frozenset[str]
    links: tuple[str, ...]
    articles: tuple[str, ...]
    named_with_article: bool  # the phrase is asked about with its article ("the Calloway signal box")
    verb_final: bool = False  # a run's last lower-case words are cut after a capitalised one (German)


def _rules(sentence: str) -> _Rules:
    found = script_language(sentence)
    if found is None:  # Latin, Cyrillic, Arabic letters: py3langid votes
        code = _DETECTOR.detect(sentence)
        language = code if code in LATIN else "en"
    else:
        language = found.code if found.code in ASK else "en"
    if language == "de":
        return _Rules("de", stopwords_for("de"), LINKS + GERMAN_LINKS, GERMAN_ARTICLES, False, True)
    return _Rules(language, stopwords_for(language), LINKS, ARTICLES, True)


def language_of(sentence: str) -> str:
    """The language ``sentence`` is asked about in (a key of ``ASK``)."""
    return _rules(sentence).language


def _spans(sentence: str) -> list[tuple[str, int, int]]:
    """The sentence's word tokens with where each stands in it."""
    out, at = [], 0
    for w in words(sentence):
        i = sentence.find(w, at)
        if i < 0:
            continue
        out.append((w, i, i + len(w)))
        at = i + len(w)
    return out


def _content(word: str, rules: _Rules) -> bool:
    low = word.lower()
    return low not in rules.stop and low not in EDGES and (len(word) > 1 or not word.isascii())


def _verb(spans: list[tuple[str, int, int]], i: int) -> bool:
    """Whether token ``i`` reads as an English verb: a lower-case word ending in -ed, or in -s before an
    article ("improves the", "uses a"; "models (LLMs)" stays a noun)."""
    word = spans[i][0]
    if not (word.isascii() and word.islower()):
        return False
    if word.endswith("ed") or (word.endswith("ly") and len(word) > 5):  # an -ly adverb ends a run too
        return True
    following = spans[i + 1][0].lower() if i + 1 < len(spans) else ""
    return word.endswith("s") and not word.endswith(("ss", "us", "is")) and following in ARTICLES


def _runs(sentence: str, spans: list[tuple[str, int, int]], rules: _Rules) -> list[list[int]]:
    """Token indexes of the runs of content words (a stopword, punctuation or a verb ends one); two runs
    joined by a single ``LINKS`` word are a run too."""
    runs: list[list[int]] = []
    current: list[int] = []
    for i, (w, start, _) in enumerate(spans):
        gap = sentence[spans[i - 1][2] : start] if i else ""
        verb = _verb(spans, i)
        if current and (not _content(w, rules) or gap.strip() or verb):
            runs.append(current)
            current = []
        if _content(w, rules) and not verb:
            current.append(i)
    if current:
        runs.append(current)
    if rules.verb_final:
        runs = [_without_verb(spans, run) for run in runs]
    joined = []
    for a, b in pairwise(runs):
        link = a[-1] + 1
        if (
            b[0] == link + 1
            and spans[link][0].lower() in rules.links
            and _plain(sentence, spans, a[-1], b[0])
        ):
            joined.append([*a, link, *b])
    return runs + joined


def _without_verb(spans: list[tuple[str, int, int]], run: list[int]) -> list[int]:
    """A German run without the lower-case words that end it after a capitalised word ("Liste
    bekommen" → "Liste", "Basis genutzt" → "Basis"): a German clause puts its verb last, and a noun
    phrase ends with its noun, which is capitalised. A word with a digit or a sign stays ("qemu-utils")."""
    end = len(run)
    while (
        end > 1 and _lower(spans[run[end - 1]][0]) and any(spans[i][0][:1].isupper() for i in run[: end - 1])
    ):
        end -= 1
    return run[:end]


def _lower(word: str) -> bool:
    return word.isalpha() and word.islower()


def _plain(sentence: str, spans: list[tuple[str, int, int]], first: int, last: int) -> bool:
    """No punctuation between tokens ``first`` and ``last``."""
    return not any(sentence[spans[i][2] : spans[i + 1][1]].strip() for i in range(first, last))


def _article(sentence: str, spans: list[tuple[str, int, int]], run: list[int], rules: _Rules) -> bool:
    before = run[0] - 1
    return (
        before >= 0 and spans[before][0].lower() in rules.articles and _plain(sentence, spans, before, run[0])
    )


def _text(sentence: str, spans: list[tuple[str, int, int]], run: list[int], rules: _Rules) -> str:
    first, last = run[0], run[-1]
    text = " ".join(sentence[spans[first][1] : spans[last][2]].split())
    if rules.named_with_article and _article(sentence, spans, run, rules):
        text = f"{spans[first - 1][0].lower()} {text}"
    return text


def _score(
    sentence: str,
    spans: list[tuple[str, int, int]],
    run: list[int],
    content: list[str],
    idf: Callable[[str], float],
    rules: _Rules,
) -> float:
    score = sum(idf(w) for w in content) * (0.5 if len(content) == 1 else 1.0)
    return score * (4 / 3 if run[0] == 0 or _article(sentence, spans, run, rules) else 1.0)


def best_phrase(sentence: str, idf: Callable[[str], float], answer: str = "") -> Phrase | None:
    """The phrase of ``sentence`` to ask about (see the module docstring), or None when no run of one
    to four content words leaves ``answer`` out."""
    spans = _spans(sentence)
    rules = _rules(sentence)
    best: tuple[float, Phrase] | None = None
    for run in _runs(sentence, spans, rules):
        content = [spans[i][0] for i in run if _content(spans[i][0], rules)]
        if not 1 <= len(content) <= MAX_WORDS or answer in content:
            continue
        if not any(ch.isalpha() for w in content for ch in w):
            continue
        score = _score(sentence, spans, run, content, idf, rules)
        if best is None or score > best[0] + 1e-9:
            best = (score, Phrase(_text(sentence, spans, run, rules), tuple(content), rules.language))
    return best[1] if best else None


def ask_about(phrase: Phrase, text: str | None = None) -> str:
    """The question about ``phrase`` (or about ``text`` in its place, for a control)."""
    return ASK[phrase.language].format(text if text is not None else phrase.text)


def swapped(phrase: Phrase, word: str, stand_in: str) -> str:
    """``phrase`` with ``word`` replaced by ``stand_in`` (an unanswerable control's)."""
    if re.search(r"\w", word, re.ASCII) and word.isascii():
        return re.sub(rf"\b{re.escape(word)}\b", stand_in, phrase.text, count=1)
    return phrase.text.replace(word, f" {stand_in} ", 1).strip()
