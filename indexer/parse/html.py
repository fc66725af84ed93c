"""HTML: visible text only (stdlib ``html.parser``), one block per block-level element, with the path of
``h1``–``h6`` headings above it. Scripts, styles and navigation (``nav``, ``role="navigation"``, Sphinx
sidebars) are left out so manuals do not repeat their menus in every chunk. A table becomes one block of
readable rows ("Header: value; Header: value")."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser

from indexer.parse.blocks import Block, join_heading
from indexer.parse.tables import table_cells, table_lines
from indexer.parse.text import decode_text

_SKIP_TAGS = {"script", "style", "noscript", "template", "svg", "head", "nav", "footer", "button", "select"}
_SKIP_ROLES = {"navigation", "search", "banner", "contentinfo"}
_SKIP_CLASSES = {"sphinxsidebar", "related", "footer", "headerlink", "navigation", "toc-backref"}
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
_BLOCK = {
    "address", "article", "aside", "blockquote", "body", "caption", "dd", "details", "dialog", "div", "dl",
    "dt", "fieldset", "figcaption", "figure", "form", "header", "hr", "li", "main", "ol", "p", "pre",
    "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "title", "tr", "ul", "br",
}  # fmt: skip
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_SPACE = re.compile(r"\s+")


class _TextCollector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[Block] = []
        self._parts: list[str] = []
        self._skip_tag: str | None = None
        self._skip_depth = 0
        self._pre = 0
        self._heading_level = 0
        self._path: list[str] = []
        # The outermost table being read: its rows of cells (a nested table's text joins its cell).
        self._table_depth = 0
        self._rows: list[list[str]] = []
        self._line: int | None = None  # source line of the block's first text (citations show lines)
        self._table_line: int | None = None
        self._cell_open = False  # a td/th was opened and its text not yet taken (it may be empty)

    def _skipped(self, tag: str, attrs: list[tuple[str, str | None]]) -> bool:
        if tag in _SKIP_TAGS:
            return True
        values = dict(attrs)
        if (values.get("role") or "") in _SKIP_ROLES:
            return True
        classes = set((values.get("class") or "").split())
        return bool(classes & _SKIP_CLASSES)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._skip_tag is not None:
            if tag == self._skip_tag:
                self._skip_depth += 1
            return
        if tag not in _VOID and self._skipped(tag, attrs):
            self._skip_tag, self._skip_depth = tag, 1
            return
        if tag == "table":
            if self._table_depth == 0:
                self._flush()
                self._rows = []
                self._table_line = self.getpos()[0]
            self._table_depth += 1
            return
        if self._table_depth:
            self._table_start(tag)
            return
        if tag in _HEADINGS or tag in _BLOCK:
            self._flush()
        if tag in _HEADINGS:
            self._heading_level = int(tag[1])
        elif tag == "pre":
            self._pre += 1

    def handle_endtag(self, tag: str) -> None:
        if self._skip_tag is not None:
            if tag == self._skip_tag:
                self._skip_depth -= 1
                if self._skip_depth == 0:
                    self._skip_tag = None
            return
        if tag == "table" and self._table_depth:
            self._table_depth -= 1
            if self._table_depth == 0:
                self._cell_end()
                lines, cells = table_lines(self._rows), table_cells(self._rows)
                self._rows = []
                if lines:
                    heading = join_heading(self._path)
                    block = Block("\n".join(lines), line_start=self._table_line, heading=heading, table=cells)
                    self.blocks.append(block)
            return
        if self._table_depth:
            if tag in ("td", "th") and self._table_depth == 1:
                self._cell_end()
            elif tag in _BLOCK:
                self._parts.append(" ")
            return
        if tag in _HEADINGS and self._heading_level:
            title = _SPACE.sub(" ", "".join(self._parts)).strip()
            level = self._heading_level
            self._heading_level = 0
            if title:
                self._path = [*self._path[: level - 1], *([""] * max(0, level - 1 - len(self._path))), title]
            self._flush()
        elif tag in _BLOCK:
            self._flush()
            if tag == "pre" and self._pre:
                self._pre -= 1

    def handle_data(self, data: str) -> None:
        if self._skip_tag is None:
            if self._line is None and data.strip():
                self._line = self.getpos()[0] + data[: len(data) - len(data.lstrip())].count("\n")
            self._parts.append(data)

    def _table_start(self, tag: str) -> None:
        if self._table_depth > 1:
            if tag in _BLOCK:
                self._parts.append(" ")
        elif tag == "tr":
            self._cell_end()
            self._rows.append([])
        elif tag in ("td", "th"):
            self._cell_end()
            self._cell_open = True
        elif tag in _BLOCK:
            self._parts.append(" ")

    def _cell_end(self) -> None:
        """Moves the text read so far into the current row (a row is started when a cell has none)."""
        text = _SPACE.sub(" ", "".join(self._parts).replace("¶", "")).strip()
        self._parts, self._line = [], None
        opened, self._cell_open = self._cell_open, False
        if text or opened:  # an empty cell keeps its column
            if not self._rows:
                self._rows.append([])
            self._rows[-1].append(text)

    def _flush(self) -> None:
        raw = "".join(self._parts).replace("¶", "")
        line, self._parts, self._line = self._line, [], None
        text = raw.strip("\n") if self._pre else _SPACE.sub(" ", raw).strip()
        if text.strip():
            self.blocks.append(Block(text, line_start=line, heading=join_heading(self._path)))

    def close(self) -> None:
        super().close()
        self._flush()


def parse_html(data: bytes) -> Iterator[Block]:
    collector = _TextCollector()
    collector.feed(decode_text(data))
    collector.close()
    return iter(collector.blocks)
