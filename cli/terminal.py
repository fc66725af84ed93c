"""Terminal-safe output: what the CLI prints is shown by the terminal, never obeyed by it.

The CLI prints text it does not control: passages and quotes from documents, file and folder names,
collection names, web pages, config values. A terminal acts on control characters in that text: ESC starts
sequences that set the window title (``ESC ]0;…BEL``), write the clipboard (OSC 52), hide or recolour text
or move the cursor; CR and BS overwrite what was already shown. So every human-readable line goes through
``shown``, which writes each C0 control character (except newline and tab), DEL and each C1 control
character as ``\\xNN`` (ESC is ``\\x1b``). ``say`` is ``print`` with that applied to what it prints;
``redraw`` draws a progress line in place (its own leading CR is the only one that reaches the terminal).

JSON output (``--json``) is escaped by JSON itself for C0; ``json_text`` also writes DEL, C1 and what
``visible_name`` escapes in a name (bidi controls, invisible characters, a spelling NFC would change) as
``\\uNNNN``, which JSON readers turn back into the same characters. Names in human-readable lines are
shown with ``visible_name`` where they are printed.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from typing import TextIO

from kimas_desktop.text.visible import visible_name

__all__ = ["SafeFormatter", "json_text", "redraw", "say", "shown"]

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # C0 but \t and \n, DEL, C1


def shown(text: str) -> str:
    """``text`` with each control character (but newline and tab) written visibly as ``\\xNN``."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def say(
    *parts: object, sep: str = " ", end: str = "\n", file: TextIO | None = None, flush: bool = False
) -> None:
    """``print``, with every part shown terminal-safe (``end`` and ``sep`` are the CLI's own)."""
    out = sys.stdout if file is None else file
    out.write(sep.join(shown(str(p)) for p in parts) + end)
    if flush:
        out.flush()


def redraw(line: str, file: TextIO | None = None) -> None:
    """Draw ``line`` in place of the current line (a progress bar): a CR, then ``line`` shown safe."""
    out = sys.stderr if file is None else file
    out.write("\r" + shown(line))
    out.flush()


def _json_escape(ch: str) -> str:
    """``ch`` as JSON writes it escaped (beyond the BMP: a surrogate pair)."""
    code = ord(ch)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def json_text(obj: object, indent: int | None = None) -> str:
    """``obj`` as JSON (UTF-8 kept readable) with DEL, C1 and what ``visible_name`` escapes written as JSON
    escapes too (JSON escapes C0 inside strings itself; a raw newline is the indent's)."""
    text = json.dumps(obj, ensure_ascii=False, indent=indent)
    return "\n".join(visible_name(line, _json_escape) for line in text.split("\n"))


class SafeFormatter(logging.Formatter):
    """Log lines on the terminal, shown safe (a log message may carry a file name or a document's text)."""

    def format(self, record: logging.LogRecord) -> str:
        return shown(super().format(record))
