"""The status line while an answer runs speaks the question's language and names collections by their titles
(issue 69: "Searched rag." under a Chinese question, with the collection's internal id). A step is said by
its code and values (``Status.code``), never by matching the pipeline's English sentence."""

from __future__ import annotations

from dataclasses import replace

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


def _shown(question: str, step: Status) -> str:
    turn = Turn(question)
    turn.apply(step)
    return render.chat_messages(said_steps(Conversation(turns=[turn]), _title), _title)[-1]["content"]


def _searched(*ids: str) -> Status:
    return Status("retrieve", f"Searched {', '.join(ids)}.", code="searched", values={"collections": ids})


def _steps(question: str) -> list[Status]:
    """The statuses the real pipeline (over the fake models) yields for ``question``."""
    pipe, _ = make(ScriptedChatModel(by_schema({}, "每 10000 公里。")))
    return [e for e in pipe.ask(question) if isinstance(e, Status)]


def test_the_search_step_names_the_collections_by_title_in_the_questions_language() -> None:
    conv = Conversation(turns=[Turn("查询重写步骤是什么？")])
    conv.turns[0].apply(_searched("rag", "cars"))
    shown = render.chat_messages(said_steps(conv, _title), _title)[-1]["content"]
    assert "已搜索：RAG 论文、Car manual。" in shown
    assert "Searched" not in shown and "rag," not in shown
    assert conv.turns[0].status == "Searched rag, cars."  # the conversation itself is not changed
    assert "Searched RAG 论文." in _shown("What is a query rewrite?", _searched("rag"))
    assert "没有搜索任何知识库。" in _shown("作者是谁？", _searched())


def test_the_first_steps_are_said_in_the_question_language_too() -> None:
    for status, code, chinese in (
        ("Thinking…", "thinking", "思考中…"),
        ("Loading…", "loading", "正在加载模型…"),
    ):
        turn = Turn("作者是谁？", status=status, status_code=code)
        shown = render.chat_messages(said_steps(Conversation(turns=[turn])))[-1]["content"]
        assert chinese in shown and status not in shown
    assert "खोजा गया: RAG 论文।" in _shown("लेखक कौन है?", _searched("rag"))
    asking = Status("online", "Asking wiki…", code="asking", values={"sources": ("wiki",)})
    assert "正在询问 wiki…" in _shown("作者是谁？", asking)


def test_every_step_the_pipeline_says_to_a_chinese_question_is_chinese() -> None:
    """The real pipeline over the fake models: each status it yields, as the chat shows it."""
    question = "机油多久换一次？"
    steps = _steps(question)
    assert any(s.code == "searched" for s in steps)
    for step in steps:
        shown = _shown(question, step)
        assert not english_runs(shown) and "Searched" not in shown, shown
    searched = next(s for s in steps if s.code == "searched")
    assert "已搜索：" in _shown(question, searched) and "Car manual" in _shown(question, searched)


def test_the_pipelines_english_sentence_can_change_without_changing_what_the_chat_says() -> None:
    """The pipeline's own English ("Searched cars, pets.", for the log and the CLI) reworded: the Chinese
    and the English the chat shows stay as they were."""
    searched = next(s for s in _steps("机油多久换一次？") if s.code == "searched")
    reworded = replace(searched, message="Looked through the collections cars and pets.")
    assert _shown("机油多久换一次？", reworded) == _shown("机油多久换一次？", searched)
    assert "Looked through" not in _shown("How often is the oil changed?", reworded)
    assert "Searched Car manual" in _shown("How often is the oil changed?", reworded)
