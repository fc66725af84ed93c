"""An answer's text as the chat shows it, in the question's language (issue 60). Pure functions.

- Without the English preamble the model puts before an answer in another language: the 135M model starts
  a Chinese answer with "The answer is: …".
- Without the prompt's fence around the sources (``<documents>``, ``</documents>``), which the 135M model
  sometimes writes back (issue 60: "</documents>" in an answer to "搜索引擎返回什么?").
- The places a decline names ("[1] paper.txt, lines 2-8", written by ``kimas_desktop.answer.outcome`` with
  ``Chunk.locator``) said in the question's language ("第 2-8 行"), the file's name shown as ``visible_name``
  writes it.

- The quote's phrase that answers the question marked (``answering_html``; issue 69: with the embedded
  model the quote is the answer, so the words that answer show at a glance).

The stored answer keeps what was written (``kimas ask --json`` and the API give it as it is).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from kimas_desktop.answer.signals.answer_slot import answering_spans
from kimas_desktop.answer.writing.summarizer import CLOSE, OPEN
from kimas_desktop.text.visible import visible_name
from kimas_desktop.types import Quote, SentenceSupport
from ui.chat.trace_view import locator
from ui.markup import esc_html

__all__ = ["answering_html", "places_said", "preamble_length", "without_preamble"]

# Two to eight English words ending in a colon ("The answer is:", "According to the document:"), "Answer:",
# or "The answer is" alone, at the very start. One other word and a colon may be the answer's own term
# ("RAG: 检索增强生成").
_PREAMBLE = re.compile(
    r"\s*(?:[A-Za-z]+(?:[ ,]+[A-Za-z']+){1,7}\s*[:：]|(?:answer|response|reply)\s*[:：]|the answer is\b)\s*",
    re.IGNORECASE,
)
_ENGLISH = re.compile(r"[A-Za-z']+(?:[ ,]+[A-Za-z']+){2}")  # three English words in a row
_FENCE = re.compile(rf"[ \t]*(?:{re.escape(OPEN)}|{re.escape(CLOSE)})[ \t]*")


def preamble_length(answer: str, language: str) -> int:
    """How many characters of ``answer`` are an English preamble before the answer to a question in
    ``language`` (0: none): before "张长旺" or "42", not before an English sentence (the model answered in
    English; that is its answer, not a preamble to one) or nothing (yet, while it streams). An answer to
    an English question keeps every word."""
    if language == "en":
        return 0
    found = _PREAMBLE.match(answer)
    if found is None:
        return 0
    rest = answer[found.end() :]
    if not rest.strip() or _ENGLISH.match(rest):
        return 0
    return found.end()


def _without_fences(answer: str, support: Sequence[SentenceSupport]) -> tuple[str, list[SentenceSupport]]:
    """``answer`` without the prompt's fence tags (a space stands for one between two words), and
    ``support`` moved to match; a sentence that was only a tag is dropped."""
    if OPEN not in answer and CLOSE not in answer:
        return answer, list(support)
    out: list[str] = []
    at: list[int] = []  # at[i]: where answer[i] lands in the text without the tags
    last = size = 0
    for m in [*_FENCE.finditer(answer), None]:
        piece = answer[last : m.start() if m else len(answer)]
        at += range(size, size + len(piece))
        out.append(piece)
        size += len(piece)
        if m is None:
            break
        inside = m.start() > 0 and m.end() < len(answer)
        glue = " " if inside and not answer[m.start() - 1].isspace() and not answer[m.end()].isspace() else ""
        at += [size] * (m.end() - m.start())
        out.append(glue)
        size += len(glue)
        last = m.end()
    at.append(size)
    text = "".join(out)
    moved = [
        replace(s, text=text[at[s.start] : at[s.end]], start=at[s.start], end=at[s.end])
        for s in support
        if text[at[s.start] : at[s.end]].strip()
    ]
    return text, moved


def without_preamble(
    answer: str, support: Sequence[SentenceSupport], language: str
) -> tuple[str, list[SentenceSupport]]:
    """``answer`` without the prompt's fence tags and its English preamble (``preamble_length``), and
    ``support`` moved to match: a sentence that began inside the preamble keeps only its part after it."""
    answer, support = _without_fences(answer, support)
    cut = preamble_length(answer, language)
    if not cut:
        return answer, list(support)
    moved = []
    for s in support:
        if s.end <= cut:
            continue
        if s.start >= cut:
            moved.append(replace(s, start=s.start - cut, end=s.end - cut))
        else:
            moved.append(replace(s, text=s.text[cut - s.start :], start=0, end=s.end - cut))
    return answer[cut:], moved


def places_said(answer: str, quotes: Sequence[Quote], language: str) -> str:
    """``answer`` with each place a decline names for ``quotes`` ("[1] paper.txt, lines 2-8") said in
    ``language``, its file's name as ``visible_name`` shows it: the words ``kimas_desktop.answer.outcome``
    writes for a quote, replaced whole."""
    for q in quotes:
        name, where = Path(q.chunk.source).name, q.chunk.locator
        said = where if language == "en" or not where else locator(q.chunk, language) or where
        written = ", ".join(x for x in (name, where) if x)
        shown = ", ".join(x for x in (visible_name(name), said) if x)
        if shown != written:
            answer = answer.replace(f"[{q.n}] {written}", f"[{q.n}] {shown}")
    return answer


def answering_html(text: str, question: str) -> str:
    """A quote's ``text``, escaped (``esc_html``), with the phrase that answers ``question`` marked
    (``answer_slot.answering_spans``)."""
    pieces, at = [], 0
    for start, end in answering_spans(question, text):
        pieces.append(esc_html(text[at:start]))
        pieces.append(f"<mark class='kimas-answering'>{esc_html(text[start:end])}</mark>")
        at = end
    return "".join(pieces) + esc_html(text[at:])
