"""The Knowledge tab: on the left the collections with their indexing, the selected collection's files and
the recent activity; on the right the selected collection (choose, create, drop files or a folder, watch a
folder, then rename, stop watching a folder, routing settings, re-index, re-embed, remove) and the online
sources. The main actions and the head of the file list are in view on a laptop screen (1366x768) without
scrolling the page (``ui.style``). Layout and wiring only; the handlers are
``ui.knowledge.handlers``, ``ui.knowledge.documents_handlers`` and ``ui.knowledge.sources_handlers``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import astuple, dataclass
from typing import Any

import gradio as gr

from app.desktop import DesktopApp
from ui.i18n import Language, page_language, t, word
from ui.knowledge import documents_handlers, documents_tab, multilingual_view, sources_tab
from ui.knowledge import handlers as kh
from ui.knowledge.collections_view import progress_html
from ui.words import WORDS

__all__ = ["KnowledgeTab", "bind_load", "build", "folders_update"]


@dataclass(frozen=True)
class KnowledgeTab:
    """What the app's timer and the page load refresh."""

    collections: gr.Markdown
    progress: gr.HTML
    activity: gr.Markdown
    selected: gr.Dropdown
    fields: list[Any]  # the collection settings, in ``CollectionFields`` order
    documents: dict[str, Any]


@dataclass(frozen=True)
class _Overview:
    collections: gr.Markdown
    progress: gr.HTML
    pause: gr.Button
    resume: gr.Button
    cancel_indexing: gr.Button
    multilingual: gr.Button  # the one click to the multilingual embedder (issue 42)
    multilingual_status: gr.Markdown


@dataclass(frozen=True)
class _Adding:
    selected: gr.Dropdown
    message: gr.Markdown
    new_name: gr.Textbox
    create: gr.Button
    folder_drop: gr.File
    files_drop: gr.File
    folder_paths: gr.Textbox
    folder_path: gr.Textbox
    add_folder: gr.Button


@dataclass(frozen=True)
class _Naming:
    """Rename the selected collection; stop watching one of its folders."""

    new_title: gr.Textbox
    rename: gr.Button
    watched: gr.Dropdown
    unwatch: gr.Button


@dataclass(frozen=True)
class _Actions:
    reindex: gr.Button
    reembed: gr.Button
    remove: gr.Button
    confirm_row: gr.Row
    confirm: gr.Button
    cancel: gr.Button


def _overview(desk: DesktopApp) -> _Overview:
    """The collections, and the indexing progress with its buttons."""
    gr.Markdown(t("your_collections"), elem_id="collections-heading")
    collections_md = gr.Markdown(kh.collections_view(desk), elem_id="collections")
    shown, status = kh.multilingual_status(desk)
    multilingual = gr.Button(t("use_multilingual"), size="sm", visible=shown, elem_id="use-multilingual")
    multilingual_status = gr.Markdown(status, elem_id="multilingual-status")
    progress = gr.HTML(progress_html(*kh.progress_states(desk)), elem_id="index-progress")
    with gr.Row():
        pause = gr.Button(t("pause_indexing"), size="sm", elem_id="pause-indexing")
        resume = gr.Button(t("resume"), size="sm", elem_id="resume-indexing")
        cancel_indexing = gr.Button(t("cancel_indexing"), size="sm", elem_id="cancel-indexing")
    return _Overview(
        collections_md, progress, pause, resume, cancel_indexing, multilingual, multilingual_status
    )


def _adding(desk: DesktopApp) -> _Adding:
    """The selected collection, a new one, and what goes into it (dropped files, a watched folder)."""
    choices = kh.collection_choices(desk)
    selected = gr.Dropdown(
        choices=choices,
        value=choices[0][1] if choices else None,
        label=t("collection"),
        elem_id="collection-select",
        allow_custom_value=False,
    )
    message = gr.Markdown("", elem_id="knowledge-message")
    with gr.Row():
        new_name = gr.Textbox(
            label=t("new_collection"),
            placeholder=t("new_collection_example"),
            scale=3,
            elem_id="new-collection",
        )
        create = gr.Button(t("create"), scale=1, elem_id="create-collection")
    with gr.Row(elem_id="drop-zones"):
        folder_drop = gr.File(
            file_count="directory", label=t("drop_folder"), elem_id="upload-folder", height=125, min_width=200
        )
        files_drop = gr.File(
            file_count="multiple", label=t("drop_files"), elem_id="upload-files", height=125, min_width=200
        )
    folder_paths = gr.Textbox(elem_id="upload-folder-paths", elem_classes=["kimas-hidden"])
    with gr.Row():
        folder_path = gr.Textbox(
            label=t("watch_folder_label"),
            placeholder="/home/me/Documents/handbook",
            scale=3,
            elem_id="folder-path",
        )
        add_folder = gr.Button(t("watch_folder"), scale=1, elem_id="add-folder")
    gr.Markdown(t("drop_note"), elem_classes=["kimas-note"])
    for zone, caption in (("upload-folder", "drop_folder_caption"), ("upload-files", "drop_files_caption")):
        gr.Markdown(  # the zone's caption, translated (the page's script shows it in the zone: ui.style)
            t(caption),
            elem_id=f"{zone}-caption",
            elem_classes=["kimas-hidden"],
        )
    return _Adding(
        selected, message, new_name, create, folder_drop, files_drop, folder_paths, folder_path, add_folder
    )


def _naming(desk: DesktopApp, first: str | None) -> _Naming:
    """Rename the collection; stop watching a folder of it (the collection and its other files stay)."""
    with gr.Accordion(t("rename_or_unwatch"), open=False, elem_id="collection-naming"):
        with gr.Row():
            new_title = gr.Textbox(label=t("new_collection_name"), scale=3, elem_id="rename-collection-name")
            rename = gr.Button(t("rename"), scale=1, elem_id="rename-collection")
        folders = kh.watched_folders(desk, first)
        with gr.Row():
            watched = gr.Dropdown(
                choices=folders,
                value=folders[0] if folders else None,
                label=t("watched_folder"),
                scale=3,
                elem_id="watched-folders",
            )
            unwatch = gr.Button(t("stop_watching"), scale=1, elem_id="unwatch-folder")
    return _Naming(new_title, rename, watched, unwatch)


def _strategy_choice(name: str) -> tuple[Any, str]:
    """A query rewrite strategy as the dropdown offers it: its name said in the page's language, its value
    the config's key (issue 69; "" is the default). A strategy a plugin registered shows its own name."""
    key = f"strategy_{name}"
    return (t(key) if key in WORDS else name), name


def _collection_settings(desk: DesktopApp) -> tuple[list[Any], gr.Button]:
    """The routing and rewriting settings of the selected collection, and their Save button."""
    with gr.Accordion(t("collection_settings"), open=False):
        description = gr.Textbox(label=t("coll_description"), lines=2)
        examples = gr.Textbox(label=t("coll_examples"), lines=3)
        mixin = gr.Slider(0, 1, step=0.05, label=t("coll_mixin"))
        scale = gr.Number(label=t("coll_scale"), minimum=0.01)
        language = gr.Textbox(label=t("coll_language"))
        strategy = gr.Dropdown(
            choices=[_strategy_choice(c) for c in desk.strategy_choices()],
            label=t("coll_strategy"),
        )
        save_coll = gr.Button(t("save_collection_settings"))
    return [description, examples, mixin, scale, language, strategy], save_coll


def _actions() -> _Actions:
    with gr.Row():
        reindex = gr.Button(t("reindex"), size="sm", elem_id="reindex")
        reembed = gr.Button(t("reembed"), size="sm", elem_id="reembed")
        remove = gr.Button(t("remove_collection"), size="sm", variant="stop", elem_id="remove")
    with gr.Row(visible=False) as confirm_row:
        confirm = gr.Button(t("confirm_remove"), variant="stop", size="sm", elem_id="confirm-remove")
        cancel = gr.Button(t("cancel"), size="sm")
    return _Actions(reindex, reembed, remove, confirm_row, confirm, cancel)


def _action_outputs(a: kh.KnowledgeAction) -> tuple[Any, ...]:
    return (a.message, gr.update(choices=list(a.choices), value=a.selected))


def folders_update(desk: DesktopApp, collection: str | None, sent: str | None = None) -> Any:
    """The folders watched for ``collection``. When the picker's value as the event sent it is still
    listed, its value is left as the page has it: a folder picked while this was read (a rename's
    refresh, answered late on a busy machine) stays picked, or Stop watching would take the first one."""
    folders = kh.watched_folders(desk, collection)
    if sent is not None and sent in folders:
        return gr.update(choices=folders)
    return gr.update(choices=folders, value=folders[0] if folders else None)


def _kept_if_refused(a: kh.KnowledgeAction) -> Any:
    """A refused name stays in its field, to be corrected; an accepted one is cleared."""
    return "" if a.ok else gr.update()


_ADDING = "knowledge-adding"  # the queue slot Create and Watch folder share


def _bind_adding(desk: DesktopApp, add: _Adding) -> None:
    """Create a collection; drop files or a folder onto it; watch a folder."""
    picked = [add.message, add.selected]
    made_by_watch: set[str] = set()  # names a Watch made before the Create clicked with it arrived

    def on_create(n: str, request: gr.Request) -> tuple[Any, ...]:
        if n.strip() in made_by_watch and desk.knowledge.find(n.strip()) is not None:
            made_by_watch.discard(n.strip())
            return gr.update(), gr.update(), ""  # the Watch made it and said so: no "already exists"
        a = kh.create_collection(desk, n, _language(desk, request))
        return (*_action_outputs(a), _kept_if_refused(a))

    def on_watch(c: str | None, p: str, n: str, request: gr.Request) -> tuple[Any, ...]:
        fresh = bool(n.strip()) and desk.knowledge.find(n.strip()) is None
        a = kh.add_folder(desk, c, p, n, _language(desk, request))
        if fresh and a.ok:
            made_by_watch.add(n.strip())
        return _action_outputs(a)

    # Create and Watch folder share one queue slot (never at once); a Watch clicked with Create reads the
    # "New collection" field as the click found it, and makes that collection when it arrives first (issue 46).
    for trigger in (add.create.click, add.new_name.submit):
        trigger(
            on_create, [add.new_name], [*picked, add.new_name], concurrency_id=_ADDING, concurrency_limit=1
        )

    def on_folder(c: str | None, f: Any, rel: str, request: gr.Request) -> tuple[Any, ...]:
        return (*_action_outputs(kh.upload(desk, c, f, rel, _language(desk, request))), None, "")

    def on_files(c: str | None, f: Any, request: gr.Request) -> tuple[Any, ...]:
        return (*_action_outputs(kh.upload(desk, c, f, language=_language(desk, request))), None)

    add.folder_drop.upload(
        on_folder,
        [add.selected, add.folder_drop, add.folder_paths],
        [*picked, add.folder_drop, add.folder_paths],
    )
    add.files_drop.upload(on_files, [add.selected, add.files_drop], [*picked, add.files_drop])
    add.add_folder.click(
        on_watch,
        [add.selected, add.folder_path, add.new_name],
        picked,
        concurrency_id=_ADDING,
        concurrency_limit=1,
    )


def _bind_naming(desk: DesktopApp, add: _Adding, naming: _Naming) -> None:
    """Rename the selected collection; stop watching one of its folders; the folders follow the choice."""
    picked = [add.message, add.selected]

    def on_rename(c: str | None, title: str, request: gr.Request) -> tuple[Any, ...]:
        a = kh.rename_collection(desk, c, title, _language(desk, request))
        return (*_action_outputs(a), _kept_if_refused(a))

    def on_unwatch(c: str | None, f: str | None, request: gr.Request) -> tuple[Any, ...]:
        a = kh.unwatch_folder(desk, c, f, _language(desk, request))
        return (*_action_outputs(a), folders_update(desk, c, f))

    for trigger in (naming.rename.click, naming.new_title.submit):
        trigger(on_rename, [add.selected, naming.new_title], [*picked, naming.new_title])
    naming.unwatch.click(on_unwatch, [add.selected, naming.watched], [*picked, naming.watched])
    # Instant reads into a folded panel show no spinner: Gradio can leave a folded component's spinner on
    # after its update arrived, and it then covers the dropdown (one CI run, issue 46).
    for trigger in (add.selected.change, add.add_folder.click):
        trigger(
            lambda c, f: folders_update(desk, c, f),
            [add.selected, naming.watched],
            [naming.watched],
            show_progress="hidden",
        )


def _bind_actions(desk: DesktopApp, add: _Adding, overview: _Overview, act: _Actions) -> None:
    """Re-index, re-embed, pause/resume/cancel indexing, and remove (after a confirmation)."""
    selected, message = add.selected, add.message
    picked = [message, selected]
    for button, on_collection in ((act.reindex, kh.reindex), (act.reembed, kh.reembed)):
        button.click(_on_collection(desk, on_collection), [selected], picked)
    for button, on_indexing in (
        (overview.pause, kh.pause_indexing),
        (overview.resume, kh.resume_indexing),
        (overview.cancel_indexing, kh.cancel_indexing),
    ):
        button.click(_on_indexing(desk, on_indexing), None, [message])

    def on_remove(c: str | None, request: gr.Request) -> tuple[Any, ...]:
        named = word("confirm_remove_named", _language(desk, request), name=desk.knowledge.title(c or ""))
        return gr.update(visible=bool(c)), gr.update(value=named)

    def on_confirm(c: str | None, request: gr.Request) -> tuple[Any, ...]:
        return (
            *_action_outputs(kh.remove_collection(desk, c, _language(desk, request))),
            gr.update(visible=False),
        )

    act.remove.click(on_remove, [selected], [act.confirm_row, act.confirm])
    act.cancel.click(lambda: gr.update(visible=False), None, [act.confirm_row])
    act.confirm.click(on_confirm, [selected], [*picked, act.confirm_row])


def _on_collection(
    desk: DesktopApp, action: Callable[[DesktopApp, str | None, Language], kh.KnowledgeAction]
) -> Callable[[str | None, gr.Request], tuple[Any, ...]]:
    """A button that acts on the chosen collection and says how it went in the page's language."""

    def on_click(c: str | None, request: gr.Request) -> tuple[Any, ...]:
        return _action_outputs(action(desk, c, _language(desk, request)))

    return on_click


def _on_indexing(
    desk: DesktopApp, action: Callable[[DesktopApp, Language], str]
) -> Callable[[gr.Request], str]:
    def on_click(request: gr.Request) -> str:
        return action(desk, _language(desk, request))

    return on_click


def _language(desk: DesktopApp, request: gr.Request | None) -> Language:
    return page_language(desk.config.ui.language, request)


def _bind_settings(desk: DesktopApp, add: _Adding, fields: list[Any], save: gr.Button) -> None:
    add.selected.change(
        lambda c: astuple(kh.load_collection_settings(desk, c)),
        [add.selected],
        fields,
        show_progress="hidden",
    )

    def on_save(c: str | None, request: gr.Request, *v: Any) -> str:
        return kh.save_collection_settings(desk, c, kh.CollectionFields(*v), _language(desk, request))

    save.click(on_save, [add.selected, *fields], [add.message])


def build(desk: DesktopApp, also_ask: gr.CheckboxGroup) -> KnowledgeTab:
    """Lay the tab out inside the current ``gr.Tab`` and wire it; ``also_ask`` is the Chat tab's online
    sources checkboxes, which change with the sources."""
    with gr.Row(elem_id="knowledge-main"):
        with gr.Column(scale=1, elem_id="knowledge-left"):
            overview = _overview(desk)
            docs = documents_tab.build()
            activity = gr.Markdown(kh.activity_view(desk), elem_id="activity")
        with gr.Column(scale=1, elem_id="knowledge-right"):
            add = _adding(desk)
            naming = _naming(desk, add.selected.value)
            fields, save = _collection_settings(desk)
            act = _actions()
            sources_tab.build(desk, also_ask)
    _bind_adding(desk, add)
    _bind_naming(desk, add, naming)
    _bind_actions(desk, add, overview, act)
    multilingual_view.bind(desk, overview.multilingual, overview.multilingual_status)
    _bind_settings(desk, add, fields, save)
    documents_tab.bind(desk, docs, add.selected, add.message)
    return KnowledgeTab(overview.collections, overview.progress, activity, add.selected, fields, docs)


def bind_load(desk: DesktopApp, tab: KnowledgeTab, demo: gr.Blocks) -> None:
    """The page's first view: the selected collection's settings and files."""
    demo.load(lambda c: astuple(kh.load_collection_settings(desk, c)), [tab.selected], tab.fields)

    def files(c: str | None, show: str, request: gr.Request) -> tuple[Any, ...]:
        view = documents_handlers.documents_view(desk, c, show, None, _language(desk, request))
        tab.documents["picks"].remember(request.session_hash, view.selected)
        return documents_tab.outputs(view)

    demo.load(files, [tab.selected, tab.documents["show"]], [tab.documents["list"], tab.documents["pick"]])
