"""What the page's one-second timer refreshes across the tabs: the collections and their names, the chat's
hint, indexing progress and activity, and the model status line (no Gradio here). ``None`` for a view means
"unchanged" (the app turns it into ``gr.skip()``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.desktop import DesktopApp
from ui.chat.handlers import chat_hint
from ui.i18n import Language
from ui.knowledge.collections_view import progress_html
from ui.knowledge.handlers import activity_view, collection_choices, collections_view, progress_states
from ui.markup import model_markdown

if TYPE_CHECKING:
    from gradio.i18n import I18nData

__all__ = ["Poll", "poll"]


@dataclass(frozen=True)
class Poll:
    version: int
    collections_md: str | I18nData | None  # None: unchanged since the version the page has seen
    names: list[str] | None  # the collections' ids
    choices: list[tuple[str, str]] | None  # (name shown, id) for the collection pickers
    chat_hint: str | None
    activity_md: str | None
    progress_html: str
    model_md: str


def poll(desk: DesktopApp, seen_version: int | None, language: Language = "en") -> Poll:
    """What the page shows about knowledge, indexing and models (cheap when nothing changed); the words the
    server writes about knowledge, indexing and the models in ``language``."""
    version = desk.version
    progress = progress_html(*progress_states(desk), language=language)
    model = model_markdown(desk.model_state(), desk.config, language)
    if version == seen_version:
        return Poll(version, None, None, None, None, None, progress, model)
    choices = collection_choices(desk)
    return Poll(
        version,
        collections_view(desk, language),
        [cid for _, cid in choices],
        choices,
        chat_hint(desk, language),
        activity_view(desk, language),
        progress,
        model,
    )
