"""What a model copies from its prompt into its answer and the app must not show as the model's: source
labels, and citation markers that point to no source (issues 72 and 70), dropped as the answer streams.

- The prompt names each source as ``[n] (file.txt:1-2)``. A small model writes such a label back into its
  answer, or an older form of it ("[1] (agentic-rag-pattern.zh.txt, lines 1-2)"), in English words inside a
  Chinese answer. The app draws its own citation markers and sources, so a parenthesis that only says where
  a source is (a file of the prompt, or "lines n-m", "p. n") is the prompt's, not the answer's: it is
  dropped. The ``[n]`` before it stays: the renderers read that as the model's citation marker.
- Citation markers belong to the app: a marker (``[9]``, ``【9】``, ``[^9]``) whose number is none of the
  prompt's sources was copied from a document's own text ("The backups are kept for 7 days only [9]."). It
  is dropped, and where it stood is kept in ``EchoFilter.dropped``: the sentence there is unsupported,
  whatever wrote it.

An open parenthesis or bracket (and the spaces before it) is held back until it closes, for at most
``_HOLD`` characters, so nothing is shown and then taken back.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator

__all__ = ["EchoFilter", "is_label", "points_nowhere"]

_HOLD = 240  # an open parenthesis longer than this is the answer's own
_PAIRS = {"(": ")", "（": "）", "[": "]", "【": "】"}
_PLACE = re.compile(
    r"(?:\blines?\s*\d+(?:\s*[-–~]\s*\d+)?|\bpp?\.\s*\d+|第\s*\d+(?:\s*[-–~]\s*\d+)?\s*[行页頁])",
    re.IGNORECASE,
)
_FILE = re.compile(r"^[\w.\-]+\.[A-Za-z][A-Za-z0-9]{0,4}(?::\d+(?:[-–]\d+)?)?\s*(?:[,，:;；]|$)")
_NUMBERS = re.compile(r"^\s*\^?\d+(?:\s*[,;，]\s*\d+)*\s*$")


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


def points_nowhere(inside: str, sources: int) -> bool:
    """Whether a bracket holding ``inside`` is a citation marker with a number that is none of the
    ``sources`` (numbered from 1)."""
    if not _NUMBERS.match(inside):
        return False
    return any(not 1 <= int(n) <= sources for n in re.findall(r"\d+", inside))


def _closing(text: str, start: int) -> int:
    """Where the parenthesis or bracket opened at ``start`` closes: -1 if not yet, -2 if it never will (a
    newline, another opening, or too long)."""
    close = _PAIRS[text[start]]
    for i in range(start + 1, min(len(text), start + _HOLD)):
        ch = text[i]
        if ch == close:
            return i
        if ch == "\n" or ch in _PAIRS:
            return -2
    return -1 if len(text) - start < _HOLD else -2


class EchoFilter:
    """Feed the model's deltas through ``stream``; ``sources``: how many numbered sources the prompt gave
    (None: markers are not checked), ``names``: their file names."""

    def __init__(self, names: Collection[str] = (), sources: int | None = None) -> None:
        self._names = names
        self._sources = sources
        self._shown = 0  # characters released so far
        self.dropped: list[int] = []  # where, in the released text, a marker pointing nowhere stood

    def _drops(self, opener: str, inside: str) -> tuple[bool, bool]:
        """(drop it, it was a marker pointing nowhere)."""
        if opener in "[【":
            nowhere = self._sources is not None and points_nowhere(inside, self._sources)
            return nowhere, nowhere
        return is_label(inside, self._names), False

    def _release(self, text: str, final: bool) -> tuple[str, str]:
        """What of ``text`` may be shown now, and what is held until more comes."""
        out: list[str] = []
        size = self._shown

        def put(piece: str) -> None:
            nonlocal size
            out.append(piece)
            size += len(piece)

        pos = 0
        while True:
            found = [i for i in (text.find(o, pos) for o in _PAIRS) if i >= 0]
            if not found:
                break
            at = min(found)
            end = _closing(text, at)
            if end == -1 and not final:
                head = text[pos:at]
                kept = head.rstrip(" \t")
                put(kept)
                return "".join(out), head[len(kept) :] + text[at:]
            if end < 0:  # never closes: shown as it is
                put(text[pos : at + 1])
                pos = at + 1
                continue
            drop, nowhere = self._drops(text[at], text[at + 1 : end])
            if drop:
                put(text[pos:at].rstrip(" \t"))
                if nowhere:
                    self.dropped.append(size)
            else:
                put(text[pos : end + 1])
            pos = end + 1
        rest = text[pos:]
        if final:
            put(rest)
            return "".join(out), ""
        kept = rest.rstrip(" \t")  # spaces wait: a label may follow them
        put(kept)
        return "".join(out), rest[len(kept) :]

    def stream(self, deltas: Iterator[str]) -> Iterator[str]:
        """``deltas`` without the labels and markers described in the module docstring."""
        held = ""
        for delta in deltas:
            shown, held = self._release(held + delta, final=False)
            self._shown += len(shown)
            if shown:
                yield shown
        shown, _ = self._release(held, final=True)
        self._shown += len(shown)
        if shown:
            yield shown
