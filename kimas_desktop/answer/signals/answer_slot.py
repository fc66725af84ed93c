"""The answer's slot: what a passage adds to the question, in the place the question asks about.

"What is the capital of Kenya?" asked of "Its capital and largest city is Nairobi.": the passage's
**answer part** is "Nairobi", the fact it holds that the question does not. A question that asks when or
how many wants a number or a date there, one that asks who or where a name (``quote.answer_type``); any
other question takes either. The support check asks an answer sentence for that part (or another fact of
the sources in the same slot), and the answer policy looks for it in the quote of a question it is about
to decline.

- ``answer_part``: the facts of a text in the question's slot that the question does not hold;
- ``restates``: a sentence that says nothing the question does not ("Kenya is the capital of Kenya.");
- ``addresses``: a sentence about what the question asks (it holds half of the question's words or
  more, or nothing but words about the answer itself and facts: "The answer is: 1013");
- ``about_another``: a sentence that takes the question's words to other names, answering a question
  about something else ("The Hartford Line runs between New Haven and Springfield." asked what line
  runs between New York and Boston);
- ``answer_shaped``: a passage that names the question's subject (or, for a follow-up that names
  nothing, the subject its standalone query took from the conversation) and holds an answer part;
- ``answering_spans``: where a quote holds its answer part, for the chat to mark (issue 69: the quote is
  the answer with the embedded model, and the phrase that answers shows marked);

A count ("How many …?", "How much …?") is no date: a month, or a year after a month or "in", "since",
"until", "by", "during", "from", answers "when", not "how many" ("In March 2013 he gave a report" holds no
count of reforms). That rule is English only; in Chinese and Hindi every number stays in the slot.

Every rule looks at words through the text layer (``text/words.py``), so it follows its tokenizer: in a
script without capitals there are no names, and only numbers and words count.
"""

from __future__ import annotations

import re

from kimas_desktop.answer.signals.quote import answer_type
from kimas_desktop.text.question_words import is_number_word
from kimas_desktop.text.words import STOPWORDS, content_words, names, numbers, stem, stems, words

__all__ = [
    "ABOUT",
    "MARKER",
    "about_another",
    "addresses",
    "answer_part",
    "answer_shaped",
    "answering_spans",
    "facts",
    "restates",
    "slot_noun",
]

MARKER = re.compile(r"\[\d+(?:\s*[,;]\s*\d+)*\]")  # "[1]", "[1, 3]": citation markers, not facts
_POSSESSIVE = re.compile(r"'s?$")  # "Canby's column": the name is "Canby" ("Canby’s" splits so already)
_SKIP_NAMES = frozenset({"source", "sources", "according"})  # "Source 2 says", "According to"
# Words about the sources and the answer itself ("The answer is: 30", "the document mentions …"): they
# make no claim, so a source need not hold them.
ABOUT = frozenset(
    stem(w)
    for w in (
        "answer", "document", "documents", "source", "sources", "passage", "passages", "sentence",
        "sentences", "text", "context", "information", "relevant", "mentioned", "mentions", "according",
        "provided", "says", "question", "correct",
    )
)  # fmt: skip


def facts(sentence: str) -> list[str]:
    """Numbers and names (capitalized words not starting the sentence) that a source must contain."""
    sentence = MARKER.sub(" ", sentence)
    named = [_POSSESSIVE.sub("", w) for w in names(sentence) if w.lower() not in _SKIP_NAMES]
    return list(dict.fromkeys(numbers(sentence) + [w for w in named if w]))


def _asked(question: str) -> set[str]:
    return {f.lower() for f in facts(question)} | {stem(w) for w in words(question)}


# "What month …?", "Which department …?", "How many people …?": the noun that names what kind of thing is
# asked for, right after the question word (and "type/kind/sort of" before it: "What type of economics").
_SLOT_NOUN = re.compile(
    r"\b(?:what|which|how many|how much)\s+(?:(?:type|types|kind|kinds|sort|sorts)\s+of\s+)?([^\W\d_]+)",
    re.IGNORECASE,
)


def slot_noun(question: str) -> set[str]:
    """The stems of the words that name the answer's kind ("month" in "What month did the prison break
    occur?", "type" and "economics" in "What type of economics …"): an answer repeats them ("in the month of
    June") though the sources say only "June", so they are no premise a source must hold."""
    m = _SLOT_NOUN.search(question)
    if not m or m.group(1).lower() in STOPWORDS:
        return set()
    return stems(m.group(0)) - stems(m.group(0).split()[0])


_COUNT = re.compile(r"\bhow (many|much)\b", re.IGNORECASE)
_MONTHS = frozenset(
    "january february march april may june july august september october november december".split()
)
_DATE_YEAR = re.compile(
    r"\b(?:in|since|until|by|during|from|" + "|".join(_MONTHS) + r")\s+(1\d{3}|20\d{2})\b", re.IGNORECASE
)


def answer_part(question: str, text: str) -> tuple[str, ...]:
    """The facts of ``text`` in the slot ``question`` asks for (``quote.answer_type``), that the question
    does not hold."""
    kind = answer_type(question)
    asked = _asked(question)
    found = [f for f in facts(text) if f.lower() not in asked and stem(f) not in asked]
    if kind == "number":
        found = [f for f in found if f[0].isdigit()] + [
            w for w in words(text) if is_number_word(w) and stem(w) not in asked
        ]
        if _COUNT.search(question):  # a count: a date is no answer
            dates = set(_DATE_YEAR.findall(text))
            found = [f for f in found if f not in dates and f.lower() not in _MONTHS]
    elif kind == "name":
        found = [f for f in found if not f[0].isdigit()]
    return tuple(dict.fromkeys(found))


_TOKEN = re.compile(r"[A-Za-z0-9_]+(?:-[A-Za-z0-9_]+)*")  # "PURPLE-OTTER-42": one code, in any script's text


def answering_spans(question: str, text: str) -> tuple[tuple[int, int], ...]:
    """The spans of ``text`` (start, end; in order, apart) that hold its answer part for ``question``: each
    fact where it stands as a whole token (a "42" in "2042" is not it), widened to the Latin code it is a
    part of ("42" of "PURPLE-OTTER-42" marks the code). Chinese and Hindi text: the same, by characters."""
    wanted = set(answer_part(question, text))
    spans = sorted(
        {(m.start(), m.end()) for m in _TOKEN.finditer(text) if any(_holds(m.group(), f) for f in wanted)}
        | {span for f in wanted if not _TOKEN.fullmatch(f) for span in _places(text, f)}
    )
    apart: list[tuple[int, int]] = []
    for start, end in spans:
        if apart and start <= apart[-1][1]:
            apart[-1] = (apart[-1][0], max(end, apart[-1][1]))
        else:
            apart.append((start, end))
    return tuple(apart)


def _holds(token: str, fact: str) -> bool:
    """The Latin token is the fact, or a code with the fact as one of its parts."""
    return token == fact or fact in token.split("-")


def _places(text: str, fact: str) -> list[tuple[int, int]]:
    """Where a fact that is no Latin token (a Chinese name, a number with a separator) stands in ``text``."""
    return [(m.start(), m.end()) for m in re.finditer(re.escape(fact), text)]


def _own(question: str, sentence: str) -> set[str]:
    """The sentence's content stems beyond the question's and the words about the answer itself."""
    return stems(MARKER.sub(" ", sentence)) - stems(question) - ABOUT


def restates(question: str, sentence: str) -> bool:
    """The sentence holds words, and none of them (nor any fact) beyond the question's."""
    said = stems(MARKER.sub(" ", sentence)) - ABOUT
    return bool(said) and not _own(question, sentence) and not answer_part(question, sentence)


def addresses(question: str, sentence: str) -> bool:
    """The sentence is about what the question asks: half of the question's words or more, or only
    words about the answer and facts ("The answer is: 1013")."""
    asked = stems(question) - ABOUT
    said = stems(MARKER.sub(" ", sentence)) - ABOUT
    if asked and len(asked & said) >= len(asked) / 2:
        return True
    held = {stem(f) for f in facts(sentence)}
    return bool(facts(sentence)) and said <= held | asked


def about_another(question: str, sentence: str) -> bool:
    """The sentence holds half or more of the question's words that are not names, less than half of
    the names the question gives (in any case: "New Haven" is not "New York") and other names in their
    place: it answers the same question asked
    of another subject. A sentence that names nothing but its answer, or a question that names nothing,
    says nothing here (nor does a script without capitals: it has no names)."""
    asked = {n.lower() for n in names(question)}
    text = MARKER.sub(" ", sentence)
    if not asked or sum(_holds_name({n}, text) for n in asked) >= len(asked) / 2:
        return False
    plain = stems(question) - {stem(n) for n in asked} - ABOUT
    if not plain or len(plain & stems(text)) < len(plain) / 2:
        return False
    return any(n.lower() not in asked and stem(n) not in plain for n in names(text))


def answer_shaped(question: str, passage: str, query: str = "") -> bool:
    """The passage names the question's subject (its names, else half of its words) and holds an
    answer part: a passage a decline must not call silent. ``query``: the conversation's standalone
    query; a follow-up that names nothing ("What language did they speak?" after a question about the
    Normans) has its subject there, in the names the conversation added ("Normans")."""
    if not answer_part(question, passage):
        return False
    if _names_subject(question, passage):
        return True
    added = {n.lower() for n in names(query)} - {n.lower() for n in names(question)}
    return not names(question) and bool(added) and _holds_name(added, passage)


def _holds_name(asked_names: set[str], passage: str) -> bool:
    lower = {w.lower() for w in words(passage)}
    return bool(asked_names & lower) or bool({stem(n) for n in asked_names} & stems(passage))


def _names_subject(question: str, passage: str) -> bool:
    asked_names = {n.lower() for n in names(question)}
    if asked_names:
        return _holds_name(asked_names, passage)
    asked = {stem(w) for w in content_words(question)}
    return bool(asked) and len(asked & stems(passage)) >= len(asked) / 2
