"""``find_passage``: where a cited passage is in a text the viewer shows (issue 46).

The cited words come from the index (pypdf's text of a page, a parser's paragraphs, a chunk's lines) and
the text shown comes from another reader (pdfium's text layer, the file's own lines): spacing, line
breaks, hyphenation, punctuation and case differ. So both are compared with only their letters, digits
and marks kept (every script: Chinese has no spaces to lose, Devanagari's vowel signs are marks), and the
match is mapped back to offsets in the text shown.
"""

from __future__ import annotations

import unicodedata

__all__ = ["find_passage"]

PREFIX = 80  # a passage not found whole is looked for by its first words (a chunk's text is cut short)
SHORTEST = 4  # fewer kept characters than this match too much to mean anything


def _folded(text: str) -> tuple[str, list[int]]:
    """``text`` with only letters, digits and marks, lower-cased; and each kept character's offset."""
    kept: list[str] = []
    at: list[int] = []
    for i, ch in enumerate(text):
        if unicodedata.category(ch)[0] in "LNM":
            for low in ch.lower():
                kept.append(low)
                at.append(i)
    return "".join(kept), at


def find_passage(text: str, passage: str) -> tuple[int, int] | None:
    """``(start, end)`` of ``passage`` in ``text`` (``text[start:end]`` shows it), or None.

    Looked for whole, then by its first ``PREFIX`` and ``PREFIX // 2`` kept characters."""
    hay, at = _folded(text)
    needle, _ = _folded(passage)
    for size in (len(needle), PREFIX, PREFIX // 2):
        part = needle[:size]
        if len(part) < SHORTEST:
            return None
        k = hay.find(part)
        if k >= 0:
            end = at[k + len(part) - 1] + 1
            whole = size == len(needle)
            tail = passage.rstrip()[-1:]  # the closing mark of a whole passage ("." or "。") is part of it
            return at[k], end + (whole and end < len(text) and text[end] == tail and bool(tail))
    return None
