"""Evaluation tab handlers without a browser (issue 26): make a test set from two collections, run it under
two presets, compare the runs; a cancelled run is listed, never plotted. On the real indexer and LanceDB
in tmp_path, with the deterministic fake embedder and a scripted chat model."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from app.desktop import DesktopApp
from app.evaluation.run import EvalRun, QuestionResult
from app.paths import Paths
from app.runtime import Runtime, real_builders
from app.settings.config_store import ConfigStore
from kimas_desktop.config import parse_config
from kimas_desktop.types import Message
from local_models.fake import HashEmbedder, ScriptedChatModel, WordOverlapReranker
from tests.app.knowledge.test_documents import wait_for
from tests.rigs import scripted
from ui.evaluation import handlers as eh
from ui.evaluation import own_questions as oq

NAMES = (
    "Abernethy Brightwater Calloway Dunmore Ellesmere Fairbairn Glenrothes Harcourt Inverary Jedburgh "
    "Kilbride Lochaber Montrose Nairnshire Oakhampton Pitlochry Quarrington Rothesay Strathmore Tillicoultry"
).split()
TRADES = (
    "blacksmith carpenter surveyor stationmaster signalman lamplighter cooper tanner weaver miller".split()
)


def write_corpus(root: Path) -> dict[str, Path]:
    """Two collections' folders ("railway", "orchard"), three Markdown files each, six paragraphs a file
    about named places, people, years and costs: enough passages for a test set of 20 questions."""
    out = {}
    for offset, (name, thing, verb, place) in enumerate(
        (
            ("railway", "signal box", "was rebuilt", "junction"),
            ("orchard", "apple orchard", "was replanted", "valley"),
        )
    ):
        folder = root / name
        folder.mkdir(parents=True, exist_ok=True)
        for f in range(3):
            paragraphs = []
            for p in range(6):
                i = f * 6 + p + 7 * offset
                who, near, by = NAMES[i % 20], NAMES[(i + 5) % 20], NAMES[(i + 11) % 20]
                trade = TRADES[(i * 3) % len(TRADES)]
                paragraphs.append(
                    f"The {who} {thing} near the {near} {place} {verb} in {1850 + i * 7} by a {trade} "
                    f"called {by} after the winter floods of that year. Local records say the work cost "
                    f"{120 + i * 13} pounds and took {3 + i % 9} months to finish. Visitors still ask about "
                    f"the {who} {thing} because its {trade} left carved initials on the gate."
                )
            text = f"# {name.title()} notes {f + 1}\n\n" + "\n\n".join(paragraphs) + "\n"
            (folder / f"{name}-{f + 1}.md").write_text(text, "utf-8")
        out[name] = folder
    return out


Reply = Callable[[Sequence[Message], Mapping[str, Any] | None], str]


def open_desk(tmp_path: Path, reply: Reply) -> DesktopApp:
    """A started app over the real indexer and LanceDB with the two collections indexed."""
    builders = replace(
        real_builders(),
        meaning=None,
        embedder=lambda cfg, cache: HashEmbedder(dim=32),
        chat=lambda cfg: ScriptedChatModel(reply),
        reranker=lambda cfg, emb, cache: WordOverlapReranker(),
    )
    data = tmp_path / "data"
    config = parse_config({})
    paths = Paths(data, data / "config.toml")
    desk = DesktopApp(Runtime(paths, config, builders), ConfigStore(paths.config_file, config))
    desk.start()
    for name, folder in write_corpus(tmp_path / "docs").items():
        assert desk.create_collection(name).ok
        assert desk.add_folder(name, str(folder)).ok
    assert wait_for(lambda: desk.indexing.idle() and len(desk.list_documents("orchard")) == 3)
    return desk


@pytest.fixture
def desk(tmp_path: Path) -> Iterator[DesktopApp]:
    app = open_desk(tmp_path, scripted())
    yield app
    app.close()


def idle(desk: DesktopApp) -> bool:
    return not desk.evaluation_job.state().kind


def test_make_a_set_run_two_presets_and_compare_them(desk: DesktopApp) -> None:
    first = eh.poll(desk, None)
    assert first.view is not None and "No test set yet" in first.view.set_line
    assert first.view.runs.empty and all(f.empty for f in first.view.figures.values())
    assert eh.poll(desk, first.key).view is None  # nothing changed: nothing redrawn

    refused = eh.start_run(desk, "turbo", 4)
    assert "⚠ Make a test set first" in refused
    assert "Make a test set first" in eh.poll(desk, first.key).progress  # it stays on the line

    assert "Making a test set" in eh.make_set(desk, 20)
    assert wait_for(lambda: idle(desk))
    made = eh.poll(desk, first.key)
    assert made.view is not None and made.key != first.key
    assert (
        "**20 questions** (16 answerable, 4 unanswerable controls) from 2 collections" in made.view.set_line
    )

    for preset in ("turbo", "routed"):
        assert "Running the test set: 0 / 20 questions" in eh.start_run(desk, preset, 4)
        assert "already going" in eh.make_set(desk, 20)  # one job at a time
        assert wait_for(lambda: idle(desk), 60)
        assert desk.evaluation_job.state().ok, desk.evaluation_job.state().message
        assert f"Run '{preset} · scripted-chat' is complete." in eh.poll(desk, None).progress

    view = eh.eval_view(desk)
    assert list(view.runs["#"]) == ["1", "2"] and list(view.runs["status"]) == ["complete", "complete"]
    assert list(view.runs["run"]) == ["turbo · scripted-chat", "routed · scripted-chat"]
    assert list(view.runs["questions"]) == ["20 of 20", "20 of 20"]
    runs = desk.evaluation.store.runs(desk.evaluation.latest_set().set_id)  # type: ignore[union-attr]
    assert list(view.runs["recall@5"]) == [f"{r.metrics['all']['recall@5']:g}" for r in runs]
    # Side by side: each charted figure has a bar per complete run, in the same colour in every chart.
    names = ["#1 turbo", "#2 routed"]
    assert all(list(view.figures[key]["run"]) == names for key, _ in eh.CHARTED)
    assert list(view.figures["mrr"]["value"]) == [r.metrics["all"]["mrr"] for r in runs]
    assert list(view.over_time["run"]) == names and view.over_time["started"].is_monotonic_increasing
    # Per collection: the latest run's recall@5 in each collection.
    assert dict(zip(view.by_collection["collection"], view.by_collection["recall@5"], strict=True)) == {
        name: runs[1].metrics[name]["recall@5"] for name in ("orchard", "railway")
    }
    # Failed questions: every answerable one whose passage is not in the top 5, and no other answerable.
    missed = {r.question for r in runs[1].results if r.answerable and (r.rank is None or r.rank > 5)}
    listed = set(view.failed["question"])
    assert missed <= listed and view.failed_title == f"Failed questions of run #2 routed ({len(listed)})"
    assert all(view.failed["what went wrong"])


def _result(qid: str, **kw: Any) -> QuestionResult:
    fields: dict[str, Any] = {"answerable": True, "collection": "docs", "expected": f"a.md: {qid} passage"}
    return QuestionResult(qid, f"question {qid}?", **{**fields, **kw})


def test_failed_questions_are_missed_passages_and_wrong_outcomes() -> None:
    run = EvalRun("r", "s", "full · model", {"preset": "full"}, 0.0, status="complete")
    run.results = [
        _result("top", rank=1, asked=True, outcome="answered"),
        _result("low", rank=7, found=["b.md: other text"]),
        _result("lost", rank=None),
        _result("declined", rank=2, asked=True, outcome="declined"),
        _result("control-ok", answerable=False, expected="", asked=True, outcome="declined"),
        _result("control-answered", answerable=False, expected="", asked=True, outcome="answered"),
        _result("control-unasked", answerable=False, expected=""),
    ]
    rows = {r["question"]: r for r in eh.failed_rows(run).to_dict("records")}
    assert set(rows) == {
        "question low?",
        "question lost?",
        "question declined?",
        "question control-answered?",
    }
    assert rows["question low?"]["what went wrong"] == "expected passage at rank 7"
    assert rows["question low?"]["found instead"] == "1. b.md: other text"
    assert rows["question low?"]["answer"] == "not asked"
    assert rows["question lost?"]["what went wrong"] == "expected passage not in the top 10"
    assert rows["question declined?"]["what went wrong"] == "answerable, but declined"
    assert rows["question control-answered?"]["expected passage"] == "— (unanswerable control)"
    assert rows["question control-answered?"]["what went wrong"] == "unanswerable, but answered"


def test_a_cancelled_run_shows_its_partial_figures(tmp_path: Path) -> None:
    """Cancel while the model is asked about a question past the first: the run keeps the figures of the
    questions it finished (not the one under way), listed and plotted as partial."""
    entered, release = threading.Event(), threading.Event()
    answer = scripted()
    opened: list[DesktopApp] = []
    at: list[int] = []  # questions done when the model was held

    def held(messages: Sequence[Message], schema: Mapping[str, Any] | None) -> str:
        if (
            opened
            and opened[0].evaluation_job.state().kind == "run"
            and opened[0].evaluation_job.state().done >= 1
        ):
            at.append(opened[0].evaluation_job.state().done)
            entered.set()  # the run is asking the model about a question: cancel now
            release.wait(30)
        return answer(messages, schema)

    desk = open_desk(tmp_path, held)
    opened.append(desk)
    try:
        eh.make_set(desk, 20)
        assert wait_for(lambda: idle(desk))
        eh.start_run(desk, "configured", 20)  # every question is also answered
        assert entered.wait(30)
        stopping = eh.cancel(desk)
        assert "stopping; the figures measured so far are kept" in stopping
        release.set()
        assert wait_for(lambda: idle(desk), 60)
        job = desk.evaluation_job.state()
        done = at[0]
        assert f"was cancelled after {done} of 20 questions; its partial figures are shown" in job.message
        view = eh.eval_view(desk)
        assert list(view.runs["status"]) == ["cancelled · partial"]
        assert list(view.runs["questions"]) == [f"{done} of 20"]
        assert view.runs["recall@5"][0] != "—"  # the figure of the questions it ran
        assert list(view.figures["recall@5"]["run"]) == ["#1 full (partial)"]
        assert view.failed_title.startswith("Failed questions of run #1 full (partial)")
        assert "No evaluation is running" in eh.cancel(desk)
    finally:
        release.set()
        desk.close()


def test_a_run_left_running_by_a_closed_app_reads_as_interrupted(desk: DesktopApp) -> None:
    eh.make_set(desk, 20)
    assert wait_for(lambda: idle(desk))
    test_set = desk.evaluation.latest_set()
    assert test_set is not None
    desk.evaluation.store.save_run(EvalRun("gone", test_set.set_id, "full · model", {}, time.time()))
    view = eh.eval_view(desk)
    assert list(view.runs["status"]) == ["interrupted"] and view.over_time.empty


def test_runs_are_named_so_that_the_charts_keep_their_order() -> None:
    runs = [EvalRun(str(i), "s", "x", {"preset": "full" if i % 2 else "turbo"}, float(i)) for i in range(12)]
    names = list(eh.run_names(runs).values())
    assert names[:2] == ["#01 turbo", "#02 full"] and names[-1] == "#12 full"
    assert sorted(names) == names  # a chart orders its bars alphabetically
    assert list(eh.run_names(runs[:3]).values()) == ["#1 turbo", "#2 full", "#3 turbo"]


def test_retrieval_testing_shows_each_stage(desk: DesktopApp) -> None:
    summary, table = oq.inspect(desk, "Which signal box was rebuilt by a cooper called Dunmore?", "turbo")
    assert summary.startswith("**Query:** searched as asked") and "searched: " in summary
    assert list(table.columns) == oq.INSPECT_HEADERS and len(table) >= 3
    assert table["final"].iloc[0] == "1. " + table["final"].iloc[0].split(". ", 1)[1]  # best first
    assert any(cell.startswith("1. ") for cell in table["dense"]) and any(
        cell.startswith("1. ") for cell in table["full text"]
    )
    assert all(p.endswith(".md") or ".md: " in p for p in table["passage"])
    refused, empty = oq.inspect(desk, "   ", "configured")
    assert refused.startswith("⚠ type a question") and empty.empty


def test_a_question_of_ones_own_is_added_to_the_test_set(desk: DesktopApp) -> None:
    assert oq.add_question(desk, "Who rebuilt the signal box?", "x", "").startswith("⚠ Make a test set first")
    assert "Making a test set" in eh.make_set(desk, 20)
    assert wait_for(lambda: idle(desk))
    files = oq.question_files(desk)
    assert len(files) == 6 and files[0][0].startswith("orchard: ")
    path = dict(files)["railway: railway-1.md"]
    assert oq.add_question(desk, "Who rebuilt the signal box?", None, "").startswith("⚠ Choose the file")
    line = oq.add_question(desk, "Who rebuilt the Calloway signal box?", path, "Oakhampton")
    assert line.startswith("Added. The test set has 21 questions, 1 of them yours")
    mine = desk.evaluation.latest_set().questions[-1]  # type: ignore[union-attr]
    assert (mine.origin, mine.collection, mine.source, mine.answer) == ("user", "railway", path, "Oakhampton")
    assert oq.add_question(desk, "  ", path, "").startswith("⚠ type the question")


def test_a_good_answer_in_the_chat_joins_the_test_set(tmp_path: Path) -> None:
    from ui.chat import handlers as chat_handlers

    answer = "The Calloway signal box near the Harcourt junction was rebuilt in 1864 by a cooper called Nairnshire."
    desk = open_desk(tmp_path, scripted(answer))
    try:
        _good_answer_joins(desk, chat_handlers)
    finally:
        desk.close()


def _good_answer_joins(desk: DesktopApp, chat_handlers: Any) -> None:
    question = "Which cooper rebuilt the Calloway signal box near the Harcourt junction in 1864?"
    for _ in chat_handlers.submit(desk, None, question):
        pass
    conv = desk.history.current()
    (turn,) = conv.turns
    assert turn.finished and turn.citations, turn.answer
    early = chat_handlers.feedback(desk, conv.id, 1, True)
    assert early.startswith("Marked good. Make a test set")  # nothing to add it to yet
    assert "Making a test set" in eh.make_set(desk, 20)
    assert wait_for(lambda: idle(desk))
    wrong = chat_handlers.feedback(desk, conv.id, 1, False)
    assert wrong.startswith("Marked wrong") and len(desk.evaluation.latest_set().questions) == 20  # type: ignore[union-attr]
    good = chat_handlers.feedback(desk, conv.id, 1, True)
    cited = turn.citations[0].chunk.source
    assert good == f"Marked good: “{turn.question}” joins the test set, answered by {Path(cited).name}."
    mine = desk.evaluation.latest_set().questions[-1]  # type: ignore[union-attr]
    assert (mine.question, mine.source, mine.origin) == (turn.question, cited, "user")
    assert chat_handlers.feedback(desk, conv.id, 7, True) == ""  # no such message
