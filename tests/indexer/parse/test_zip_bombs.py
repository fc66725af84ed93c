"""Zip bombs (issue 40, item 3): a .docx, .pptx, .xlsx or .epub of about 10 MB that inflates past 1 GB is
skipped with its reason in seconds, with bounded memory, and is not read again until it changes; a zip whose
directory lies about its sizes is refused without inflating more than it declared; a file that passes the zip
guard but would still eat memory is stopped by the parser worker's memory cap.

Every file is real: made by python-docx / python-pptx (or by hand for .xlsx and .epub), with its main XML
part replaced by one that repeats a paragraph past 1 GB, packed at deflate level 1 (≈ 10 MB). The
acceptance test runs the real ``kimas index`` in its own process and samples the memory of its whole process
tree (the indexing process and the parser worker).
"""

from __future__ import annotations

import io
import os
import struct
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path

import psutil
import pytest

from indexer.parse.blocks import SkipFile
from indexer.parse.registry import FileParser, read_blocks
from indexer.parse.zip_guard import ZipBomb, ZipLimits
from indexer.tables.workbook import read_workbook

ROOT = Path(__file__).resolve().parents[3]
_MB = 1024**2
_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_S = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"


def _repeat(piece: bytes, megabytes: int) -> Iterator[bytes]:
    block = b"".join([piece] * max(1, _MB // len(piece)))
    for _ in range(megabytes * _MB // len(block) + 1):
        yield block


def _repack(source: bytes, path: Path, member: str, before: bytes, body: Iterable[bytes]) -> Path:
    """``source`` (a zip) written to ``path`` with ``body`` inserted into ``member`` just before its
    ``before`` tag; deflate level 1, as a careless or hostile tool would pack it."""
    with (
        zipfile.ZipFile(io.BytesIO(source)) as old,
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as new,
    ):
        for info in old.infolist():
            data = old.read(info)
            if info.filename != member:
                new.writestr(info, data)
                continue
            head, tail = data.split(before, 1)
            with new.open(member, "w", force_zip64=True) as out:
                out.write(head)
                for block in body:
                    out.write(block)
                out.write(before + tail)
    return path


def _paragraph(tag: str) -> bytes:
    return f"<{tag}>All work and no play makes Jack a dull boy, said the report once more.</{tag}>".encode()


def _docx(path: Path, body: Iterable[bytes]) -> Path:
    import docx

    document = docx.Document()
    document.add_paragraph("The quarterly report.")
    out = io.BytesIO()
    document.save(out)
    return _repack(out.getvalue(), path, "word/document.xml", b"<w:sectPr", body)


def docx_bomb(path: Path, megabytes: int) -> Path:
    return _docx(path, _repeat(b"<w:p><w:r>" + _paragraph("w:t") + b"</w:r></w:p>", megabytes))


def pptx_bomb(path: Path, megabytes: int) -> Path:
    from pptx import Presentation

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Quarterly review"
    slide.placeholders[1].text_frame.text = "Revenue grew"
    out = io.BytesIO()
    deck.save(out)
    piece = b"<a:p><a:r>" + _paragraph("a:t") + b"</a:r></a:p>"
    return _repack(out.getvalue(), path, "ppt/slides/slide1.xml", b"</p:txBody>", _repeat(piece, megabytes))


def xlsx_bomb(path: Path, megabytes: int) -> Path:
    """A minimal workbook written by hand (no spreadsheet library is installed)."""
    small = io.BytesIO()
    with zipfile.ZipFile(small, "w") as z:
        z.writestr(
            "[Content_Types].xml",
            '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument'
            '.spreadsheetml.sheet.main+xml"/></Types>',
        )
        z.writestr(
            "xl/workbook.xml",
            f'<workbook xmlns="{_S}"><sheets><sheet name="One" sheetId="1"/></sheets></workbook>',
        )
        z.writestr("xl/worksheets/sheet1.xml", f'<worksheet xmlns="{_S}"><sheetData></sheetData></worksheet>')
    piece = b'<row><c t="inlineStr"><is>' + _paragraph("t") + b"</is></c></row>"
    return _repack(
        small.getvalue(), path, "xl/worksheets/sheet1.xml", b"</sheetData>", _repeat(piece, megabytes)
    )


def epub_bomb(path: Path, megabytes: int) -> Path:
    small = io.BytesIO()
    with zipfile.ZipFile(small, "w") as z:
        z.writestr("mimetype", "application/epub+zip")
        z.writestr(
            "META-INF/container.xml",
            '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
            '<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
            "</rootfiles></container>",
        )
        z.writestr(
            "OEBPS/content.opf",
            '<package xmlns="http://www.idpf.org/2007/opf" version="3.0"><manifest>'
            '<item id="c" href="c.xhtml" media-type="application/xhtml+xml"/></manifest>'
            '<spine><itemref idref="c"/></spine></package>',
        )
        z.writestr("OEBPS/c.xhtml", "<html><body><h1>Chapter</h1></body></html>")
    return _repack(small.getvalue(), path, "OEBPS/c.xhtml", b"</body>", _repeat(_paragraph("p"), megabytes))


BOMBS = {"docx": docx_bomb, "pptx": pptx_bomb, "xlsx": xlsx_bomb, "epub": epub_bomb}


def _parse(path: Path, parser: FileParser) -> list[str]:
    return [b.text for b in parser.parse(path, path.read_bytes()).blocks]


@pytest.mark.parametrize("kind", ["docx", "pptx", "epub"])
def test_a_small_bomb_is_refused_before_it_is_inflated(tmp_path: Path, kind: str) -> None:
    path = BOMBS[kind](tmp_path / f"bomb.{kind}", 40)  # 40 MB of one repeated paragraph, ~0.3 MB packed
    assert path.stat().st_size < 2 * _MB
    parser = FileParser(zip_limits=ZipLimits(max_inflated_mb=16))
    try:
        with pytest.raises(SkipFile, match=r"inflates \d+ times .*indexer.max_zip_ratio"):
            _parse(path, parser)  # a part over 4 MB that inflates more than 100 times
    finally:
        parser.close()
    parser = FileParser(zip_limits=ZipLimits(max_inflated_mb=16, max_ratio=10_000))
    try:
        with pytest.raises(SkipFile, match=r"inflates to more than 16 MB .*indexer.max_zip_inflated_mb"):
            _parse(path, parser)
    finally:
        parser.close()


def test_an_xlsx_bomb_is_refused_by_the_guard_in_front_of_the_workbook_reader(tmp_path: Path) -> None:
    path = xlsx_bomb(tmp_path / "bomb.xlsx", 40)
    with pytest.raises(
        ZipBomb, match=r"inflates \d+ times .*indexer.max_zip_ratio"
    ):  # before calamine reads it
        read_workbook(".xlsx", path.read_bytes(), ZipLimits(max_inflated_mb=16))


def _lying(path: Path, megabytes: int) -> Path:
    """A .docx whose zip directory says its document part inflates to 2 KB while it holds ``megabytes`` MB."""
    docx_bomb(path, megabytes)
    with zipfile.ZipFile(path) as z:
        at = z.start_dir  # the central directory: one "PK\1\2" entry per member
    data = bytearray(path.read_bytes())
    while data[at : at + 4] == b"PK\x01\x02":
        name_length, extra_length, comment_length = struct.unpack("<HHH", data[at + 28 : at + 34])
        if data[at + 46 : at + 46 + name_length] == b"word/document.xml":
            data[at + 24 : at + 28] = struct.pack("<I", 2048)  # its uncompressed size
            break
        at += 46 + name_length + extra_length + comment_length
    path.write_bytes(bytes(data))
    return path


def test_a_zip_that_lies_about_its_sizes_is_refused_without_inflating_more(tmp_path: Path) -> None:
    path = _lying(tmp_path / "liar.docx", 300)  # declares 2 KB, holds 300 MB: the declared check passes
    with zipfile.ZipFile(path) as z:
        assert z.getinfo("word/document.xml").file_size == 2048
    peak = psutil.Process().memory_info().rss
    started = time.monotonic()
    with pytest.raises(
        SkipFile, match="not a readable Word"
    ):  # the counting reader stops at what it declared
        list(read_blocks(path, path.read_bytes(), ZipLimits()))
    assert time.monotonic() - started < 10
    assert psutil.Process().memory_info().rss - peak < 200 * _MB


def _dense_docx(path: Path, megabytes: int) -> Path:
    """A .docx of short paragraphs of random words: it packs only a few times, so the zip guard lets it
    through, and python-docx holds every paragraph as a tree of XML nodes (several times the text)."""

    def body() -> Iterator[bytes]:
        for _ in range(megabytes):
            words = os.urandom(_MB // 5).hex()  # 24 hex characters in 60 bytes of XML: ~1 MB
            yield b"".join(
                b"<w:p><w:r><w:t>" + words[i : i + 24].encode() + b"</w:t></w:r></w:p>"
                for i in range(0, len(words), 24)
            )

    return _docx(path, body())


@pytest.mark.slow
def test_a_file_the_guard_lets_through_is_stopped_by_the_worker_memory_cap(tmp_path: Path) -> None:
    path = _dense_docx(tmp_path / "dense.docx", 40)  # ~40 MB of XML: python-docx needs far more than 288 MB
    with zipfile.ZipFile(path) as z:
        info = z.getinfo("word/document.xml")
    assert info.file_size > 32 * _MB and info.file_size / info.compress_size < 20  # the guard lets it pass
    parser = FileParser(memory_mb=32)
    started = time.monotonic()
    try:
        with pytest.raises(SkipFile, match=r"needed more than 32 MB of memory .*indexer.max_file_memory_mb"):
            _parse(path, parser)
        assert time.monotonic() - started < 60
        good = tmp_path / "good.docx"
        import docx

        document = docx.Document()
        document.add_paragraph("The station opens at dawn.")
        document.save(good)
        assert _parse(good, parser) == ["The station opens at dawn."]  # the next file gets a fresh worker
    finally:
        parser.close()


def test_where_the_os_has_no_memory_cap_the_rss_watchdog_stops_the_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On Linux the address-space cap usually acts first; here the watchdog's own allowance for the worker's
    libraries is taken away, so it alone stops the worker, as it would on macOS or Windows."""
    import indexer.parse.pdf as parse_pdf

    monkeypatch.setattr(parse_pdf, "WORKER_BASE_MB", 0)
    path = _dense_docx(tmp_path / "dense.docx", 8)
    parser = FileParser(memory_mb=16)  # less than Python with python-docx loaded
    try:
        with pytest.raises(SkipFile, match=r"needed more than 16 MB of memory .*indexer.max_file_memory_mb"):
            _parse(path, parser)
    finally:
        parser.close()


class _TreePeak:
    """The peak of the summed resident memory of a process and its children, sampled every 20 ms."""

    def __init__(self, pid: int) -> None:
        self.peak = 0
        self._root = psutil.Process(pid)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            try:
                tree = [self._root, *self._root.children(recursive=True)]
                total = 0
                for process in tree:
                    try:
                        total += process.memory_info().rss
                    except psutil.Error:
                        continue
            except psutil.Error:
                return
            self.peak = max(self.peak, total)

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak


def _index(docs: Path, data: Path) -> tuple[str, float, int]:
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "index", str(docs), "--data-dir", str(data)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    peak = _TreePeak(proc.pid)
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"indexing ran for more than 120 s (peak {peak.stop() // _MB} MB)\n{out}\n{err}")
    rss = peak.stop()
    assert proc.returncode == 0 and "Traceback" not in err, err
    return out, time.monotonic() - started, rss


@pytest.mark.slow
def test_10_mb_bombs_inflating_past_1_gb_are_skipped_in_seconds_with_bounded_memory(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for kind, make in BOMBS.items():
        path = make(docs / f"bomb.{kind}", 1100)
        assert 5 * _MB < path.stat().st_size < 16 * _MB, path.stat().st_size
    (docs / "good.md").write_text("# Good\n\nThe otters of the river sleep in the afternoon.\n", "utf-8")
    data = tmp_path / "data"
    data.mkdir()
    baseline_docs = tmp_path / "baseline"
    baseline_docs.mkdir()
    (baseline_docs / "good.md").write_text("# Good\n\nThe otters sleep.\n", "utf-8")
    _, baseline_s, baseline_rss = _index(baseline_docs, tmp_path / "baseline_data")  # start-up and model

    first, seconds, rss = _index(docs, data)
    print(f"four 10 MB bombs: {seconds:.1f} s (a one-file run {baseline_s:.1f} s), peak {rss // _MB} MB")
    assert rss <= 1024 * _MB, f"peak memory of the indexing processes {rss // _MB} MB"
    assert rss - baseline_rss <= 256 * _MB, f"the bombs cost {(rss - baseline_rss) // _MB} MB"
    assert seconds <= 30 + baseline_s, f"the bombs took {seconds - baseline_s:.1f} s beyond start-up"
    assert "1 file indexed" in first and "4 skipped" in first, first
    for kind in ("docx", "pptx", "epub"):
        assert f"bomb.{kind}: one part of it inflates to more than 256 MB" in first, first
    assert "bomb.xlsx: one part of it inflates to more than 256 MB" in first, first

    second, _, _ = _index(docs, data)  # skipped files are not read again until they change
    assert "bomb.docx: one part of it inflates to more than 256 MB" in second, second
    assert "0 files indexed" in second or "unchanged" in second, second
