"""Issue 46, messages: each citation once, a quote heading that matches the outcome, and "Open" at the
passage (the viewer's page, lines and cited words in the link)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, unquote, urlsplit

from app.chat.conversation import Conversation, Turn
from kimas_desktop.answer.outcome import decline_text
from kimas_desktop.answer.writing.citations import closest_passages
from kimas_desktop.types import Answerability, Chunk, Citation, Quote
from ui.chat import render

PAGE_9 = "Kenya's long rains come in April. The short rains come in November."
KENYA = Chunk("k9", "docs", "/d/Kenya.pdf", PAGE_9, page=9)
FIRST = Quote(1, KENYA, 0, 33, PAGE_9[:33], 0.8)
SECOND = Quote(1, KENYA, 34, len(PAGE_9), PAGE_9[34:], 0.7)


def test_a_decline_names_each_closest_passage_once() -> None:
    text = decline_text("When does it snow in Nairobi?", [FIRST, SECOND])
    assert text.count("[1] Kenya.pdf, p. 9") == 1, text
    assert [c.n for c in closest_passages([FIRST, SECOND])] == [1]


def test_the_sources_list_each_citation_once() -> None:
    cited = (Citation(1, KENYA, FIRST.text, 0, 33), Citation(1, KENYA, SECOND.text, 34, len(PAGE_9)))
    turn = Turn("When are the rains?", answer="In April.", state="done", citations=cited)
    shown = render.chat_messages(Conversation(turns=[turn]))[1]["content"]
    assert len(re.findall(r"<summary>\[1\] <b>Kenya.pdf</b>", shown)) == 1, shown


def _heading(turn: Turn) -> str:
    match = re.search(r"<div class='kimas-quote-label'>([^<]+)</div>", render.answer_markdown(turn))
    assert match is not None
    return match.group(1)


def test_the_quote_heading_follows_the_outcome() -> None:
    declined = Answerability(False, 0.2, 0.5)
    # a Regenerate that answered, and "what is this document about?": the check said no, the answer came
    answered = Turn("What is this document about?", answer="Rain.", state="done", quotes=(FIRST,),
                    answerability=declined, answered_from_sources=True)  # fmt: skip
    assert _heading(answered) == "From your documents"
    refused = Turn("When does it snow?", answer="Your documents don't say.", state="done", quotes=(FIRST,),
                   answerability=declined, answered_from_sources=False)  # fmt: skip
    assert _heading(refused) == "Closest passages in your documents"
    writing = Turn("When does it snow?", state="running", quotes=(FIRST,), answerability=declined)
    assert _heading(writing) == "Closest passages in your documents"


def _view_link(shown: str) -> tuple[str, dict[str, list[str]], str]:
    match = re.search(r"<a class='kimas-view' href='([^']+)'", shown)
    assert match is not None, shown
    url = urlsplit(match.group(1).replace("&amp;", "&"))
    return url.path, parse_qs(url.query), url.fragment


def test_open_goes_to_the_passage_of_a_pdf_and_of_a_text_file() -> None:
    path, query, fragment = _view_link(render.citation_html(Citation(1, KENYA, SECOND.text, 34, len(PAGE_9))))
    assert path.startswith("/kimas/view/") and unquote(path).endswith("/Kenya.pdf")
    assert query["page"] == ["9"] and query["q"] == [SECOND.text] and fragment == "kimas-hit"
    notes = Chunk("n1", "docs", "/d/notes.md", "Plants:\nwatered on Mondays.", line_start=40, line_end=41)
    _, query, _ = _view_link(render.citation_html(Citation(1, notes, "", None, None)))
    assert query["lines"] == ["40-41"] and query["q"] == ["Plants: watered on Mondays."]


def test_files_the_viewer_does_not_show_open_as_themselves() -> None:
    page = Chunk(
        "h1", "docs", "/d/harbour.html", "The harbour master is Odalys Crane.", line_start=3, line_end=3
    )
    shown = render.citation_html(Citation(1, page, page.text, 0, len(page.text)))
    assert "kimas-view" not in shown and re.search(
        r"<div class='kimas-open'><a [^>]*href='/kimas/source/", shown
    )
