"""Optical character recognition of page images: the text of scanned PDF pages and of image files.

The engine is Tesseract, run as its command-line program (``tesseract``, Debian/Ubuntu package
``tesseract-ocr``): chosen by measurement against RapidOCR (PP-OCRv4 ONNX models inside a PyPI wheel) on
generated scans at 150 dpi, it made 1 % character errors at 1.6 CPU-s a page where RapidOCR made 4.6 % (only
after re-inserting the spaces its Chinese/English model drops) at 12–17 CPU-s (``bench/ocr.py``,
``bench/RESULTS.md``). It is optional: without it, scanned pages and images are reported as skipped with
the reason. It runs only inside the parser worker process (``indexer.parse.worker``), whose memory cap the
``tesseract`` child inherits, with a time limit per page.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess

import numpy as np
from PIL import Image

DPI = 150  # PDF pages are rendered at this resolution for recognition
# A page image is scaled down so that its longer side has at most this many pixels: 150 dpi on an A4 or
# Letter page is about 1,750 px; the cap bounds what one (oversized) page costs in time and memory.
MAX_SIDE_PX = 3000
LANGUAGES = "eng"
MAX_SKEW_DEG = 3.0  # scans are straightened by up to this many degrees before recognition


class OcrError(Exception):
    """A page could not be recognized (timed out, or the engine failed); ``str()`` says why."""


def tesseract() -> str | None:
    """The path of the ``tesseract`` program, or None when it is not installed."""
    return shutil.which("tesseract")


def ocr_status() -> str:
    """What ``kimas doctor`` says about OCR: Tesseract's path and languages, or that it is missing.

    Not ``--version``: that prints libcurl's version, whose start-up makes libldap look up this machine's
    name (a DNS query wherever /etc/hosts lacks it; tests/test_no_network.py)."""
    path = tesseract()
    if path is None:
        return (
            "NOT AVAILABLE: tesseract is not installed, so scanned pages and images are skipped "
            "(sudo apt-get install tesseract-ocr)"
        )
    try:
        out = subprocess.run([path, "--list-langs"], capture_output=True, text=True, timeout=10, check=True)
        langs = [line.strip() for line in (out.stdout or out.stderr).splitlines()[1:] if line.strip()]
    except (OSError, subprocess.SubprocessError) as err:
        return f"NOT AVAILABLE: {path} does not run ({err})"
    return f"tesseract ({path}; languages: {', '.join(langs) or 'none'}): scanned pages and images are read"


def fit(image: Image.Image) -> Image.Image:
    """``image`` scaled down to at most ``MAX_SIDE_PX`` on its longer side (never up)."""
    side = max(image.size)
    if side <= MAX_SIDE_PX:
        return image
    scale = MAX_SIDE_PX / side
    return image.resize((max(1, round(image.width * scale)), max(1, round(image.height * scale))))


def blank(image: Image.Image) -> bool:
    """Whether a page image has nothing on it to read (a white page, or one flat colour)."""
    low, high = image.convert("L").getextrema()
    return float(high) - float(low) < 32  # type: ignore[arg-type]


def deskew(image: Image.Image) -> Image.Image:
    """``image`` (greyscale) rotated so its text lines run level. A page scanned a degree or two askew
    makes Tesseract's layout analysis drop whole lines (measured: 42 % errors on such a page, 0.9 % once
    straightened). The angle is the one, in steps of 0.2° within ±3°, whose rows of dark pixels are most
    uneven (lines of text alternating with the gaps between them), found on a third-size copy."""
    small = image.resize((max(1, image.width // 3), max(1, image.height // 3)))
    dark = small.point(lambda v: 255 if v < 128 else 0)
    best, angle = -1.0, 0.0
    for candidate in np.arange(-MAX_SKEW_DEG, MAX_SKEW_DEG + 0.01, 0.2):
        rows = np.asarray(dark.rotate(float(candidate)), dtype=np.float32).sum(axis=1)
        score = float(np.var(rows))
        if score > best:
            best, angle = score, float(candidate)
    if abs(angle) < 0.1:
        return image
    return image.rotate(angle, resample=Image.Resampling.BILINEAR, fillcolor=255)


class PageOcr:
    """Reads the text of one page image at a time with Tesseract; ``timeout_s`` is the limit per page."""

    def __init__(self, *, timeout_s: float = 60.0, languages: str = LANGUAGES, program: str | None = None):
        self._timeout = timeout_s
        self._languages = languages
        self._program = program or tesseract()

    @property
    def available(self) -> bool:
        return self._program is not None

    def read(self, image: Image.Image, *, dpi: int = DPI) -> str:
        """The text of ``image``, lines joined by newlines and paragraphs by blank lines ('' when none)."""
        if self._program is None:
            raise OcrError("OCR needs Tesseract, which is not installed (package tesseract-ocr)")
        image = fit(image).convert("L")
        if blank(image):
            return ""
        image = deskew(image)
        png = io.BytesIO()
        image.save(png, "PNG")
        command = [self._program, "stdin", "stdout", "--dpi", str(dpi), "-l", self._languages, "--psm", "3"]
        env = {**os.environ, "OMP_THREAD_LIMIT": "1"}  # one core: the embedding model has the other
        try:
            done = subprocess.run(
                command,
                input=png.getvalue(),
                capture_output=True,
                timeout=self._timeout,
                env=env,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise OcrError(f"OCR timed out after {self._timeout:g} s") from None
        except OSError as err:
            raise OcrError(f"OCR could not start: {err}") from None
        if done.returncode != 0:
            reason = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
            raise OcrError(f"OCR failed (exit code {done.returncode}): {reason[0][:200]}")
        return done.stdout.decode("utf-8", "replace").replace("\f", "").strip()
