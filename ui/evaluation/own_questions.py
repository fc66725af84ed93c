"""The Evaluation tab's own-question tools: retrieval testing (what each stage ranked) and adding the user's
own question to the latest test set. Plain functions of the app and the widgets' values, like
``handlers.py``."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from app.desktop import DesktopApp
from kimas_desktop.errors import KimasError
from ui.evaluation.handlers import frame
from ui.markup import esc

__all__ = ["INSPECT_HEADERS", "add_question", "inspect", "question_files"]

INSPECT_HEADERS = ["final", "dense", "full text", "fused", "passage"]


def inspect(desk: DesktopApp, question: str | None, preset: str | None) -> tuple[str, pd.DataFrame]:
    """Retrieval testing: what the rewrite and the router did, and each passage's rank and score in
    every stage (dense, full text, their fusion, and the final order after the reranker)."""
    try:
        t = desk.evaluation.inspect(question or "", None if preset in (None, "configured") else preset)
    except KimasError as err:
        return f"⚠ {esc(str(err))}", frame([], {h: "str" for h in INSPECT_HEADERS})
    except Exception as err:  # anything else: one line that points to the log, the traceback there
        return f"⚠ {esc(desk.explain(err, 'testing retrieval'))}", frame(
            [], {h: "str" for h in INSPECT_HEADERS}
        )
    routes = ", ".join(f"{esc(r.collection)} {r.score:.3f}" for r in t.routes) or "none"
    summary = (
        f"**Query:** {esc(t.rewrite)}  \n**Routing:** {routes}; searched: {esc(', '.join(t.searched) or 'none')}"
        "  \nEach stage's rank is within the passage's collection; *final* is the order the answer sees."
    )
    rows = [
        (
            *p.stages(),
            f"{Path(p.chunk.source).name}: {' '.join(p.chunk.text.split())[:200]}",
        )
        for p in t.passages
    ]
    return summary, frame(rows, {h: "str" for h in INSPECT_HEADERS})


def question_files(desk: DesktopApp) -> list[tuple[str, str]]:
    """(label, path) of every indexed file, for the own-question form's file choice."""
    out: list[tuple[str, str]] = []
    try:
        names = sorted(desk.knowledge.folders_by_collection())
        for name in names:
            out += [(f"{name}: {d.name}", d.path) for d in desk.list_documents(name) if d.status == "indexed"]
    except KimasError:
        pass
    return out


def add_question(desk: DesktopApp, question: str | None, path: str | None, answer: str | None) -> str:
    """Add the user's own question to the latest test set (a status line)."""
    test_set = desk.evaluation.latest_set()
    if test_set is None:
        return "⚠ Make a test set first: your question is added to it."
    if not path:
        return "⚠ Choose the file that answers it."
    try:
        updated = desk.evaluation.add_question(test_set.set_id, question or "", path, answer or "")
    except KimasError as err:
        return f"⚠ {esc(str(err))}"
    mine = sum(q.origin == "user" for q in updated.questions)
    return f"Added. The test set has {len(updated.questions)} questions, {mine} of them yours; run it to see how it does."
