import json

import pytest

from kimas_desktop.answer.agentic import SufficiencyJudge
from kimas_desktop.answer.summarizer import NOT_FOUND, Summarizer, answer_messages, validate_citation_numbers
from kimas_desktop.answer.verify import AnswerCheck, Verdict, verify
from kimas_desktop.errors import ModelError, StructuredOutputError
from kimas_desktop.types import Chunk, Hit
from local_models.fake import ScriptedChatModel

HITS = [
    Hit(Chunk("c1", "docs", "/d/guide.pdf", "The pump runs at 40 rpm. It is blue.", page=3), 1.0),
    Hit(Chunk("c2", "docs", "/d/notes.md", "Cats sleep a lot.", line_start=4, line_end=9), 0.5),
]


def cite(reply: str | Exception, answer: str = "The pump runs at 40 rpm [1]."):  # type: ignore[no-untyped-def]
    s = Summarizer(ScriptedChatModel([reply]), max_answer_tokens=64)
    return s.cite(answer_messages("How fast is the pump?", HITS, []), answer, HITS)


def test_citation_numbers_are_validated() -> None:
    assert validate_citation_numbers([2, 0, 1, 2, 7, -1], 2) == [2, 1]


def test_lookback_maps_numbers_to_chunks_with_a_snippet() -> None:
    out = cite(json.dumps({"sources": [1]}))
    assert out.available and [c.n for c in out.citations] == [1]
    assert out.citations[0].chunk.page == 3
    assert out.citations[0].snippet == "The pump runs at 40 rpm."


def test_out_of_range_and_duplicate_numbers_are_dropped() -> None:
    out = cite(json.dumps({"sources": [1, 1, 5]}))
    assert [c.n for c in out.citations] == [1] and "invalid" in out.note


def test_malformed_lookback_leaves_the_answer_without_citations() -> None:
    for reply in ("nope", '{"sources": "1"}', '{"sources": [true]}', ModelError("llama died")):
        out = cite(reply)
        assert not out.available and out.citations == ()


def test_no_lookback_for_a_not_found_answer() -> None:
    chat = ScriptedChatModel(['{"sources": [1]}'])
    out = Summarizer(chat, max_answer_tokens=8).cite([], NOT_FOUND, HITS)
    assert out.citations == () and chat.calls == []


def test_lookback_prompt_extends_the_answer_prompt() -> None:
    chat = ScriptedChatModel(['{"sources": [2]}'])
    messages = answer_messages("q", HITS, [])
    Summarizer(chat, max_answer_tokens=8).cite(messages, "Cats sleep.", HITS)
    sent = chat.calls[0][0]
    assert sent[: len(messages)] == messages  # same prefix: the prompt cache makes it cheap
    assert sent[len(messages)].content == "Cats sleep."


def test_judge_parses_and_cleans_queries() -> None:
    reply = {
        "is_sufficient": False,
        "missing_info": "the colour",
        "queries": ["pump colour", "pump colour", "q", "x", "y"],
    }
    j = SufficiencyJudge(ScriptedChatModel([json.dumps(reply)]), max_queries=2).judge("q", HITS)
    assert not j.is_sufficient and j.queries == ("pump colour", "x")


def test_judge_rejects_malformed_output() -> None:
    with pytest.raises(StructuredOutputError):
        SufficiencyJudge(
            ScriptedChatModel(['{"is_sufficient": "yes", "missing_info": "", "queries": []}']), 3
        ).judge("q", HITS)


def judge_answer(reply: str | Exception, question: str = "How fast does the pump run?"):  # type: ignore[no-untyped-def]
    return AnswerCheck(ScriptedChatModel([reply])).judge(question, HITS)


def test_the_answer_check_counts_copied_words_only_when_a_source_holds_them_and_they_add_to_the_question() -> (
    None
):
    found = judge_answer(json.dumps({"answer": "runs at 40 RPM"}))  # case and punctuation may differ
    assert found == Verdict(True, "runs at 40 RPM")
    for words in ("pump which runs at the 40 rpm.", "The pump runs at 40 rp"):  # a function word; cut short
        assert judge_answer(json.dumps({"answer": words})).answerable, words
    seven = [Hit(Chunk("c", "d", "/d/p.md", "There are 7 pumps."), 1.0)]
    assert verify("7", "How many pumps are there?", seven).answerable  # a one-digit answer counts
    for words, reason in (
        ("", "found no answer"),
        ("  . ", "found no answer"),
        ("runs at 45 rpm", "not in the sources"),  # an invented number
        ("40 rpm pump", "not in the sources"),  # reordered
        ("runs at 40 rpm and 50 rpm", "not in the sources"),  # more than the source says
        ("The pump runs", "only repeat the question"),  # in the source, but it says nothing new
    ):
        verdict = judge_answer(json.dumps({"answer": words}))
        assert not verdict.answerable and reason in verdict.reason, words


def test_the_answer_check_fails_loudly_on_a_malformed_reply() -> None:
    for reply in ("yes", '{"answer": 40}', '{"answerable": true}'):
        with pytest.raises(StructuredOutputError):
            judge_answer(reply)
