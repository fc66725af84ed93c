"""Table questions through the pipeline (issue 43): the evidence's top passages come from a file with a
table, the question is computed over its rows, and the answer is the value with the rows it used; a row
the table does not hold is declined. The shelf here is the in-memory fake's over a real Arrow table
(through real LanceDB: tests/app/test_table_questions.py); the engine is the product's."""

from __future__ import annotations

import pyarrow as pa

from indexer.tables.engine import ArrowEngine
from kimas_desktop.answer.outcome import Answered, Declined
from kimas_desktop.answer.tables.answer import TableAnswerer
from kimas_desktop.config import parse_config
from kimas_desktop.events import Done, Event, QuoteReady, TableReady, TraceReady
from kimas_desktop.pipeline import Pipeline
from kimas_desktop.tables import TableColumn, TableInfo
from kimas_desktop.trace import ComputeStage
from local_models.fake import HashEmbedder, MemorySearcher, ScriptedChatModel, WordOverlapReranker

CSV = "/k/cars.csv"
ROWS = [
    ("mazda glc", "Japan", 65.0),
    ("ford pinto", "USA", 75.0),
    ("honda civic", "Japan", 67.0),
    ("ford torino", "USA", 140.0),
]
INFO = TableInfo(
    "cars",
    "garage",
    CSV,
    "",
    1,
    (
        TableColumn("Name", "text", tuple(r[0] for r in ROWS)),
        TableColumn("Origin", "text", ("Japan", "USA")),
        TableColumn("Horsepower", "number", ("65", "75", "67", "140")),
    ),
    len(ROWS),
)
GUESS = "The model's own guess: 12."


def rows() -> pa.Table:
    names, origins, hp = zip(*ROWS, strict=True)
    return pa.table(
        {"Name": names, "Origin": origins, "Horsepower": pa.array(hp), "_row": pa.array([2, 3, 4, 5])}
    )


def ask(question: str) -> list[Event]:
    emb = HashEmbedder()
    searcher = MemorySearcher(emb)
    lines = [f"Name: {n}; Origin: {o}; Horsepower: {h:g}" for n, o, h in ROWS]
    searcher.add("garage", ["\n".join(lines)], CSV)
    searcher.add("garage", ["Cats sleep sixteen hours a day, and horses stand."], "/k/pets.md")
    shelf = searcher.shelf
    shelf.add(INFO, rows())
    pipe = Pipeline(
        config=parse_config({"preset": "full"}),
        chat=ScriptedChatModel(lambda messages, schema: GUESS if schema is None else "{}"),
        embedder=emb,
        reranker=WordOverlapReranker(),
        searcher=searcher,
        tables=TableAnswerer(shelf, ArrowEngine(shelf)),
    )
    try:
        return list(pipe.ask(question))
    finally:
        pipe.close()


def outcome(events: list[Event]) -> Answered | Declined:
    done = [e for e in events if isinstance(e, Done)]
    assert len(done) == 1
    assert isinstance(done[0].outcome, Answered | Declined), done[0].outcome
    return done[0].outcome


def test_a_count_is_computed_with_its_rows_and_cites_the_file() -> None:
    events = ask("How many cars come from Japan?")
    said = outcome(events)
    assert isinstance(said, Answered)
    assert said.text.startswith("2 (computed from cars.csv: rows where Origin = Japan: 2; rows 2, 4)")
    assert [c.chunk.source for c in said.citations] == [CSV]
    table = next(e.answer for e in events if isinstance(e, TableReady))
    assert [r.row for r in table.result.rows] == [2, 4]
    assert GUESS not in said.text
    (quote,) = [e for e in events if isinstance(e, QuoteReady)]
    assert quote.quotes == ()  # the rows used show instead of a quoted line of them
    trace = [e.trace for e in events if isinstance(e, TraceReady)][-1]
    computed = trace.find(ComputeStage)
    assert computed is not None
    assert (computed.order, computed.items, computed.values) == (
        "count",
        ("cars.csv",),
        ("rows where Origin = Japan: 2",),
    )


def test_a_lookup_a_mean_and_an_arg_max() -> None:
    assert outcome(ask("What is the horsepower of the honda civic?")).text.startswith("67 (computed")
    assert outcome(ask("What is the average horsepower?")).text.startswith("86.8 (computed")
    top = outcome(ask("Which name has the highest horsepower?"))
    assert top.text.startswith("ford torino (computed") and top.text.endswith("; row 5 of the 4 rows) [1].")


def test_a_row_the_table_does_not_hold_is_declined() -> None:
    for question, why in (
        ("How many cars have the Origin Germany?", "no row for Germany"),
        ("What is the horsepower of the Tesla Model S?", "no row for Tesla Model S"),
    ):
        said = outcome(ask(question))
        assert isinstance(said, Declined) and said.rule == "table", question
        assert why in said.text


def test_a_question_about_another_file_goes_the_usual_way() -> None:
    events = ask("How long do cats sleep?")
    assert not any(isinstance(e, TableReady) for e in events)
