"""Markup shared by the tabs: text from documents and models shown as itself in Markdown or HTML, the
link to a cited file, and the one-line status of an action, of the models and of a broken store."""

from __future__ import annotations

import html
from pathlib import Path
from urllib.parse import quote

from app.chat.served_files import source_token
from app.desktop import ActionResult, ModelState

__all__ = [
    "SOURCE_ROUTE",
    "code",
    "esc",
    "model_markdown",
    "outcome_markdown",
    "source_url",
    "store_problem",
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


def outcome_markdown(outcome: ActionResult) -> str:
    return esc(outcome.message) if outcome.ok else f"⚠ {esc(outcome.message)}"


def model_markdown(state: ModelState) -> str:
    icon = {"loading": "◌", "ready": "✓", "failed": "⚠"}[state.phase]
    return f"{icon} {esc(state.message)}"


def store_problem(message: str, log_file: str) -> str:
    """Why the collections cannot be shown: the store itself failed (never mistaken for "no knowledge")."""
    return f"**The knowledge store cannot be read.** {esc(message)} Details are in {code(log_file)}."
