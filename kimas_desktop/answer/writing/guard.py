"""A guard on a streamed answer: stop when a small model loops or starts writing a transcript.

Small chat models (SmolLM2-135M) repeat one line until the token limit, or go on as if the prompt were a
chat log ("user: … / assistant: …", "Question: …"). ``StreamGuard`` watches the deltas and says when to
stop; it holds back only the start of a line that could still become such a marker, so the user never sees
one. ``text`` is the answer without the repeated or transcript part.

Two kinds of repetition stop it: a finished line or sentence written again, and a loop at the end of the
text whatever its punctuation (issue 69: "最大的数据集," streamed 46 times, "KAG-Builder:[3] KAG-Solver:[1]
KAG-Model:[3]" 17 times, neither a sentence): the same characters written back to back, three times when
they are short, twice from ``_LONG_UNIT`` characters on. The first copy stays; the copies after it go.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["StreamGuard", "guard_stream", "loop_start"]

# A line that starts a new speaker turn or a new question: the model is writing a transcript.
_MARKER = re.compile(
    r"^\s*(?:[#>*_-]\s*)*(user|assistant|system|human|ai|question|q|answer|a|sources?|earlier conversation)"
    r"\s*\d*\s*[:：]",
    re.IGNORECASE,
)
_MARKER_WORDS = (
    "user:", "assistant:", "system:", "human:", "ai:", "question:", "q:", "answer:", "a:", "source:",
    "sources:", "earlier conversation:", "earlier questions",
)  # fmt: skip


def _may_become_marker(line: str) -> bool:
    """Whether ``line`` (a line start, no newline yet) could still grow into a transcript marker."""
    head = " ".join(line.lstrip(" \t#>*_-").lower().split())
    head = re.sub(r"\s*\d+$", "", head)  # "Question 2" → "question"
    return bool(head) and any(w.startswith(head) for w in _MARKER_WORDS)


_UNIT = re.compile(r"[^\n.!?。！？]+[.!?。！？]*")


_LONG_UNIT = 20  # a unit this long written twice in a row is a loop; a shorter one needs three copies
_LOOP_SPAN = 20  # the fewest characters a loop of short units spans ("哈哈" needs ten copies)
_TAIL = 1_200  # how far back a loop is looked for


def loop_start(text: str) -> int | None:
    """Where the copies of a loop at the end of ``text`` begin (the first copy ends there); None when
    the text does not end in a loop."""
    tail = text[-_TAIL:]
    n, offset = len(tail), len(text) - len(tail)
    for p in range(2, n // 2 + 1):
        if tail[-1] != tail[-1 - p]:
            continue  # not periodic with p: skip the slices (this runs on every delta)
        unit = tail[n - p :]
        if not unit.strip():
            continue
        copies = 1
        while (copies + 1) * p <= n and tail[n - (copies + 1) * p : n - copies * p] == unit:
            copies += 1
        need = 2 if p >= _LONG_UNIT else max(3, -(-_LOOP_SPAN // p))
        if copies >= need:
            start = n - copies * p  # back to where the loop began: its first copy is kept whole
            while start > 0 and tail[start - 1] == tail[start - 1 + p]:
                start -= 1
            cut = start + p  # and on to the end of its word ("hermes." begins as "s. The … herme")
            while cut < min(n, start + 2 * p - 1) and tail[cut - 1].isascii() and tail[cut - 1].isalnum():
                cut += 1
            return offset + cut
    return None


def _key(unit: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", unit.lower()).split())


class StreamGuard:
    """Feed deltas with ``feed``; it returns what may be shown now. ``stopped`` turns True when the
    answer loops (a line or sentence of 12+ characters comes ``max_repeats`` times) or a transcript
    marker begins a line after the first."""

    def __init__(self, *, max_repeats: int = 2) -> None:
        self._max = max_repeats
        self._shown = ""  # text released to the reader
        self._held = ""  # the start of a line that could still become a marker
        self._seen: dict[str, int] = {}
        self._checked = 0  # characters of ``_shown`` already split into units
        self.stopped = False
        self.reason = ""

    @property
    def text(self) -> str:
        return self._shown.strip() if self.stopped else (self._shown + self._held).strip()

    def _cut_repeats(self) -> None:
        """Count finished lines/sentences; on the N-th repeat, drop it and stop. A loop at the end of the
        text (``loop_start``) stops it too."""
        body = self._shown
        at = loop_start(body)
        if at is not None:
            self._shown = body[:at].rstrip()
            self.stopped, self.reason = True, "repetition"
            return
        for m in _UNIT.finditer(body, self._checked):
            unit = m.group()
            if m.end() == len(body) and not re.search(r"[.!?。！？]\s*$", unit):
                break  # unfinished: look again when more text came
            self._checked = m.end()
            key = _key(unit)
            if len(key) < 12:
                continue
            self._seen[key] = self._seen.get(key, 0) + 1
            if self._seen[key] >= self._max:
                self._shown = body[: m.start()].rstrip()
                self.stopped, self.reason = True, "repetition"
                return

    def feed(self, delta: str) -> str:
        if self.stopped:
            return ""
        before = len(self._shown)
        pending = self._held + delta
        self._held = ""
        while pending:
            line_start = len(self._shown) == 0 or self._shown.endswith("\n")
            newline = pending.find("\n")
            line = pending if newline < 0 else pending[: newline + 1]
            if line_start and self._shown.strip() and _MARKER.match(line):
                self.stopped, self.reason = True, "transcript"
                break
            if line_start and self._shown.strip() and newline < 0 and _may_become_marker(line):
                self._held = line  # might still become "user:"; wait for more
                break
            self._shown += line
            pending = pending[len(line) :]
        if not self.stopped:
            self._cut_repeats()
        if self.stopped:
            return self._shown[before:] if len(self._shown) > before else ""
        return self._shown[before:]

    def flush(self) -> str:
        """At the end of the stream: release a held line start (it did not become a marker)."""
        if self.stopped or not self._held:
            return ""
        held, self._held = self._held, ""
        self._shown += held
        self._cut_repeats()
        return held if not self.stopped else ""


def guard_stream(deltas: Iterator[str], guard: StreamGuard) -> Iterator[str]:
    """``deltas`` through ``guard``; stops pulling (and so stops the model) once the guard has stopped."""
    for delta in deltas:
        out = guard.feed(delta)
        if out:
            yield out
        if guard.stopped:
            return
    rest = guard.flush()
    if rest:
        yield rest
