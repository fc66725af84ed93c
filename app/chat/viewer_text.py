"""The text files and documents the viewer shows (issue 46), as data for ``ui/server/viewer_page.py``:

- ``LinesReader``: text, Markdown and code as the file's own lines (decoded and numbered as the indexer
  numbered them), the cited lines and the cited sentence's lines among them;
- ``ProseReader``: Word, PowerPoint, OpenDocument, EPUB, RTF and e-mail as the text the indexer read from
  them (its parser, in its memory-capped worker process), in sections by heading and page, with the
  cited passage found in it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.chat.viewer_find import find_passage
from indexer.parse.registry import FileParser
from indexer.parse.text import decode_text, split_lines

__all__ = ["LinesReader", "LinesView", "Problem", "ProseReader", "ProseView", "Section"]

AROUND = 1500  # lines shown before and after the cited ones (a log file may have millions)


@dataclass(frozen=True)
class LinesView:
    name: str
    first: int  # the number of ``lines[0]`` (1-based)
    lines: tuple[str, ...]
    total: int  # lines in the file
    cited: tuple[int, int] | None  # the cited chunk's lines, inclusive
    hit: tuple[int, int] | None  # the cited sentence's lines, inclusive


@dataclass(frozen=True)
class Section:
    heading: str
    page: int | None  # a slide's number
    text: str


@dataclass(frozen=True)
class Problem:
    """Why the viewer shows a sentence instead of the file's text: ``code`` ("undrawn page": a PDF page
    pdfium could not draw; "unreadable file": a parser failed) and the error's own words. The page says it
    in the reader's language (``ui/server/viewer_page.py``); the section holds it in English."""

    code: str
    why: str


@dataclass(frozen=True)
class ProseView:
    name: str
    sections: tuple[Section, ...]
    hit: tuple[int, int, int] | None  # (section, start, end): the cited passage
    problem: Problem | None = None


class LinesReader:
    def read(self, path: Path, lines: tuple[int, int] | None, passage: str) -> LinesView:
        """The lines of ``path`` around ``lines`` (the first ones when None), the passage's among them."""
        every = split_lines(decode_text(path.read_bytes()))
        total = len(every)
        cited = (max(1, lines[0]), min(max(lines[0], lines[1]), total)) if lines else None
        first = max(1, cited[0] - AROUND) if cited else 1
        last = min(total, (cited[1] if cited else 1) + AROUND)
        return LinesView(
            path.name, first, tuple(every[first - 1 : last]), total, cited, _hit(every, cited, passage)
        )


def _hit(every: list[str], cited: tuple[int, int] | None, passage: str) -> tuple[int, int] | None:
    """The lines of ``passage``: looked for in the cited lines first, then in the whole file."""
    if not passage:
        return None
    lo, hi = cited if cited else (1, len(every))
    for start, end in ((lo, hi), (1, len(every))):
        text = "\n".join(every[start - 1 : end])
        span = find_passage(text, passage)
        if span is not None:
            return start + text.count("\n", 0, span[0]), start + text.count("\n", 0, span[1] - 1)
    return None


class ProseReader:
    def read(self, path: Path, passage: str, page: int | None = None) -> ProseView:
        """The text of ``path`` as the indexer read it; a failed parse shows a reason instead."""
        parser = FileParser(ocr=False)
        try:
            blocks = list(parser.parse(path, path.read_bytes()).blocks)
        except Exception as err:  # a file that cannot be read shows why, never a crash
            why = str(err) or type(err).__name__
            said = f"This file could not be read: {why}"
            return ProseView(path.name, (Section("", None, said),), None, Problem("unreadable file", why))
        finally:
            parser.close()
        sections: list[Section] = []
        for b in blocks:
            if sections and (sections[-1].heading, sections[-1].page) == (b.heading, b.page):
                last = sections.pop()
                sections.append(Section(last.heading, last.page, f"{last.text}\n\n{b.text}"))
            else:
                sections.append(Section(b.heading, b.page, b.text))
        return ProseView(path.name, tuple(sections), _prose_hit(sections, passage, page))


def _prose_hit(sections: list[Section], passage: str, page: int | None) -> tuple[int, int, int] | None:
    if not passage:
        return None
    order = sorted(range(len(sections)), key=lambda i: sections[i].page != page)  # the cited slide first
    for i in order:
        span = find_passage(sections[i].text, passage)
        if span is not None:
            return i, span[0], span[1]
    return None
