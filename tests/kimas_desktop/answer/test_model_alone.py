"""``ModelAlone`` (issue 45) on the scripted chat model: the events of an answer from the model alone, the
history cut to the time budget (latest kept, starting at a question), and a cancelled answer ending as
stopped, as the pipeline's answers do."""

from __future__ import annotations

import pytest

from kimas_desktop.answer.model_alone import RULE, SYSTEM, ModelAlone
from kimas_desktop.answer.outcome import ModelAlone as ModelAloneOutcome
from kimas_desktop.answer.outcome import Stopped
from kimas_desktop.config import SummarizerConfig
from kimas_desktop.control import CancelToken
from kimas_desktop.errors import Cancelled
from kimas_desktop.events import (
    AnswerDelta,
    CitationsReady,
    Done,
    QuoteReady,
    Status,
    SupportReady,
    TraceReady,
)
from kimas_desktop.trace import AnswerStage, BudgetStage, DecisionStage
from kimas_desktop.types import Message
from local_models.fake import ScriptedChatModel


def test_events_hold_no_quote_citations_or_support_and_end_in_model_alone() -> None:
    chat = ScriptedChatModel(["Paris is the capital."])
    events = list(ModelAlone(chat, SummarizerConfig()).ask("Capital of France?"))
    kinds = {type(e) for e in events}
    assert kinds == {TraceReady, Status, AnswerDelta, Done}
    assert not kinds & {QuoteReady, CitationsReady, SupportReady}
    done = events[-1]
    assert isinstance(done, Done) and done.outcome == ModelAloneOutcome(
        "Paris is the capital.", chat.model_id
    )
    assert not done.answered_from_sources
    trace = next(e for e in reversed(events) if isinstance(e, TraceReady)).trace
    assert trace.find(DecisionStage).rule == RULE  # type: ignore[union-attr]
    assert trace.find(AnswerStage).model == chat.model_id  # type: ignore[union-attr]


def test_the_history_is_cut_to_the_budget_latest_first_and_starting_at_a_question() -> None:
    chat = ScriptedChatModel(["Fine."])
    long = " ".join(["word"] * 60)
    history = [
        Message("user", f"first {long}"),
        Message("assistant", f"first answer {long}"),
        Message("user", "second question"),
        Message("assistant", "second answer"),
    ]
    config = SummarizerConfig(context_tokens=128, first_token_s=0)
    events = list(ModelAlone(chat, config).ask("third question", history))
    sent = chat.calls[-1][0]
    assert sent == [
        Message("system", SYSTEM),
        Message("user", "second question"),
        Message("assistant", "second answer"),
        Message("user", "third question"),
    ]
    trace = next(e for e in reversed(events) if isinstance(e, TraceReady)).trace
    budget = trace.find(BudgetStage)
    assert budget is not None and budget.cut == 2 and budget.sources == 0


def test_a_cancelled_answer_ends_stopped_and_raises() -> None:
    chat = ScriptedChatModel(["one two three four five six"])
    token = CancelToken()
    events = []
    with pytest.raises(Cancelled):
        for event in ModelAlone(chat, SummarizerConfig()).ask("Count?", cancel=token):
            events.append(event)
            if isinstance(event, AnswerDelta):
                token.cancel()
    done = events[-1]
    assert isinstance(done, Done) and isinstance(done.outcome, Stopped) and done.outcome.text == "one "
