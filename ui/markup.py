"""Markup shared by the tabs: text from documents and models shown as itself in Markdown or HTML, the
link to a cited file, and the one-line status of an action, of the models and of a broken store."""

from __future__ import annotations

import html
from pathlib import Path
from urllib.parse import quote, urlencode

from app.chat.served_files import source_token
from app.desktop import ActionResult, ModelState

__all__ = [
    "SOURCE_ROUTE",
    "VIEW_ROUTE",
    "code",
    "esc",
    "model_markdown",
    "outcome_markdown",
    "source_url",
    "store_problem",
    "viewer_url",
]


def esc(text: str) -> str:
    """Text that shows as itself inside Markdown or HTML."""
    out = text
    for ch in "\\`*_[]|#":
        out = out.replace(ch, "\\" + ch)
    return html.escape(out, quote=False)


def code(text: str) -> str:
    return f"<code>{html.escape(text)}</code>"


SOURCE_ROUTE = "/kimas/source"  # serves cited files; registered by cli/serve_cmd.py


def source_url(path: str, page: int | None = None) -> str:
    url = f"{SOURCE_ROUTE}/{source_token(path)}/{quote(Path(path).name)}"
    return url + (f"#page={page}" if page else "")


VIEW_ROUTE = "/kimas/view"  # shows cited files at the passage (ui/server/viewer_route.py)
PASSAGE_CHARS = 400  # the cited words a link carries: enough to find them, short enough for any URL


def viewer_url(
    path: str, page: int | None = None, lines: tuple[int, int] | None = None, passage: str = ""
) -> str:
    """The viewer's page for ``path`` at the passage: its page or lines, the cited words highlighted and
    scrolled into view (``#kimas-hit``)."""
    query = {"page": str(page) if page else "", "lines": f"{lines[0]}-{lines[1]}" if lines else ""}
    query["q"] = " ".join(passage.split())[:PASSAGE_CHARS]
    params = urlencode({k: v for k, v in query.items() if v})
    url = f"{VIEW_ROUTE}/{source_token(path)}/{quote(Path(path).name)}"
    return url + (f"?{params}" if params else "") + "#kimas-hit"


def outcome_markdown(outcome: ActionResult) -> str:
    return esc(outcome.message) if outcome.ok else f"⚠ {esc(outcome.message)}"


def model_markdown(state: ModelState) -> str:
    icon = {"loading": "◌", "ready": "✓", "failed": "⚠"}[state.phase]
    return f"{icon} {esc(state.message)}"


def store_problem(message: str, log_file: str) -> str:
    """Why the collections cannot be shown: the store itself failed (never mistaken for "no knowledge")."""
    return f"**The knowledge store cannot be read.** {esc(message)} Details are in {code(log_file)}."
