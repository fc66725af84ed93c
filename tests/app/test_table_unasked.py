"""Table questions the found table cannot honour, through the product (issue 43, third round): a real
.xlsx of states' crime rates and a real .csv of executions for other states, and a real .xlsx of iris
flowers, indexed by the real ``Indexer`` into real LanceDB and asked through the runtime's pipeline.
"How many executions did Ohio have?" finds Ohio only in the crime table, which has no executions: it was
answered "1" (the rows where state = Ohio counted) and must be declined; "the daisy flowers" name a
species the iris table does not list: the mean was taken over every flower and must be declined. What
the tables hold is still computed. HashEmbedder and a scripted chat model whose guess must never show."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import xlsxwriter

from app.paths import Paths
from app.runtime import Builders, Runtime
from indexer import Indexer, LanceStore
from kimas_desktop.answer.outcome import Answered, Declined
from kimas_desktop.config import parse_config
from kimas_desktop.events import Done
from local_models.fake import HashEmbedder, ScriptedChatModel, WordOverlapReranker
from tests.indexer.files import small_config
from tests.rigs import FakeFeed

GUESS = "The model's own guess: 12."
CRIME = [
    ("state", "murder", "poverty"),
    ("Ohio", 5.1, 15.0),
    ("Iowa", 1.9, 11.0),
    ("Utah", 2.3, 9.0),
    ("Maine", 1.8, 12.0),
]
PUNISH = "STATE,EXECUTIONS,INCOME\nTexas,37,34453\nVirginia,9,41534\nMissouri,6,35082\n"
SPECIES = ("setosa", "versicolor", "virginica")
IRIS = [("petal length", "species")] + [(1.0 + i + s * 2.0, SPECIES[s]) for s in range(3) for i in range(4)]


def _xlsx(path: Path, rows: list[tuple[object, ...]]) -> None:
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("Data")
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            sheet.write(r, c, value)
    book.close()


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    tmp = tmp_path_factory.mktemp("unasked")
    docs = tmp / "docs"
    docs.mkdir()
    _xlsx(docs / "statecrime.xlsx", CRIME)
    _xlsx(docs / "iris.xlsx", IRIS)
    (docs / "cpunish.csv").write_text(PUNISH, "utf-8")
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


def _ask(rt: Runtime, question: str) -> Answered | Declined:
    (done,) = [e for e in rt.pipeline().ask(question) if isinstance(e, Done)]
    assert isinstance(done.outcome, Answered | Declined), done.outcome
    return done.outcome


@pytest.mark.parametrize(
    ("question", "why"),
    [
        ("How many executions did Ohio have?", "the table in statecrime.xlsx, sheet Data has no column for executions"),
        ("What is the average petal length of the daisy flowers?", "the table in iris.xlsx, sheet Data has no row for daisy"),
    ],
)  # fmt: skip
def test_what_the_found_table_cannot_honour_is_declined(runtime: Runtime, question: str, why: str) -> None:
    said = _ask(runtime, question)
    assert isinstance(said, Declined) and said.rule == "table", said
    assert why in said.text, said.text


@pytest.mark.parametrize(
    ("question", "starts"),
    [
        ("How many executions did Texas have?", "37 (computed from cpunish.csv: EXECUTIONS in rows where STATE = Texas: 37"),
        ("How many virginica flowers are there?", "4 (computed from iris.xlsx, sheet Data: rows where species = virginica: 4"),
        ("What is the average petal length of the setosa flowers?", "2.5 (computed from iris.xlsx"),
    ],
)  # fmt: skip
def test_what_the_tables_hold_is_still_computed(runtime: Runtime, question: str, starts: str) -> None:
    said = _ask(runtime, question)
    assert isinstance(said, Answered), said
    assert said.text.startswith(starts), said.text
    assert GUESS not in said.text
