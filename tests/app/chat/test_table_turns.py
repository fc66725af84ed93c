"""A chat turn answered over a table is kept with the conversation (issue 43): the whole ``TableAnswer`` (the
table's address, the plan with its filters, the value, the rows used) is written to the real SQLite store,
read back equal by a new store on the same file (a restart), and the reopened chat shows the value's
operation, the rows used and the link to the file, as it did live."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from app.chat.conversation import Conversation, Turn
from app.chat.store import ConversationStore
from kimas_desktop.answer.tables.answer import TableAnswer, answer_text
from kimas_desktop.tables import TableColumn, TableFilter, TableInfo, TableQuery, TableResult, TableRow
from kimas_desktop.types import Chunk, Citation
from ui.chat.render import answer_markdown, chat_messages

SOURCE = str(Path("/docs/cars.xlsx").resolve())
TABLE = TableInfo(
    "t1", "sheets", SOURCE, "Cars", 1,
    (TableColumn("Name", "text", ("mazda glc", "honda civic")), TableColumn("Sold", "date", ("2024-03-02",))), 4,
)  # fmt: skip
RESULT = TableResult(
    2.0, "2", "rows where Sold = 2024-03-02 and Hp > 60: 2",
    (TableRow(3, (("Name", "ford pinto"), ("Sold", "2024-03-02"))), TableRow(4, (("Name", "honda <civic>"), ("Sold", "2024-03-02")))),
    2,
)  # fmt: skip
QUERY = TableQuery(
    "count", filters=(TableFilter("Sold", "=", dt.date(2024, 3, 2).isoformat()), TableFilter("Hp", ">", 60.0))
)


def _turn() -> Turn:
    chunk = Chunk("c1", "sheets", SOURCE, "Name: ford pinto; Sold: 2024-03-02", line_start=3, line_end=4)
    text = answer_text(TABLE, RESULT, 1, "count")
    table = TableAnswer(TABLE, QUERY, RESULT, text, Citation(1, chunk, chunk.text))
    return Turn(
        "How many cars were sold on 2024-03-02?", text, state="done", citations=(table.citation,), table=table
    )


def test_a_table_answer_is_kept_and_shown_again_when_the_chat_is_reopened(tmp_path: Path) -> None:
    turn = _turn()
    conv = Conversation(turns=[turn])
    ConversationStore(tmp_path / "conversations.db").save(conv)
    reopened = ConversationStore(tmp_path / "conversations.db").load(conv.id)
    assert reopened is not None
    (back,) = reopened.turns
    assert back.table == turn.table
    live, again = answer_markdown(turn), answer_markdown(back)
    assert again == live
    assert "Computed: rows where Sold = 2024-03-02 and Hp &gt; 60: 2" in again
    assert "<tr><td>3</td><td>2024-03-02</td>" in again and "<td>ford pinto</td>" in again  # the rows used
    assert "honda &lt;civic&gt;" in again and "honda <civic>" not in again  # escaped
    assert "Open cars.xlsx, sheet Cars</a>" in again
    assert chat_messages(reopened) == chat_messages(conv)
