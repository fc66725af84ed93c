"""The Evaluation tab's own-question tools: retrieval testing (what each stage ranked) and adding the user's
own question to the latest test set. Plain functions of the app and the widgets' values, like
``handlers.py``."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from app.desktop import DesktopApp
from kimas_desktop.errors import KimasError
from kimas_desktop.text.visible import visible_name
from ui.evaluation.handlers import frame
from ui.i18n import Language, word
from ui.markup import esc

__all__ = ["INSPECT_HEADERS", "add_question", "inspect", "question_files"]

_INSPECT_KEYS = ["ev_col_final", "ev_col_dense", "ev_col_full_text", "ev_col_fused", "ev_col_passage"]
INSPECT_HEADERS = [word(k, "en") for k in _INSPECT_KEYS]


def inspect(
    desk: DesktopApp, question: str | None, preset: str | None, language: Language = "en"
) -> tuple[str, pd.DataFrame]:
    """Retrieval testing: what the rewrite and the router did, and each passage's rank and score in
    every stage (dense, full text, their fusion, and the final order after the reranker)."""
    columns = {word(k, language): "str" for k in _INSPECT_KEYS}
    try:
        t = desk.evaluation.inspect(question or "", None if preset in (None, "configured") else preset)
    except KimasError as err:
        return f"⚠ {esc(str(err))}", frame([], columns)
    except Exception as err:  # anything else: one line that points to the log, the traceback there
        return f"⚠ {esc(desk.explain(err, 'testing retrieval'))}", frame([], columns)
    none = word("ev_none", language)
    routes = ", ".join(f"{esc(r.collection)} {r.score:.3f}" for r in t.routes) or none
    searched = esc(", ".join(t.searched) or none)
    summary = word("ev_inspected", language, query=esc(t.rewrite), routes=routes, searched=searched)
    rows = [
        (
            *p.stages(),
            f"{visible_name(Path(p.chunk.source).name)}: {' '.join(p.chunk.text.split())[:200]}",
        )
        for p in t.passages
    ]
    return summary, frame(rows, columns)


def question_files(desk: DesktopApp) -> list[tuple[str, str]]:
    """(label, path) of every indexed file, for the own-question form's file choice."""
    out: list[tuple[str, str]] = []
    try:
        names = sorted(desk.knowledge.folders_by_collection())
        for name in names:
            out += [
                (f"{name}: {visible_name(d.name)}", d.path)
                for d in desk.list_documents(name)
                if d.status == "indexed"
            ]
    except KimasError:
        pass
    return out


def add_question(
    desk: DesktopApp, question: str | None, path: str | None, answer: str | None, language: Language = "en"
) -> str:
    """Add the user's own question to the latest test set (a status line)."""
    test_set = desk.evaluation.latest_set()
    if test_set is None:
        return word("ev_own_no_set", language)
    if not path:
        return word("ev_own_no_file", language)
    try:
        updated = desk.evaluation.add_question(test_set.set_id, question or "", path, answer or "")
    except KimasError as err:
        return f"⚠ {esc(str(err))}"
    mine = sum(q.origin == "user" for q in updated.questions)
    return word("ev_own_added", language, n=len(updated.questions), mine=mine)
