"""The OpenAI wire format of ``/v1`` without a server: the conversation the context manager sees, and the
text an answer's events add up to (whole, and as a stream owes it)."""

from __future__ import annotations

import pytest

from app.tools.openai_wire import SOURCES_HEAD, BadRequest, ChatMessage, Reply, conversation
from kimas_desktop.answer.outcome import Answered, quote_text
from kimas_desktop.events import AnswerDelta, CitationsReady, Done, Event, SupportReady
from kimas_desktop.types import Chunk, Citation, Quote, SentenceSupport

CHUNK = Chunk("c1", "baking", "/docs/baking.md", "Bake the loaf at 250 degrees.", line_start=6, line_end=7)
CITED = Citation(1, CHUNK, "Bake the loaf at 250 degrees.", 0, 29)


def msg(role: str, content: object) -> ChatMessage:
    return ChatMessage.model_validate({"role": role, "content": content})


def test_the_last_message_is_the_question_and_the_rest_the_history() -> None:
    question, history = conversation(
        [
            msg("developer", "Answer briefly."),
            msg("user", [{"type": "text", "text": "什么温度烤面包？"}, {"type": "image_url"}]),
            msg("assistant", "250 度 [1]." + SOURCES_HEAD + "[1] /docs/baking.md, lines 6-7"),
            msg("tool", "ignored"),
            msg("user", "और कितनी देर?"),
        ]
    )
    assert question == "और कितनी देर?"
    assert [(m.role, m.content) for m in history] == [  # the system prompt is the pipeline's own
        ("user", "什么温度烤面包？"),
        ("assistant", "250 度 [1]."),  # this API's own sources block is not part of the conversation
    ]


@pytest.mark.parametrize("last", [msg("assistant", "Hello"), msg("user", "  "), msg("tool", "x")])
def test_no_question_is_a_bad_request(last: ChatMessage) -> None:
    with pytest.raises(BadRequest, match="the last message must be the user's question"):
        conversation([msg("user", "earlier"), last])


def reply_of(*events: Event) -> Reply:
    reply = Reply()
    for event in events:
        reply.take(event)
    return reply


def test_a_whole_answer_gets_its_markers_and_numbered_sources() -> None:
    text = "The loaf bakes at 250 degrees."
    support = SentenceSupport(text, 0, len(text), True, 0.9, 0.9, source=1)
    reply = reply_of(
        AnswerDelta(text), SupportReady((support,)), CitationsReady((CITED,)), Done(Answered(text, (CITED,)))
    )
    assert reply.content() == text + " [1]" + SOURCES_HEAD + "[1] /docs/baking.md, lines 6-7"
    assert reply.decision == "answered" and reply.sources[0].passage.id == "baking/c1"
    assert reply.tail() == SOURCES_HEAD + "[1] /docs/baking.md, lines 6-7"  # streamed already: sources only


def test_a_stream_whose_answer_was_set_aside_ends_with_the_quote() -> None:
    quote = quote_text([Quote(1, CHUNK, 0, 29, CHUNK.text, 1.0)], set_aside=True)
    reply = reply_of(
        AnswerDelta("Loaves like the moon."), CitationsReady((CITED,)), Done(Answered(quote, (CITED,)))
    )
    assert reply.tail() == "\n\n" + quote + SOURCES_HEAD + "[1] /docs/baking.md, lines 6-7"
    assert reply.content().startswith(quote)
