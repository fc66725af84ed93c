"""Word (.docx, python-docx) and PowerPoint (.pptx, python-pptx) files, in reading order. Both come as a
``GuardedZip`` (indexer/parse/zip_guard.py) and run in the parser worker process, whose memory is capped.

.docx: headings (the built-in "Title" and "Heading N" styles, or an outline level) make the heading path;
paragraphs, list items ("- " before each) and tables (readable rows) follow in the order of the body.
.pptx: one page per slide (citations say "p. 3" for slide 3), its title as the heading; text frames, tables
and the speaker notes, shapes top to bottom. Images carry no text and are left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import IO, Any

from indexer.parse.blocks import Block, SkipFile, join_heading
from indexer.parse.tables import table_cells, table_lines
from indexer.parse.zip_guard import GuardedZip

_HEADING_STYLE = re.compile(r"^heading (\d)$", re.IGNORECASE)


def _open(loader: Any, stream: IO[bytes], what: str) -> Any:
    from lxml import etree

    try:
        return loader(stream)
    except Exception as err:  # zip and XML errors of every kind: the file is not a readable document
        if isinstance(err, etree.XMLSyntaxError) and err.code == etree.ErrorTypes.ERR_NO_MEMORY:
            raise MemoryError from None  # libxml2 ran out ("unknown error"): the worker's memory cap
        raise SkipFile(f"not a readable {what} file ({type(err).__name__}: {err})"[:300]) from None


class _StyleNames:
    """Paragraph style names of one document, by style id, each looked up once: python-docx scans every
    style of the document for each paragraph that names none (milliseconds a paragraph)."""

    def __init__(self) -> None:
        self._names: dict[str | None, str] = {}

    def of(self, paragraph: Any) -> str:
        style_id = paragraph._p.style
        if style_id not in self._names:
            style = paragraph.style
            self._names[style_id] = ((style.name if style is not None else "") or "").lower()
        return self._names[style_id]


def _level(name: str) -> int:
    """Heading level of a .docx paragraph style (1 for "Title"), or 0 for body text."""
    if name == "title":
        return 1
    match = _HEADING_STYLE.match(name)
    return int(match.group(1)) if match else 0


def _listed(paragraph: Any, name: str) -> bool:
    properties = paragraph._p.pPr
    return name.startswith("list") or (properties is not None and properties.numPr is not None)


def parse_docx(archive: GuardedZip) -> Iterator[Block]:
    """python-docx reads the whole archive itself: ``archive`` was verified against the zip limits."""
    from docx import Document as load
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    document = _open(load, archive.stream(), "Word (.docx)")
    path: list[str] = []
    styles = _StyleNames()
    for item in document.iter_inner_content():
        if isinstance(item, Table):
            rows = [_dedupe([cell.text for cell in row.cells]) for row in item.rows]
            lines = table_lines(rows)
            if lines:
                yield Block("\n".join(lines), heading=join_heading(path), table=table_cells(rows))
            continue
        assert isinstance(item, Paragraph)
        text = item.text.strip()
        if not text:
            continue
        style = styles.of(item)
        level = _level(style)
        if level:
            path = [*path[: level - 1], *([""] * max(0, level - 1 - len(path))), text]
        elif _listed(item, style):
            text = f"- {text}"
        yield Block(text, heading=join_heading(path))


def _dedupe(row: list[str]) -> list[str]:
    """python-docx repeats a merged cell's text in every grid column it spans: keep it once."""
    out: list[str] = []
    for i, text in enumerate(row):
        out.append("" if i and text == row[i - 1] else text)
    return out


def _table_of(shape: Any) -> list[list[str]]:
    """A table shape's cells row by row (none for another shape, or a table inside a group)."""
    if getattr(shape, "has_table", False) and shape.has_table:
        return [[cell.text for cell in row.cells] for row in shape.table.rows]
    return []


def _shape_lines(shape: Any) -> Iterator[str]:
    if getattr(shape, "has_table", False) and shape.has_table:
        yield from table_lines(_table_of(shape))
    elif getattr(shape, "has_text_frame", False) and shape.has_text_frame:
        for paragraph in shape.text_frame.paragraphs:
            text = "".join(run.text for run in paragraph.runs).strip()
            if text:
                yield ("  " * paragraph.level + "- " + text) if paragraph.level else text
    elif hasattr(shape, "shapes"):  # a group
        for inner in shape.shapes:
            yield from _shape_lines(inner)


def parse_pptx(archive: GuardedZip) -> Iterator[Block]:
    """python-pptx reads the whole archive itself: ``archive`` was verified against the zip limits."""
    from pptx import Presentation

    presentation = _open(Presentation, archive.stream(), "PowerPoint (.pptx)")
    for number, slide in enumerate(presentation.slides, start=1):
        title_shape = slide.shapes.title
        title = title_shape.text_frame.text.strip() if title_shape is not None else ""
        heading = title or f"Slide {number}"
        if title:
            yield Block(title, page=number, heading=heading)
        shapes = sorted(slide.shapes, key=lambda s: ((s.top or 0), (s.left or 0)))
        for shape in shapes:
            if title_shape is not None and shape.shape_id == title_shape.shape_id:
                continue
            lines = list(_shape_lines(shape))
            if lines:
                cells = _table_of(shape)
                yield Block("\n".join(lines), page=number, heading=heading, table=table_cells(cells))
        if slide.has_notes_slide:
            notes = slide.notes_slide.notes_text_frame
            if notes is not None and notes.text.strip():
                yield Block("Notes: " + notes.text.strip(), page=number, heading=heading)
