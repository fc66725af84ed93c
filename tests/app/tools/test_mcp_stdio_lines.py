"""``kimas mcp`` reads its stdin a line at a time without holding an over-long line (issue 70): such a
line is read on in pieces, dropped and reported as ``None``; the lines after it are read as usual."""

from __future__ import annotations

import io
import tracemalloc

import anyio

from app.tools.mcp_stdio import read_lines


def lines_of(data: bytes, limit: int) -> tuple[list[bytes | None], int]:
    """What ``read_lines`` gives for ``data``, and the most memory it held meanwhile (bytes)."""
    wire = io.BytesIO(data)

    async def read() -> list[bytes | None]:
        return [line async for line in read_lines(wire, limit)]

    tracemalloc.start()
    try:
        lines = anyio.run(read)
        return lines, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_line_over_the_limit_is_dropped_unheld_and_the_next_lines_are_read() -> None:
    lines, peak = lines_of(
        b'{"id": 1}\n' + b"x" * 20_000_000 + b"\n\n" + "问题".encode() + b"\nlast", 1_000_000
    )
    assert lines == [b'{"id": 1}', None, b"", "问题".encode(), b"last"]
    assert peak < 3_000_000, peak  # the limit and a few pieces, not the 20 MB line


def test_a_line_at_the_limit_is_kept_and_one_byte_more_is_not() -> None:
    assert lines_of(b"a" * 1000 + b"\n" + b"b" * 1001, 1000)[0] == [b"a" * 1000, None]
