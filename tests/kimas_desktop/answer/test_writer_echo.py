"""The model's own copy of a source label (issue 72): on a Zen 5 EPYC the embedded model answered a Chinese
question with "[1] (agentic-rag-pattern.zh.txt, lines 1-2)" inside its Chinese text. Driven through the
real pipeline with that output fixed in a scripted model, whatever the CPU: the label never reaches the
user, neither streamed nor in the final answer, and the prompt's own labels carry no English words."""

from kimas_desktop.events import AnswerDelta, Done
from local_models.fake import ScriptedChatModel
from tests.kimas_desktop.pipeline_rig import DOGS, by_schema, make

PAPER = "/k/agentic-rag-pattern.zh.txt"
FACT = "查询重写步骤 先把用户的问题改写成检索查询。"  # spaced: the fake embedder reads words between spaces
ECHO = "查询重写步骤先改写问题[1] (agentic-rag-pattern.zh.txt, lines 1-2)。"


def test_a_label_the_model_copies_into_a_chinese_answer_is_not_shown() -> None:
    chat = ScriptedChatModel(by_schema(DOGS, ECHO))
    pipe, searcher = make(chat, agentic={"enabled": False}, routing={"top_k": 1})
    searcher.add("pets", [FACT], PAPER)
    events = list(pipe.ask("查询重写步骤 是什么?"))
    streamed = "".join(e.text for e in events if isinstance(e, AnswerDelta))
    done = events[-1]
    assert isinstance(done, Done)
    prompt = next(m for m, s in chat.calls if s is None)[1].content
    assert "agentic-rag-pattern.zh.txt" in prompt  # the model was given the source
    assert "lines" not in prompt  # its label holds no English word to copy
    assert "查询重写步骤先改写问题[1]" in streamed  # the answer and its marker stay
    for shown in (streamed, done.answer):
        assert "lines" not in shown and "agentic-rag-pattern.zh.txt" not in shown


def test_an_english_template_in_reply_to_a_chinese_question_gives_way_to_the_quote() -> None:
    """Issue 69: "The original document is: [1] … The document is: [1]" to a Chinese question, even from
    a model that judges (whose unbacked answers are otherwise shown, marked)."""
    template = "The original document is: [1] 2. 框架概述 The document is: [1]"
    chat = ScriptedChatModel(by_schema(DOGS, template), judges=True)
    pipe, searcher = make(chat, agentic={"enabled": False}, routing={"top_k": 1})
    searcher.add("pets", [FACT], PAPER)
    done = list(pipe.ask("查询重写步骤 是什么?"))[-1]
    assert isinstance(done, Done)
    assert "The original document" not in done.answer and FACT.split()[1] in done.answer


def test_a_sentence_citing_a_source_that_does_not_exist_is_unsupported_and_its_marker_gone() -> None:
    """Issue 70: "The backups are kept for 7 days only [9]. [2]": only [2] was listed, [9] came from the
    planted note's own text. Even a sentence the sources back loses its support with such a marker."""
    from kimas_desktop.events import SupportReady

    copied = "The engine oil must be changed every 10000 km [9]."
    chat = ScriptedChatModel(by_schema(DOGS, copied), judges=True)
    pipe, _ = make(chat, agentic={"enabled": False}, routing={"top_k": 1})
    events = list(pipe.ask("How often must the engine oil be changed?"))
    streamed = "".join(e.text for e in events if isinstance(e, AnswerDelta))
    done = events[-1]
    assert isinstance(done, Done)
    assert "[9]" not in streamed and "[9]" not in done.answer
    (sentence,) = next(e for e in events if isinstance(e, SupportReady)).sentences
    assert not sentence.supported and sentence.source is None
