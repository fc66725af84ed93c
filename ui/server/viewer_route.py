"""``GET /kimas/view/{token}/{name}?page=&lines=&q=``: a cited file at the passage (issue 46).

The same guard as ``/kimas/source``: the token must name a file this run has shown, still inside a
collection's folder (``SourceRegistry``), or the answer is a 404. The page is data, never code:
``FILE_POLICY`` (sandboxed, no script, nothing loaded from anywhere), every word escaped
(``viewer_page.py``). A kind the viewer does not show goes to the file itself (``/kimas/source``). The page's
own words are in the reader's language: ``[ui] language`` (``setting``), else the browser's (issue 69).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote, urlencode

from starlette.requests import Request

from app.chat.viewer import SourceViewer, Spot
from ui.i18n import language_for
from ui.markup import PASSAGE_CHARS, SOURCE_ROUTE
from ui.server.security_headers import FILE_POLICY
from ui.server.viewer_page import view_html

__all__ = ["add_viewer_route", "spot_of"]

log = logging.getLogger(__name__)

_LINES = re.compile(r"^(\d{1,9})-(\d{1,9})$")
_HEADERS = {
    "Content-Security-Policy": FILE_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
}
GONE = "This file is not a source KIMAs has cited, or it is gone."


class Sources(Protocol):
    def file(self, token: str) -> Path | None: ...


def spot_of(page: str, lines: str, q: str) -> Spot:
    """The query's page, lines and cited words; what is not a number is left out."""
    number = int(page) if page.isdecimal() and len(page) < 10 else None
    match = _LINES.match(lines)
    span = (int(match[1]), int(match[2])) if match else None
    return Spot(number or None, span, q[: PASSAGE_CHARS * 2])


def _links(route: str, token: str, name: str, page: int | None, pages: int) -> dict[str, str]:
    links = {"original": f"{SOURCE_ROUTE}/{token}/{quote(name)}" + (f"#page={page}" if page else "")}
    if page and page > 1:
        links["previous"] = f"{route}/{token}/{quote(name)}?{urlencode({'page': page - 1})}"
    if page and page < pages:
        links["next"] = f"{route}/{token}/{quote(name)}?{urlencode({'page': page + 1})}"
    return links


def _auto() -> str:
    return "auto"


def add_viewer_route(app: Any, sources: Sources, route: str, setting: Callable[[], str] = _auto) -> None:
    """``setting``: the ``[ui] language`` in use ("auto": the browser's language)."""
    from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response

    from app.chat.viewer_pdf import PdfPageView

    viewer = SourceViewer()

    def view(
        request: Request, token: str, name: str, page: str = "", lines: str = "", q: str = ""
    ) -> Response:
        path = sources.file(token)
        if path is None:
            return PlainTextResponse(GONE, 404, headers=_HEADERS)
        spot = spot_of(page, lines, q)
        try:
            shown = viewer.view(path, spot)
        except Exception as err:  # an unreadable file opens as itself, never a crash
            log.warning("the viewer could not show %s: %s", path, err)
            shown = None
        if shown is None:
            original = _links(route, token, path.name, spot.page, 0)["original"]
            return RedirectResponse(original, 303, headers=_HEADERS)
        number, pages = (shown.page, shown.pages) if isinstance(shown, PdfPageView) else (None, 0)
        links = _links(route, token, path.name, number, pages)
        lang = language_for(setting(), request.headers.get("accept-language"))
        return HTMLResponse(view_html(shown, links, lang), headers=_HEADERS)

    app.add_api_route(route + "/{token}/{name:path}", view, methods=["GET"])
