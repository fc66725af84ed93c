"""The chat draws an [n] after each supported sentence, linked to source n of the same answer."""

from __future__ import annotations

import html
import re

from app.chat.conversation import Conversation, Turn
from kimas_desktop.text.sentences import Sentence, split_sentences
from kimas_desktop.types import Chunk, Citation, Quote, SentenceSupport
from ui.chat import render
from ui.markup import source_url

ANSWER = "The launch code is PURPLE-OTTER-42. The moon is made of cheese. Dana waters the plants."


def _turn() -> Turn:
    code = Chunk("c1", "docs", "/d/handbook.md", "The launch code is PURPLE-OTTER-42.", line_start=3, line_end=3,
                 heading="Project Heliotrope")  # fmt: skip
    plants = Chunk("c2", "docs", "/d/office.html", "Dana waters the plants.", line_start=12, line_end=14,
                   heading="Office > Plants")  # fmt: skip
    verdicts = [(True, 1), (False, 1), (True, 2)]
    support = tuple(
        SentenceSupport(s.text, s.start, s.end, ok, 0.9 if ok else 0.0, 0.9 if ok else 0.0, n)
        for s, (ok, n) in zip(split_sentences(ANSWER, "markdown"), verdicts, strict=True)
    )
    return Turn(
        "What is the launch code?",
        answer=ANSWER,
        state="done",
        support=support,
        citations=(Citation(1, code, code.text), Citation(2, plants, plants.text)),
    )


def test_markers_link_to_the_sources_of_their_answer() -> None:
    conv = Conversation(turns=[_turn(), _turn()])
    second = render.chat_messages(conv)[3]["content"]  # question, answer, question, answer
    links = re.findall(r"<a href='#([\w-]+)'>\[(\d)\]</a>", second)
    assert links == [("kimas-src-2-1", "1"), ("kimas-src-2-2", "2")]  # not after the unsupported one
    for anchor, n in links:
        source = re.search(
            rf"<details class='kimas-citation' id='{anchor}'><summary>\[(\d)\] <b>([^<]+)</b>", second
        )
        assert source is not None and source.group(1) == n
    assert "office.html</b> · lines 12-14" in second and "Office &gt; Plants" in second
    # The marker sits after its sentence; the unsupported sentence keeps its flag and gets no marker.
    assert "PURPLE-OTTER-42.<sup class='kimas-marker'>" in second
    assert re.search(r"made of cheese\.</span><sup class='kimas-flag'[^>]*>⚠</sup> Dana", second)


def test_a_flag_says_why_the_sentence_was_marked() -> None:
    """Issue 45: the support check's reason, and what the sources say instead, in the flag's tooltip."""
    answer = "Where is the conference? The conference is held in Nairobi."
    restated, wrong = split_sentences(answer, "markdown")

    def flagged(s: Sentence, reason: str, lacks: tuple[str, ...]) -> SentenceSupport:
        return SentenceSupport(s.text, s.start, s.end, False, 0.2, 0.3, 1, reason=reason, lacks=lacks)

    support = [
        flagged(restated, "restates the question", ("Kigali",)),
        flagged(wrong, "misses the answer", ()),
    ]
    html = render.marked_answer(answer, support)
    assert "title='restates the question: the sources say Kigali'" in html
    assert "title='misses the answer'" in html


def test_a_source_named_to_mislead_shows_its_hidden_characters() -> None:
    """Issue 70: a cited file named ``invoice<U+202E>fdp.md`` in a folder with U+200B, and a decline that
    names it, show both as ``\\u202e`` and ``\\u200b`` (raw, the name read "invoicedm.pdf"), in English and
    in Chinese; the link still opens the file."""
    path = "/d/bills\u200b/invoice\u202efdp.md"
    chunk = Chunk("c1", "docs", path, "The invoice total is 420 euros.", line_start=1, line_end=2)
    quote = Quote(1, chunk, 0, len(chunk.text), chunk.text, 0.9)
    cited = Turn("What is the invoice total?", answer="It is 420 euros.", state="done",
                 citations=(Citation(1, chunk, chunk.text),))  # fmt: skip
    shown = html.unescape(render.chat_messages(Conversation(turns=[cited]))[1]["content"])
    assert "<b>invoice\\u202efdp.md</b>" in shown and "/d/bills\\u200b/invoice\\u202efdp.md" in shown
    assert html.unescape(source_url(path)) in shown  # the link is the file's own
    for question, place in (("What is the tax?", "lines 1-2"), ("税是多少？", "第 1-2 行")):
        declined = "The documents do not say. Closest: [1] invoice\u202efdp.md, lines 1-2."
        turn = Turn(question, answer=declined, state="done", quotes=(quote,))
        said = html.unescape(render.chat_messages(Conversation(turns=[turn]))[1]["content"])
        assert f"[1] invoice\\u202efdp.md, {place}" in said
        assert not re.search("[\u202e\u200b]", said), said
