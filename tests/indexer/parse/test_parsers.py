"""Parsers on real files: what text, headings, pages and lines come out, and which files are refused why."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from indexer.parse.blocks import Block, SkipFile
from indexer.parse.registry import FileParser, file_kind
from tests.indexer.files import pdf_bytes, write_pdf

MARKDOWN = """---
title: Guide
---
# Guide

Welcome to the guide.

## Install

Run the installer.

### On Linux

Use the package manager.

```sh
apt install thing
```

## Usage

Start it.
"""


@pytest.fixture
def parser() -> Iterator[FileParser]:
    p = FileParser(pdf_page_timeout_s=30)
    yield p
    p.close()


def blocks(parser: FileParser, path: Path, data: bytes | None = None) -> list[Block]:
    return list(parser.parse(path, path.read_bytes() if data is None else data).blocks)


def test_markdown_keeps_the_heading_path_and_source_lines(parser: FileParser, tmp_path: Path) -> None:
    path = tmp_path / "guide.md"
    path.write_text(MARKDOWN)
    got = blocks(parser, path)
    by_text = {b.text.splitlines()[0]: b for b in got}
    assert by_text["Use the package manager."].heading == "Guide > Install > On Linux"
    assert by_text["```sh"].heading == "Guide > Install > On Linux"
    assert by_text["Start it."].heading == "Guide > Usage"
    assert by_text["Welcome to the guide."].heading == "Guide"
    assert by_text["---"].heading == "" and "title: Guide" in by_text["---"].text  # front matter: no heading
    lines = MARKDOWN.splitlines()
    for block in got:
        assert block.line_start is not None
        assert lines[block.line_start - 1] == block.text.splitlines()[0]


def test_html_is_text_only_without_navigation(parser: FileParser, tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_text(
        "<html><head><title>T</title><style>p {color: red}</style></head><body>"
        '<div class="sphinxsidebar" role="navigation"><ul><li>Menu entry</li></ul></div>'
        "<h1>Manual<a class='headerlink'>¶</a></h1><p>First &amp; <b>bold</b> text.</p>"
        "<h2>Part</h2><pre>code  kept\n  indented</pre><script>var x = 1;</script></body></html>"
    )
    got = blocks(parser, path)
    texts = [b.text for b in got]
    assert "First & bold text." in texts
    assert "code  kept\n  indented" in texts
    assert not any("Menu entry" in t or "color" in t or "var x" in t or "¶" in t for t in texts)
    assert {b.text: b.heading for b in got}["code  kept\n  indented"] == "Manual > Part"


def test_code_and_text_blocks_carry_line_numbers(parser: FileParser, tmp_path: Path) -> None:
    path = tmp_path / "tool.py"
    path.write_text("import os\n\n\ndef main():\n    return os.getcwd()\n")
    got = blocks(parser, path)
    assert [(b.line_start, b.text) for b in got] == [
        (1, "import os"),
        (4, "def main():\n    return os.getcwd()"),
    ]


def test_legacy_8_bit_text_is_read(parser: FileParser, tmp_path: Path) -> None:
    path = tmp_path / "old.txt"
    path.write_bytes("Caf\xe9 cr\xe8me".encode("latin-1"))
    assert blocks(parser, path)[0].text == "Café crème"


def test_windows_1252_quotes_dashes_and_euro_are_read(parser: FileParser, tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes("\u201cPrice\u201d \u2013 5 \u20ac, it\u2019s fine\u2026".encode("cp1252") + b" \x81")
    assert blocks(parser, path)[0].text == "\u201cPrice\u201d \u2013 5 \u20ac, it\u2019s fine\u2026 \x81"


def test_binary_junk_and_unknown_types_are_skipped_with_a_reason(parser: FileParser, tmp_path: Path) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_bytes(bytes(range(256)) * 8)
    with pytest.raises(SkipFile, match="binary"):
        blocks(parser, junk)
    video = tmp_path / "clip.mp4"
    video.write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(100))
    with pytest.raises(SkipFile, match=r"unsupported file type '\.mp4'"):
        parser.parse(video, video.read_bytes())


def test_file_kinds() -> None:
    assert file_kind(Path("a.PDF")) == "pdf"
    assert file_kind(Path("README")) == "text"
    assert file_kind(Path("x.rs")) == "code"
    assert file_kind(Path("x.docx")) == "docx"
    assert file_kind(Path("scan.TIFF")) == "image"
    assert file_kind(Path("x.mp4")) is None


def test_pdf_pages_stream_with_their_numbers(parser: FileParser, tmp_path: Path) -> None:
    path = write_pdf(tmp_path / "m.pdf", ["alpha page one", "", "gamma page three"])
    doc = parser.parse(path, path.read_bytes())
    got = list(doc.blocks)
    assert [(b.page, b.text.strip()) for b in got] == [(1, "alpha page one"), (3, "gamma page three")]
    assert doc.pages == 3


def test_encrypted_pdfs_open_with_an_empty_password_else_are_skipped(
    parser: FileParser, tmp_path: Path
) -> None:
    open_one = write_pdf(tmp_path / "open.pdf", ["readable secret"], password="")
    assert [b.text.strip() for b in blocks(parser, open_one)] == ["readable secret"]
    locked = write_pdf(tmp_path / "locked.pdf", ["hidden"], password="hunter2")
    with pytest.raises(SkipFile, match="password"):
        blocks(parser, locked)
    # the worker stays usable after a skip
    assert blocks(parser, open_one)[0].page == 1


def test_a_malformed_pdf_fails_alone(parser: FileParser, tmp_path: Path) -> None:
    good = pdf_bytes(["fine text"])
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(good[: len(good) // 3])
    with pytest.raises(Exception) as info:
        blocks(parser, broken)
    assert not isinstance(info.value, SkipFile)
    assert str(info.value)
    fine = tmp_path / "fine.pdf"
    fine.write_bytes(good)
    assert blocks(parser, fine)[0].text.strip() == "fine text"


def test_a_hanging_pdf_reader_times_out_and_the_next_file_works(tmp_path: Path) -> None:
    from indexer.parse.pdf import ParserWorker, ParserWorkerError

    extractor = ParserWorker(
        page_timeout_s=3.0
    )  # the fresh worker must start within it, even on a busy CI machine
    try:
        fifo = tmp_path / "never.pdf"
        import os

        os.mkfifo(fifo)  # opening it blocks forever: a stand-in for a PDF that makes pypdf loop
        with pytest.raises(ParserWorkerError, match="timed out"):
            list(extractor.pages(fifo, []))
        good = write_pdf(tmp_path / "ok.pdf", ["after the hang"])
        assert [t.strip() for _, _, t, _ in extractor.pages(good, [])] == ["after the hang"]
    finally:
        extractor.close()
