"""OCR quality and speed on generated scanned pages: character error rate (goal ≤ 5 % at 150 dpi), pages/s.

    .venv/bin/python -m bench.ocr [--pages 12] [--dpi 150] [--rapidocr 1 2] [--pdf]

Known text (Wikipedia passages of ``../shared/eval/devkit/squadshifts_new_wiki``, real prose with names and
numbers) is set on Letter pages with reportlab in 11 pt Times, rendered at ``--dpi`` with pdfium, turned
into a "scan": grey, rotated by 0.5–2° either way, Gaussian noise (σ = 12), 0.3 % salt and pepper, and a
JPEG round trip at quality 70. Each engine reads each image (Tesseract is the product's; RapidOCR is the
candidate it was chosen against); CER = Levenshtein distance / reference length,
after collapsing all whitespace to single spaces (so line breaks count as spaces), summed over all pages.
``--pdf`` also puts the scans into an image-only PDF and reads it end to end through ``ParserWorker`` (the
worker renders each page and recognizes it, as indexing does).
"""

from __future__ import annotations

import argparse
import io
import json
import random
import re
import resource
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image

from indexer.parse.ocr import PageOcr

ROOT = Path(__file__).resolve().parents[1]

CORPUS = ROOT.parent / "shared" / "eval" / "devkit" / "squadshifts_new_wiki" / "corpus.jsonl"
_SPACE = re.compile(r"\s+")


def levenshtein(a: str, b: str) -> int:
    """Edit distance, one numpy row at a time (insertions resolved with a running minimum)."""
    if not a or not b:
        return len(a) + len(b)
    aa = np.frombuffer(a.encode("utf-32-le"), dtype=np.uint32)
    bb = np.frombuffer(b.encode("utf-32-le"), dtype=np.uint32)
    index = np.arange(len(b) + 1)
    row = index.copy()
    for i, code in enumerate(aa):
        cur = np.empty_like(row)
        cur[0] = i + 1
        cur[1:] = np.minimum(row[:-1] + (bb != code), row[1:] + 1)
        row = np.minimum.accumulate(cur - index) + index
    return int(row[-1])


def normalize(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def page_texts(count: int, seed: int) -> list[list[str]]:
    """Lines of ``count`` pages, each about 40 lines of 11 pt Times set 6.5 inches wide."""
    from reportlab.lib.utils import simpleSplit

    passages = []
    with CORPUS.open(encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            try:
                row["text"].encode("cp1252")  # the standard PDF fonts cover WinAnsi only
            except UnicodeEncodeError:
                continue
            passages.append((row["title"], row["text"]))
    random.Random(seed).shuffle(passages)
    pages: list[list[str]] = []
    lines: list[str] = []
    for title, text in passages:
        block = [title, *simpleSplit(text, "Times-Roman", 11, 468), ""]
        if len(lines) + len(block) > 44:
            pages.append(lines)
            lines = []
            if len(pages) == count:
                break
        lines.extend(block)
    return pages


def render_pdf(pages: list[list[str]]) -> bytes:
    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=(612, 792))
    for lines in pages:
        y = 792 - 72
        for line in lines:
            c.setFont("Times-Roman", 11)
            c.drawString(72, y, line)
            y -= 14
        c.showPage()
    c.save()
    return out.getvalue()


def scan(pdf: bytes, dpi: int, seed: int) -> list[Image.Image]:
    import pypdfium2 as pdfium

    rng = random.Random(seed)
    noise = np.random.default_rng(seed)
    images = []
    doc = pdfium.PdfDocument(pdf)
    for page in doc:
        grey = page.render(scale=dpi / 72).to_pil().convert("L")
        angle = rng.uniform(0.5, 2.0) * rng.choice((-1, 1))
        grey = grey.rotate(angle, resample=Image.Resampling.BILINEAR, fillcolor=255)
        pixels = np.asarray(grey, dtype=np.float32) + noise.normal(0, 12, grey.size[::-1])
        flips = noise.random(pixels.shape)
        pixels[flips < 0.0015] = 0
        pixels[flips > 0.9985] = 255
        buffer = io.BytesIO()
        Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8)).save(buffer, "JPEG", quality=70)
        images.append(Image.open(io.BytesIO(buffer.getvalue())))
    doc.close()
    return images


def image_pdf(images: list[Image.Image], dpi: int) -> bytes:
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=(612, 792))
    for image in images:
        c.drawImage(ImageReader(image), 0, 0, width=image.width * 72 / dpi, height=image.height * 72 / dpi)
        c.showPage()
    c.save()
    return out.getvalue()


def cer(references: list[str], hypotheses: list[str]) -> float:
    errors = sum(levenshtein(normalize(r), normalize(h)) for r, h in zip(references, hypotheses, strict=True))
    return errors / max(1, sum(len(normalize(r)) for r in references))


class RapidOcr:
    """The candidate we measured against Tesseract: RapidOCR 1.4.4 (PP-OCRv4 ONNX models in its wheel).
    Its Chinese/English recognizer drops most spaces between English words; they are put back where the
    gap between two decoded characters is wider than 1.8 times the line's median character pitch."""

    def __init__(self, threads: int) -> None:
        from rapidocr_onnxruntime import RapidOCR

        self._engine = RapidOCR(
            det_intra_op_num_threads=threads,
            cls_intra_op_num_threads=threads,
            rec_intra_op_num_threads=threads,
        )

    def read(self, image: Image.Image) -> str:
        engine = self._engine
        pixels = np.ascontiguousarray(np.asarray(image.convert("RGB"))[:, :, ::-1])
        boxes, _ = engine.auto_text_det(pixels)
        if boxes is None:
            return ""
        crops, _, _ = engine.text_cls(engine.get_crop_img_list(pixels, boxes))
        lines, _ = engine.text_rec(crops, True)
        order = sorted(range(len(boxes)), key=lambda i: float(boxes[i][:, 1].mean()))
        return "\n".join(self._respace(lines[i][2]) for i in order)

    @staticmethod
    def _respace(info: list) -> str:  # type: ignore[type-arg]
        chars = [c for word in info[1] for c in word]
        columns = [c for word in info[2] for c in word]
        if len(chars) < 2:
            return "".join(chars)
        gaps = np.diff(columns)
        pitch = float(np.median(gaps))
        out = [chars[0]]
        for char, gap in zip(chars[1:], gaps, strict=True):
            if gap > 1.8 * pitch and out[-1] != " " and char != " ":
                out.append(" ")
            out.append(char)
        return "".join(out)


def cpu_seconds() -> float:
    """CPU time of this process and of the children it waited for (each ``tesseract`` run)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def measure(
    name: str, read: Callable[[Image.Image], str], images: list[Image.Image], refs: list[str]
) -> None:
    read(images[0])  # warm-up (model load)
    wall, cpu = time.perf_counter(), cpu_seconds()
    hypotheses = [read(image) for image in images]
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    print(
        f"{name}: CER {cer(refs, hypotheses):.2%}, {len(images) / wall:.2f} pages/s wall, "
        f"{cpu / len(images):.2f} CPU-s/page"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pages", type=int, default=12)
    parser.add_argument("--dpi", type=int, default=150)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--rapidocr",
        type=int,
        nargs="*",
        default=[],
        metavar="THREADS",
        help="also measure RapidOCR (pip install rapidocr-onnxruntime==1.4.4) with these threads",
    )
    parser.add_argument("--pdf", action="store_true", help="also read an image-only PDF through the worker")
    args = parser.parse_args()

    pages = page_texts(args.pages, args.seed)
    references = ["\n".join(lines) for lines in pages]
    images = scan(render_pdf(pages), args.dpi, args.seed)
    chars = sum(len(normalize(r)) for r in references)
    print(f"{len(images)} pages at {args.dpi} dpi, {chars} characters, image {images[0].size}")
    ocr = PageOcr()
    measure("tesseract", lambda image: ocr.read(image, dpi=args.dpi), images, references)
    for threads in args.rapidocr:
        measure(f"rapidocr threads={threads}", RapidOcr(threads).read, images, references)
    if args.pdf:
        from indexer.parse.pdf import ParserWorker

        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "scanned.pdf"
            path.write_bytes(image_pdf(images, args.dpi))
            extractor = ParserWorker()
            notes: list[str] = []
            wall = time.perf_counter()
            numbers = list(range(1, len(images) + 1))
            texts = {page.number: page.text for page in extractor.recognize(path, notes, numbers)}
            wall = time.perf_counter() - wall
            extractor.close()
            hypotheses = [texts.get(i + 1, "") for i in range(len(references))]
            print(
                f"image-only PDF through the parser worker (pdfium render + tesseract, worker start included): "
                f"CER {cer(references, hypotheses):.2%}, {len(images) / wall:.2f} pages/s wall; notes {notes}"
            )


if __name__ == "__main__":
    main()
