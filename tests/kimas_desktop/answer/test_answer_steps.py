import json

import pytest

from kimas_desktop.answer.signals.agentic import SufficiencyJudge
from kimas_desktop.answer.signals.verify import AnswerCheck, Verdict, verify
from kimas_desktop.errors import StructuredOutputError
from kimas_desktop.types import Chunk, Hit
from local_models.fake import ScriptedChatModel

HITS = [
    Hit(Chunk("c1", "docs", "/d/guide.pdf", "The pump runs at 40 rpm. It is blue.", page=3), 1.0),
    Hit(Chunk("c2", "docs", "/d/notes.md", "Cats sleep a lot.", line_start=4, line_end=9), 0.5),
]


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
    for words, reason, kind in (
        ("", "found no answer", "none"),
        ("  . ", "found no answer", "none"),
        ("runs at 45 rpm", "not in the sources", "near"),  # an invented number in a real sentence
        ("40 rpm pump", "not in the sources", "near"),  # reordered
        ("runs at 40 rpm and 50 rpm", "not in the sources", "near"),  # more than the source says
        ("spins at 45 turns a minute", "not in the sources", "invented"),
        ("The pump runs", "only repeat the question", "echo"),  # in the source, but it says nothing new
    ):
        verdict = judge_answer(json.dumps({"answer": words}))
        assert not verdict.answerable and reason in verdict.reason, words
        assert verdict.kind == kind, words


def test_the_answer_check_fails_loudly_on_a_malformed_reply() -> None:
    for reply in ("yes", '{"answer": 40}', '{"answerable": true}'):
        with pytest.raises(StructuredOutputError):
            judge_answer(reply)
