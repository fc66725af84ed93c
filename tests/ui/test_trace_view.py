"""The trace as a reader sees it: user-facing words, not the pipeline's internal names."""

from kimas_desktop.trace import (
    AnswerCheckStage,
    DecisionStage,
    FirstTokenStage,
    RouteStage,
    TotalStage,
    TraceBuilder,
)
from kimas_desktop.types import Route
from ui.trace_view import trace_markdown


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
