"""Knowledge tab handlers: the collections (create, rename, upload, watch a folder and stop watching it,
re-index, re-embed, remove, their routing settings) and indexing (pause, resume, cancel), as plain functions of the app
(``DesktopApp``) and the widgets' values (no Gradio here).

``ui/knowledge/layout.py`` binds them to widgets; tests call them directly.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from gradio.i18n import I18nData

from app.desktop import ActionResult, DesktopApp
from app.knowledge.collections import CollectionStatus
from app.knowledge.indexing import IndexingState
from app.models.languages import collections_advice
from app.outcomes import Said
from kimas_desktop.errors import KimasError
from ui.i18n import Language, column, reason, spoken, t, told
from ui.knowledge.collections_view import activity_markdown, collections_markdown
from ui.markup import esc, outcome_markdown, said_naming_models, store_problem


def _collections(desk: DesktopApp, language: Language = "en") -> tuple[list[CollectionStatus] | None, str]:
    """The collections, or None and why the store cannot be read (in ``language``)."""
    try:
        return desk.knowledge.collections(), ""
    except KimasError as err:
        desk.explain(err, "listing collections")
        return None, store_problem(reason(err, language), str(desk.log_file), language)


def collection_choices(desk: DesktopApp) -> list[tuple[str, str]]:
    """(name shown, id) of every collection, for the collection pickers."""
    items, _ = _collections(desk)
    if items is not None:
        return [(c.shown, c.name) for c in items]
    return [(c.title or cid, cid) for cid, c in sorted(desk.config.collections.items())]


def collection_names(desk: DesktopApp) -> list[str]:
    """The collections' ids."""
    return [cid for _, cid in collection_choices(desk)]


def collections_view(desk: DesktopApp, language: Language = "en") -> str | I18nData:
    """The collections as Markdown in ``language``; none yet: how to begin, in the page's language
    (``ui.i18n``)."""
    items, problem = _collections(desk, language)
    if items is None:
        return problem
    if not items:
        return t("no_collections")
    advice = multilingual_advice(desk, [c.name for c in items if c.indexed])
    return collections_markdown(items, advice, language)


def multilingual_advice(desk: DesktopApp, names: Sequence[str] | None = None) -> dict[str, str]:
    """The collections (of ``names``; None: all) whose documents are mostly not English while the embedding
    model reads English only: collection id → the recommendation (issue 42)."""
    if names is None:
        items, _ = _collections(desk)
        names = [c.name for c in items or () if c.indexed]
    try:
        return collections_advice(desk.runtime.store(desk.config), names, desk.config.embedding)
    except KimasError as err:
        desk.explain(err, "reading the collections' languages")
        return {}


def multilingual_switch(desk: DesktopApp, language: Language = "en") -> str:
    """The one click: fetch the multilingual embedder if needed, switch to it, re-embed (Markdown)."""
    return outcome_markdown(desk.multilingual.start(), language)


def multilingual_status(desk: DesktopApp, language: Language = "en") -> tuple[bool, str]:
    """(whether the button shows, the switch's state as Markdown, in ``language``): shown while a
    collection needs it, or while a switch runs or tells how it ended."""
    state = desk.multilingual.state()
    said = said_naming_models(state.said, state.message, language)
    text = "" if state.phase == "idle" else esc(said)
    if state.phase == "failed":
        text = f"⚠ {text}"
    busy = state.phase in ("downloading", "switching")
    return (not busy and bool(multilingual_advice(desk))), text


def _titled(desk: DesktopApp, cid: str) -> str:
    """The name collection ``cid`` shows ('' stays '': no collection)."""
    return desk.knowledge.title(cid) if cid else cid


def progress_states(desk: DesktopApp) -> tuple[IndexingState, list[IndexingState]]:
    """The longest-running sync, and the others beside it, under the names the collections show."""
    first, *others = (
        replace(s, collection=_titled(desk, s.collection), waiting=tuple(_titled(desk, w) for w in s.waiting))
        for s in desk.indexing.states()
    )
    return first, others


def activity_view(desk: DesktopApp, language: Language = "en") -> str:
    """The recent indexing activity, under the names the collections show."""
    items = [replace(a, collection=_titled(desk, a.collection)) for a in desk.indexing.activity()]
    return activity_markdown(items, language=language)


# -- collections -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class KnowledgeAction:
    message: str
    names: list[str]  # the collections' ids
    selected: str | None  # an id
    choices: tuple[tuple[str, str], ...] = ()  # (name shown, id)
    ok: bool = True  # False: the typed text stays in its field, to be corrected


def _after(
    desk: DesktopApp, outcome: ActionResult, selected: str | None, language: Language = "en"
) -> KnowledgeAction:
    choices = collection_choices(desk)
    names = [cid for _, cid in choices]
    if selected not in names:
        selected = names[0] if names else None
    return KnowledgeAction(outcome_markdown(outcome, language), names, selected, tuple(choices), outcome.ok)


def refused(code: str) -> ActionResult:
    """A button refused before the app is asked (``code``: of ``ui.knowledge.words``, its English there)."""
    english = column(f"app_{code}", "en")
    return ActionResult(False, english, Said(english, code))


def create_collection(desk: DesktopApp, name: str, language: Language = "en") -> KnowledgeAction:
    outcome = desk.create_collection(name)
    return _after(desk, outcome, desk.knowledge.find(name) if outcome.ok else None, language)


def rename_collection(
    desk: DesktopApp, collection: str | None, new_name: str, language: Language = "en"
) -> KnowledgeAction:
    if not collection:
        return _after(desk, refused("choose_collection"), None, language)
    return _after(desk, desk.rename_collection(collection, new_name), collection, language)


def watched_folders(desk: DesktopApp, collection: str | None) -> list[str]:
    """The folders of ``collection`` watched in place (not the one holding the files dropped onto it)."""
    if not collection:
        return []
    try:
        folders = desk.knowledge.folders(collection) or []
    except KimasError:
        return []
    uploads = desk.knowledge.uploads_root / collection
    return [str(f) for f in folders if f != uploads]


def unwatch_folder(
    desk: DesktopApp, collection: str | None, folder: str | None, language: Language = "en"
) -> KnowledgeAction:
    if not collection:
        return _after(desk, refused("choose_collection"), None, language)
    if not folder:
        return _after(desk, refused("choose_watched"), collection, language)
    return _after(desk, desk.unwatch_folder(collection, folder), collection, language)


def remove_collection(desk: DesktopApp, name: str | None, language: Language = "en") -> KnowledgeAction:
    if not name:
        return _after(desk, refused("choose_collection"), None, language)
    return _after(desk, desk.remove_collection(name), None, language)


DEFAULT_COLLECTION = "documents"
NO_COLLECTION_CHOSEN = (
    "No collection was chosen, so the files went into '{name}' (to give it another name, open "
    '"Rename, or stop watching a folder" below; nothing is indexed again). '
)


def upload(
    desk: DesktopApp,
    collection: str | None,
    files: Sequence[str] | str | None,
    relative: str = "",
    language: Language = "en",
) -> KnowledgeAction:
    """Files or a folder dropped onto ``collection`` (a new "documents" collection if none is chosen).

    The browser uploads only file names; the temporary copy's name is the name the user's file had, and
    the app sanitizes it. ``relative``: for a folder, the page's JSON list of the files' paths inside it
    (``docs/a/README.md``), in upload order; with one path per file the subfolders are kept.
    """
    if isinstance(files, str):
        files = [files]
    name = collection or DEFAULT_COLLECTION
    paths = [Path(f) for f in files or []]
    try:
        inside = json.loads(relative) if relative else []
    except ValueError:
        inside = []
    keep = (
        isinstance(inside, list)
        and len(inside) == len(paths) > 0
        and all(isinstance(r, str) and "/" in r for r in inside)
    )
    pairs = [(p, r) for p, r in zip(paths, inside, strict=True)] if keep else [(p, p.name) for p in paths]
    outcome = desk.add_uploads(name, pairs, keep_folders=keep)
    if outcome.ok and not collection:  # said, not silent: where they went and how to name it (issue 46)
        chosen = spoken("no_collection", {"name": name}, NO_COLLECTION_CHOSEN.format(name=name), language)
        outcome = ActionResult(True, chosen + told(outcome.said, outcome.message, language))
    return _after(desk, outcome, desk.knowledge.find(name) or name, language)


def watch_target(desk: DesktopApp, collection: str | None, typed: str = "") -> str | ActionResult:
    """The collection a watched folder goes into: the one the "New collection" field names, made now if
    its Create has not run yet (a Watch clicked with Create can reach the app first), else the chosen
    one; a refusal when the typed name is refused or no collection is chosen (issue 46: never a
    collection the user did not choose, never a "documents" one)."""
    typed = typed.strip()
    if typed:
        cid = desk.knowledge.find(typed)
        if cid is not None:
            return cid
        made = desk.create_collection(typed)
        return (desk.knowledge.find(typed) or typed) if made.ok else made
    if collection:
        return collection
    return refused("choose_for_folder")


def add_folder(
    desk: DesktopApp, collection: str | None, folder: str, typed: str = "", language: Language = "en"
) -> KnowledgeAction:
    """Watch ``folder`` in place for the collection ``watch_target`` picks (``typed``: the "New
    collection" field as the click found it)."""
    name = watch_target(desk, collection, typed)
    if isinstance(name, ActionResult):
        return _after(desk, name, collection, language)
    return _after(desk, desk.add_folder(name, folder), name, language)


def reindex(desk: DesktopApp, collection: str | None, language: Language = "en") -> KnowledgeAction:
    if not collection:
        return _after(desk, refused("choose_collection"), None, language)
    return _after(desk, desk.reindex(collection), collection, language)


def reembed(desk: DesktopApp, collection: str | None, language: Language = "en") -> KnowledgeAction:
    if not collection:
        return _after(desk, refused("choose_collection"), None, language)
    return _after(desk, desk.reembed(collection), collection, language)


@dataclass(frozen=True)
class CollectionFields:
    description: str
    examples: str  # one per line
    mixin_weight: float
    scale: float
    language: str
    strategy: str


def load_collection_settings(desk: DesktopApp, name: str | None) -> CollectionFields:
    s = desk.knowledge.settings(name or "")
    return CollectionFields(
        s.description, "\n".join(s.examples), s.mixin_weight, s.scale, s.language, s.strategy
    )


def save_collection_settings(
    desk: DesktopApp, name: str | None, fields: CollectionFields, language: Language = "en"
) -> str:
    if not name:
        return outcome_markdown(refused("choose_collection"), language)
    outcome = desk.save_collection_settings(
        name,
        description=fields.description,
        examples=fields.examples.splitlines(),
        mixin_weight=float(fields.mixin_weight),
        scale=float(fields.scale),
        language=fields.language,
        strategy=fields.strategy or "",
    )
    return outcome_markdown(outcome, language)


# -- indexing ----------------------------------------------------------------------------------------


def pause_indexing(desk: DesktopApp, language: Language = "en") -> str:
    return outcome_markdown(desk.pause_indexing(), language)


def resume_indexing(desk: DesktopApp, language: Language = "en") -> str:
    return outcome_markdown(desk.resume_indexing(), language)


def cancel_indexing(desk: DesktopApp, language: Language = "en") -> str:
    return outcome_markdown(desk.cancel_indexing(), language)
