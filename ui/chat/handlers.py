"""Chat tab handlers: asking, stopping, regenerating, and the conversation sidebar (no Gradio here).

The page holds only the open conversation's id; the conversation itself lives in the app
(``DesktopApp.history``), so a reload, a second tab or a restart shows the same chat. ``None`` for the
sidebar means "unchanged". ``page`` names the browser tab (Gradio's session): an answer streaming into a
tab stops drawing (and stops) once that tab opens another chat.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from app.chat.conversation import Conversation
from app.chat.served_files import shown_sources
from app.desktop import DesktopApp
from kimas_desktop.answer.model_alone import MODES, AnswerMode
from kimas_desktop.errors import KimasError
from kimas_desktop.text.visible import visible_name
from ui.chat import render
from ui.chat.model_alone_view import offer_markdown
from ui.chat.said import status_said
from ui.i18n import Language, reason, word
from ui.markup import esc, store_problem

__all__ = [
    "ChatUpdate",
    "Drawn",
    "Sidebar",
    "ask_model_alone",
    "chat_hint",
    "chat_mode",
    "delete_chat",
    "model_alone_offered",
    "new_chat",
    "open_chat",
    "regenerate",
    "rename_chat",
    "restore",
    "set_mode",
    "sidebar",
    "stop",
    "submit",
]


@dataclass(frozen=True)
class Sidebar:
    choices: list[tuple[str, str]]  # (label, conversation id), newest first
    selected: str | None  # the open conversation, when it is stored
    title: str  # the open conversation's title (the rename box)
    note: str  # Markdown: no match, or why conversations are not saved


Messages = list[dict[str, Any]]
ChatUpdate = tuple[Messages, str, Sidebar | None]  # chat, conversation id, sidebar
Drawn = ChatUpdate | None  # None: change nothing on the page (it shows another chat now)


def chat_hint(desk: DesktopApp, language: Language = "en") -> str:
    """Above the chat: how to add knowledge, while there is none (in the page's ``language``)."""
    try:
        return "" if desk.knowledge.has_knowledge() else word("no_knowledge_hint", language)
    except KimasError as err:  # a broken store is not "no knowledge yet"
        return store_problem(reason(err, language), str(desk.log_file), language)


def sidebar(desk: DesktopApp, conv_id: str | None, search: str = "", language: Language = "en") -> Sidebar:
    """The conversation list; its note in the page's ``language``."""
    items = desk.history.summaries(search)
    conv = desk.history.get(conv_id) if conv_id else None
    ids = {c.id for c in items}
    note = render.history_note(
        desk.history.problem, searching=bool(search.strip()), found=bool(items), language=language
    )
    return Sidebar(
        render.conversation_choices(items),
        conv_id if conv_id in ids else None,
        conv.display_title if conv is not None and conv.turns else "",
        note,
    )


def _messages(desk: DesktopApp, conv: Conversation | None) -> Messages:
    """The chat as drawn, its traces and the status line naming each collection as the user named it."""
    return render.chat_messages(said_steps(conv, desk.knowledge.title), desk.knowledge.title)


def said_steps(conv: Conversation | None, title: Callable[[str], str] = str) -> Conversation | None:
    """``conv`` as drawn: the step of an answer still running said in its question's language, with the
    collections it searched by their names (``ui.chat.said.status_said``, issue 69). The conversation
    itself is not changed: a copy holds the said steps."""
    if conv is None or not any(t.state == "running" and t.status for t in conv.turns):
        return conv
    turns = [
        replace(t, status=status_said(t.status, t.status_code, t.status_values, t.question, title))
        if t.state == "running" and t.status
        else t
        for t in conv.turns
    ]
    return replace(conv, turns=turns)


def _shown(desk: DesktopApp, conv: Conversation) -> Messages:
    """A stored chat drawn again: the files it cites may be opened from it (in this run)."""
    desk.sources.remember(shown_sources(conv))
    return with_language_note(desk, conv, _messages(desk, conv))


def language_note(desk: DesktopApp, conv: Conversation) -> tuple[int, str]:
    """(turn index, note) for the first question of ``conv`` the embedding model in use cannot read (not
    English, the model English only), or (-1, ""): said once per conversation (issue 42)."""
    for i, turn in enumerate(conv.turns):
        note = desk.multilingual.question_note(turn.question)
        if note:
            return i, note
    return -1, ""


def with_language_note(desk: DesktopApp, conv: Conversation, messages: Messages) -> Messages:
    """``messages`` with the language note under the answer to that question (its first message after it)."""
    at, note = language_note(desk, conv)
    asked = [i for i, m in enumerate(messages) if m["role"] == "user"]
    if at < 0 or at >= len(asked) or asked[at] + 1 >= len(messages):
        return messages
    out = list(messages)
    answer = out[asked[at] + 1]
    out[asked[at] + 1] = {**answer, "content": f"{answer['content']}\n\n---\n🌐 _{esc(note)}_"}
    return out


def multilingual_offered(desk: DesktopApp, conv_id: str | None) -> bool:
    """Whether the open conversation shows the language note (its button shows beside the chat)."""
    return bool(conv_id) and language_note(desk, desk.history.get(conv_id))[0] >= 0


def restore(
    desk: DesktopApp, search: str = "", page: str = "", language: Language = "en"
) -> tuple[Messages, str, Sidebar]:
    """On page load: the conversation open last (before a reload or a restart), or a new one."""
    conv = desk.history.current()
    desk.history.show(page, conv.id)
    return _shown(desk, conv), conv.id, sidebar(desk, conv.id, search, language)


def _stream(
    desk: DesktopApp,
    conv: Conversation,
    turns: Iterator[object],
    search: str,
    page: str,
    language: Language = "en",
) -> Iterator[Drawn]:
    desk.history.show(page, conv.id)
    first = True
    try:
        for _ in turns:
            # Checked and drawn under the page's drawing lock: a switch to another chat waits until this
            # update is sent, and the next one sees the switch.
            with desk.history.drawing(page, conv.id) as shown:
                if not shown:
                    # The tab opened another chat: closing ``turns`` stops this answer where it is. The
                    # web server sends a stream's last value again when it ends, so that is "no change".
                    yield None
                    return
                # The sidebar once the question is stored (a new chat appears in it), and at the end.
                side = sidebar(desk, conv.id, search, language) if first else None
                yield _messages(desk, conv), conv.id, side
            first = False
    finally:
        close = getattr(turns, "close", None)
        if close is not None:
            close()
    with desk.history.drawing(page, conv.id) as shown:
        if shown:
            yield (
                with_language_note(desk, conv, _messages(desk, conv)),
                conv.id,
                sidebar(desk, conv.id, search, language),
            )


def submit(
    desk: DesktopApp,
    conv_id: str | None,
    text: str,
    search: str = "",
    page: str = "",
    sources: Sequence[str] = (),
    mode: AnswerMode | None = None,
    language: Language = "en",
) -> Iterator[Drawn]:
    """Ask ``text`` in the open conversation: yields the whole chat after every streamed change (never the
    question box, which the page clears when the question is sent, so a question typed meanwhile stays). An answer still streaming in this conversation is stopped first (it keeps
    what it had) and the new question is asked. ``mode``: the mode the page shows (what the user sees is
    what is asked), kept with the conversation. ``language``: the page's, for the sidebar's note."""
    conv = desk.history.get(conv_id)
    if mode is not None:
        desk.chat.set_mode(conv, mode)
    if not text.strip():
        yield _messages(desk, conv), conv.id, None
        return
    yield from _stream(desk, conv, desk.chat.ask(conv, text, sources=sources), search, page, language)


def regenerate(
    desk: DesktopApp,
    conv_id: str | None,
    search: str = "",
    page: str = "",
    sources: Sequence[str] = (),
    language: Language = "en",
) -> Iterator[Drawn]:
    conv = desk.history.get(conv_id)
    yield _messages(desk, conv), conv.id, None
    yield from _stream(desk, conv, desk.chat.regenerate(conv, sources), search, page, language)


def chat_mode(desk: DesktopApp, conv_id: str | None) -> AnswerMode:
    """Where the open conversation's answers come from (the mode selector's value)."""
    return desk.history.get(conv_id).mode if conv_id else "documents"


def set_mode(desk: DesktopApp, conv_id: str | None, mode: str) -> AnswerMode:
    """The mode selector moved: keep the choice with the conversation (a reload, a second tab or a
    restart shows it). An unknown value leaves the mode as it was."""
    conv = desk.history.get(conv_id)
    if mode in MODES:
        desk.chat.set_mode(conv, "model" if mode == "model" else "documents")
    return conv.mode


def model_alone_offered(desk: DesktopApp, conv_id: str | None) -> bool:
    """Whether the chat's last reply said there is no knowledge yet (its one-click switch shows)."""
    turns = desk.history.get(conv_id).turns if conv_id else []
    return bool(turns) and offer_markdown(turns[-1]) != ""


def ask_model_alone(
    desk: DesktopApp, conv_id: str | None, search: str = "", page: str = "", language: Language = "en"
) -> Iterator[Drawn]:
    """The one click under a "no knowledge yet" reply: the chat switches to the model alone and asks its
    last question again that way."""
    conv = desk.history.get(conv_id)
    yield _messages(desk, conv), conv.id, None
    yield from _stream(desk, conv, desk.chat.ask_model_alone(conv), search, page, language)


def stop(desk: DesktopApp, conv_id: str | None) -> None:
    if conv_id is not None:
        desk.chat.stop(desk.history.get(conv_id))


def new_chat(
    desk: DesktopApp, conv_id: str | None, search: str = "", page: str = "", language: Language = "en"
) -> tuple[Messages, str, Sidebar]:
    """A new, empty conversation; the open one stays in the sidebar (an answer it was writing stops)."""
    conv = desk.history.new()
    desk.history.show(page, conv.id)  # first: the stream of the chat left stops drawing at once
    stop(desk, conv_id)
    return [], conv.id, sidebar(desk, conv.id, search, language)


def open_chat(
    desk: DesktopApp,
    conv_id: str | None,
    wanted: str | None,
    search: str = "",
    page: str = "",
    language: Language = "en",
) -> tuple[Messages, str, Sidebar]:
    if not wanted or wanted == conv_id:
        conv = desk.history.get(conv_id)
        return _shown(desk, conv), conv.id, sidebar(desk, conv.id, search, language)
    conv = desk.history.open(wanted)
    desk.history.show(page, conv.id)  # first: the stream of the chat left stops drawing at once
    stop(desk, conv_id)
    return _shown(desk, conv), conv.id, sidebar(desk, conv.id, search, language)


def rename_chat(
    desk: DesktopApp, conv_id: str | None, title: str, search: str = "", language: Language = "en"
) -> Sidebar:
    if conv_id and title.strip():
        desk.history.rename(conv_id, title)
    return sidebar(desk, conv_id, search, language)


def delete_chat(
    desk: DesktopApp, conv_id: str | None, search: str = "", page: str = "", language: Language = "en"
) -> tuple[Messages, str, Sidebar]:
    """Delete the open conversation; a new, empty one opens."""
    if conv_id:
        stop(desk, conv_id)
        desk.history.delete(conv_id)
    return new_chat(desk, None, search, page, language)


def feedback(desk: DesktopApp, conv_id: str | None, index: Any, liked: Any, language: Language = "en") -> str:
    """A 👍 or 👎 on an answer (issue 26), said in the page's ``language``. Good: its question joins the
    latest test set, judged by the file the answer cited first. Wrong: where to add it with the file that
    does answer it."""
    conv = desk.history.get(conv_id)
    at = index[0] if isinstance(index, list | tuple) else index
    messages = _messages(desk, conv)
    if not isinstance(at, int) or not 0 <= at < len(messages) or messages[at]["role"] != "assistant":
        return ""
    turn_no = sum(1 for m in messages[: at + 1] if m["role"] == "user") - 1
    if not 0 <= turn_no < len(conv.turns):
        return ""
    turn = conv.turns[turn_no]
    if liked is False or liked == "Dislike":
        return word("marked_wrong", language)
    if not turn.citations:
        return word("marked_good_uncited", language)
    test_set = desk.evaluation.latest_set()
    if test_set is None:
        return word("marked_good_no_set", language)
    source = turn.citations[0].chunk.source
    try:
        desk.evaluation.add_question(test_set.set_id, turn.question, source)
    except KimasError as err:
        return f"⚠ {esc(str(err))}"
    return word(
        "marked_good", language, question=esc(turn.question), file=esc(visible_name(Path(source).name))
    )
