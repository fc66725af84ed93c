"""The parser worker process (PDF text, OCR of scanned pages and images, and every format with a parser
of its own: .docx, .pptx, .epub, .odt, .rtf, .eml): ``python -s -P -m indexer.parse.worker --memory-mb
N``, run by ``ParserWorker`` (``indexer.parse.pdf``).

It starts by module name with ``-P``, so neither this folder (whose ``html.py`` is not the standard
library's ``html``) nor the working directory is on its path; the packages it imports on the way
(``indexer``, ``indexer.parse``) load nothing heavy. It imports pypdf and, for OCR only, pypdfium2, Pillow
and ``indexer.parse.ocr``. Requests arrive on stdin as one JSON line each: ``{"path": ...}`` for the text layer
of a PDF, ``{"path": ..., "ocr": [3, 5], "timeout": 60}`` to render those PDF pages and recognize them,
``{"path": ..., "image": true, "timeout": 60}`` to recognize an image file (each frame of a TIFF is a
page), ``{"path": ..., "parse": true, "zip": {limits}}`` for the blocks of another format
(``indexer.parse.registry.read_blocks``: zip-based files pass the zip guard first), ``{"path": ..., "draw": 2}``
for a page drawn for the viewer (``indexer.parse.page_draw``). Replies go to stdout as frames
of a 4-byte big-endian length followed by JSON: ``{"t": "pages", "n": N}``, then per page ``{"t": "page",
"i": 1, "text": ...}`` or ``{"t": "page_error", "i": 1, "error": ...}``, then ``{"t": "done"}`` (another
format: ``{"t": "block", "text": ..., "page": ..., "line": ..., "heading": ...}`` frames, then done); or at
any point ``{"t": "skip", "reason": ...}`` / ``{"t": "error", "error": ...}``. Anything a library prints
goes to stderr, never into the frame stream. On Linux the address space is capped at what the worker
holds when it starts plus ``--memory-mb`` (``max_file_memory_mb``) plus ``WORKER_BASE_MB`` for its
libraries (the OCR program inherits the cap), so a file that would eat all memory fails with MemoryError
and is skipped with that reason instead of taking the machine down; macOS does not enforce that limit and
Windows has no such call, so there the parent's RSS watchdog is the cap (it runs on every OS). OCR has a
time limit per page. The worker runs at a lower priority (``psutil``: nice 10, or Windows' below-normal
class).
"""

from __future__ import annotations

import json
import logging
import os
import struct
import sys
import warnings
from typing import Any, BinaryIO

from ipc.privacy import switch_off_telemetry

MEMORY_LIMIT_MB = 1024.0  # what one file may cost when no --memory-mb is given
MAX_FRAMES = 1000  # pages of one image file (multi-page TIFF)
# A page with fewer non-space characters than this in its text layer, and an image on it, is a scan:
# it is marked for OCR ("scan": true) instead of being read as text.
MIN_TEXT_CHARS = 20


def _send(out: BinaryIO, message: dict[str, Any]) -> None:
    payload = json.dumps(message, ensure_ascii=False).encode("utf-8", "surrogatepass")
    out.write(struct.pack(">I", len(payload)) + payload)
    out.flush()


def _limit_memory(megabytes: float = MEMORY_LIMIT_MB) -> bool:
    """Cap the address space at what the worker holds now plus ``megabytes`` plus ``WORKER_BASE_MB``
    where the OS enforces it (Linux); False where it cannot (Windows has no ``resource`` module; macOS
    accepts RLIMIT_AS but does not enforce it)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import resource

        import psutil

        from indexer.parse.file_limits import WORKER_BASE_MB

        limit = int(psutil.Process().memory_info().vms + (megabytes + WORKER_BASE_MB) * 1024**2)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):
        return False
    return True


def _lower_priority() -> None:
    """Parse in the gaps the embedding model leaves (on every OS; best effort)."""
    try:
        import psutil

        process = psutil.Process()
        if sys.platform == "win32":
            process.nice(psutil.BELOW_NORMAL_PRIORITY_CLASS)
        else:
            process.nice(max(process.nice(), 10))  # psutil sets, os.nice adds: never raise our priority
    except Exception:  # no psutil, or the OS refuses: run at normal priority
        pass


def _clean(text: str) -> str:
    # Lone surrogates from broken font maps cannot be encoded; NULs confuse everything downstream.
    return text.encode("utf-8", "replace").decode("utf-8").replace("\x00", "")


def _has_image(resources: Any, depth: int = 0) -> bool:
    """Whether a page's resources (or those of a form inside it, two levels deep) hold an image."""
    try:
        objects = resources.get_object().get("/XObject") if resources is not None else None
        if objects is None:
            return False
        for ref in objects.get_object().values():
            obj = ref.get_object()
            kind = obj.get("/Subtype")
            if kind == "/Image" or (
                kind == "/Form" and depth < 2 and _has_image(obj.get("/Resources"), depth + 1)
            ):
                return True
    except Exception:  # a broken resource dictionary: no image we can find
        return False
    return False


def _bookmarks(reader: Any, limit: int = 500) -> list[list[Any]]:
    """The PDF's outline (bookmarks) in document order: [level, title, 1-based page]. A broken outline is
    no outline: the text still counts."""
    found: list[list[Any]] = []

    def walk(items: Any, level: int) -> None:
        for item in items:
            if len(found) >= limit:
                return
            if isinstance(item, list):
                walk(item, level + 1)
                continue
            try:
                page = reader.get_destination_page_number(item)
            except Exception:  # a bookmark to nowhere
                continue
            title = " ".join(str(getattr(item, "title", "") or "").split())
            if title and page is not None and page >= 0:
                found.append([level, title[:200], page + 1])

    try:
        walk(reader.outline, 1)
    except Exception:
        return []
    return found


def _extract(path: str, out: BinaryIO) -> None:
    from pypdf import PasswordType, PdfReader
    from pypdf.errors import DependencyError, FileNotDecryptedError

    reader = PdfReader(path, strict=False)
    if reader.is_encrypted:
        try:
            result = reader.decrypt("")
        except DependencyError as err:
            _send(
                out, {"t": "skip", "reason": f"encrypted, and decrypting it needs a missing library: {err}"}
            )
            return
        except (FileNotDecryptedError, NotImplementedError) as err:
            _send(out, {"t": "skip", "reason": f"encrypted with an unsupported method: {err}"})
            return
        if result == PasswordType.NOT_DECRYPTED:
            _send(out, {"t": "skip", "reason": "encrypted: it needs a password to open"})
            return
    count = len(reader.pages)
    _send(out, {"t": "pages", "n": count})
    marks = _bookmarks(reader)
    if marks:
        _send(out, {"t": "outline", "items": marks})
    for i in range(count):
        try:
            text = reader.pages[i].extract_text() or ""
        except MemoryError:
            raise
        except Exception as err:  # one bad page must not lose the others
            _send(out, {"t": "page_error", "i": i + 1, "error": f"{type(err).__name__}: {err}"[:300]})
            continue
        message: dict[str, Any] = {"t": "page", "i": i + 1, "text": _clean(text)}
        if len("".join(text.split())) < MIN_TEXT_CHARS and _has_image(reader.pages[i].get("/Resources")):
            message["scan"] = True
        _send(out, message)
    _send(out, {"t": "done"})


def _render(path: str, pages: list[int], timeout_s: float, out: BinaryIO) -> None:
    import pypdfium2 as pdfium

    from indexer.parse.ocr import DPI, MAX_SIDE_PX, PageOcr

    ocr = PageOcr(timeout_s=timeout_s)
    doc = pdfium.PdfDocument(path)
    try:
        _send(out, {"t": "pages", "n": len(doc)})
        for number in pages:
            try:
                page = doc[number - 1]
                width, height = page.get_size()
                scale = min(DPI / 72, MAX_SIDE_PX / max(width, height, 1.0))
                image = page.render(scale=scale, grayscale=True).to_pil()
                page.close()
                text = ocr.read(image, dpi=round(scale * 72))
            except MemoryError:
                raise
            except Exception as err:  # OcrError or a bad page: it must not lose the others
                _send(out, {"t": "page_error", "i": number, "error": f"{err}"[:300]})
                continue
            _send(out, {"t": "page", "i": number, "text": _clean(text)})
    finally:
        doc.close()
    _send(out, {"t": "done"})


def _image(path: str, timeout_s: float, out: BinaryIO) -> None:
    from PIL import Image, ImageSequence, UnidentifiedImageError

    from indexer.parse.ocr import MAX_SIDE_PX, PageOcr

    ocr = PageOcr(timeout_s=timeout_s)
    try:
        image = Image.open(path)
    except (UnidentifiedImageError, OSError) as err:
        _send(out, {"t": "error", "error": f"not a readable image: {err}"[:300]})
        return
    with image:
        count = min(getattr(image, "n_frames", 1), MAX_FRAMES)
        _send(out, {"t": "pages", "n": count})
        for number, frame in enumerate(ImageSequence.Iterator(image), start=1):
            if number > count:
                break
            try:
                frame.draft("L", (MAX_SIDE_PX, MAX_SIDE_PX))  # JPEG: decode at a reduced size directly
                dpi = frame.info.get("dpi", (0, 0))[0]
                text = ocr.read(frame.copy(), dpi=int(dpi) if 70 <= dpi <= 1200 else 150)
            except MemoryError:
                raise
            except Exception as err:  # OcrError or a bad page: it must not lose the others
                _send(out, {"t": "page_error", "i": number, "error": f"{err}"[:300]})
                continue
            _send(out, {"t": "page", "i": number, "text": _clean(text)})
    _send(out, {"t": "done"})


def _blocks(path: str, limits: dict[str, float], out: BinaryIO) -> None:
    from pathlib import Path

    from indexer.parse.blocks import SkipFile
    from indexer.parse.registry import read_blocks
    from indexer.parse.zip_guard import ZipLimits

    try:
        for block in read_blocks(Path(path), Path(path).read_bytes(), ZipLimits(**limits)):
            message: dict[str, Any] = {
                "t": "block",
                "text": _clean(block.text),
                "heading": _clean(block.heading),
            }
            if block.table:  # a table's cells, to be kept as a table
                message["table"] = [[_clean(c) for c in row] for row in block.table]
            _send(out, {**message, "page": block.page, "line": block.line_start})
    except SkipFile as skip:
        _send(out, {"t": "skip", "reason": str(skip)})
        return
    _send(out, {"t": "done"})


def _serve(request: dict[str, Any], out: BinaryIO) -> None:
    if request.get("draw"):  # one page for the viewer (indexer.parse.page_draw)
        from indexer.parse.page_draw import draw_page

        _send(out, draw_page(request))
        _send(out, {"t": "done"})
    elif request.get("parse"):
        _blocks(request["path"], request["zip"], out)
    elif request.get("image"):
        _image(request["path"], float(request["timeout"]), out)
    elif request.get("ocr"):
        _render(request["path"], [int(i) for i in request["ocr"]], float(request["timeout"]), out)
    else:
        _extract(request["path"], out)


def main() -> None:
    switch_off_telemetry()  # before any parser library loads (the app's environment has them already)
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints must not corrupt the frames
    from indexer.parse.file_limits import memory_reason

    megabytes = MEMORY_LIMIT_MB
    if len(sys.argv) == 3 and sys.argv[1] == "--memory-mb":
        megabytes = float(sys.argv[2])
    _limit_memory(megabytes)
    _lower_priority()
    warnings.simplefilter("ignore")
    logging.basicConfig(level=logging.CRITICAL)
    logging.getLogger("pypdf").setLevel(logging.CRITICAL)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            _serve(request, out)
        except MemoryError:
            _send(out, {"t": "skip", "reason": memory_reason(megabytes)})
        except RecursionError:
            _send(out, {"t": "error", "error": "the file's structure is nested too deeply (RecursionError)"})
        except Exception as err:
            _send(out, {"t": "error", "error": f"{type(err).__name__}: {err}"[:500]})


if __name__ == "__main__":
    main()
