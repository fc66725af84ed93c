"""Source labels a model copies from its prompt, dropped from the answer as it streams (issue 72).

The prompt names each source as ``[n] (file.txt:1-2)``. A small model writes such a label back into its
answer, or an older form of it ("[1] (agentic-rag-pattern.zh.txt, lines 1-2)"), in English words inside a
Chinese answer. The app draws its own citation markers and sources, so a parenthesis that only says where a
source is (a file of the prompt, or "lines n-m", "p. n") is the prompt's, not the answer's: it is dropped.
The ``[n]`` before it stays: the renderers read that as the model's citation marker.

``drop_labels`` holds back an open parenthesis (and the spaces before it) until it closes, for at most
``_HOLD`` characters, so a label is never shown and then taken back.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator

__all__ = ["drop_labels", "is_label"]

_HOLD = 240  # an open parenthesis longer than this is the answer's own
_OPEN, _CLOSE = "(（", ")）"
_PLACE = re.compile(
    r"(?:\blines?\s*\d+(?:\s*[-–~]\s*\d+)?|\bpp?\.\s*\d+|第\s*\d+(?:\s*[-–~]\s*\d+)?\s*[行页頁])",
    re.IGNORECASE,
)
_FILE = re.compile(r"^[\w.\-]+\.[A-Za-z][A-Za-z0-9]{0,4}(?::\d+(?:[-–]\d+)?)?\s*(?:[,，:;；]|$)")


def is_label(inside: str, names: Collection[str] = ()) -> bool:
    """Whether a parenthesis holding ``inside`` says where a source is: it names one of ``names`` (the
    prompt's file names), a file with a place, or only a place ("lines 3-5", "p. 2", "第 3-5 行")."""
    text = inside.strip()
    if not text or len(text) > _HOLD:
        return False
    folded = text.casefold()
    if any(n and n.casefold() in folded for n in names):
        return True
    if _FILE.match(text):
        return True
    place = _PLACE.search(text)
    return place is not None and len(text) - len(place.group()) <= 2  # the place and nothing else


def _closing(text: str, start: int) -> int:
    """Where the parenthesis opened at ``start`` closes: -1 if not yet, -2 if it never will (a newline,
    another opening, or too long)."""
    for i in range(start + 1, min(len(text), start + _HOLD)):
        ch = text[i]
        if ch in _CLOSE:
            return i
        if ch == "\n" or ch in _OPEN:
            return -2
    return -1 if len(text) - start < _HOLD else -2


def _release(text: str, names: Collection[str], final: bool) -> tuple[str, str]:
    """What of ``text`` may be shown now, and what is held until more comes."""
    out: list[str] = []
    pos = 0
    while True:
        found = [i for i in (text.find(o, pos) for o in _OPEN) if i >= 0]
        if not found:
            break
        at = min(found)
        end = _closing(text, at)
        if end == -1 and not final:
            head = text[pos:at]
            kept = head.rstrip(" \t")
            out.append(kept)
            return "".join(out), head[len(kept) :] + text[at:]
        if end < 0:  # not a label: shown as it is
            out.append(text[pos : at + 1])
            pos = at + 1
            continue
        if is_label(text[at + 1 : end], names):
            out.append(text[pos:at].rstrip(" \t"))
        else:
            out.append(text[pos : end + 1])
        pos = end + 1
    rest = text[pos:]
    if final:
        return "".join(out) + rest, ""
    kept = rest.rstrip(" \t")  # spaces wait: a label may follow them
    return "".join(out) + kept, rest[len(kept) :]


def drop_labels(deltas: Iterator[str], names: Collection[str] = ()) -> Iterator[str]:
    """``deltas`` without the source labels in them (see the module docstring)."""
    held = ""
    for delta in deltas:
        shown, held = _release(held + delta, names, final=False)
        if shown:
            yield shown
    shown, _ = _release(held, names, final=True)
    if shown:
        yield shown
