"""One PDF page drawn for the viewer (issue 46), inside the parser worker (``indexer.parse.worker``), so a
PDF that crashes pdfium or eats memory costs the worker, not the app (the worker's memory cap and the
caller's time limit apply).

Request ``{"path": ..., "draw": 2, "width": 1100}``: one ``{"t": "drawn", "n": pages, "page": k, "png":
base64, "size": [w, h], "text": ...}`` frame, then done. With ``"span": [start, end]`` (offsets in that
text) and ``"width": 0``: one ``{"t": "boxes", "boxes": [[left, top, width, height], ...]}`` frame instead,
each box as fractions of the page as shown (its ``/Rotate`` applied), from its top left corner.
"""

from __future__ import annotations

import base64
import io
from typing import Any

__all__ = ["draw_page", "shown_box"]

Rect = tuple[float, float, float, float]


def shown_box(box: Rect, rotation: int) -> Rect:
    """``box`` (left, top, width, height as fractions of the unrotated page) where it is on the page turned
    ``rotation`` degrees clockwise (a PDF's ``/Rotate``)."""
    left, top, width, height = box
    corners = [(left, top), (left + width, top + height)]
    turn = rotation % 360

    def turned(x: float, y: float) -> tuple[float, float]:
        if turn == 90:
            return 1 - y, x
        if turn == 180:
            return 1 - x, 1 - y
        if turn == 270:
            return y, 1 - x
        return x, y

    (x0, y0), (x1, y1) = (turned(x, y) for x, y in corners)
    return min(x0, x1), min(y0, y1), abs(x1 - x0), abs(y1 - y0)


def draw_page(request: dict[str, Any]) -> dict[str, Any]:
    """The reply frame for one draw request (see the module docstring)."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(request["path"]))
    try:
        number = min(max(int(request["draw"]), 1), len(pdf))
        page = pdf[number - 1]
        if request.get("span"):
            return {"t": "boxes", "boxes": _boxes(page, request["span"])}
        width_px = float(request["width"])
        shown_w, _ = page.get_size()  # the page as shown (its rotation applied)
        image = page.render(scale=min(max(width_px / max(shown_w, 1.0), 0.5), 3.0)).to_pil()
        png = io.BytesIO()
        image.save(png, format="PNG", optimize=False)
        text = page.get_textpage().get_text_range()
        encoded = base64.b64encode(png.getvalue()).decode("ascii")
        return {
            "t": "drawn",
            "n": len(pdf),
            "page": number,
            "png": encoded,
            "size": list(image.size),
            "text": text,
        }
    finally:
        pdf.close()


def _boxes(page: Any, span: list[int]) -> list[list[float]]:
    left, bottom, right, top = page.get_bbox()
    width, height = right - left, top - bottom
    textpage = page.get_textpage()
    start, end = int(span[0]), int(span[1])
    boxes = []
    for i in range(textpage.count_rects(start, end - start)):
        x0, y0, x1, y1 = textpage.get_rect(i)
        box = ((x0 - left) / width, (top - y1) / height, (x1 - x0) / width, (y1 - y0) / height)
        boxes.append(list(shown_box(box, page.get_rotation())))
    return boxes
