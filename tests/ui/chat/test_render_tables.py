"""A table answer in the chat (issue 43): the value, the operation, and a small table of the rows used with
their row numbers, every cell escaped, and a link that opens the file."""

from __future__ import annotations

import pyarrow as pa

from app.chat.conversation import Turn
from indexer.tables.engine import ArrowEngine
from kimas_desktop.answer.outcome import Answered
from kimas_desktop.answer.tables.answer import TableAnswerer
from kimas_desktop.events import AnswerDelta, Done, TableReady
from kimas_desktop.tables import TableColumn, TableInfo
from kimas_desktop.types import Chunk, Hit
from ui.chat import render
from ui.markup import source_url

SOURCE = "/k/stock.xlsx"
INFO = TableInfo(
    "t", "shop", SOURCE, "Shelf <A>", 1,
    (TableColumn("Item", "text", ("<b>nails</b>", "screws")), TableColumn("Count", "number", ("40", "2"))), 2,
)  # fmt: skip


class Shelf:
    def tables(self, collection: str, source: str) -> list[TableInfo]:
        return [INFO]

    def arrow(self, table: TableInfo) -> pa.Table:
        return pa.table({"Item": ["<b>nails</b>", "screws"], "Count": [40.0, 2.0], "_row": [2, 3]})


def test_the_rows_used_show_with_their_numbers_escaped_and_linked() -> None:
    chunk = Chunk("c", "shop", SOURCE, "Item: <b>nails</b>; Count: 40\nItem: screws; Count: 2")
    found = TableAnswerer(Shelf(), ArrowEngine(Shelf())).answer("What is the total count?", [Hit(chunk, 1.0)])
    assert found is not None and found.answered
    turn = Turn("What is the total count?")
    for event in (TableReady(found), AnswerDelta(found.text), Done(Answered(found.text, (found.citation,)))):
        turn.apply(event)
    shown = render.answer_markdown(turn)
    assert (
        "42 (computed from stock.xlsx, sheet Shelf &lt;A&gt;: sum of Count" in shown
    )  # the file's text, inert
    assert "Computed: sum of Count over all rows (2 rows): 42" in shown
    assert "<tr><td>2</td><td>40</td><td>&lt;b&gt;nails&lt;/b&gt;</td></tr>" in shown
    assert "<tr><td>3</td><td>2</td><td>screws</td></tr>" in shown
    assert "<b>nails</b>" not in shown.split("kimas-table-answer")[1]
    assert f"href='{source_url(SOURCE)}'" in shown and "Open stock.xlsx, sheet Shelf &lt;A&gt;" in shown
