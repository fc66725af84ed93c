"""'Questions also answered' never exceeds the test set (issue 46): a 10-question set showed the default 20.
A real ``EvalStore`` in tmp_path, read through ``eval_view`` and ``layout.answers_output`` as the tab's
page load and timer read them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import cast

from app.desktop import DesktopApp
from app.evaluation.evaluation import DEFAULT_ANSWERS
from app.evaluation.store import EvalStore
from tests.ui.evaluation.test_no_data import SET
from ui.evaluation import handlers as eh
from ui.evaluation import layout


def _desk(tmp_path: Path, questions: int) -> DesktopApp:
    store = EvalStore(tmp_path)
    if questions:
        many = tuple(replace(SET.questions[0], qid=f"k{i}") for i in range(questions))
        store.save_set(replace(SET, questions=many))
    evaluation = SimpleNamespace(store=store, latest_set=lambda: (store.sets() or [None])[0])
    return cast(DesktopApp, SimpleNamespace(evaluation=evaluation, explain=str))


def test_a_ten_question_set_answers_at_most_ten(tmp_path: Path) -> None:
    view = eh.eval_view(_desk(tmp_path, 10))
    assert DEFAULT_ANSWERS > 10  # the default alone would ask for more than the set holds
    assert layout.answers_output(view, DEFAULT_ANSWERS)["value"] == 10
    assert layout.answers_output(view, 4)["value"] == 4  # a smaller number the user typed stays
    assert layout.answers_output(view, None)["value"] == 10  # an emptied field: the default, clamped


def test_without_a_set_or_with_a_large_one_the_default_stands(tmp_path: Path) -> None:
    assert layout.answers_output(eh.eval_view(_desk(tmp_path / "none", 0)), None)["value"] == DEFAULT_ANSWERS
    big = eh.eval_view(_desk(tmp_path / "big", 200))
    assert layout.answers_output(big, DEFAULT_ANSWERS)["value"] == DEFAULT_ANSWERS
