"""English on a page meant to be in another language (issue 60): a run of three or more English words that is
not a file name, a model name, a path or code, or one of the short English words the chat used to show
("Stopped.", "lines 19-27"), which a run of three would miss."""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["english_runs"]

_WORD = re.compile(r"[A-Za-z]+(?:['’-][A-Za-z]+)*")  # "don't", "built-in"; not "SmolLM2-135M", "a.txt"
_EDGES = "()[]{}<>,.;:!?\"'“”‘’«»…*_#`"
# Short English that stood in the Chinese chat (issue 60): each would be fewer than three words.
_SHORT = re.compile(r"\b(?:Stopped|Thinking|Sources|lines? \d+|p\. \d+|my documents|Answer from)\b")
_CUT = "\x00"  # what ``allowed`` text is replaced by: it ends a run


def _is_word(token: str) -> bool | None:
    """True: an English word; None: punctuation only (neither joins nor breaks a run); False: anything
    else (another script, a number, a file name, a model name, a path) ends a run."""
    if token == _CUT:
        return False
    core = token.strip(_EDGES)
    if not core or all(not ch.isalnum() for ch in core):
        return None
    return _WORD.fullmatch(core) is not None


def english_runs(text: str, allowed: Iterable[str] = ()) -> list[str]:
    """The English in ``text``: runs of three or more English words (on one line, between tokens of
    another script, numbers, file names, model names or paths), and the short English of ``_SHORT``.
    ``allowed`` (code shown on the page, the documents' own words) is taken out first."""
    for shown in sorted(allowed, key=len, reverse=True):
        if shown.strip():
            text = text.replace(shown, f" {_CUT} ")
    found: list[str] = []
    for line in text.splitlines():
        run: list[str] = []
        for token in [*line.split(), _CUT]:
            kind = _is_word(token)
            if kind is None:
                continue
            if kind:
                run.append(token)
                continue
            if len(run) >= 3:
                found.append(" ".join(run))
            run = []
        found += [m.group() for m in _SHORT.finditer(line)]
    return found
