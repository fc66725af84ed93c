"""The viewer's pages (issue 46): a cited file at the passage, as one HTML page with no script.

Every word of the file is escaped; the page's image is inline (``data:``), its styles inline, so it
works under ``FILE_POLICY`` (sandboxed, nothing loaded from anywhere). The browser scrolls to the passage
itself: links end in ``#kimas-hit``, the id of the first highlighted box or line.
"""

from __future__ import annotations

import base64
import html

from app.chat.viewer import View
from app.chat.viewer_pdf import PdfPageView
from app.chat.viewer_text import LinesView, ProseView

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


def _page(title: str, header: str, body: str) -> str:
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
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


def pdf_html(view: PdfPageView, links: dict[str, str]) -> str:
    """``links``: ``original`` (the file itself), and ``previous``/``next`` pages when there are."""
    boxes = "".join(
        f"<div class='box'{f' id={HIT!r}' if i == 0 else ''} style='left:{b.left:.2%};top:{b.top:.2%};"
        f"width:{b.width:.2%};height:{b.height:.2%}'></div>"
        for i, b in enumerate(view.boxes)
    )
    image = base64.b64encode(view.png).decode("ascii")
    name = html.escape(view.name)
    body = (
        f"<div class='page'><img src='data:image/png;base64,{image}' width='{view.size[0]}' "
        f"height='{view.size[1]}' alt='page {view.page} of {name}'>"
        f"{boxes}</div><h2>Text of page {view.page}</h2>"
        f"<div class='text'>{_marked(view.text, view.hit, anchor=not view.boxes)}</div>"
    )
    missing = "" if view.boxes else " · <span class='note'>the cited words were not found on this page</span>"
    return _page(
        f"{view.name} — page {view.page}",
        _header(f"page {view.page} of {view.pages}{missing}", view.name, links),
        body,
    )


def _header(where: str, name: str, links: dict[str, str]) -> str:
    labels = {"previous": "‹ previous page", "next": "next page ›", "original": "the original file"}
    anchors = "".join(
        f"<a href='{html.escape(links[k], quote=True)}'>{labels[k]}</a>" for k in labels if k in links
    )
    return f"<b>{html.escape(name)}</b> · {where}{anchors}"


def lines_html(view: LinesView, links: dict[str, str]) -> str:
    target = view.hit or view.cited
    rows = []
    for i, line in enumerate(view.lines, view.first):
        kind = "hit" if view.hit and view.hit[0] <= i <= view.hit[1] else ""
        kind = kind or ("cited" if view.cited and view.cited[0] <= i <= view.cited[1] else "")
        at = f" id='{HIT}'" if target and i == target[0] else ""
        rows.append(
            f"<div class='line {kind}'{at}><span class='no'>{i}</span><span>{html.escape(line)}</span></div>"
        )
    where = f"lines {view.cited[0]}–{view.cited[1]} of {view.total}" if view.cited else f"{view.total} lines"
    if view.first > 1 or view.first + len(view.lines) - 1 < view.total:
        where += f" (showing {view.first}–{view.first + len(view.lines) - 1})"
    return _page(view.name, _header(where, view.name, links), f"<div class='lines'>{''.join(rows)}</div>")


def prose_html(view: ProseView, links: dict[str, str]) -> str:
    parts = []
    for i, s in enumerate(view.sections):
        said = s.heading.rsplit(" > ", 1)[-1]  # a heading the text starts with is not said twice
        named = "" if said and s.text.startswith(said) else s.heading
        title = " · ".join(x for x in (f"p. {s.page}" if s.page else "", named) if x)
        span = view.hit[1:] if view.hit and view.hit[0] == i else None
        heading = f"<h2>{html.escape(title)}</h2>" if title else ""
        parts.append(f"{heading}<div class='prose'>{_marked(s.text, span)}</div>")
    missing = "" if view.hit else " · <span class='note'>the cited words were not found in the text</span>"
    return _page(view.name, _header(f"the text KIMAs read{missing}", view.name, links), "".join(parts))


def view_html(view: View, links: dict[str, str]) -> str:
    if isinstance(view, PdfPageView):
        return pdf_html(view, links)
    if isinstance(view, LinesView):
        return lines_html(view, links)
    return prose_html(view, links)
