"""Tables inside documents answered like spreadsheets (issue 43): a real .docx (python-docx), .pptx
(python-pptx), Markdown pipe table and HTML table indexed by the real ``Indexer`` (the .docx and .pptx
parsed in the parser worker process) into real LanceDB; each table is on the shelf under its place in the
document, and the runtime's pipeline answers a count, a lookup, a mean and an arg-max over its rows with
the file and the table's rows cited. HashEmbedder and a scripted chat model whose own guess must never show."""

from __future__ import annotations

from pathlib import Path

import docx
import pytest
from pptx import Presentation
from pptx.util import Inches

from app.paths import Paths
from app.runtime import Builders, Runtime
from indexer import Indexer, LanceStore
from kimas_desktop.answer.outcome import Answered, Declined
from kimas_desktop.config import parse_config
from kimas_desktop.events import Done, Event, TableReady
from local_models.fake import HashEmbedder, ScriptedChatModel, WordOverlapReranker
from tests.indexer.files import small_config
from tests.rigs import FakeFeed

GUESS = "The model's own guess: 12."
BIRDS = [("Bird", "Wingspan", "Habitat"), ("heron", "180", "marsh"), ("wren", "15", "hedge"),
         ("stork", "200", "marsh"), ("robin", "22", "garden")]  # fmt: skip
PLANETS = [("Planet", "Moons"), ("Mars", "2"), ("Jupiter", "95"), ("Saturn", "146")]
MARKDOWN = """# Kettles

The kettles we tested this spring.

| Kettle | Litres | Maker |
|---|---|---|
| Brio | 1.7 | Acme |
| Tova | 1.2 | Zenit |
| Mira | 1.5 | Acme |

More notes follow.
"""
HTML = """<html><body><h1>Bridges</h1><p>Bridges of the river.</p>
<table><tr><th>Bridge</th><th>Span</th><th>Opened</th></tr>
<tr><td>Pont Neuf</td><td>232</td><td>1607</td></tr>
<tr><td>Pont Royal</td><td></td><td>1689</td></tr>
<tr><td>Pont Marie</td><td>92</td><td>1635</td></tr></table></body></html>
"""


def _docx(path: Path) -> None:
    document = docx.Document()
    document.add_heading("Birds of the estuary", 1)
    document.add_paragraph("A survey of the birds seen along the estuary.")
    table = document.add_table(rows=len(BIRDS), cols=len(BIRDS[0]))
    for r, row in enumerate(BIRDS):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    document.save(str(path))


def _pptx(path: Path) -> None:
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Planets and their moons"
    shape = slide.shapes.add_table(len(PLANETS), 2, Inches(1), Inches(2), Inches(6), Inches(2))
    for r, row in enumerate(PLANETS):
        for c, value in enumerate(row):
            shape.table.cell(r, c).text = value
    deck.save(str(path))


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Runtime:
    tmp = tmp_path_factory.mktemp("doctables")
    docs = tmp / "docs"
    docs.mkdir()
    _docx(docs / "birds.docx")
    _pptx(docs / "planets.pptx")
    (docs / "kettles.md").write_text(MARKDOWN, "utf-8")
    (docs / "bridges.html").write_text(HTML, "utf-8")
    chat = ScriptedChatModel(lambda messages, schema: GUESS if schema is None else "{}")
    builders = Builders(
        chat=lambda c: chat,
        embedder=lambda c, cache: HashEmbedder(dim=64),
        reranker=lambda c, e, cache: WordOverlapReranker(),
        store=lambda c, d: LanceStore(str(d / "lancedb")),
        indexer=lambda st, e, c: Indexer(st, e, small_config()),
        watcher=FakeFeed,
    )
    data = tmp / "data"
    data.mkdir()
    rt = Runtime(Paths(data, data / "config.toml"), parse_config({"preset": "full"}), builders)
    report = rt.indexer().index("docs", [docs])
    assert report.indexed == 4 and not report.problems, report
    yield rt
    rt.close()


def test_each_documents_table_is_on_the_shelf_under_its_place(runtime: Runtime) -> None:
    tables = {(Path(t.source).name, t.sheet): t for t in runtime.tables().all_tables("docs")}
    assert sorted(tables) == [
        ("birds.docx", "table 1"),
        ("bridges.html", "table 1"),
        ("kettles.md", "table 1"),
        ("planets.pptx", "slide 1, table 1"),
    ]
    birds = tables[("birds.docx", "table 1")]
    assert [(c.name, c.kind) for c in birds.columns] == [
        ("Bird", "text"),
        ("Wingspan", "number"),
        ("Habitat", "text"),
    ]
    assert birds.rows == 4 and birds.header_row == 1
    bridges = runtime.tables().arrow(tables[("bridges.html", "table 1")])
    # the empty cell keeps its column: Opened stays 1689, Span is empty
    assert bridges.column("Opened").to_pylist() == [1607, 1689, 1635]
    assert bridges.column("Span").to_pylist() == [232, None, 92]


def _ask(rt: Runtime, question: str) -> tuple[Answered | Declined, list[Event]]:
    events = list(rt.pipeline().ask(question))
    (done,) = [e for e in events if isinstance(e, Done)]
    assert isinstance(done.outcome, Answered | Declined), done.outcome
    return done.outcome, events


@pytest.mark.parametrize(
    ("question", "starts", "rows", "source"),
    [
        ("How many birds have the habitat marsh?", "2 (computed from birds.docx, table 1: rows where Habitat = marsh: 2", [2, 4], "birds.docx"),
        ("Which bird has the largest wingspan?", "stork (computed from birds.docx, table 1", [4], "birds.docx"),
        ("How many moons does Saturn have?", "146 (computed from planets.pptx, slide 1, table 1", [4], "planets.pptx"),
        ("What is the average litres of the kettles?", "1.5 (computed from kettles.md, table 1", [2, 3, 4], "kettles.md"),
        ("When was the bridge Pont Marie opened?", "1635 (computed from bridges.html, table 1", [4], "bridges.html"),
    ],
)  # fmt: skip
def test_a_documents_table_is_computed_over(
    runtime: Runtime, question: str, starts: str, rows: list[int], source: str
) -> None:
    said, events = _ask(runtime, question)
    assert isinstance(said, Answered), said
    assert said.text.startswith(starts), said.text
    assert GUESS not in said.text
    (table,) = [e.answer for e in events if isinstance(e, TableReady)]
    assert [r.row for r in table.result.rows] == rows
    assert [Path(c.chunk.source).name for c in said.citations] == [source]


def test_a_row_the_documents_table_lacks_is_declined(runtime: Runtime) -> None:
    said, _ = _ask(runtime, "How many moons does Neptune have?")
    assert isinstance(said, Declined) and said.rule == "table", said
    assert "Neptune" in said.text
