"""The answer's status line in the chat (issue 46): which step runs and, once the model writes, its speed;
the pipeline's ``Status`` events carry the pace through ``Turn.apply``."""

from app.chat.conversation import Turn
from kimas_desktop.answer.outcome import Answered
from kimas_desktop.answer.writing.budget import Pace
from kimas_desktop.events import AnswerDelta, Done, Status
from ui.chat.render import answer_markdown


def test_the_chat_shows_the_step_then_the_writing_speed_and_nothing_once_done() -> None:
    turn = Turn("How often is the oil changed?")
    turn.apply(Status("answer", "Writing the answer…", Pace("reading", 1240, 212.0, "recent answers")))
    shown = answer_markdown(turn)
    assert "Writing the answer… The model reads its sources first: 1,240 prompt tokens at about 212" in shown
    turn.apply(AnswerDelta("The oil is changed every year"))
    turn.apply(Status("answer", "Writing the answer…", Pace("writing", words=6, words_per_s=4.0)))
    turn.apply(AnswerDelta(" in spring."))
    shown = answer_markdown(turn)
    assert "The oil is changed every year in spring." in shown and "6 words so far, 4.0 words/s." in shown
    turn.apply(Done(Answered("The oil is changed every year in spring.", (), "")))
    assert "words/s" not in answer_markdown(turn)
