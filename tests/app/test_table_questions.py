"""Table questions through the product (issue 43): a real .xlsx and a real .csv indexed by the real
``Indexer`` into real LanceDB, the runtime's pipeline (built as the app builds it) answering a lookup, a
count, a date, a mean and an arg-max with the value computed over the rows, the operation, the rows used
and the file cited; a row the table does not hold is declined. HashEmbedder and a scripted chat model
whose own guess must never show (the value comes from the rows)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
import xlsxwriter

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
CARS = [
    ("Name", "Origin", "Horsepower", "Sold"),
    ("mazda glc", "Japan", 65, dt.date(2024, 3, 1)),
    ("ford pinto", "USA", 75, dt.date(2024, 3, 2)),
    ("honda civic", "Japan", 67, dt.date(2024, 3, 2)),
    ("ford torino", "USA", 140, dt.date(2024, 3, 4)),
]
CITIES = "city,population\nLyon,522000\nNantes,320000\nLille,236000\n"


def _xlsx(path: Path) -> None:
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("Cars")
    day = book.add_format({"num_format": "yyyy-mm-dd"})
    for r, row in enumerate(CARS):
        for c, value in enumerate(row):
            if isinstance(value, dt.date):
                sheet.write_datetime(r, c, dt.datetime.combine(value, dt.time()), day)
            else:
                sheet.write(r, c, value)
    book.close()


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Runtime:
    tmp = tmp_path_factory.mktemp("tables")
    docs = tmp / "docs"
    docs.mkdir()
    _xlsx(docs / "cars.xlsx")
    (docs / "cities.csv").write_text(CITIES, "utf-8")
    (docs / "notes.md").write_text("# Notes\n\nThe office plants are watered on Mondays.\n", "utf-8")
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
    report = rt.indexer().index("sheets", [docs])
    assert report.indexed == 3 and not report.problems, report
    yield rt
    rt.close()


def _ask(rt: Runtime, question: str) -> tuple[Answered | Declined, list[Event]]:
    events = list(rt.pipeline().ask(question))
    (done,) = [e for e in events if isinstance(e, Done)]
    assert isinstance(done.outcome, Answered | Declined), done.outcome
    return done.outcome, events


@pytest.mark.parametrize(
    ("question", "starts", "rows", "source"),
    [
        ("What is the horsepower of the honda civic?", "67 (computed from cars.xlsx, sheet Cars", [4], "cars.xlsx"),
        ("How many cars have the origin Japan?", "2 (computed from cars.xlsx, sheet Cars: rows where Origin = Japan: 2", [2, 4], "cars.xlsx"),
        ("How many cars were sold on 2024-03-02?", "2 (computed from cars.xlsx", [3, 4], "cars.xlsx"),
        ("What is the average population of the cities?", "359333.3 (computed from cities.csv", [2, 3, 4], "cities.csv"),
        ("Which city has the highest population?", "Lyon (computed from cities.csv", [2], "cities.csv"),
    ],
)  # fmt: skip
def test_computed_over_the_rows_with_the_file_and_rows_cited(
    runtime: Runtime, question: str, starts: str, rows: list[int], source: str
) -> None:
    said, events = _ask(runtime, question)
    assert isinstance(said, Answered), said
    assert said.text.startswith(starts), said.text
    assert GUESS not in said.text
    (table,) = [e.answer for e in events if isinstance(e, TableReady)]
    assert [r.row for r in table.result.rows] == rows
    assert [Path(c.chunk.source).name for c in said.citations] == [source]


def test_a_row_the_table_does_not_hold_is_declined(runtime: Runtime) -> None:
    said, _ = _ask(runtime, "What is the population of Paris?")
    assert isinstance(said, Declined) and said.rule == "table", said
    assert "no row for Paris" in said.text
    said, _ = _ask(runtime, "How many cars were sold on 2031-01-01?")
    assert isinstance(said, Declined) and said.rule == "table", said
