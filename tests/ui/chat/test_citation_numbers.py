"""Issue 69: "citation numbers start at [2] or [3]". The model cites by the evidence's numbers, and the
passage ranked first often backs nothing: the chat shows an answer's sources as 1, 2, … in the order a
reader meets them (the quote, the answer's markers, the source list), the same source by the same number
everywhere."""

from __future__ import annotations

import html
import re

from app.chat.conversation import Conversation, Turn
from kimas_desktop.text.sentences import split_sentences
from kimas_desktop.types import Chunk, Citation, Quote, SentenceSupport
from local_models.fake import ScriptedChatModel
from tests.kimas_desktop.pipeline_rig import DOGS, by_schema, make
from ui.chat import render

# What a reader meets, in order: a quote's or a source's "[n] <b>file</b>", and the answer's [n] markers
_SEEN = re.compile(
    r"<summary>\[(\d+)\] <b>([^<]+)</b>|<sup class='kimas-marker'><a [^>]*>\[(\d+)\]|\[(\d+)\]"
)


_DOCUMENTS = re.compile(r"“[^”]*”|<div class='kimas-chunk'>.*?</div>")  # the documents' words


def _seen(shown: str) -> list[tuple[int, str]]:
    """Each number the reader meets outside the documents' words, with the file it names ("" for a marker
    in the answer)."""
    return [(int(m[1] or m[3] or m[4]), m[2]) for m in _SEEN.finditer(_DOCUMENTS.sub("", shown))]


def _numbers_name_one_file_each(seen: list[tuple[int, str]]) -> None:
    files: dict[int, set[str]] = {}
    for n, name in seen:
        files.setdefault(n, set()).update({name} if name else set())
    assert all(len(f) == 1 for f in files.values()), seen
    assert len({f.pop() for f in files.values()}) == len(files), seen


def test_an_answer_from_the_second_passage_is_cited_as_1_in_its_quote_answer_and_sources() -> None:
    """The real pipeline with a scripted model: the first passage shares the question's words but not its
    answer, the quote and the answer come from the second. They showed [2] everywhere."""
    answer = "Anna walked Rex for 30 minutes every day [2]. The walks were in the park [3]."
    pipe, searcher = make(ScriptedChatModel(by_schema(DOGS, answer), judges=True), agentic={"enabled": False})
    searcher.add("pets", ["Anna and Rex did walk; Rex did love Anna every day."], "/k/love.md")
    searcher.add("pets", ["Rex was walked by Anna for 30 minutes every day."], "/k/walks.md")
    searcher.add("pets", ["Anna walked Rex in the park near the river."], "/k/park.md")
    turn = Turn("How many minutes did Anna walk Rex every day?")
    for event in pipe.ask(turn.question):
        turn.apply(event)
    assert [q.n for q in turn.quotes] == [2] and [c.n for c in turn.citations] == [2]  # the evidence's
    shown = render.chat_messages(Conversation(turns=[turn]))[1]["content"]
    seen = _seen(shown)
    assert seen[0] == (1, "walks.md")  # the quote
    assert {n for n, _ in seen} == {1}, seen  # the answer's marker and its one source
    assert "every day [1]. The walks were in the park." in re.sub(r"<[^>]+>", "", html.unescape(shown))
    # [3] pointed at a passage the answer does not list (its sentence misses the answer): it is gone
    assert "[3]" not in shown and "[2]" not in shown


def _support(answer: str, sources: list[int | None]) -> tuple[SentenceSupport, ...]:
    return tuple(
        SentenceSupport(s.text, s.start, s.end, n is not None, 0.9, 0.9, n)
        for s, n in zip(split_sentences(answer, "markdown"), sources, strict=True)
    )


def _chunk(n: int, name: str, text: str) -> Chunk:
    return Chunk(f"c{n}", "docs", f"/d/{name}", text, line_start=n, line_end=n)


HERON = _chunk(1, "heron.md", "Heron is the backup server.")
KITE = _chunk(10, "kite.md", "Kite keeps the nightly copies for 7 days.")
OWL = _chunk(3, "owl.md", "Owl sends the report at 06:00 [12].")


def test_sources_are_numbered_by_the_quote_then_the_answer_then_the_list() -> None:
    """The quote from evidence 3 (whose own "[12]" is the document's), an answer leaning on 10 then 3, the
    model's marker written "[10, 3]", a sentence flagged after that marker shrinks: the flag stays on its
    sentence."""
    answer = "Kite keeps copies for 7 days [10, 3]. Owl sends the report at 06:00. The moon is cheese."
    quote = Quote(3, OWL, 0, len(OWL.text), OWL.text, 0.9)
    cited = (Citation(3, OWL, OWL.text), Citation(10, KITE, KITE.text))
    turn = Turn("When does Owl report?", answer=answer, state="done", quotes=(quote,),
                support=_support(answer, [10, 3, None]), citations=cited)  # fmt: skip
    shown = render.chat_messages(Conversation(turns=[turn]))[1]["content"]
    seen = _seen(shown)
    assert seen[0] == (1, "owl.md") and "06:00 [12]" in shown  # the document's reference, as it is
    _numbers_name_one_file_each(seen)
    sources = [x for x in seen if x[1]][1:]  # after the quote
    assert sources == [(1, "owl.md"), (2, "kite.md")]
    text = re.sub(r"<(?!span)[^>]+>", "", html.unescape(shown))
    assert "7 days [2, 1]." in text and "06:00.[1]" in text
    assert "<span class='kimas-unsupported'" in shown and re.search(r">The moon is cheese\.</span>", shown)


def test_while_the_answer_streams_its_markers_are_numbered_as_they_come() -> None:
    """Before its sources are known, a marker to a passage the quote is not from gets the next number."""
    quote = Quote(2, KITE, 0, len(KITE.text), KITE.text, 0.9)
    turn = Turn("How long are copies kept?", answer="Kite keeps them 7 days [2]. Heron [1]", quotes=(quote,))
    shown = render.chat_messages(Conversation(turns=[turn]))[1]["content"]
    assert [n for n, _ in _seen(shown)] == [1, 1, 2]
