"""The answer's trace names the chat model that wrote it (issue 45: a model chosen in Settings shows in
the trace of the answers it writes)."""

from kimas_desktop.events import TraceReady
from kimas_desktop.trace import AnswerStage
from local_models.fake import ScriptedChatModel
from tests.kimas_desktop.pipeline_rig import DOGS, _found, by_schema, make
from ui.chat.trace_view import trace_markdown


def test_the_trace_names_the_model_that_wrote_the_answer() -> None:
    chat = ScriptedChatModel(by_schema(DOGS, "Dogs need daily walks [1]."))
    pipe, _ = make(chat, agentic={"enabled": False})
    events = list(pipe.ask("How often do dogs need walks?"))
    trace = [e for e in events if isinstance(e, TraceReady)][-1].trace
    assert _found(trace, AnswerStage).model == chat.model_id
    assert f"**Written by:** {chat.model_id}" in trace_markdown(trace)
