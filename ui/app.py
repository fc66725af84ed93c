"""The Gradio app: tabs Chat / Knowledge / Evaluation / Settings, bound to ``ui.handlers``. Layout and
wiring only."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import astuple
from typing import Any

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import gradio as gr

from app.desktop import DesktopApp
from ui import (
    chat_handlers,
    documents_handlers,
    documents_tab,
    eval_tab,
    handlers,
    render,
    settings_tab,
    sources_handlers,
    sources_tab,
)
from ui.style import CSS, DROP_FOLDERS_JS, THEME


def _skip_none(value: Any) -> Any:
    return gr.skip() if value is None else value


def _page(request: gr.Request | None) -> str:
    """Which browser tab an event comes from."""
    return (request.session_hash or "") if request is not None else ""


def _sidebar_outputs(sb: chat_handlers.Sidebar) -> tuple[Any, ...]:
    """Values for (list, title box, note)."""
    about = (
        f"kimas ask --history {sb.selected} continues this chat from the command line" if sb.selected else ""
    )
    return gr.update(choices=sb.choices, value=sb.selected), gr.update(value=sb.title, info=about), sb.note


def _chat_tab(
    desk: DesktopApp, conv: gr.State
) -> tuple[gr.Markdown, gr.Markdown, Callable[[gr.Blocks], None], gr.CheckboxGroup]:
    with gr.Row():
        with gr.Column(scale=1, min_width=220, elem_id="chat-sidebar"):
            new = gr.Button("New chat", size="sm", variant="primary", elem_id="new-chat")
            search = gr.Textbox(
                placeholder="Search conversations…", show_label=False, elem_id="chat-search", lines=1
            )
            chats = gr.Radio(choices=[], show_label=False, container=False, elem_id="conversation-list")
            note = gr.Markdown("", elem_id="chat-list-note")
            with gr.Accordion("Rename or delete this chat", open=False):
                title = gr.Textbox(label="Title", elem_id="chat-title", lines=1)
                rename = gr.Button("Rename", size="sm", elem_id="rename-chat")
                delete = gr.Button("Delete chat…", size="sm", variant="stop", elem_id="delete-chat")
                with gr.Row(visible=False) as confirm_row:
                    confirm = gr.Button(
                        "Yes, delete it", size="sm", variant="stop", elem_id="confirm-delete-chat"
                    )
                    cancel = gr.Button("Cancel", size="sm")
        with gr.Column(scale=4):
            model_status = gr.Markdown(render.model_markdown(desk.model_state()), elem_id="model-status")
            hint = gr.Markdown(handlers.chat_hint(desk), elem_id="chat-hint")
            chatbot = gr.Chatbot(
                elem_id="chatbot",
                label="KIMAs",
                show_label=False,  # the floating label covered the first lines when scrolled
                height=560,
                placeholder=render.READY_HINT,
                buttons=["copy"],
                feedback_options=("Like", "Dislike"),
            )
            feedback_line = gr.Markdown("", elem_id="chat-feedback")
            with gr.Row():
                question = gr.Textbox(
                    elem_id="question",
                    placeholder="Ask about your documents…",
                    show_label=False,
                    scale=8,
                    lines=1,
                    max_lines=6,
                )
                send = gr.Button("Send", variant="primary", scale=1, elem_id="send")
            also = sources_handlers.also_ask_choices(desk)
            also_ask = gr.CheckboxGroup(
                choices=also,
                label="Also ask online (this question)",
                visible=bool(also),
                elem_id="also-ask",
            )
            with gr.Row():
                stop = gr.Button("Stop", variant="stop", size="sm", elem_id="stop")
                again = gr.Button("Regenerate", size="sm", elem_id="regenerate")
            gr.Markdown(render.SEND_WHILE_ANSWERING, elem_id="send-note", elem_classes=["kimas-note"])

    listing = [chats, title, note]

    def streamed(updates: Iterator[chat_handlers.Drawn]) -> Iterator[tuple[Any, ...]]:
        for update in updates:
            if update is None:  # the tab shows another chat now
                yield (gr.skip(),) * 5
                continue
            messages, conv_id, sb = update
            side = _sidebar_outputs(sb) if sb is not None else (gr.skip(),) * 3
            yield (messages, conv_id, *side)

    def on_submit(
        c: str | None, text: str, q: str, online: list[str] | None, request: gr.Request
    ) -> Iterator[tuple[Any, ...]]:
        yield from streamed(chat_handlers.submit(desk, c, text, q, _page(request), online or ()))

    def on_regenerate(
        c: str | None, q: str, online: list[str] | None, request: gr.Request
    ) -> Iterator[tuple[Any, ...]]:
        yield from streamed(chat_handlers.regenerate(desk, c, q, _page(request), online or ()))

    def shown(result: tuple[list[dict[str, Any]], str, chat_handlers.Sidebar]) -> tuple[Any, ...]:
        messages, conv_id, sb = result
        return (messages, conv_id, *_sidebar_outputs(sb))

    def on_new(c: str | None, q: str, request: gr.Request) -> tuple[Any, ...]:
        return shown(chat_handlers.new_chat(desk, c, q, _page(request)))

    def on_open(c: str | None, wanted: str | None, q: str, request: gr.Request) -> tuple[Any, ...]:
        return shown(chat_handlers.open_chat(desk, c, wanted, q, _page(request)))

    def on_delete(c: str | None, q: str, request: gr.Request) -> tuple[Any, ...]:
        return (*shown(chat_handlers.delete_chat(desk, c, q, _page(request))), gr.update(visible=False))

    def on_rename(c: str | None, t: str, q: str) -> tuple[Any, ...]:
        return _sidebar_outputs(chat_handlers.rename_chat(desk, c, t, q))

    # Sending takes the question out of the box at once (unqueued); the answer then streams into the chat
    # only, so a question typed while it streams is never wiped. Send while an answer streams: that answer
    # stops (keeping what it found) and the new question is asked, so a second submit must start at once
    # ("multiple", no concurrency limit).
    outputs = [chatbot, conv, *listing]
    sent = gr.State("")
    for trigger in (question.submit, send.click):
        trigger(
            lambda text: ("", text), [question], [question, sent], queue=False, trigger_mode="multiple"
        ).then(
            on_submit,
            [conv, sent, search, also_ask],
            outputs,
            show_progress="hidden",
            trigger_mode="multiple",
            concurrency_limit=None,
        )
    again.click(
        on_regenerate, [conv, search, also_ask], outputs, show_progress="hidden", concurrency_limit=None
    )
    stop.click(lambda c: chat_handlers.stop(desk, c), [conv], None, queue=False)

    def on_like(c: str, data: gr.LikeData) -> str:
        return chat_handlers.feedback(desk, c, data.index, data.liked)

    chatbot.like(on_like, [conv], [feedback_line])
    switched = [chatbot, conv, *listing]
    new.click(on_new, [conv, search], switched)
    chatbot.clear(on_new, [conv, search], switched)
    chats.input(on_open, [conv, chats, search], switched)
    search.change(lambda c, q: _sidebar_outputs(chat_handlers.sidebar(desk, c, q)), [conv, search], listing)
    rename.click(on_rename, [conv, title, search], listing)
    title.submit(on_rename, [conv, title, search], listing)
    delete.click(lambda: gr.update(visible=True), None, [confirm_row])
    cancel.click(lambda: gr.update(visible=False), None, [confirm_row])
    confirm.click(on_delete, [conv, search], [*switched, confirm_row])

    def bind_restore(demo: gr.Blocks) -> None:
        def on_load(q: str, request: gr.Request) -> tuple[Any, ...]:
            return shown(chat_handlers.restore(desk, q, _page(request)))

        demo.load(on_load, [search], switched)

    return model_status, hint, bind_restore, also_ask


def _knowledge_tab(desk: DesktopApp, also_ask: gr.CheckboxGroup) -> dict[str, Any]:
    names = handlers.collection_names(desk)
    with gr.Row():
        with gr.Column(scale=3):
            gr.Markdown("## Your collections")
            collections_md = gr.Markdown(handlers.collections_view(desk), elem_id="collections")
            progress = gr.HTML(
                render.progress_html(*handlers.progress_states(desk)), elem_id="index-progress"
            )
            with gr.Row():
                pause = gr.Button("Pause indexing", size="sm", elem_id="pause-indexing")
                resume = gr.Button("Resume", size="sm", elem_id="resume-indexing")
                cancel_indexing = gr.Button("Cancel indexing", size="sm", elem_id="cancel-indexing")
            activity = gr.Markdown(render.activity_markdown(desk.indexing.activity()), elem_id="activity")
        with gr.Column(scale=2):
            selected = gr.Dropdown(
                choices=names,
                value=names[0] if names else None,
                label="Collection",
                elem_id="collection-select",
                allow_custom_value=False,
            )
            message = gr.Markdown("", elem_id="knowledge-message")
            with gr.Row():
                new_name = gr.Textbox(
                    label="New collection", placeholder="e.g. handbook", scale=3, elem_id="new-collection"
                )
                create = gr.Button("Create", scale=1, elem_id="create-collection")
            gr.Markdown(
                "Drop a whole folder or some files onto the selected collection (or click to choose). "
                "They are copied into "
                "KIMAs' data folder and indexed in the background; you can keep chatting meanwhile."
            )
            folder_drop = gr.File(
                file_count="directory", label="Drop a folder", elem_id="upload-folder", height=110
            )
            files_drop = gr.File(
                file_count="multiple", label="Drop files", elem_id="upload-files", height=110
            )
            folder_paths = gr.Textbox(elem_id="upload-folder-paths", elem_classes=["kimas-hidden"])
            with gr.Row():
                folder_path = gr.Textbox(
                    label="…or watch a folder on this computer in place",
                    placeholder="/home/me/Documents/handbook",
                    scale=3,
                    elem_id="folder-path",
                )
                add_folder = gr.Button("Watch folder", scale=1, elem_id="add-folder")
            with gr.Accordion("Collection settings (routing and rewriting)", open=False):
                description = gr.Textbox(label="Description (what this collection is about)", lines=2)
                examples = gr.Textbox(label="Example questions or text, one per line", lines=3)
                mixin = gr.Slider(0, 1, step=0.05, label="Weight of description and examples in routing")
                scale = gr.Number(label="Scaling weight (multiplies the routing score)", minimum=0.01)
                language = gr.Textbox(label="Language of the documents (for translation rewrite)")
                strategy = gr.Dropdown(
                    choices=[(c or "default", c) for c in desk.strategy_choices()],
                    label="Query rewrite strategy",
                )
                save_coll = gr.Button("Save collection settings")
            with gr.Row():
                reindex = gr.Button("Re-index", size="sm", elem_id="reindex")
                reembed = gr.Button("Re-embed", size="sm", elem_id="reembed")
                remove = gr.Button("Remove collection…", size="sm", variant="stop", elem_id="remove")
            with gr.Row(visible=False) as confirm_row:
                confirm = gr.Button(
                    "Yes, remove it and its index", variant="stop", size="sm", elem_id="confirm-remove"
                )
                cancel = gr.Button("Cancel", size="sm")
    docs = documents_tab.build()
    sources_tab.build(desk, also_ask)

    def action_outputs(a: handlers.KnowledgeAction) -> tuple[Any, ...]:
        return (a.message, gr.update(choices=a.names, value=a.selected))

    create.click(
        lambda n: (*action_outputs(handlers.create_collection(desk, n)), ""),
        [new_name],
        [message, selected, new_name],
    )
    new_name.submit(
        lambda n: (*action_outputs(handlers.create_collection(desk, n)), ""),
        [new_name],
        [message, selected, new_name],
    )
    folder_drop.upload(
        lambda c, f, rel: (*action_outputs(handlers.upload(desk, c, f, rel)), None, ""),
        [selected, folder_drop, folder_paths],
        [message, selected, folder_drop, folder_paths],
    )
    files_drop.upload(
        lambda c, f: (*action_outputs(handlers.upload(desk, c, f)), None),
        [selected, files_drop],
        [message, selected, files_drop],
    )
    add_folder.click(
        lambda c, p: action_outputs(handlers.add_folder(desk, c, p)),
        [selected, folder_path],
        [message, selected],
    )
    reindex.click(lambda c: action_outputs(handlers.reindex(desk, c)), [selected], [message, selected])
    reembed.click(lambda c: action_outputs(handlers.reembed(desk, c)), [selected], [message, selected])
    pause.click(lambda: handlers.pause_indexing(desk), None, [message])
    resume.click(lambda: handlers.resume_indexing(desk), None, [message])
    cancel_indexing.click(lambda: handlers.cancel_indexing(desk), None, [message])
    remove.click(
        lambda c: (gr.update(visible=bool(c)), gr.update(value=f"Yes, remove '{c}' and its index")),
        [selected],
        [confirm_row, confirm],
    )
    cancel.click(lambda: gr.update(visible=False), None, [confirm_row])
    confirm.click(
        lambda c: (*action_outputs(handlers.remove_collection(desk, c)), gr.update(visible=False)),
        [selected],
        [message, selected, confirm_row],
    )
    fields = [description, examples, mixin, scale, language, strategy]
    selected.change(lambda c: astuple(handlers.load_collection_settings(desk, c)), [selected], fields)
    save_coll.click(
        lambda c, *v: handlers.save_collection_settings(desk, c, handlers.CollectionFields(*v)),
        [selected, *fields],
        [message],
    )
    documents_tab.bind(desk, docs, selected, message)
    return {
        "collections": collections_md,
        "progress": progress,
        "activity": activity,
        "selected": selected,
        "fields": fields,
        "documents": docs,
    }


def build_app(desk: DesktopApp) -> gr.Blocks:
    """The whole UI for one running app. Launch it with ``launch_kwargs()``."""
    # Uploads pass through Gradio's cache on their way into the data dir: clear it hourly.
    with gr.Blocks(title="KIMAs Desktop", analytics_enabled=False, delete_cache=(3600, 3600)) as demo:
        conv = gr.State(None)
        seen = gr.State(-1)
        gr.Markdown("# KIMAs Desktop\nPrivate answers from your own documents, computed on this computer.")
        with gr.Tabs():
            with gr.Tab("Chat", id="chat"):
                chat_status, chat_hint, bind_restore, also_ask = _chat_tab(desk, conv)
            with gr.Tab("Knowledge", id="knowledge"):
                k = _knowledge_tab(desk, also_ask)
            with gr.Tab("Evaluation", id="evaluation"):
                evaluation = eval_tab.build(desk)
            with gr.Tab("Settings", id="settings"):
                settings_status = settings_tab.build(desk)

        def tick(version: int, current: str | None, show: str, path: str | None) -> tuple[Any, ...]:
            p = handlers.poll(desk, version)
            files = (
                (gr.skip(), gr.skip())
                if p.names is None or current not in p.names
                else documents_tab.outputs(documents_handlers.documents_view(desk, current, show, path))
            )
            if p.names is None:
                names_update = gr.skip()
            elif current in p.names:  # keep the value: re-setting it would reload the settings fields
                names_update = gr.update(choices=p.names)
            else:
                names_update = gr.update(choices=p.names, value=p.names[0] if p.names else None)
            return (
                p.version,
                _skip_none(p.collections_md),
                names_update,
                _skip_none(p.chat_hint),
                _skip_none(p.activity_md),
                p.progress_html,
                p.model_md,
                p.model_md,
                *files,
            )

        timer = gr.Timer(1.0)
        timer.tick(
            tick,
            [seen, k["selected"], k["documents"]["show"], k["documents"]["pick"]],
            [
                seen,
                k["collections"],
                k["selected"],
                chat_hint,
                k["activity"],
                k["progress"],
                chat_status,
                settings_status,
                k["documents"]["list"],
                k["documents"]["pick"],
            ],
            show_progress="hidden",
            queue=False,
        )
        eval_tab.bind(desk, evaluation, timer, demo)
        demo.load(lambda c: astuple(handlers.load_collection_settings(desk, c)), [k["selected"]], k["fields"])
        demo.load(
            lambda c, show: documents_tab.outputs(documents_handlers.documents_view(desk, c, show)),
            [k["selected"], k["documents"]["show"]],
            [k["documents"]["list"], k["documents"]["pick"]],
        )
        bind_restore(demo)
        demo.load(lambda: sources_tab.also_ask_update(desk), None, [also_ask])
    return demo


def launch_kwargs() -> dict[str, Any]:
    """How Gradio shows the app (``ui.server.serve`` serves it on 127.0.0.1 only): no footer links, no
    API page, no server-side rendering, no MCP server, errors as sentences."""
    return {
        "show_error": False,
        "footer_links": [],
        "ssr_mode": False,
        "mcp_server": False,
        "css": CSS + settings_tab.CSS + eval_tab.CSS,
        "theme": THEME,
        "js": DROP_FOLDERS_JS,
    }
