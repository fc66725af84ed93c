"""Plain text and source code: decode bytes, then split into blocks at blank lines, keeping line numbers."""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator

from indexer.parse.blocks import Block, SkipFile

_SNIFF = 8192
_UNASSIGNED = re.compile("[\udc80-\udcff]")  # bytes cp1252 leaves unassigned, as surrogateescape keeps them


def decode_text(data: bytes) -> str:
    """The text of a file, or ``SkipFile`` when it looks binary.

    UTF-8 (with or without BOM) first, UTF-16 when it has a BOM, then Windows-1252 for legacy 8-bit text
    as long as control characters stay rare (cp1252 is Latin-1 plus curly quotes, dashes and € in
    0x80-0x9F; its five unassigned bytes read as in Latin-1).
    """
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            raise SkipFile("binary content (invalid UTF-16)") from None
    head = data[:_SNIFF]
    if b"\x00" in head:
        raise SkipFile("binary content")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    controls = sum(1 for b in head if b < 32 and b not in (9, 10, 12, 13))
    if controls > len(head) // 100:
        raise SkipFile("binary content (not valid text in any supported encoding)")
    return _UNASSIGNED.sub(lambda m: chr(ord(m.group()) - 0xDC00), data.decode("cp1252", "surrogateescape"))


def split_lines(text: str) -> list[str]:
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def line_blocks(lines: list[str], *, first_line: int = 1, heading: str = "") -> Iterator[Block]:
    """Runs of non-blank lines as blocks, each knowing the line number it starts at."""
    start: int | None = None
    for i, line in enumerate([*lines, ""]):
        if line.strip():
            if start is None:
                start = i
        elif start is not None:
            yield Block("\n".join(lines[start:i]), line_start=first_line + start, heading=heading)
            start = None


def parse_plain(data: bytes) -> Iterator[Block]:
    """Plain text and source code alike: paragraphs (or code blocks) between blank lines."""
    return line_blocks(split_lines(decode_text(data)))
