"""The viewer's pages (issue 46): a cited file at the passage, as one HTML page with no script.

Every word of the file is escaped; the page's image is inline (``data:``), its styles inline, so it
works under ``FILE_POLICY`` (sandboxed, nothing loaded from anywhere). The browser scrolls to the passage
itself: links end in ``#kimas-hit``, the id of the first highlighted box or line. The page's own words
(where the passage is, the links, why a page shows no text) are in the reader's language (issue 69: the
``viewer …`` lines of ``ui.chat.said``), the file's as they are.
"""

from __future__ import annotations

import base64
import html
from dataclasses import replace

from app.chat.viewer import View
from app.chat.viewer_pdf import PdfPageView
from app.chat.viewer_text import LinesView, ProseView
from kimas_desktop.text.visible import visible_name
from ui.chat.said import said_in

__all__ = ["HIT", "view_html"]

HIT = "kimas-hit"
_STYLE = """
body{font:15px/1.5 system-ui,sans-serif;margin:0;background:#f4f4f5;color:#18181b}
header{position:sticky;top:0;z-index:2;background:#fff;border-bottom:1px solid #d4d4d8;padding:8px 16px}
header a{margin-left:12px}
.note{color:#92400e}
main{max-width:1100px;margin:16px auto;padding:0 12px}
.page{position:relative;background:#fff;box-shadow:0 1px 4px #0003}
.page img{display:block;width:100%;height:auto}
.box{position:absolute;background:#facc1566;outline:2px solid #ca8a04;scroll-margin-top:40vh}
mark{background:#fde047;scroll-margin-top:40vh}
.text,.prose{background:#fff;padding:12px 16px;margin-top:16px;white-space:pre-wrap}
.lines{background:#fff;font:13px/1.45 ui-monospace,monospace;padding:8px 0;overflow-x:auto}
.line{display:flex}
.line span:last-child{white-space:pre-wrap;overflow-wrap:anywhere;min-width:0}
.line .no{color:#71717a;min-width:5em;flex:none;text-align:right;padding-right:1em;user-select:none}
.line.cited{background:#fef9c3}
.line.hit{background:#fde047}
.line.hit,.line.cited{scroll-margin-top:40vh}
h2{font-size:15px;margin:16px 0 4px}
"""


_HTML_LANG = {"zh": "zh-CN", "ja": "ja", "hi": "hi"}


def _page(title: str, header: str, body: str, lang: str = "en") -> str:
    return (
        f"<!doctype html><html lang='{_HTML_LANG.get(lang, 'en')}'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body><header>{header}</header><main>{body}</main></body></html>"
    )


def _marked(text: str, span: tuple[int, int] | None, anchor: bool = True) -> str:
    if span is None:
        return html.escape(text)
    a, b = span
    at = f" id='{HIT}'" if anchor else ""
    return f"{html.escape(text[:a])}<mark{at}>{html.escape(text[a:b])}</mark>{html.escape(text[b:])}"


def pdf_html(view: PdfPageView, links: dict[str, str], lang: str = "en") -> str:
    """``links``: ``original`` (the file itself), and ``previous``/``next`` pages when there are; the page's
    words in ``lang``."""
    boxes = "".join(
        f"<div class='box'{f' id={HIT!r}' if i == 0 else ''} style='left:{b.left:.2%};top:{b.top:.2%};"
        f"width:{b.width:.2%};height:{b.height:.2%}'></div>"
        for i, b in enumerate(view.boxes)
    )
    image = base64.b64encode(view.png).decode("ascii")
    name = html.escape(view.name)
    alt = html.escape(said_in("viewer page alt", lang, page=view.page, name=view.name), quote=True)
    body = (
        f"<div class='page'><img src='data:image/png;base64,{image}' width='{view.size[0]}' "
        f"height='{view.size[1]}' alt='{alt}'>"
        f"{boxes}</div><h2>{said_in('viewer page text', lang, page=view.page)}</h2>"
        f"<div class='text'>{_marked(view.text, view.hit, anchor=not view.boxes)}</div>"
    )
    missing = "" if view.boxes else f" · <span class='note'>{said_in('viewer not on page', lang)}</span>"
    return _page(
        said_in("viewer title page", lang, name=view.name, page=view.page),
        _header(
            said_in("viewer page of", lang, page=view.page, pages=view.pages) + missing, name, links, lang
        ),
        body,
        lang,
    )


def _header(where: str, name: str, links: dict[str, str], lang: str = "en") -> str:
    """The file's name, where the passage is, and the links (``name`` escaped already)."""
    labels = {k: said_in(f"viewer {k}", lang) for k in ("previous", "next", "original")}
    anchors = "".join(
        f"<a href='{html.escape(links[k], quote=True)}'>{html.escape(labels[k])}</a>"
        for k in labels
        if k in links
    )
    return f"<b>{name}</b> · {where}{anchors}"


def lines_html(view: LinesView, links: dict[str, str], lang: str = "en") -> str:
    target = view.hit or view.cited
    rows = []
    for i, line in enumerate(view.lines, view.first):
        kind = "hit" if view.hit and view.hit[0] <= i <= view.hit[1] else ""
        kind = kind or ("cited" if view.cited and view.cited[0] <= i <= view.cited[1] else "")
        at = f" id='{HIT}'" if target and i == target[0] else ""
        rows.append(
            f"<div class='line {kind}'{at}><span class='no'>{i}</span><span>{html.escape(line)}</span></div>"
        )
    if view.cited:
        where = said_in("viewer lines of", lang, start=view.cited[0], end=view.cited[1], total=view.total)
    else:
        where = said_in("viewer lines", lang, total=view.total)
    if view.first > 1 or view.first + len(view.lines) - 1 < view.total:
        where += said_in("viewer showing", lang, first=view.first, last=view.first + len(view.lines) - 1)
    header = _header(where, html.escape(view.name), links, lang)
    return _page(view.name, header, f"<div class='lines'>{''.join(rows)}</div>", lang)


def prose_html(view: ProseView, links: dict[str, str], lang: str = "en") -> str:
    parts = []
    for i, s in enumerate(view.sections):
        said = s.heading.rsplit(" > ", 1)[-1]  # a heading the text starts with is not said twice
        named = "" if said and s.text.startswith(said) else s.heading
        page = said_in("at page", lang, n=s.page) if s.page else ""
        title = " · ".join(x for x in (page, named) if x)
        span = view.hit[1:] if view.hit and view.hit[0] == i else None
        heading = f"<h2>{html.escape(title)}</h2>" if title else ""
        text = s.text
        if view.problem is not None:  # the app's sentence, in the reader's language
            text = said_in(f"viewer {view.problem.code}", lang, why=view.problem.why)
        parts.append(f"{heading}<div class='prose'>{_marked(text, span)}</div>")
    missing = "" if view.hit else f" · <span class='note'>{said_in('viewer not in text', lang)}</span>"
    header = _header(said_in("viewer text read", lang) + missing, html.escape(view.name), links, lang)
    return _page(view.name, header, "".join(parts), lang)


def view_html(view: View, links: dict[str, str], lang: str = "en") -> str:
    """``view`` as a page, its own words in ``lang`` (the reader's: "zh", "ja", "hi", else English); the
    file's name as ``visible_name`` shows it."""
    view = replace(view, name=visible_name(view.name))
    if isinstance(view, PdfPageView):
        return pdf_html(view, links, lang)
    if isinstance(view, LinesView):
        return lines_html(view, links, lang)
    return prose_html(view, links, lang)
