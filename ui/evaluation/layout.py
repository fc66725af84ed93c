"""The Evaluation tab (issue 26, "How good is it on my documents?"): make a test set from the collections,
run it under a preset, compare the runs. Layout and wiring only; the handlers are
``ui.evaluation.handlers``."""

from __future__ import annotations

from typing import Any

import gradio as gr

from app.desktop import DesktopApp
from app.evaluation.evaluation import DEFAULT_ANSWERS, DEFAULT_QUESTIONS
from ui.evaluation import handlers as eh
from ui.evaluation import own_questions as oq
from ui.i18n import Language, page_language, t, word

__all__ = ["CSS", "bind", "build"]

CSS = """
#eval-figures .block { min-width: 0; }
#eval-failed .cell-wrap, #eval-failed .cell-wrap span.text { white-space: pre-wrap; }
#eval-runs th, #eval-runs th * { word-break: normal !important; overflow-wrap: break-word !important;
  font-size: var(--text-xs); }
.eval-note p { margin: 0.2em 0; opacity: 0.8; font-size: 0.9em; }
"""

RATE: list[float | None] = [0.0, 1.0]


def _make_set() -> dict[str, Any]:
    """Step 1: how many questions, and the button that makes the set."""
    with gr.Column(scale=2, variant="panel"):
        gr.Markdown(t("ev_make_heading"))
        size = gr.Number(
            value=DEFAULT_QUESTIONS,
            minimum=5,
            maximum=2000,
            precision=0,
            label=t("ev_size"),
            elem_id="eval-size",
        )
        make = gr.Button(t("ev_make"), elem_id="eval-make-set")
        set_line = gr.Markdown("", elem_id="eval-set")  # the page's load fills the view in
    return {"size": size, "make": make, "set": set_line}


def _run_it(desk: DesktopApp) -> dict[str, Any]:
    """Step 2: the preset, how many questions are also answered, Run and Cancel, and the progress line."""
    with gr.Column(scale=3, variant="panel"):
        gr.Markdown(t("ev_run_heading"))
        with gr.Row():
            preset = gr.Dropdown(
                choices=list(eh.PRESET_CHOICES),
                value="configured",
                label=t("ev_preset"),
                scale=2,
                min_width=120,
                elem_id="eval-preset",
            )
            answers = gr.Number(
                value=DEFAULT_ANSWERS,
                minimum=0,
                maximum=2000,
                precision=0,
                label=t("ev_answers"),
                scale=1,
                min_width=100,
                elem_id="eval-answers",
            )
        with gr.Row():
            run = gr.Button(t("ev_run"), variant="primary", scale=2, elem_id="eval-run")
            cancel = gr.Button(t("cancel"), variant="stop", scale=1, elem_id="eval-cancel")
        progress = gr.HTML(eh.progress_html(desk.evaluation_job.state()), elem_id="eval-progress")
    return {"preset": preset, "answers": answers, "run": run, "cancel": cancel, "progress": progress}


def _note(elem_id: str) -> Any:
    """The line under a chart: "No data yet: …", or its values when the bars have no height."""
    return gr.Markdown("", elem_id=elem_id, elem_classes=["eval-note"])


def _figure_charts() -> tuple[dict[str, Any], dict[str, Any]]:
    figures, notes = {}, {}
    with gr.Row(elem_id="eval-figures"):
        for i, (key, name) in enumerate(eh.CHARTED):
            with gr.Column(min_width=160):
                figures[key] = gr.BarPlot(
                    eh.frame([], eh.FIGURE_COLUMNS),
                    x="run",
                    y="value",
                    title=word(name, "en"),
                    y_title=" ",  # the title says what the bars are
                    x_title=" ",
                    x_label_angle=-25,  # run names side by side would overlap
                    y_lim=RATE,
                    height=240,
                    show_label=False,
                    visible=False,
                    elem_id=f"eval-chart-{i}",
                )
                notes[key] = _note(f"eval-chart-{i}-note")
    return figures, notes


def _charts() -> dict[str, Any]:
    """The runs side by side: one bar chart per figure, recall per collection, recall over time; each
    with a note when it has nothing to draw."""
    gr.Markdown(t("ev_side_by_side"))
    easiness = gr.Markdown("", elem_id="eval-easiness")
    figures, notes = _figure_charts()
    with gr.Row():
        with gr.Column():
            by_collection = gr.BarPlot(
                eh.frame([], eh.COLLECTION_COLUMNS),
                x="collection",
                y="recall@5",
                title=word("ev_chart_by_collection", "en"),
                y_lim=RATE,
                height=260,
                show_label=False,
                visible=False,
                elem_id="eval-collections",
            )
            notes["by_collection"] = _note("eval-collections-note")
        with gr.Column():
            over_time = gr.LinePlot(
                eh.frame([], eh.TIME_COLUMNS),
                x="started",
                y="recall@5",
                title=word("ev_chart_over_time", "en"),
                x_title=word("ev_run_started", "en"),
                y_lim=RATE,
                tooltip="all",
                height=260,
                show_label=False,
                visible=False,
                elem_id="eval-over-time",
            )
            notes["over_time"] = _note("eval-over-time-note")
    return {
        "figures": figures,
        "by_collection": by_collection,
        "over_time": over_time,
        "notes": notes,
        "easiness": easiness,
    }


def _tables() -> dict[str, Any]:
    """The runs of this test set, and the questions the last run failed."""
    runs = gr.Dataframe(
        headers=eh.RUN_HEADERS,
        label=t("ev_runs"),
        column_widths=["3%", "17%", "8%", "9%", "6%", *["6.3%"] * 9],
        interactive=False,
        wrap=True,
        max_height=320,
        elem_id="eval-runs",
    )
    failed = gr.Dataframe(
        headers=eh.FAILED_HEADERS,
        label=t("ev_failed"),
        interactive=False,
        wrap=True,
        max_height=520,
        column_widths=["22%", "14%", "26%", "30%", "8%"],
        elem_id="eval-failed",
    )
    return {"runs": runs, "failed": failed}


def _retrieval_test() -> dict[str, Any]:
    """Why a passage ranks where it does, for one typed question."""
    with gr.Accordion(t("ev_retrieval"), open=False):
        with gr.Row():
            query = gr.Textbox(
                label=t("ev_question"), placeholder=t("ev_query_hint"), scale=4, elem_id="eval-query"
            )
            inspect = gr.Button(t("ev_inspect"), scale=1, elem_id="eval-inspect")
        inspect_summary = gr.Markdown("", elem_id="eval-inspect-summary")
        inspected = gr.Dataframe(
            headers=oq.INSPECT_HEADERS,
            interactive=False,
            wrap=True,
            max_height=480,
            column_widths=["10%", "10%", "10%", "10%", "60%"],
            visible=False,  # its headers are the page's language once a test ran
            elem_id="eval-inspected",
        )
    return {"query": query, "inspect": inspect, "inspect_summary": inspect_summary, "inspected": inspected}


def _own_question() -> dict[str, Any]:
    """A question of the user's own, with the file that answers it."""
    with gr.Accordion(t("ev_own"), open=False):
        with gr.Row():
            own = gr.Textbox(label=t("ev_question"), scale=3, elem_id="eval-own-question")
            own_file = gr.Dropdown(choices=[], label=t("ev_own_file"), scale=2, elem_id="eval-own-file")
            own_answer = gr.Textbox(label=t("ev_own_answer"), scale=2, elem_id="eval-own-answer")
        add = gr.Button(t("ev_own_add"), elem_id="eval-own-add")
        added = gr.Markdown("", elem_id="eval-own-added")
    return {"own": own, "own_file": own_file, "own_answer": own_answer, "add": add, "added": added}


def build(desk: DesktopApp) -> dict[str, Any]:
    """Lay the tab out inside the current ``gr.Tab``; ``bind`` wires it."""
    gr.Markdown(t("ev_heading"))
    gr.Markdown(t("ev_about"), elem_classes=["kimas-note"])
    with gr.Row():
        made = _make_set()
        running = _run_it(desk)
    tab = {**made, **running, **_charts(), **_tables(), **_retrieval_test(), **_own_question()}
    return {**tab, "seen": gr.State("")}


NOTED = (*(key for key, _ in eh.CHARTED), "by_collection", "over_time")


def _plot(data: Any, draws: bool, **words: str) -> Any:
    return gr.update(value=data, visible=draws, **words)


def view_outputs(view: eh.EvalView, language: Language = "en") -> tuple[Any, ...]:
    """Values for the ``view_components``: a chart with nothing to draw is hidden, its note shown; the two
    tables wait for the first run (before it they were boxes of column names only). The charts' titles
    in ``language``."""
    ran = not view.runs.empty
    over_time = {"title": word("ev_chart_over_time", language), "x_title": word("ev_run_started", language)}
    return (
        view.set_line,
        view.easiness,
        *(
            _plot(view.figures[key], not view.figures[key].empty, title=word(name, language))
            for key, name in eh.CHARTED
        ),
        _plot(
            view.by_collection,
            not view.by_collection.empty,
            title=word("ev_chart_by_collection", language),
            x_title=word("ev_collection", language),
        ),
        _plot(view.over_time, len(view.over_time) > 1, **over_time),
        *(view.notes[key] for key in NOTED),
        gr.update(value=view.runs, visible=ran),
        gr.update(value=view.failed, label=view.failed_title, visible=ran),
    )


def answers_output(view: eh.EvalView | None, asked: float | None) -> Any:
    """The 'Questions also answered' field once the view is read: never more than the test set holds."""
    return gr.skip() if view is None else gr.update(value=eh.answered(view.size, asked))


def view_components(tab: dict[str, Any]) -> list[Any]:
    return [
        tab["set"],
        tab["easiness"],
        *tab["figures"].values(),
        tab["by_collection"],
        tab["over_time"],
        *(tab["notes"][key] for key in NOTED),
        tab["runs"],
        tab["failed"],
    ]


def bind(desk: DesktopApp, tab: dict[str, Any], timer: gr.Timer, demo: gr.Blocks) -> None:
    """Buttons start and stop work in the background; the app's ``timer`` keeps the progress line
    current and redraws the charts and tables when a set or run starts or ends."""
    shown = view_components(tab)

    def language(request: gr.Request | None) -> Language:
        return page_language(desk.config.ui.language, request)

    def on_make(n: float | None, request: gr.Request) -> str:
        return eh.make_set(desk, n, language(request))

    def on_run(p: str | None, n: float | None, request: gr.Request) -> str:
        return eh.start_run(desk, p, n, language(request))

    def on_cancel(request: gr.Request) -> str:
        return eh.cancel(desk, language(request))

    def on_add(q: str | None, f: str | None, a: str | None, request: gr.Request) -> str:
        return oq.add_question(desk, q, f, a, language(request))

    def on_inspect(q: str | None, p: str | None, request: gr.Request) -> tuple[str, Any]:
        summary, table = oq.inspect(desk, q, p, language(request))
        return summary, gr.update(value=table, visible=True)

    tab["make"].click(on_make, [tab["size"]], [tab["progress"]])
    tab["run"].click(on_run, [tab["preset"], tab["answers"]], [tab["progress"]])
    tab["cancel"].click(on_cancel, None, [tab["progress"]], queue=False)
    tab["add"].click(on_add, [tab["own"], tab["own_file"], tab["own_answer"]], [tab["added"]])
    demo.load(lambda: gr.update(choices=oq.question_files(desk)), None, [tab["own_file"]])
    tab["own_file"].focus(lambda: gr.update(choices=oq.question_files(desk)), None, [tab["own_file"]])
    tested = [tab["inspect_summary"], tab["inspected"]]
    for trigger in (tab["inspect"].click, tab["query"].submit):
        trigger(on_inspect, [tab["query"], tab["preset"]], tested)

    def tick(seen: str, asked: float | None, request: gr.Request) -> tuple[Any, ...]:
        said = language(request)
        p = eh.poll(desk, seen, said)
        drawn = view_outputs(p.view, said) if p.view is not None else (gr.skip(),) * len(shown)
        return (p.key, p.progress, answers_output(p.view, asked), *drawn)

    read = [tab["seen"], tab["answers"]]
    polled = [tab["seen"], tab["progress"], tab["answers"], *shown]
    timer.tick(tick, read, polled, show_progress="hidden", queue=False)
    demo.load(tick, read, polled)  # the page's first view
