"""The chat's model-alone mode on the page (issue 45): the mode selector's choices, an answer written by the
model alone (labelled, with no quote, citations, sources or support marks), and the offer under a reply
that found no knowledge to answer from. Pure functions."""

from __future__ import annotations

from gradio.i18n import I18nData

from app.chat.conversation import Turn
from kimas_desktop.answer.model_alone import AnswerMode
from kimas_desktop.answer.phrases import language_of
from kimas_desktop.trace import AnswerStage, BudgetStage, FirstTokenStage, Trace
from ui.chat.answer_text import without_preamble
from ui.chat.said import said_in
from ui.chat.trace_view import Say, stage_label, status_line
from ui.i18n import t
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
    "stopped_line",
]

# The mode selector and the one click to the model alone are labels (``ui/i18n.py``): the page shows them
# in its language. The chat's own lines that name them are said in the question's (``said_in``).
MODE_LABEL = t("mode_label")
MODE_CHOICES: list[tuple[I18nData, AnswerMode]] = [
    (t("mode_documents"), "documents"),
    (t("mode_model"), "model"),
]
MODE_INFO = t("mode_info")
ASK_MODEL_ALONE = t("ask_model_alone")


def offer(lang: str = "en") -> str:
    """The model alone, offered under a "no knowledge yet" reply, naming the button and the choice as the
    page shows them."""
    return said_in(
        "offer",
        lang,
        button=said_in("ask_model_alone", lang),
        mode=said_in("mode_label", lang),
        alone=said_in("mode_model", lang),
    )


OFFER = offer()
NO_RETRIEVAL = said_in("tr no retrieval", "en")


def stopped_line(turn: Turn, lang: str = "en", escaped: bool = True) -> str:
    """That ``turn`` stopped, and why when it was not the Stop button ("you asked a new question")."""
    if not turn.stopped_because:
        return said_in("stopped", lang)
    why = said_in(turn.stopped_because, lang)
    return said_in("stopped because", lang, why=esc(why) if escaped else why)


def model_alone_markdown(turn: Turn) -> str:
    """A model-alone answer: the label first, then the model's text as text (escaped), its state; the app's
    words in the question's language."""
    lang = language_of(turn.question)
    parts = [
        f"<div class='kimas-model-alone'>⚠ <strong>{esc(said_in('model alone label', lang))}</strong></div>"
    ]
    answer = without_preamble(turn.answer, (), lang)[0]
    if answer:
        parts.append(esc(answer.strip() if turn.finished else answer))
        if turn.state == "running" and turn.pace is not None and turn.pace.step == "writing":
            parts.append(f"_{esc(status_line('', turn.pace, turn.question).strip())}_")
    elif turn.state == "running":
        parts.append(
            f"_{esc(status_line(turn.status or said_in('thinking', lang), turn.pace, turn.question))}_"
        )
    if turn.state == "stopped":
        parts.append(stopped_line(turn, lang))
    if turn.state == "failed":
        parts.append(said_in("could not answer", lang, why=esc(turn.error)))
    return "\n\n".join(parts)


def offer_markdown(turn: Turn) -> str:
    """Under a "no knowledge yet" reply in the documents mode: the model alone, offered (never chosen for
    the user), in the question's language."""
    if turn.finished and turn.no_knowledge and turn.mode == "documents":
        return f"---\n{offer(language_of(turn.question))}"
    return ""


def model_alone_trace(trace: Trace) -> str:
    """How a model-alone answer was made: no retrieval, the model that wrote it, what it read in time; in
    the language of its question (issue 69)."""
    lang = language_of(trace.question)
    say = Say(lang)
    lines = [say("tr no retrieval")]
    written = trace.find(AnswerStage)
    if written is not None and written.model:
        lines.append(say("tr written by", model=esc(written.model)))
    budget, first = trace.find(BudgetStage), trace.find(FirstTokenStage)
    if budget is not None:
        left = say("tr left out messages", n=budget.cut) if budget.cut else ""
        came = say("tr budget came", at=f"{first.ms / 1000:.1f}") if first is not None else ""
        lines.append(say("tr model read", prompt=budget.prompt, left=left) + came)
    timings = trace.timings_ms
    if timings:
        rows = [f"| {esc(stage_label(stage, lang))} | {ms:,.0f} |" for stage, ms in timings.items()]
        lines.append(f"{say('tr timings')}\n\n{say('tr timings head')}\n|---|---|\n" + "\n".join(rows))
    return "\n\n".join(lines)
