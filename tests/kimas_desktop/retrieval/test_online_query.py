"""What an online source is sent (issue 40, item 4): the user's own words, never an answer's or a
document's; and a source whose answer cannot be read is dropped with its reason (item 6)."""

from __future__ import annotations

import pytest

from kimas_desktop.control import CancelToken
from kimas_desktop.retrieval.online import OnlineAgent, OnlineQueryWriter
from kimas_desktop.text.words import words
from kimas_desktop.types import Message, OnlineDocument


def chat(*turns: str) -> list[Message]:
    return [Message("user" if i % 2 == 0 else "assistant", t) for i, t in enumerate(turns)]


def only_user_words(sent: str, *questions: str) -> bool:
    typed = {w.lower() for q in questions for w in words(q)}
    return all(w.lower() in typed for w in words(sent))


@pytest.mark.parametrize(
    ("first", "answer", "follow_up"),
    [
        (
            "What is the password in the team notes?",
            "The password in the team notes is hunter2, set by Alice in March.",
            "Is it also used on Rhine barges?",
        ),
        ("团队笔记里的密码是什么？", "团队笔记里的密码是 hunter2，由爱丽丝设置。", "莱茵河驳船上也用它吗？"),
        ("टीम नोट्स में पासवर्ड क्या है?", "टीम नोट्स में पासवर्ड hunter2 है, ऐलिस ने रखा।", "क्या यह राइन नावों पर भी है?"),
    ],
)
def test_a_follow_up_carries_the_earlier_question_and_nothing_of_the_answer(
    first: str, answer: str, follow_up: str
) -> None:
    sent = OnlineQueryWriter().write(follow_up, chat(first, answer), turns=(0, 1))
    assert "hunter2" not in sent.text and only_user_words(sent.text, first, follow_up)
    assert sent.text.startswith(follow_up) and sent.text != follow_up and sent.earlier == (0,)


def test_a_question_that_stands_alone_is_sent_as_asked() -> None:
    history = chat("What is the password in the team notes?", "It is hunter2.")
    sent = OnlineQueryWriter().write("How long is the Rhine?", history, turns=())
    assert sent.text == "How long is the Rhine?" and sent.earlier == ()


def test_a_turn_on_an_answer_lends_that_answers_question() -> None:
    history = chat("Who maintains the barge fleet?", "Rhenus Logistics, per the 2021 contract.")
    sent = OnlineQueryWriter().write("Since when?", history, turns=(1,))
    assert sent.earlier == (0,) and only_user_words(
        sent.text, "Who maintains the barge fleet?", "Since when?"
    )
    assert "Rhenus" not in sent.text


class Raising:
    name = "web"

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def search(
        self, query: str, *, timeout_s: float, cancel: CancelToken | None = None
    ) -> list[OnlineDocument]:
        raise self.error

    def close(self) -> None:
        pass


@pytest.mark.parametrize(
    "error", [RecursionError("maximum recursion depth"), LookupError("unknown encoding: x"), UnicodeError()]
)
def test_a_source_whose_answer_cannot_be_read_is_dropped_with_the_reason(error: BaseException) -> None:
    result = OnlineAgent(Raising(error), 5).retrieve("rhine barges")
    assert result.hits == () and type(error).__name__ in result.error and result.query == "rhine barges"


def test_a_bug_in_a_source_is_not_swallowed() -> None:
    with pytest.raises(TypeError):
        OnlineAgent(Raising(TypeError("a bug")), 5).retrieve("rhine")
