"""Markdown: one block per top-level element (heading, paragraph, list, code fence, table, quote), each
carrying the path of headings above it and its source line numbers. The text is the Markdown source of the
element, so code fences stay intact; a table becomes readable rows ("Header: value; Header: value")."""

from __future__ import annotations

import re
from collections.abc import Iterator

from markdown_it import MarkdownIt
from markdown_it.token import Token

from indexer.parse.blocks import Block, join_heading
from indexer.parse.tables import table_cells, table_lines
from indexer.parse.text import decode_text, line_blocks, split_lines

_PIPE = re.compile(r"(?<!\\)\|")


def _row(line: str) -> list[str]:
    line = line.strip()
    line = line.removeprefix("|")
    if line.endswith("|") and not line.endswith("\\|"):
        line = line[:-1]
    return [cell.replace("\\|", "|").strip() for cell in _PIPE.split(line)]


def _table(lines: list[str]) -> str:
    """A pipe table as readable rows, line for line (the delimiter row becomes blank), so line numbers
    stay those of the source."""
    header = _row(lines[0])
    out = [" | ".join(c for c in header if c), ""]
    for line in lines[2:]:
        rows = table_lines([header, _row(line)])
        out.append(rows[1] if len(rows) > 1 else "")
    return "\n".join(out)


def _front_matter_end(lines: list[str]) -> int:
    """Number of lines taken by a YAML front matter block at the top (0 when there is none)."""
    if not lines or lines[0].strip() != "---":
        return 0
    for i in range(1, min(len(lines), 200)):
        if lines[i].strip() in ("---", "..."):
            return i + 1
    return 0


def _inline_text(token: Token) -> str:
    parts = [c.content for c in token.children or [] if c.type in ("text", "code_inline")]
    return "".join(parts).strip() or token.content.strip()


def parse_markdown(data: bytes) -> Iterator[Block]:
    lines = split_lines(decode_text(data))
    skip = _front_matter_end(lines)
    if skip:
        yield from line_blocks(lines[:skip])
    body = lines[skip:]
    tokens = MarkdownIt("commonmark").enable("table").parse("\n".join(body))
    path: list[str] = []  # heading text per level, index 0 = h1
    for i, token in enumerate(tokens):
        if token.level != 0 or token.map is None or token.nesting == -1:
            continue
        start, end = token.map
        if token.type == "heading_open":
            level = int(token.tag[1])
            title = _inline_text(tokens[i + 1]) if i + 1 < len(tokens) else ""
            path = [*path[: level - 1], *([""] * max(0, level - 1 - len(path))), title]
        text = "\n".join(body[start:end]).strip("\n")
        cells: tuple[tuple[str, ...], ...] = ()
        if token.type == "table_open" and end - start >= 2:
            text = _table(body[start:end])
            cells = table_cells([_row(line) for i, line in enumerate(body[start:end]) if i != 1])
        if text.strip():
            yield Block(text, line_start=skip + start + 1, heading=join_heading(path), table=cells)
