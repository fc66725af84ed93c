"""The chat's model-alone mode on the page (issue 45): the mode selector's choices, an answer written by the
model alone (labelled, with no quote, citations, sources or support marks), and the offer under a reply
that found no knowledge to answer from. Pure functions."""

from __future__ import annotations

from app.chat.conversation import Turn
from kimas_desktop.answer.model_alone import LABEL, AnswerMode
from kimas_desktop.trace import AnswerStage, BudgetStage, FirstTokenStage, Trace
from ui.chat.trace_view import STAGE_LABELS, status_line
from ui.markup import esc

__all__ = [
    "ASK_MODEL_ALONE",
    "MODE_CHOICES",
    "MODE_INFO",
    "MODE_LABEL",
    "NO_RETRIEVAL",
    "OFFER",
    "model_alone_markdown",
    "model_alone_trace",
    "offer_markdown",
]

MODE_LABEL = "Answer from"
MODE_CHOICES: list[tuple[str, AnswerMode]] = [("my documents", "documents"), ("the model alone", "model")]
MODE_INFO = "Answer from your documents, or from the model alone: its own knowledge, not your documents."
ASK_MODEL_ALONE = "Ask the model alone instead"
OFFER = (
    "You can also ask the model alone: it answers from its own knowledge, not from your documents. "
    f"Click **{ASK_MODEL_ALONE}** below, or choose **{MODE_LABEL}: the model alone**."
)
NO_RETRIEVAL = "**No retrieval ran:** the model answered alone; your documents were not read."


def model_alone_markdown(turn: Turn) -> str:
    """A model-alone answer: the label first, then the model's text as text (escaped), its state."""
    parts = [f"<div class='kimas-model-alone'>⚠ <strong>{esc(LABEL)}</strong></div>"]
    if turn.answer:
        parts.append(esc(turn.answer.strip() if turn.finished else turn.answer))
        if turn.state == "running" and turn.pace is not None and turn.pace.step == "writing":
            parts.append(f"_{esc(status_line('', turn.pace).strip())}_")
    elif turn.state == "running":
        parts.append(f"_{esc(status_line(turn.status or 'Thinking…', turn.pace))}_")
    if turn.state == "stopped":
        parts.append(f"_Stopped ({esc(turn.stopped_because)})._" if turn.stopped_because else "_Stopped._")
    if turn.state == "failed":
        parts.append(f"⚠ **Could not answer:** {esc(turn.error)}")
    return "\n\n".join(parts)


def offer_markdown(turn: Turn) -> str:
    """Under a "no knowledge yet" reply in the documents mode: the model alone, offered (never chosen for
    the user)."""
    return f"---\n{OFFER}" if turn.finished and turn.no_knowledge and turn.mode == "documents" else ""


def model_alone_trace(trace: Trace) -> str:
    """How a model-alone answer was made: no retrieval, the model that wrote it, what it read in time."""
    lines = [NO_RETRIEVAL]
    written = trace.find(AnswerStage)
    if written is not None and written.model:
        lines.append(f"**Written by:** {esc(written.model)}")
    budget, first = trace.find(BudgetStage), trace.find(FirstTokenStage)
    if budget is not None:
        left = (
            f"; {budget.cut} earlier message(s) of this chat left out to start in time" if budget.cut else ""
        )
        came = f" The first word came at {first.ms / 1000:.1f} s." if first is not None else ""
        lines.append(f"**Time budget:** the model read {budget.prompt} prompt tokens{left}.{came}")
    timings = trace.timings_ms
    if timings:
        rows = [f"| {esc(STAGE_LABELS.get(stage, stage))} | {ms:,.0f} |" for stage, ms in timings.items()]
        lines.append("**Timings**\n\n| stage | ms |\n|---|---|\n" + "\n".join(rows))
    return "\n\n".join(lines)
