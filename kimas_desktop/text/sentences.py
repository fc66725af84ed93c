"""Split a chunk's text into sentences that keep their character offsets in the chunk: the one sentence
splitter of the project (chunking cuts an overlong line with it too).

The grounded quote and the support check work on sentences, and the UI highlights a quoted sentence inside
its chunk, so every ``Sentence`` is a verbatim slice: ``chunk_text[s.start:s.end] == s.text``.

Three kinds of text reach us:
- **prose** (PDF pages, plain text, HTML): lines are wrapped anywhere, so the lines of a paragraph are read
  as one run and cut at sentence ends (``.`` ``!`` ``?`` and their CJK forms, not after an abbreviation, an
  initial or inside a number). A blank line always ends a sentence.
- **Markdown**: as prose, but a heading, a list item, a table row or a line of a code fence stands alone.
- **code**: one sentence per non-blank line (a quote of code is a line, not a whole function).

Sentence ends of every script count: ``。！？；`` and the danda ``।``/``॥`` need no space after them.
A sentence longer than ``max_chars`` is cut at ``;`` or ``:`` (or a Chinese comma), then at word
boundaries, so a quote stays readable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kimas_desktop.text.file_types import TextKind, text_kind
from kimas_desktop.types import Chunk

__all__ = ["Sentence", "TextKind", "chunk_sentences", "ends_sentence", "split_sentences", "text_kind"]

# Words that end with a period without ending the sentence (compared lower-case, without the period).
_ABBREVIATIONS = frozenset(
    """mr mrs ms dr prof sr jr st mt ft vs etc e.g i.e cf al fig figs no nos vol vols p pp ch sec approx
    ca est inc ltd co corp jan feb mar apr jun jul aug sep sept oct nov dec u.s u.k a.m p.m ph.d gen col
    lt sgt capt rev gov sen rep dept univ""".split()
)

# A sentence end: terminal punctuation, closing quotes/brackets, then whitespace. The enders of scripts
# written without spaces need no space after them: 。！？； (and the half-width ｡), the danda । and ॥
# (Devanagari, Bengali…), Arabic ؟ and ۔, Ethiopic ።; so does ``!``/``?`` written straight before a
# Chinese or Japanese character ("是什么?KAG 是…").
_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_END = re.compile(
    r"[.!?…]+[\"'”’)\]]*(?=\s)"
    r"|[。！？；｡।॥؟۔።]+[」』”’）)\]\"']*"
    rf"|[!?]+[」』”’）)\]\"']*(?=[{_CJK}])"
)
# A text that ends as a sentence does, in any script: its last mark and any closing quotes or brackets.
_ENDS = re.compile(r"[.!?…。！？；｡।॥؟۔።][\"'”’）)\]」』]*\s*$")
_MD_STANDALONE = re.compile(r"^\s{0,3}(#{1,6}\s|[-*+]\s|\d{1,3}[.)]\s|>|\|)")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_LONG_CUT = re.compile(rf"[;:](?=\s)|[，、：；]|[,;:](?=[{_CJK}])")  # the last two: clauses of unspaced text


@dataclass(frozen=True)
class Sentence:
    """A verbatim slice of a chunk's text: ``text == chunk_text[start:end]``; ``index`` is its position."""

    text: str
    start: int
    end: int
    index: int = 0


def ends_sentence(text: str) -> bool:
    """Whether ``text`` ends with a sentence's end mark of any script ("." "？" "।" …), not a label
    ("Tip", "Note") or a heading written without one."""
    return _ENDS.search(text) is not None


def _is_sentence_end(text: str, match: re.Match[str]) -> bool:
    """Whether the punctuation at ``match`` ends a sentence (not 'Dr.', 'J. Smith', '3.5', 'e.g.')."""
    if not match.group().startswith("."):
        return True
    before = text[: match.start()]
    word = re.search(r"(\S+)$", before)
    token = word.group(1).lower().lstrip("(\"'“‘[") if word else ""
    if token in _ABBREVIATIONS or token.rstrip(".") in _ABBREVIATIONS:
        return False
    if len(token) == 1 and token.isalpha():  # an initial: "J. R. R. Tolkien"
        return False
    after = text[match.end() :].lstrip()
    # The next sentence starts with a capital, a digit, a quote or a bracket; a lower-case start means
    # the period did not end one ("approx. ten", "the U.S. army").
    return not after or not after[0].islower()


def _spans_of_run(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Sentence spans inside ``text[start:end]`` (a run of lines read as one paragraph)."""
    spans: list[tuple[int, int]] = []
    cursor = start
    for match in _END.finditer(text, start, end):
        if _is_sentence_end(text[:end], match):
            spans.append((cursor, match.end()))
            cursor = match.end()
    spans.append((cursor, end))
    return spans


def _cut_long(text: str, start: int, end: int, max_chars: int) -> list[tuple[int, int]]:
    if end - start <= max_chars:
        return [(start, end)]
    cuts = [m.end() for m in _LONG_CUT.finditer(text, start, end)]
    pieces: list[tuple[int, int]] = []
    cursor = start
    for cut in cuts:
        if cut - cursor >= max_chars // 3:
            pieces.append((cursor, cut))
            cursor = cut
    pieces.append((cursor, end))
    out: list[tuple[int, int]] = []
    for a, b in pieces:
        while b - a > max_chars:  # no punctuation left to cut at: cut at the last space that fits
            space = text.rfind(" ", a + max_chars // 2, a + max_chars)
            cut = space if space > a else a + max_chars
            out.append((a, cut))
            a = cut
        out.append((a, b))
    return out


def _line_spans(text: str) -> list[tuple[int, int]]:
    spans = []
    pos = 0
    for line in text.split("\n"):
        spans.append((pos, pos + len(line)))
        pos += len(line) + 1
    return spans


def _runs(text: str, kind: TextKind) -> list[tuple[int, int]]:
    """Spans of text that sentences never cross: paragraphs, and for Markdown/code single lines."""
    runs: list[tuple[int, int]] = []
    current: tuple[int, int] | None = None
    in_fence = False
    for a, b in _line_spans(text):
        line = text[a:b]
        alone = kind == "code" or in_fence
        if kind == "markdown":
            if _FENCE.match(line):  # the fence line itself is markup, never a sentence
                in_fence = not in_fence
                if current is not None:
                    runs.append(current)
                    current = None
                continue
            elif _MD_STANDALONE.match(line):
                alone = True
        if not line.strip() or alone:
            if current is not None:
                runs.append(current)
                current = None
            if line.strip():
                runs.append((a, b))
            continue
        current = (current[0], b) if current is not None else (a, b)
    if current is not None:
        runs.append(current)
    return runs


def _strip(text: str, a: int, b: int) -> tuple[int, int]:
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return a, b


def split_sentences(text: str, kind: TextKind = "prose", *, max_chars: int = 400) -> list[Sentence]:
    """The sentences of ``text`` in order, each a verbatim slice with its offsets; empty ones dropped."""
    out: list[Sentence] = []
    for run_start, run_end in _runs(text, kind):
        spans = [(run_start, run_end)] if kind == "code" else _spans_of_run(text, run_start, run_end)
        for a, b in spans:
            a, b = _strip(text, a, b)
            for c, d in _cut_long(text, a, b, max_chars):
                c, d = _strip(text, c, d)
                if d > c and any(ch.isalnum() for ch in text[c:d]):
                    out.append(Sentence(text[c:d], c, d, len(out)))
    return out


def chunk_sentences(chunk: Chunk, *, max_chars: int = 400) -> list[Sentence]:
    """The sentences of a chunk, split as its file's kind reads (``file_types.text_kind``)."""
    return split_sentences(chunk.text, text_kind(chunk.source), max_chars=max_chars)
