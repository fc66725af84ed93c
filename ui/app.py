"""The Gradio app: tabs Chat / Knowledge / Settings, bound to ``ui.handlers``. Layout and wiring only."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import astuple
from typing import Any

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import gradio as gr

from app.desktop import DesktopApp
from ui import chat_handlers, documents_handlers, documents_tab, handlers, render, settings_tab

CSS = """
.kimas-citation { margin: 0.25em 0; }
.kimas-citation summary { cursor: pointer; }
.kimas-quotes { margin-bottom: 0.6em; }
.kimas-quote-label { font-size: 0.85em; opacity: 0.75; }
.kimas-quote { margin: 0.3em 0 0.1em 0; padding-left: 0.7em; border-left: 3px solid var(--color-accent);
  font-style: italic; }
mark.kimas-cited { background: var(--color-accent-soft); padding: 0 0.1em; }
.kimas-unsupported { text-decoration: underline dotted; text-decoration-color: #c2410c; }
.kimas-flag { color: #c2410c; }
.kimas-marker a { text-decoration: none; font-size: 0.85em; margin-left: 0.1em; }
.kimas-support-note { font-size: 0.85em; color: #c2410c; }
.kimas-chunk { white-space: normal; margin: 0.4em 0 0.4em 1.2em; padding-left: 0.6em;
  border-left: 3px solid var(--border-color-primary); font-size: 0.92em; }
.kimas-heading { margin-left: 1.2em; font-size: 0.85em; opacity: 0.75; }
.kimas-open { margin-left: 1.2em; font-size: 0.85em; }
.kimas-progress { padding: 0.5em 0; }
.kimas-progress.idle { opacity: 0.8; }
.kimas-bar { height: 10px; border-radius: 5px; background: var(--border-color-primary); overflow: hidden;
  margin-top: 0.35em; }
.kimas-bar > div { height: 100%; background: var(--color-accent); transition: width 0.4s; }
.kimas-waiting { font-size: 0.85em; opacity: 0.75; }
#model-status p, #settings-model-status p { margin: 0; }
footer { display: none !important; }
.kimas-hidden { display: none !important; }
#upload-folder button .wrap, #upload-files button .wrap { font-size: 0; }
#upload-folder button .wrap::after { content: "Drop a folder here (its subfolders are kept), or click to choose one";
  font-size: var(--text-md); }
#upload-files button .wrap::after { content: "Drop files here, or click to choose some";
  font-size: var(--text-md); }
.kimas-docs table { width: 100%; border-collapse: collapse; font-size: 0.92em; }
.kimas-docs th, .kimas-docs td { text-align: left; padding: 0.2em 0.5em;
  border-bottom: 1px solid var(--border-color-primary); }
.kimas-docs td.num { text-align: right; }
.kimas-doc-problem { color: #c2410c; }
.kimas-doc-dismissed { opacity: 0.7; }
.kimas-docs-count { margin-bottom: 0.3em; }
"""

# Gradio's drop zone takes dataTransfer.files, where a dropped folder is one empty entry. This walks
# dropped folders (webkitGetAsEntry) and hands their files to the zone's own file input instead; drops
# without folders are left to Gradio.
DROP_FOLDERS_JS = """
() => {
  const ZONES = "#upload-folder, #upload-files";
  function tellPaths(paths) {  // the files' paths inside the folder, for the upload handler
    const box = document.querySelector("#upload-folder-paths textarea");
    if (!box) return;
    box.value = JSON.stringify(paths);
    box.dispatchEvent(new Event("input", { bubbles: true }));
  }
  document.addEventListener("click", (event) => {  // an inline [n] opens the source it points to
    const link = event.target instanceof Element ? event.target.closest(".kimas-marker a") : null;
    const target = link ? document.getElementById((link.getAttribute("href") || "").slice(1)) : null;
    if (target instanceof HTMLDetailsElement) target.open = true;
  }, true);
  document.addEventListener("change", (event) => {
    const input = event.target;
    if (!(input instanceof HTMLInputElement) || !input.closest("#upload-folder") || !input.files) return;
    const paths = Array.from(input.files).map((f) => f.webkitRelativePath || "");
    if (paths.every((p) => p.includes("/"))) tellPaths(paths);
  }, true);
  async function filesOf(entry) {
    if (entry.isFile) return [{ file: await new Promise((ok, fail) => entry.file(ok, fail)), path: entry.fullPath }];
    if (!entry.isDirectory) return [];
    const reader = entry.createReader();
    const out = [];
    for (;;) {
      const batch = await new Promise((ok, fail) => reader.readEntries(ok, fail));
      if (!batch.length) return out;
      for (const e of batch) out.push(...(await filesOf(e)));
    }
  }
  document.addEventListener("drop", async (event) => {
    const zone = event.target instanceof Element ? event.target.closest(ZONES) : null;
    if (!zone || !event.dataTransfer) return;
    const entries = Array.from(event.dataTransfer.items || [])
      .map((item) => (item.webkitGetAsEntry ? item.webkitGetAsEntry() : null))
      .filter(Boolean);
    if (!entries.some((e) => e.isDirectory)) return;
    event.preventDefault();
    event.stopPropagation();
    const area = event.target.closest(".upload-container") || zone;
    area.dispatchEvent(new DragEvent("dragleave", { bubbles: false }));
    const input = zone.querySelector("input[type=file]");
    const found = (await Promise.all(entries.map(filesOf))).flat();
    const files = found.map((f) => f.file);
    if (!input || !files.length) return;
    if (zone.id === "upload-folder") tellPaths(found.map((f) => f.path.slice(1)));
    const transfer = new DataTransfer();
    files.forEach((f) => transfer.items.add(f));
    input.files = transfer.files;
    input.dispatchEvent(new Event("change", { bubbles: true }));
  }, true);
}
"""

# Local fonts only: the default theme would fetch Google Fonts (the app works offline and sends nothing).
THEME = gr.themes.Soft(
    font=["ui-sans-serif", "system-ui", "Segoe UI", "Roboto", "sans-serif"],
    font_mono=["ui-monospace", "SFMono-Regular", "Consolas", "monospace"],
)


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
) -> tuple[gr.Markdown, gr.Markdown, Callable[[gr.Blocks], None]]:
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
                feedback_options=None,
            )
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
            with gr.Row():
                stop = gr.Button("Stop", variant="stop", size="sm", elem_id="stop")
                again = gr.Button("Regenerate", size="sm", elem_id="regenerate")
            gr.Markdown(render.SEND_WHILE_ANSWERING, elem_id="send-note", elem_classes=["kimas-note"])

    listing = [chats, title, note]

    def streamed(updates: Iterator[chat_handlers.Drawn]) -> Iterator[tuple[Any, ...]]:
        for update in updates:
            if update is None:  # the tab shows another chat now
                yield (gr.skip(),) * 6
                continue
            messages, conv_id, text, sb = update
            side = _sidebar_outputs(sb) if sb is not None else (gr.skip(),) * 3
            yield (messages, conv_id, text, *side)

    def on_submit(c: str | None, text: str, q: str, request: gr.Request) -> Iterator[tuple[Any, ...]]:
        yield from streamed(chat_handlers.submit(desk, c, text, q, _page(request)))

    def on_regenerate(c: str | None, q: str, request: gr.Request) -> Iterator[tuple[Any, ...]]:
        yield from streamed(chat_handlers.regenerate(desk, c, q, _page(request)))

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

    # Send while an answer streams: that answer stops (keeping what it found) and the new question is
    # asked, so a second submit must start at once ("multiple", no concurrency limit).
    outputs = [chatbot, conv, question, *listing]
    for trigger in (question.submit, send.click):
        trigger(
            on_submit,
            [conv, question, search],
            outputs,
            show_progress="hidden",
            trigger_mode="multiple",
            concurrency_limit=None,
        )
    again.click(on_regenerate, [conv, search], outputs, show_progress="hidden", concurrency_limit=None)
    stop.click(lambda c: chat_handlers.stop(desk, c), [conv], None, queue=False)
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

    return model_status, hint, bind_restore


def _knowledge_tab(desk: DesktopApp) -> dict[str, Any]:
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
                chat_status, chat_hint, bind_restore = _chat_tab(desk, conv)
            with gr.Tab("Knowledge", id="knowledge"):
                k = _knowledge_tab(desk)
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
        demo.load(lambda c: astuple(handlers.load_collection_settings(desk, c)), [k["selected"]], k["fields"])
        demo.load(
            lambda c, show: documents_tab.outputs(documents_handlers.documents_view(desk, c, show)),
            [k["selected"], k["documents"]["show"]],
            [k["documents"]["list"], k["documents"]["pick"]],
        )
        bind_restore(demo)
    return demo


def launch_kwargs(port: int) -> dict[str, Any]:
    """How the app is served: this computer only, no share link, no analytics, no API page."""
    return {
        "server_name": "127.0.0.1",
        "server_port": port,
        "share": False,
        "inbrowser": False,
        "prevent_thread_lock": True,
        "quiet": True,
        "show_error": False,
        "footer_links": [],
        "ssr_mode": False,
        "mcp_server": False,
        "css": CSS + settings_tab.CSS,
        "theme": THEME,
        "js": DROP_FOLDERS_JS,
    }
