"""Real test files made on the fly: PDFs with reportlab (plain and encrypted with pypdf), text files."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

from kimas_desktop.config import IndexerConfig


def pdf_bytes(pages: Sequence[str]) -> bytes:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4, invariant=1)
    for page in pages:
        y = 800
        for line in page.split("\n"):
            pdf.drawString(50, y, line)
            y -= 14
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def encrypted_pdf_bytes(pages: Sequence[str], user_password: str) -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf_bytes(pages))))
    writer.encrypt(user_password=user_password, owner_password="owner-secret", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def write_pdf(path: Path, pages: Sequence[str], *, password: str | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pdf_bytes(pages) if password is None else encrypted_pdf_bytes(pages, password))
    return path


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return path


def small_config(**overrides: object) -> IndexerConfig:
    """Small chunks, so short test files still make several."""
    values: dict[str, object] = {"chunk_tokens": 40, "overlap_tokens": 8, "centroids": 4, **overrides}
    return IndexerConfig.model_validate(values)
