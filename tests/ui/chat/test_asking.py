"""Chat handlers end to end on deterministic fakes: asking streams the answer with its quote, sources and
trace; stop, regenerate, new chat; the sidebar; errors and document text shown as plain text."""

from __future__ import annotations

import itertools
import time
from pathlib import Path

from kimas_desktop.answer.outcome import NO_KNOWLEDGE
from kimas_desktop.errors import ModelError
from kimas_desktop.trace import Trace
from kimas_desktop.types import Chunk, Citation, Hit, Route
from tests.rigs import ANSWER, Rig, make_rig, write_docs
from ui.chat import handlers as chat_handlers
from ui.chat import render
from ui.knowledge import handlers


def _indexed(tmp_path: Path, **kw: object) -> Rig:
    rig = make_rig(tmp_path, **kw)  # type: ignore[arg-type]
    rig.session.start()
    docs = write_docs(tmp_path / "upload-temp")
    action = handlers.upload(rig.session, None, [str(docs / "heliotrope.pdf"), str(docs / "notes.md")])
    assert "2 new file(s) copied into 'documents'" in action.message
    assert action.names == ["documents"] and action.selected == "documents"
    rig.wait_idle()
    while rig.session.model_state().phase == "loading":
        time.sleep(0.01)
    return rig


def test_submit_streams_the_answer_into_the_chat(tmp_path: Path) -> None:
    rig = _indexed(tmp_path)
    updates = list(chat_handlers.submit(rig.session, None, "What is the launch code of Project Heliotrope?"))
    contents = [u[0][1]["content"] for u in updates]
    assert updates[0][2] is not None and updates[0][2].choices[0][0].startswith("What is the launch code")
    assert updates[0][0][0] == {"role": "user", "content": "What is the launch code of Project Heliotrope?"}
    assert contents[0] == "_Thinking…_"
    texts = [c for c in contents if not c.startswith("_") and not c.endswith("_")]  # no status lines
    growing = [c for c in texts if "Sources" not in c]
    assert len(growing) >= 3 and all(b.startswith(a) for a, b in itertools.pairwise(growing))
    # The grounded quote comes first, before any word of the model's answer.
    first_quote = next(c for c in contents if "kimas-quotes" in c)
    assert contents.index(first_quote) < min(i for i, c in enumerate(contents) if "The launch code is" in c)
    final_messages, conv, _ = updates[-1]
    answer = final_messages[1]["content"]
    assert answer.startswith("<div class='kimas-quotes' data-answerable='true'>")
    assert (
        "<mark class='kimas-cited'>The launch code of Project Heliotrope is PURPLE-OTTER-42.</mark>" in answer
    )
    assert ANSWER in answer.split("</div>\n\n", 1)[1]
    assert "<b>heliotrope.pdf</b> · p. 1" in answer and "PURPLE-OTTER-42" in answer
    assert "href='/kimas/source/" in answer and "#page=1" in answer
    trace = final_messages[2]
    assert trace["metadata"]["title"] == "How this answer was made"
    assert "Evidence given to the model" in trace["content"] and "Timings" in trace["content"]
    again = list(chat_handlers.submit(rig.session, conv, "And the plants?"))[-1][0]
    assert [m["role"] for m in again] == ["user", "assistant", "assistant"] * 2


def test_empty_question_changes_nothing(tmp_path: Path) -> None:
    rig = make_rig(tmp_path)
    [(messages, conv_id, listing)] = list(chat_handlers.submit(rig.session, None, "   "))
    assert messages == [] and rig.session.history.get(conv_id).turns == []
    assert listing is None and chat_handlers.sidebar(rig.session, conv_id).choices == []


def test_without_knowledge_the_chat_says_how_to_add_some(tmp_path: Path) -> None:
    rig = make_rig(tmp_path)
    assert "No knowledge yet" in chat_handlers.chat_hint(rig.session)
    messages = list(chat_handlers.submit(rig.session, None, "Hi?"))[-1][0]
    assert messages[1]["content"].startswith(NO_KNOWLEDGE)
    assert "Ask the model alone instead" in messages[1]["content"]  # the one-click offer (issue 45)
    assert chat_handlers.chat_hint(_indexed(tmp_path / "later").session) == ""


def test_errors_are_plain_sentences_on_the_page(tmp_path: Path) -> None:
    def fails(config: object) -> object:
        raise ModelError("The chat model could not be loaded: llama.cpp cannot read it.")

    rig = _indexed(tmp_path, chat_builder=fails)
    content = list(chat_handlers.submit(rig.session, None, "Hi?"))[-1][0][1]["content"]
    assert content == "⚠ **Could not answer:** The chat model could not be loaded: llama.cpp cannot read it."

    def crashes(config: object) -> object:
        raise KeyError("boom")

    rig = _indexed(tmp_path / "b", chat_builder=crashes)
    content = list(chat_handlers.submit(rig.session, None, "Hi?"))[-1][0][1]["content"]
    assert "Something went wrong while answering" in content and "kimas.log" in content
    assert "Traceback" not in content and 'File "' not in content


def test_stop_regenerate_and_new_chat(tmp_path: Path) -> None:
    rig = _indexed(tmp_path)
    s = rig.session
    messages, conv_id, _ = list(chat_handlers.submit(s, None, "What is the launch code?"))[-1]
    chat_handlers.stop(s, conv_id)  # nothing running: harmless
    chat_handlers.stop(s, None)
    regenerated = list(chat_handlers.regenerate(s, conv_id))
    again = regenerated[-1][0][1]["content"]
    assert again.startswith(messages[1]["content"])  # the scripted model says the same words again
    assert "1 earlier answer to this question" in again
    assert len(s.history.get(conv_id).turns) == 1
    empty, new_id, listing = chat_handlers.new_chat(s, conv_id)
    assert empty == [] and new_id != conv_id and listing.selected is None  # not stored before a question
    assert [v for _, v in listing.choices] == [conv_id]  # the old chat stays


def test_the_sidebar_opens_renames_searches_and_deletes(tmp_path: Path) -> None:
    rig = _indexed(tmp_path)
    s = rig.session
    _, first, _ = list(chat_handlers.submit(s, None, "What is the launch code?"))[-1]
    _, second, _ = chat_handlers.new_chat(s, first)
    *_, listing = list(chat_handlers.submit(s, second, "When are the plants watered?"))[-1]
    assert listing is not None and [v for _, v in listing.choices] == [second, first]
    assert listing.selected == second and listing.title == "When are the plants watered?"
    assert listing.choices[0][0].startswith("When are the plants watered? · ")
    # Opening the older chat shows its answer.
    messages, shown, listing = chat_handlers.open_chat(s, second, first)
    assert shown == first and messages[0]["content"] == "What is the launch code?"
    assert ANSWER in messages[1]["content"] and listing.selected == first
    # A reload (or a restart) shows the one opened last.
    assert chat_handlers.restore(s)[1] == first
    # Search looks into titles, questions and answers.
    assert [v for _, v in chat_handlers.sidebar(s, first, "plants").choices] == [second]
    # The scripted answer is the first chat's; the second's (it does not answer the plants question, so
    # the quote took its place) does not hold it: search looks into answers.
    answered = chat_handlers.sidebar(s, first, "purple-otter").choices
    assert [v for _, v in answered] == [first]
    assert chat_handlers.sidebar(s, first, "zebra").note == "_No conversation matches._"
    listing = chat_handlers.rename_chat(s, first, "Launch codes", "launch codes")
    assert [label.split(" · ")[0] for label, _ in listing.choices] == ["Launch codes"]
    assert listing.title == "Launch codes"
    messages, after, listing = chat_handlers.delete_chat(s, first)
    assert messages == [] and after not in (first, second)
    assert [v for _, v in listing.choices] == [second]


def test_markup_escapes_document_text() -> None:
    chunk = Chunk(
        "c1", "docs", "/d/<evil>.md", "<script>alert(1)</script>\nline two", line_start=3, line_end=4
    )
    html = render.citation_html(Citation(1, chunk, "<img src=x onerror=alert(1)>"))
    assert "<script>" not in html and "<img" not in html
    assert "&lt;script&gt;" in html and "lines 3-4" in html and "line two" in html
    trace = Trace("q", "*bold* | pipe", (Route("docs", 0.5, 0.5),), {"docs": ("q",)}, (Hit(chunk, 0.9),))
    md = render.trace_markdown(trace)
    assert "\\*bold\\* \\| pipe" in md and "<script>" not in md and "| docs | 0.500 |" in md


def test_the_trace_names_a_collection_as_the_user_named_it(tmp_path: Path) -> None:
    """A collection named "研究资料 2026" has an ASCII id; the trace's routing table, agent queries and
    evidence show the name the user gave it (as the Knowledge tab does), not the id."""
    rig = make_rig(tmp_path)
    rig.session.start()
    docs = write_docs(tmp_path / "upload-temp")
    action = handlers.upload(rig.session, "研究资料 2026", [str(docs / "heliotrope.pdf")])
    cid = action.selected
    assert cid and cid != "研究资料 2026"
    rig.wait_idle()
    asked = "What is the launch code of Project Heliotrope?"
    trace = list(chat_handlers.submit(rig.session, None, asked))[-1][0][2]["content"]
    assert "Evidence given to the model" in trace
    assert "| 研究资料 2026 | " in trace and "· 研究资料 2026 · score" in trace, trace
    assert f"| {cid} |" not in trace and f"· {cid} ·" not in trace
