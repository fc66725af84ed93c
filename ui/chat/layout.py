"""The Chat tab: the conversation list on the left, the chat and the question box on the right. Layout and
wiring only; the handlers are ``ui.chat.handlers``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, cast

import gradio as gr

from app.desktop import DesktopApp
from kimas_desktop.answer.model_alone import AnswerMode
from ui.chat import handlers as chat_handlers
from ui.chat.model_alone_view import ASK_MODEL_ALONE, MODE_CHOICES, MODE_INFO, MODE_LABEL
from ui.i18n import Language, page_language, t
from ui.knowledge import sources_handlers
from ui.markup import model_markdown, outcome_markdown

__all__ = ["LATEX_DELIMITERS", "ChatTab", "build"]

# The chat draws no LaTeX: the app writes none, and the documents it quotes are data (issue 69). Gradio's
# default ($$…$$) took the span between two "$$" of a quoted paper, HTML and all, as one formula.
LATEX_DELIMITERS: list[dict[str, str | bool]] = []


@dataclass(frozen=True)
class ChatTab:
    """What the rest of the app needs of the tab: the lines its timer refreshes, the online sources'
    checkboxes (the Knowledge tab updates them), and the page load that reopens the last chat."""

    model_status: gr.Markdown
    hint: gr.Markdown
    also_ask: gr.CheckboxGroup
    bind_restore: Callable[[gr.Blocks], None]


@dataclass(frozen=True)
class _Sidebar:
    new: gr.Button
    search: gr.Textbox
    chats: gr.Radio
    note: gr.Markdown
    title: gr.Textbox
    rename: gr.Button
    delete: gr.Button
    confirm_row: gr.Row
    confirm: gr.Button
    cancel: gr.Button

    @property
    def listing(self) -> list[Any]:
        return [self.chats, self.title, self.note]


@dataclass(frozen=True)
class _Talk:
    model_status: gr.Markdown
    hint: gr.Markdown
    chatbot: gr.Chatbot
    feedback_line: gr.Markdown
    question: gr.Textbox
    send: gr.Button
    also_ask: gr.CheckboxGroup
    stop: gr.Button
    again: gr.Button
    multilingual: gr.Button  # shown with the chat's language note (issue 42)
    mode: gr.Radio  # answer from my documents / the model alone (issue 45)
    model_alone: gr.Button  # shown under a "no knowledge yet" reply: one click to the model alone


def _page(request: gr.Request | None) -> str:
    """Which browser tab an event comes from."""
    return (request.session_hash or "") if request is not None else ""


def _language(desk: DesktopApp, request: gr.Request | None) -> Language:
    """The language of the page an event comes from (the sidebar's and the status line's words)."""
    return page_language(desk.config.ui.language, request)


def _sidebar_outputs(sb: chat_handlers.Sidebar) -> tuple[Any, ...]:
    """Values for (list, title box, note). No command-line hint: it means nothing in the app."""
    return gr.update(choices=sb.choices, value=sb.selected), gr.update(value=sb.title), sb.note


def _shown(result: tuple[list[dict[str, Any]], str, chat_handlers.Sidebar]) -> tuple[Any, ...]:
    messages, conv_id, sb = result
    return (messages, conv_id, *_sidebar_outputs(sb))


def _sidebar() -> _Sidebar:
    with gr.Column(scale=1, min_width=220, elem_id="chat-sidebar"):
        new = gr.Button(t("new_chat"), size="sm", variant="primary", elem_id="new-chat")
        search = gr.Textbox(placeholder=t("search_chats"), show_label=False, elem_id="chat-search", lines=1)
        chats = gr.Radio(choices=[], show_label=False, container=False, elem_id="conversation-list")
        note = gr.Markdown("", elem_id="chat-list-note")
        with gr.Accordion(t("rename_or_delete"), open=False):
            title = gr.Textbox(label=t("chat_title"), elem_id="chat-title", lines=1)
            rename = gr.Button(t("rename"), size="sm", elem_id="rename-chat")
            delete = gr.Button(t("delete_chat"), size="sm", variant="stop", elem_id="delete-chat")
            with gr.Row(visible=False) as confirm_row:
                confirm = gr.Button(
                    t("confirm_delete_chat"), size="sm", variant="stop", elem_id="confirm-delete-chat"
                )
                cancel = gr.Button(t("cancel"), size="sm")
    return _Sidebar(new, search, chats, note, title, rename, delete, confirm_row, confirm, cancel)


def _question_box(desk: DesktopApp) -> tuple[gr.Textbox, gr.Button, gr.CheckboxGroup, gr.Radio]:
    mode = gr.Radio(
        choices=MODE_CHOICES,
        value="documents",
        label=MODE_LABEL,
        elem_id="answer-mode",
        container=False,
        info=MODE_INFO,
    )
    with gr.Row():
        question = gr.Textbox(
            elem_id="question",
            placeholder=t("ask_placeholder"),
            show_label=False,
            scale=8,
            lines=1,
            max_lines=6,
        )
        send = gr.Button(t("send"), variant="primary", scale=1, elem_id="send")
    also = sources_handlers.also_ask_choices(desk)
    also_ask = gr.CheckboxGroup(
        choices=also,
        label=t("also_ask"),
        visible=bool(also),
        elem_id="also-ask",
    )
    return question, send, also_ask, mode


def _talk(desk: DesktopApp) -> _Talk:
    with gr.Column(scale=4, elem_id="chat-main"):
        model_status = gr.Markdown(model_markdown(desk.model_state()), elem_id="model-status")
        hint = gr.Markdown(chat_handlers.chat_hint(desk), elem_id="chat-hint")
        chatbot = gr.Chatbot(
            elem_id="chatbot",
            label="KIMAs",
            show_label=False,  # the floating label covered the first lines when scrolled
            height="100%",  # the pane takes the height the question box leaves (``ui.style``)
            placeholder=cast(str, t("ready_hint")),  # Gradio's type says str; the page translates it
            buttons=["copy"],
            feedback_options=("Like", "Dislike"),
            latex_delimiters=LATEX_DELIMITERS,
        )
        gr.Markdown(
            t("scroll_down"), elem_id="chatbot-scroll-caption", elem_classes=["kimas-hidden"]
        )  # ui.style
        feedback_line = gr.Markdown("", elem_id="chat-feedback")
        multilingual = gr.Button(
            t("use_multilingual"), size="sm", visible=False, elem_id="chat-use-multilingual"
        )
        model_alone = gr.Button(ASK_MODEL_ALONE, size="sm", visible=False, elem_id="ask-model-alone")
        question, send, also_ask, mode = _question_box(desk)
        with gr.Row():
            stop = gr.Button(t("stop"), variant="stop", size="sm", elem_id="stop")
            again = gr.Button(t("regenerate"), size="sm", elem_id="regenerate")
        gr.Markdown(t("send_note"), elem_id="send-note", elem_classes=["kimas-note"])
    return _Talk(
        model_status,
        hint,
        chatbot,
        feedback_line,
        question,
        send,
        also_ask,
        stop,
        again,
        multilingual,
        mode,
        model_alone,
    )


def _bind_asking(desk: DesktopApp, conv: gr.State, side: _Sidebar, talk: _Talk) -> None:
    """Send, Regenerate and Stop."""

    def streamed(updates: Iterator[chat_handlers.Drawn]) -> Iterator[tuple[Any, ...]]:
        for update in updates:
            if update is None:  # the tab shows another chat now
                yield (gr.skip(),) * 5
                continue
            messages, conv_id, sb = update
            side_values = _sidebar_outputs(sb) if sb is not None else (gr.skip(),) * 3
            yield (messages, conv_id, *side_values)

    def on_submit(
        c: str | None, text: str, q: str, online: list[str] | None, mode: str | None, request: gr.Request
    ) -> Iterator[tuple[Any, ...]]:
        shown: AnswerMode = "model" if mode == "model" else "documents"
        language = _language(desk, request)
        yield from streamed(
            chat_handlers.submit(desk, c, text, q, _page(request), online or (), shown, language)
        )

    def on_regenerate(
        c: str | None, q: str, online: list[str] | None, request: gr.Request
    ) -> Iterator[tuple[Any, ...]]:
        language = _language(desk, request)
        yield from streamed(chat_handlers.regenerate(desk, c, q, _page(request), online or (), language))

    # Sending takes the question out of the box at once (unqueued); the answer then streams into the chat
    # only, so a question typed while it streams is never wiped. Send while an answer streams: that answer
    # stops (keeping what it found) and the new question is asked, so a second submit must start at once
    # ("multiple", no concurrency limit).
    outputs = [talk.chatbot, conv, *side.listing]
    sent = gr.State("")
    asked = [conv, sent, side.search, talk.also_ask, talk.mode]
    for trigger in (talk.question.submit, talk.send.click):
        trigger(
            lambda text: ("", text),
            [talk.question],
            [talk.question, sent],
            queue=False,
            trigger_mode="multiple",
        ).then(
            on_submit, asked, outputs, show_progress="hidden", trigger_mode="multiple", concurrency_limit=None
        )
    talk.again.click(
        on_regenerate,
        [conv, side.search, talk.also_ask],
        outputs,
        show_progress="hidden",
        concurrency_limit=None,
    )
    talk.stop.click(lambda c: chat_handlers.stop(desk, c), [conv], None, queue=False)

    _bind_feedback(desk, conv, talk)
    _bind_mode(desk, conv, side, talk, outputs, streamed)


def _bind_feedback(desk: DesktopApp, conv: gr.State, talk: _Talk) -> None:
    """The answers' like buttons and the language note's one click, both told in the line under the chat."""

    def on_like(c: str, data: gr.LikeData, request: gr.Request) -> str:
        return chat_handlers.feedback(desk, c, data.index, data.liked, _language(desk, request))

    talk.chatbot.like(on_like, [conv], [talk.feedback_line])
    talk.multilingual.click(
        lambda: (gr.update(visible=False), outcome_markdown(desk.multilingual.start())),
        None,
        [talk.multilingual, talk.feedback_line],
    )


def _bind_mode(
    desk: DesktopApp,
    conv: gr.State,
    side: _Sidebar,
    talk: _Talk,
    outputs: list[Any],
    streamed: Callable[[Iterator[chat_handlers.Drawn]], Iterator[tuple[Any, ...]]],
) -> None:
    """The mode selector, kept with the chat (shown again whenever another chat opens), and the one click
    from a "no knowledge yet" reply to the model alone."""
    talk.chatbot.change(  # the language note's and the no-knowledge reply's one click
        lambda c: (
            gr.update(visible=chat_handlers.multilingual_offered(desk, c)),
            gr.update(visible=chat_handlers.model_alone_offered(desk, c)),
        ),
        [conv],
        [talk.multilingual, talk.model_alone],
    )
    talk.mode.input(lambda c, m: chat_handlers.set_mode(desk, c, m), [conv, talk.mode], [talk.mode])
    conv.change(lambda c: chat_handlers.chat_mode(desk, c), [conv], [talk.mode])
    talk.mode.change(  # the question box says where the answer will come from
        lambda m: gr.update(placeholder=t("ask_placeholder_model" if m == "model" else "ask_placeholder")),
        [talk.mode],
        [talk.question],
        queue=False,
    )

    def on_model_alone(c: str | None, q: str, request: gr.Request) -> Iterator[tuple[Any, ...]]:
        language = _language(desk, request)
        yield from streamed(chat_handlers.ask_model_alone(desk, c, q, _page(request), language))

    talk.model_alone.click(
        lambda: ("model", gr.update(visible=False)), None, [talk.mode, talk.model_alone], queue=False
    ).then(on_model_alone, [conv, side.search], outputs, show_progress="hidden", concurrency_limit=None)


def _bind_sidebar(desk: DesktopApp, conv: gr.State, side: _Sidebar, chatbot: gr.Chatbot) -> None:
    """New chat, open, search, rename and delete."""

    def on_new(c: str | None, q: str, request: gr.Request) -> tuple[Any, ...]:
        return _shown(chat_handlers.new_chat(desk, c, q, _page(request), _language(desk, request)))

    def on_open(c: str | None, wanted: str | None, q: str, request: gr.Request) -> tuple[Any, ...]:
        language = _language(desk, request)
        return _shown(chat_handlers.open_chat(desk, c, wanted, q, _page(request), language))

    def on_delete(c: str | None, q: str, request: gr.Request) -> tuple[Any, ...]:
        deleted = chat_handlers.delete_chat(desk, c, q, _page(request), _language(desk, request))
        return (*_shown(deleted), gr.update(visible=False))

    def on_rename(c: str | None, t: str, q: str, request: gr.Request) -> tuple[Any, ...]:
        return _sidebar_outputs(chat_handlers.rename_chat(desk, c, t, q, _language(desk, request)))

    def on_search(c: str | None, q: str, request: gr.Request) -> tuple[Any, ...]:
        return _sidebar_outputs(chat_handlers.sidebar(desk, c, q, _language(desk, request)))

    listing = side.listing
    switched = [chatbot, conv, *listing]
    side.new.click(on_new, [conv, side.search], switched)
    chatbot.clear(on_new, [conv, side.search], switched)
    side.chats.input(on_open, [conv, side.chats, side.search], switched)
    side.search.change(on_search, [conv, side.search], listing)
    side.rename.click(on_rename, [conv, side.title, side.search], listing)
    side.title.submit(on_rename, [conv, side.title, side.search], listing)
    side.delete.click(lambda: gr.update(visible=True), None, [side.confirm_row])
    side.cancel.click(lambda: gr.update(visible=False), None, [side.confirm_row])
    side.confirm.click(on_delete, [conv, side.search], [*switched, side.confirm_row])


def build(desk: DesktopApp, conv: gr.State) -> ChatTab:
    """Lay the tab out inside the current ``gr.Tab`` and wire it; ``conv`` holds the open chat's id."""
    with gr.Row():
        side = _sidebar()
        talk = _talk(desk)
    _bind_asking(desk, conv, side, talk)
    _bind_sidebar(desk, conv, side, talk.chatbot)
    switched = [talk.chatbot, conv, *side.listing]

    def bind_restore(demo: gr.Blocks) -> None:
        def on_load(q: str, request: gr.Request) -> tuple[Any, ...]:
            language = _language(desk, request)
            status = model_markdown(desk.model_state(), desk.config, language)
            return (*_shown(chat_handlers.restore(desk, q, _page(request), language)), status)

        demo.load(on_load, [side.search], [*switched, talk.model_status])

    return ChatTab(talk.model_status, talk.hint, talk.also_ask, bind_restore)
