"""Markdown: one block per top-level element (heading, paragraph, list, code fence, table, quote), each
carrying the path of headings above it and its source line numbers. The text is the Markdown source of the
element, so code fences and tables stay intact."""

from __future__ import annotations

from collections.abc import Iterator

from markdown_it import MarkdownIt
from markdown_it.token import Token

from indexer.documents import Block, join_heading
from indexer.parse_text import decode_text, line_blocks, split_lines


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
        if text.strip():
            yield Block(text, line_start=skip + start + 1, heading=join_heading(path))
