"""The status line while an answer runs speaks the question's language and names collections by their titles
(issue 69: "Searched rag." under a Chinese question, with the collection's internal id)."""

from __future__ import annotations

from app.chat.conversation import Conversation, Turn
from kimas_desktop.events import Status
from local_models.fake import ScriptedChatModel
from tests.kimas_desktop.pipeline_rig import by_schema, make
from tests.ui.english import english_runs
from ui.chat import render
from ui.chat.handlers import said_steps

TITLES = {"rag": "RAG 论文", "cars": "Car manual"}


def _title(cid: str) -> str:
    return TITLES.get(cid, cid)


def _running(question: str, status: str) -> Conversation:
    return Conversation(turns=[Turn(question, status=status)])


def test_the_search_step_names_the_collections_by_title_in_the_questions_language() -> None:
    conv = _running("查询重写步骤是什么？", "Searched rag, cars.")
    shown = render.chat_messages(said_steps(conv, _title), _title)[-1]["content"]
    assert "已搜索：RAG 论文、Car manual。" in shown
    assert "Searched" not in shown and "rag," not in shown
    assert conv.turns[0].status == "Searched rag, cars."  # the conversation itself is not changed
    english = render.chat_messages(said_steps(_running("What is a query rewrite?", "Searched rag."), _title))
    assert "Searched RAG 论文." in english[-1]["content"]


def test_the_first_steps_are_said_in_the_question_language_too() -> None:
    for status, chinese in (("Thinking…", "思考中…"), ("Loading the model…", "正在加载模型…")):
        shown = render.chat_messages(said_steps(_running("作者是谁？", status)))[-1]["content"]
        assert chinese in shown and status not in shown
    hindi = render.chat_messages(said_steps(_running("लेखक कौन है?", "Searched rag."), _title))
    assert "खोजा गया: RAG 论文।" in hindi[-1]["content"]


def test_every_step_the_pipeline_says_to_a_chinese_question_is_chinese() -> None:
    """The real pipeline over the fake models: each status it yields, as the chat shows it."""
    pipe, _ = make(ScriptedChatModel(by_schema({}, "每 10000 公里。")))
    question = "机油多久换一次？"
    steps = [e.message for e in pipe.ask(question) if isinstance(e, Status)]
    assert any(s.startswith("Searched") for s in steps)  # what the pipeline writes today
    for step in steps:
        shown = render.chat_messages(said_steps(_running(question, step), _title))[-1]["content"]
        assert not english_runs(shown) and "Searched" not in shown, shown
