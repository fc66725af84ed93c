"""The trace's evidence opens where it was found (issue 47): a file the viewer shows links to its viewer
page at the passage (``/kimas/view``, its page or lines), not to the raw file; a kind the viewer does not
show, and an online page, are named without a link."""

from kimas_desktop.trace import TraceBuilder
from kimas_desktop.types import Chunk, Hit
from ui.chat.trace_view import trace_markdown


def test_evidence_links_to_the_viewer_at_the_passage() -> None:
    trace = TraceBuilder(question="When are the plants watered?")
    notes = Chunk(
        "m1", "docs", "/home/me/notes/team_notes.md", "Watered on Mondays.", line_start=4, line_end=5
    )
    pdf = Chunk("p2", "docs", "/home/me/notes/plan.pdf", "The launch is in May.", page=2)
    picture = Chunk("i1", "docs", "/home/me/notes/map.png", "A map of the harbour.")
    trace.evidence.extend([Hit(notes, 0.9), Hit(pdf, 0.8), Hit(picture, 0.5)])
    text = trace_markdown(trace.snapshot())
    links = [part.split("'", 1)[0] for part in text.split("class='kimas-evidence' href='")[1:]]
    assert len(links) == 2, text
    assert (
        links[0].startswith("/kimas/view/")
        and "/team_notes.md?lines=4-5&amp;q=Watered+on+Mondays." in links[0]
    )
    assert links[1].startswith("/kimas/view/") and "/plan.pdf?page=2&amp;q=" in links[1]
    assert "**map.png**" in text and "/kimas/source/" not in text
