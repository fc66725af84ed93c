"""Event handlers as plain functions of the session and the widgets' values (no Gradio here).

``ui/app.py`` binds them to widgets; tests call them directly. A handler returns plain values; ``None``
for a view means "unchanged" (the app turns it into ``gr.skip()``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kimas_desktop.conversation import Conversation
from kimas_desktop.session import DesktopSession, Outcome, SettingsForm
from ui import render

ChatUpdate = tuple[list[dict[str, Any]], Conversation, str]


# -- chat --------------------------------------------------------------------------------------------


def _stream(session: DesktopSession, conv: Conversation, turns: Iterator[object]) -> Iterator[ChatUpdate]:
    for _ in turns:
        yield render.chat_messages(conv), conv, ""


def submit(session: DesktopSession, conv: Conversation | None, text: str) -> Iterator[ChatUpdate]:
    """Ask ``text``: yields the whole chat after every streamed change; the textbox is cleared."""
    conv = conv or session.new_conversation()
    if not text.strip():
        yield render.chat_messages(conv), conv, text
        return
    yield from _stream(session, conv, session.ask(conv, text))


def regenerate(session: DesktopSession, conv: Conversation | None) -> Iterator[ChatUpdate]:
    conv = conv or session.new_conversation()
    yield render.chat_messages(conv), conv, ""
    yield from _stream(session, conv, session.regenerate(conv))


def stop(session: DesktopSession, conv: Conversation | None) -> None:
    if conv is not None:
        session.stop(conv)


def new_chat(session: DesktopSession, conv: Conversation | None) -> tuple[list[dict[str, Any]], Conversation]:
    conv = conv or session.new_conversation()
    session.new_chat(conv)
    return [], conv


def chat_hint(session: DesktopSession) -> str:
    """Above the chat: how to add knowledge, while there is none."""
    return "" if session.has_knowledge() else render.NO_KNOWLEDGE_HINT


# -- polling -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Poll:
    version: int
    collections_md: str | None  # None: unchanged since the version the page has seen
    names: list[str] | None
    chat_hint: str | None
    activity_md: str | None
    progress_html: str
    model_md: str


def poll(session: DesktopSession, seen_version: int | None) -> Poll:
    """What the page shows about knowledge, indexing and models (cheap when nothing changed)."""
    version = session.version
    progress = render.progress_html(session.indexing_state())
    model = render.model_markdown(session.model_state())
    if version == seen_version:
        return Poll(version, None, None, None, None, progress, model)
    return Poll(
        version,
        render.collections_markdown(session.collections()),
        session.collection_names(),
        chat_hint(session),
        render.activity_markdown(session.activity()),
        progress,
        model,
    )


# -- knowledge ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class KnowledgeAction:
    message: str
    names: list[str]
    selected: str | None


def _after(session: DesktopSession, outcome: Outcome, selected: str | None) -> KnowledgeAction:
    names = session.collection_names()
    if selected not in names:
        selected = names[0] if names else None
    return KnowledgeAction(render.outcome_markdown(outcome), names, selected)


def create_collection(session: DesktopSession, name: str) -> KnowledgeAction:
    outcome = session.create_collection(name)
    return _after(session, outcome, name.strip() if outcome.ok else None)


def remove_collection(session: DesktopSession, name: str | None) -> KnowledgeAction:
    if not name:
        return _after(session, Outcome(False, "Choose a collection first."), None)
    return _after(session, session.remove_collection(name), None)


DEFAULT_COLLECTION = "documents"


def upload(
    session: DesktopSession, collection: str | None, files: Sequence[str] | str | None
) -> KnowledgeAction:
    """Files or a folder dropped onto ``collection`` (a new "documents" collection if none is chosen).

    The browser sends only file names (folders arrive flattened); the temporary copy's name is the
    name the user's file had, and the session sanitizes it.
    """
    if isinstance(files, str):
        files = [files]
    name = collection or DEFAULT_COLLECTION
    pairs = [(Path(f), Path(f).name) for f in files or []]
    return _after(session, session.add_uploads(name, pairs), name)


def add_folder(session: DesktopSession, collection: str | None, folder: str) -> KnowledgeAction:
    name = collection or DEFAULT_COLLECTION
    return _after(session, session.add_folder(name, folder), name)


def reindex(session: DesktopSession, collection: str | None) -> KnowledgeAction:
    if not collection:
        return _after(session, Outcome(False, "Choose a collection first."), None)
    return _after(session, session.reindex(collection), collection)


@dataclass(frozen=True)
class CollectionFields:
    description: str
    examples: str  # one per line
    mixin_weight: float
    scale: float
    language: str
    strategy: str


def load_collection_settings(session: DesktopSession, name: str | None) -> CollectionFields:
    s = session.collection_settings(name or "")
    return CollectionFields(
        s.description, "\n".join(s.examples), s.mixin_weight, s.scale, s.language, s.strategy
    )


def save_collection_settings(session: DesktopSession, name: str | None, fields: CollectionFields) -> str:
    if not name:
        return render.outcome_markdown(Outcome(False, "Choose a collection first."))
    outcome = session.save_collection_settings(
        name,
        description=fields.description,
        examples=fields.examples.splitlines(),
        mixin_weight=float(fields.mixin_weight),
        scale=float(fields.scale),
        language=fields.language,
        strategy=fields.strategy or "",
    )
    return render.outcome_markdown(outcome)


# -- settings ----------------------------------------------------------------------------------------


def load_settings(session: DesktopSession) -> SettingsForm:
    return session.settings()


def preset_changed(session: DesktopSession, preset: str) -> SettingsForm:
    return session.preset_settings(preset)


def save_settings(session: DesktopSession, form: SettingsForm) -> str:
    return render.outcome_markdown(session.save_settings(form))
