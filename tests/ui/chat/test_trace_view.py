"""The trace as a reader sees it: user-facing words, not the pipeline's internal names."""

from kimas_desktop.trace import (
    AnswerCheckStage,
    BudgetStage,
    DecisionStage,
    FirstTokenStage,
    HopStage,
    RewriteStage,
    RouteStage,
    TotalStage,
    TraceBuilder,
)
from kimas_desktop.types import Route
from ui.chat.trace_view import trace_markdown


def test_the_trace_speaks_the_users_language_and_shows_the_models_check() -> None:
    trace = TraceBuilder(question="How often is the oil changed?")
    trace.routes.append(Route("cars", 0.9, 0.8, 0.7, 0.75, 1.2))
    trace.add(RouteStage(3.0, "question", {"cars": 0.9}))
    trace.add(
        AnswerCheckStage(
            120.0, False, words="every 5000 km", reason="the model's words are not in the sources"
        )
    )
    trace.add(DecisionStage(0.0, False, "doubted", 0.45, "none"))
    trace.add(FirstTokenStage(900.0))
    trace.add(TotalStage(1000.0))
    text = trace_markdown(trace.snapshot())
    for jargon in ("centroid", "dense", "LLR", "first_token"):
        assert jargon not in text, jargon
    assert "| collection | score | topics | description | passages | words | searched |" in text
    assert (
        "**The chat model's check:** the sources do not answer it: the model's words are not in the sources "
        "(“every 5000 km”)" in text
    )
    assert "**Decision:** decline (the chat model found no source that states it" in text
    assert "| first word of the answer | 900 |" in text and "| choosing collections | 3 |" in text


def test_the_trace_says_what_the_conversation_contributed() -> None:
    alone = TraceBuilder(question="Who built Warsaw's first metro line?")
    alone.add(
        RewriteStage(
            1.0, "as-asked", "Who built Warsaw's first metro line?", reason="it names its own subject"
        )
    )
    assert "**Conversation:** searched as asked: it names its own subject" in trace_markdown(alone.snapshot())
    kept = TraceBuilder(question="Which languages are spoken in Kenya?")
    note = "kept the conversation's subject: Nairobi capital"
    query = "Which languages are spoken in Kenya? Nairobi capital"
    kept.add(RewriteStage(1.0, "as-asked", query, note, reason="it names its own subject"))
    assert f"searched as asked ({note}):" in trace_markdown(kept.snapshot())
    within = TraceBuilder(question="Who designed the stations?")
    within.add(
        RewriteStage(1.0, "as-asked", "Who designed the stations?", reason="x", within=("/d/Metro.md",))
    )
    assert (
        "searched as asked: x; also in the files the earlier answers came from (Metro.md), and the searches "
        "merged" in trace_markdown(within.snapshot())
    )
    follow = TraceBuilder(question="How many people live there?")
    follow.add(
        RewriteStage(
            1.0,
            "heuristic",
            "How many people live there? Kenya capital",
            depends="previous",
            turns=(0, 1),
            reason="it refers back ('there')",
            earlier=("What is the capital of Kenya?",),
            also_as_asked=True,
            within=("/docs/Kenya.pdf",),
        )
    )
    assert (
        "**Conversation:** used the earlier question “What is the capital of Kenya?”: it refers back ('there'); "
        "also searched as asked, in all files and in the files the earlier answers came from (Kenya.pdf), and "
        "the searches merged" in trace_markdown(follow.snapshot())
    )
    first = TraceBuilder(question="What is the capital of Kenya?")
    first.add(RewriteStage(0.0, "first-turn", "What is the capital of Kenya?"))
    assert "Conversation:" not in trace_markdown(first.snapshot())


def test_the_trace_says_what_the_time_budget_cut() -> None:
    trace = TraceBuilder(question="How often is the oil changed?")
    trace.add(BudgetStage(0.0, 2.5, 0.4, 212.0, "measured at load", 413, 398, 3, 4))
    text = trace_markdown(trace.snapshot())
    assert (
        "**Time budget:** the first word was aimed for 2.5 s after the question, 0.4 s had passed; at 212 "
        "prompt tokens/s (measured at load) that left 413 prompt tokens: 3 sources given to the model (398 "
        "prompt tokens), 4 lower-ranked sources left out for time. At that speed the first word was expected "
        "at 2.4 s." in text
    )
    free = TraceBuilder()
    free.add(BudgetStage(0.0, 0.0, 0.4, None, "unknown", None, 900, 7))
    assert "**Time budget:** none (no time limit set); 7 sources given to the model" in trace_markdown(
        free.snapshot()
    )


def test_the_trace_shows_each_hop_and_why_it_stopped() -> None:
    trace = TraceBuilder(question="Is the birthplace of Ada Quill near the sea?")
    trace.add(HopStage(2.0, 1, "birthplace sea Brindleford 1901", ("c7", "c9")))
    trace.add(
        HopStage(
            2.0,
            0,
            why="the best passage covers 38% of the question's words; stopped: a hop found nothing new",
        )
    )
    text = trace_markdown(trace.snapshot())
    assert "- round 1: “birthplace sea Brindleford 1901”: 2 new passage(s)" in text
    assert "- the best passage covers 38% of the question's words; stopped: a hop found nothing new" in text


def test_the_status_line_says_the_step_and_the_speed_never_a_due_time() -> None:
    """Issue 46: one answer took 83 s with only "Writing the answer…" on screen."""
    from kimas_desktop.answer.writing.budget import Pace
    from ui.chat.trace_view import status_line

    reading = status_line("Writing the answer…", Pace("reading", 1240, 212.4, "recent answers"))
    assert reading == (
        "Writing the answer… The model reads its sources first: 1,240 prompt tokens at about 212 tokens/s "
        "(recent answers)."
    )
    unknown = status_line("Writing the answer…", Pace("reading", 900))
    assert unknown == "Writing the answer… The model reads its sources first: 900 prompt tokens."
    writing = status_line("Writing the answer…", Pace("writing", words=42, words_per_s=5.25))
    assert writing == "Writing the answer… 42 words so far, 5.2 words/s."
    assert status_line("Searching…", None) == "Searching…"
    for line in (reading, unknown, writing):
        assert " due" not in line and "expected" not in line


def test_the_trace_never_says_a_time_was_due_once_it_had_passed() -> None:
    """Under load the search alone took longer than the 2.5 s aim: the trace said "the first word was due
    2.5 s after the question, 4.1 s had passed". Now it says the aim had passed, when the first word was
    expected at the measured speed, and when it came."""
    from kimas_desktop.trace import FirstTokenStage

    trace = TraceBuilder(question="How often is the oil changed?")
    trace.add(BudgetStage(0.0, 2.5, 4.1, 40.0, "recent answers", 0, 420, 2, 3, True))
    trace.add(FirstTokenStage(15_300.0))
    text = trace_markdown(trace.snapshot())
    assert "was due" not in text and "aimed for 2.5 s" not in text
    assert (
        "**Time budget:** the aim of a first word 2.5 s after the question had passed before the model was "
        "asked (4.1 s spent finding the evidence); at 40 prompt tokens/s (recent answers), only what must "
        "stay: 2 sources given to the model (420 prompt tokens), 3 lower-ranked sources left out for time; "
        "the quoted sources alone needed more, and they stay. At that speed the first word was expected at "
        "14.8 s. The first word came at 15.3 s." in text
    )
