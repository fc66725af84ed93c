"""Markup helpers: text from documents and models shown as itself in Markdown or HTML."""

from __future__ import annotations

import html

__all__ = ["code", "esc"]


def esc(text: str) -> str:
    """Text that shows as itself inside Markdown or HTML."""
    out = text
    for ch in "\\`*_[]|#":
        out = out.replace(ch, "\\" + ch)
    return html.escape(out, quote=False)


def code(text: str) -> str:
    return f"<code>{html.escape(text)}</code>"
