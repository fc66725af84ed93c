"""The chat's model-alone mode (issue 45) through the app's ``ChatSession`` and stored conversations: an
answer from the model alone is labelled, has no quote, citations or support marks, its trace names the model
and says no retrieval ran; the mode is kept with the chat across a reload and a restart; Stop works; a
"no knowledge yet" reply offers the mode and one click switches to it. The last test asks the real
embedded chat model."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.chat.conversation import Conversation, Turn
from app.chat.store import FILE_NAME, ConversationStore
from kimas_desktop.answer.model_alone import LABEL, RULE, SYSTEM
from kimas_desktop.config import ChatModelConfig
from kimas_desktop.trace import AnswerStage, DecisionStage, QuoteStage, RetrieveStage
from kimas_desktop.types import Message
from local_models.fake import ScriptedChatModel
from tests.rigs import SlowChat, make_rig
from ui.chat import handlers, render
from ui.chat.model_alone_view import OFFER
from ui.markup import esc

OWN = "Paris is the capital of France."


def _answered_alone(turn: Turn, model: str) -> None:
    """What makes an answer unmistakably not from the documents, in the turn and on the page."""
    assert turn.state == "done" and turn.mode == "model" and turn.answer.strip()
    assert turn.citations == () and turn.quotes == () and turn.support == () and turn.answerability is None
    assert not turn.answered_from_sources
    assert turn.trace is not None and turn.trace.evidence == () and turn.trace.routes == ()
    assert turn.trace.find(RetrieveStage) is None and turn.trace.find(QuoteStage) is None
    decision = turn.trace.find(DecisionStage)
    assert decision is not None and decision.rule == RULE
    written = turn.trace.find(AnswerStage)
    assert written is not None and written.model == model and written.tokens > 0
    shown = render.answer_markdown(turn, "1")
    assert LABEL.split(":")[0] in shown and "kimas-citation" not in shown and "Sources" not in shown
    assert "kimas-unsupported" not in shown and "kimas-quote" not in shown
    trace_shown = render.chat_messages(Conversation(turns=[turn]))[-1]["content"]
    assert "No retrieval ran" in trace_shown and esc(model) in trace_shown
    assert "Search query" not in trace_shown


def test_a_model_alone_answer_is_labelled_uncited_and_the_mode_survives_reload_and_restart(
    tmp_path: Path,
) -> None:
    chat = ScriptedChatModel([OWN])
    desk = make_rig(tmp_path, chat=chat).session
    conv = desk.history.new()
    assert handlers.set_mode(desk, conv.id, "model") == "model"
    list(handlers.submit(desk, conv.id, "What is the capital of France?", page="tab"))
    turn = conv.turns[-1]
    _answered_alone(turn, "fake/scripted-chat")
    assert turn.answer == OWN
    sent = chat.calls[-1][0]
    assert sent[0] == Message("system", SYSTEM) and sent[-1] == Message(
        "user", "What is the capital of France?"
    )
    assert "<documents>" not in " ".join(m.content for m in sent)  # no sources: nothing was searched

    # A reload (the page asks for the open chat again) and a second tab show the same mode.
    _, conv_id, _ = handlers.restore(desk, page="reloaded")
    assert conv_id == conv.id and handlers.chat_mode(desk, conv_id) == "model"
    stored = ConversationStore(desk.data_dir / FILE_NAME).load(conv.id)
    assert stored is not None and stored.mode == "model" and stored.turns[0].mode == "model"

    # A restart: a new app on the same data dir opens the chat, its mode and its labelled answer.
    again = make_rig(tmp_path).session
    reopened = again.history.current()
    assert reopened.id == conv.id and reopened.mode == "model"
    _answered_alone(reopened.turns[0], "fake/scripted-chat")

    # Back to the documents: kept too, and the model-alone answer does not feed the documents' history.
    handlers.set_mode(again, conv.id, "documents")
    assert ConversationStore(desk.data_dir / FILE_NAME).load(conv.id).mode == "documents"  # type: ignore[union-attr]
    assert reopened.history("documents") == [Message("user", "What is the capital of France?")]


def test_the_model_alone_hears_the_conversation(tmp_path: Path) -> None:
    chat = ScriptedChatModel(["Paris.", "About two million people."])
    desk = make_rig(tmp_path, chat=chat).session
    conv = desk.history.new()
    desk.chat.set_mode(conv, "model")
    list(desk.chat.ask(conv, "What is the capital of France?"))
    list(desk.chat.ask(conv, "How many people live there?"))
    assert [(m.role, m.content) for m in chat.calls[-1][0][1:]] == [
        ("user", "What is the capital of France?"),
        ("assistant", "Paris."),
        ("user", "How many people live there?"),
    ]


def test_stop_ends_a_model_alone_answer_and_releases_the_model(tmp_path: Path) -> None:
    chat = SlowChat(" ".join(f"word{i}" for i in range(200)), delay_s=0.02)
    desk = make_rig(tmp_path, chat=chat).session
    conv = desk.history.new()
    desk.chat.set_mode(conv, "model")
    stream = desk.chat.ask(conv, "Tell me a long story.")
    turn = next(stream)
    for turn in stream:
        if len(turn.answer.split()) >= 3:
            desk.chat.stop(conv)
    assert turn.state == "stopped" and turn.mode == "model" and 3 <= len(turn.answer.split()) < 200
    assert chat.stream_closed.wait(5), "the model's stream was not closed"
    assert LABEL.split(":")[0] in render.answer_markdown(turn)


def test_no_knowledge_offers_the_model_alone_and_one_click_switches(tmp_path: Path) -> None:
    desk = make_rig(tmp_path, chat=ScriptedChatModel([OWN])).session
    conv = desk.history.new()
    turn = list(desk.chat.ask(conv, "What is the capital of France?"))[-1]
    assert turn.no_knowledge and turn.mode == "documents" and conv.mode == "documents"  # not switched
    assert OFFER in render.answer_markdown(turn) and handlers.model_alone_offered(desk, conv.id)
    drawn = [d for d in handlers.ask_model_alone(desk, conv.id) if d is not None]
    assert conv.mode == "model" and len(conv.turns) == 1  # the offer made way for the answer
    _answered_alone(conv.turns[0], "fake/scripted-chat")
    assert LABEL.split(":")[0] in drawn[-1][0][-2]["content"]
    assert not handlers.model_alone_offered(desk, conv.id)


def test_an_unknown_mode_leaves_the_chat_as_it_was(tmp_path: Path) -> None:
    desk = make_rig(tmp_path).session
    conv = desk.history.new()
    assert handlers.set_mode(desk, conv.id, "internet") == "documents"


@pytest.mark.slow
def test_the_embedded_chat_model_answers_alone_labelled_and_stored(tmp_path: Path) -> None:
    from local_models import LlamaChatModel

    models: list[LlamaChatModel] = []

    def real(cfg: ChatModelConfig) -> LlamaChatModel:
        models.append(LlamaChatModel(ChatModelConfig(n_ctx=2048, n_threads=2)))
        return models[-1]

    desk = make_rig(tmp_path, chat_builder=real).session
    try:
        conv = desk.history.new()
        drawn = list(handlers.submit(desk, conv.id, "What is the capital of France?", mode="model"))
        turn = conv.turns[-1]
        _answered_alone(turn, models[0].model_id)
        assert "SmolLM2" in models[0].model_id
        assert LABEL.split(":")[0] in drawn[-1][0][1]["content"]  # type: ignore[index]
        stored = ConversationStore(desk.data_dir / FILE_NAME).load(conv.id)
        assert stored is not None and stored.mode == "model" and stored.turns[0].answer == turn.answer
    finally:
        desk.close()
