"""Scanned pages made by the tests: known text set with reportlab, rendered by pdfium at 150 dpi, rotated
slightly, with noise and a JPEG round trip, then put into an image-only PDF or an image file."""

from __future__ import annotations

import io
from collections.abc import Sequence

import numpy as np
from PIL import Image

from tests.indexer.files import pdf_bytes


def scanned_images(pages: Sequence[str], *, dpi: int = 150, angle: float = 1.2) -> list[Image.Image]:
    import pypdfium2 as pdfium

    rng = np.random.default_rng(3)
    doc = pdfium.PdfDocument(pdf_bytes(pages))
    images = []
    for page in doc:
        grey = page.render(scale=dpi / 72).to_pil().convert("L")
        grey = grey.rotate(angle, resample=Image.Resampling.BILINEAR, fillcolor=255)
        noisy = np.asarray(grey, dtype=np.float32) + rng.normal(0, 12, grey.size[::-1])
        out = io.BytesIO()
        Image.fromarray(np.clip(noisy, 0, 255).astype(np.uint8)).save(out, "JPEG", quality=75)
        images.append(Image.open(io.BytesIO(out.getvalue())))
    doc.close()
    return images


def scanned_pdf_bytes(pages: Sequence[str], *, dpi: int = 150) -> bytes:
    """An image-only PDF (A4, no text layer at all), one scan per page."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    pdf = canvas.Canvas(out, pagesize=A4, invariant=1)
    for image in scanned_images(pages, dpi=dpi):
        pdf.drawImage(ImageReader(image), 0, 0, width=A4[0], height=A4[1])
        pdf.showPage()
    pdf.save()
    return out.getvalue()
