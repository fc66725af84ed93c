"""``TableAnswerer``: a question whose evidence comes from a spreadsheet or CSV, answered by computing over
its rows (KAG's solver: compute what needs computing, never let the model guess a number).

The files of the evidence's top passages are asked for their tables (``TableShelf``); the table the
question names most is planned over (``TablePlanner``: from its header, kinds, samples and the text of
the rows the search found), the plan runs (``TableEngine``), and the answer is the computed value, the
query in plain words and the rows it used, with the file, sheet and row numbers (in Chinese for a question
written in Chinese: ``chinese.py``). A plan whose filters select no row is an empty result: the answer
policy declines it (rule ``table``), and so is a question that names what the table lacks (a name, a kind
of row, a thing to count: ``TablePlanner.absent``). No plan otherwise: the question goes the usual way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kimas_desktop.answer.outcome import DECLINE_START
from kimas_desktop.answer.phrases import language_of
from kimas_desktop.answer.tables.chinese import absent_said, answer_text_zh, in_chinese
from kimas_desktop.answer.tables.planner import TablePlanner
from kimas_desktop.answer.tables.unasked import closest
from kimas_desktop.tables import TableEngine, TableInfo, TableQuery, TableResult, TableShelf
from kimas_desktop.text.gloss import written
from kimas_desktop.types import Citation, Hit

__all__ = ["TOP_PASSAGES", "TableAnswer", "TableAnswerer", "answer_text", "table_place"]

TOP_PASSAGES = 3  # the passages whose files are asked for tables


@dataclass(frozen=True)
class TableAnswer:
    """A table question computed: the table, the plan, what it gave, the answer's text, and the evidence
    passage (numbered [n], from the table's file) cited for it."""

    table: TableInfo
    query: TableQuery | None  # None: the question names what the table does not hold
    result: TableResult
    text: str
    citation: Citation

    @property
    def answered(self) -> bool:
        return not self.result.empty


_WORKBOOKS = (".xlsx", ".xlsm", ".xls", ".ods")  # a table's "sheet" is a sheet's name only in these


def table_place(table: TableInfo) -> str:
    """ "cars.xlsx, sheet Data", "cars.csv", or a document's table by its place: "report.docx, table 2"."""
    name = Path(table.source).name
    if not table.sheet:
        return name
    if Path(table.source).suffix.lower() in _WORKBOOKS:
        return f"{name}, sheet {table.sheet}"
    return f"{name}, {table.sheet}"


# Operations whose shown rows are the ones picked out of all it read (the largest, the top k).
_PICKED = ("min", "max", "argmax", "argmin", "top")


def _rows_said(result: TableResult, operation: str) -> str:
    """ "rows 2, 4, 7 and 12 more" (the first of the rows used), or "row 10 of the 100 rows" (the one picked)."""
    numbers = ", ".join(str(r.row) for r in result.rows)
    word = "row" if len(result.rows) == 1 else "rows"
    more = result.used - len(result.rows)
    if more > 0 and operation in _PICKED:
        return f"{word} {numbers} of the {result.used} rows"
    return f"{word} {numbers}" + (f" and {more} more" if more > 0 else "")


def answer_text(table: TableInfo, result: TableResult, n: int, operation: str = "") -> str:
    """The answer as the user reads it: the value, then how it was computed and from which rows."""
    where = table_place(table)
    if result.empty:
        return f"{DECLINE_START} this: the table in {where} has {result.description} [{n}]."
    rows = _rows_said(result, operation)
    # Not "2. Computed …": a number and a period at the start of a line is a Markdown list item.
    return f"{result.text} (computed from {where}: {result.description}; {rows}) [{n}]."


class TableAnswerer:
    def __init__(self, shelf: TableShelf, engine: TableEngine, planner: TablePlanner | None = None) -> None:
        self._shelf = shelf
        self._engine = engine
        self._planner = planner or TablePlanner()

    def answer(self, question: str, hits: Sequence[Hit], earlier: Sequence[str] = ()) -> TableAnswer | None:
        """The table answer from the evidence ``hits`` (numbered [1]… in this order); None when no top
        passage comes from a file with tables, or the question plans over none of them. ``earlier``: the
        conversation's earlier questions, latest last; a follow-up that plans nothing alone ("and in
        2015?") takes the plan of the latest one that plans over the same table, with its own values."""
        chosen = self._choose(question, hits) or self._choose_before(question, hits, earlier)
        if chosen is None:
            return None
        table, n, rows = chosen
        chinese = language_of(question) == "zh"
        query = self._planner.plan(question, table, rows) or self._follow(question, table, rows, earlier)
        if query is not None:
            result = self._engine.run(table, query)
            if chinese:
                result = in_chinese(query, result)
        else:
            absent = self._absent(question, table, rows, chinese)
            if not absent:
                return None
            result = TableResult(None, "", absent, (), 0)
        hit = hits[n - 1]
        cited = Citation(n, hit.chunk, hit.chunk.text[:200])
        op = query.operation if query is not None else ""
        text = (answer_text_zh if chinese else answer_text)(table, result, n, op)
        return TableAnswer(table, query, result, text, cited)

    def _absent(self, question: str, table: TableInfo, rows: list[str], chinese: bool) -> str:
        """What the question names that the table lacks, in words ("" for nothing), in Chinese when
        ``chinese``, naming the words the question wrote ("降雪量", not the planner's "snowfall")."""
        if not chinese:
            return self._planner.absent(question, table, rows)
        rows_, columns = self._planner.lacks(question, table, rows)
        near = closest(columns[0], table) if columns else ""
        rows_, columns = (tuple(written(w, question) for w in ws) for ws in (rows_, columns))
        return absent_said(rows_, columns, table, near) if rows_ or columns else ""

    def _follow(
        self, question: str, table: TableInfo, rows: list[str], earlier: Sequence[str]
    ) -> TableQuery | None:
        for before in reversed(earlier[-3:]):
            plan = self._planner.plan(before, table, rows)
            if plan is not None:
                return self._planner.follow(question, table, plan, rows)
        return None

    def _choose_before(
        self, question: str, hits: Sequence[Hit], earlier: Sequence[str]
    ) -> tuple[TableInfo, int, list[str]] | None:
        """The table the latest earlier question names, when this one names none alone."""
        for before in reversed(earlier[-3:]):
            chosen = self._choose(before, hits)
            if chosen is not None and self._follow(question, chosen[0], chosen[2], [before]) is not None:
                return chosen
        return None

    def _choose(self, question: str, hits: Sequence[Hit]) -> tuple[TableInfo, int, list[str]] | None:
        """The table the question names most, among the files of the top passages, one it plans over before
        one it does not ("How many snow days were there in Seattle?": the weather table, not the airports
        whose city is Seattle); the number of its file's best passage; the text of its file's passages
        (the rows the search found)."""
        best: tuple[tuple[bool, int], TableInfo, int, list[str]] | None = None
        seen: set[tuple[str, str]] = set()
        for n, hit in enumerate(hits[:TOP_PASSAGES], start=1):
            key = (hit.chunk.collection, hit.chunk.source)
            if hit.chunk.online or key in seen:
                continue
            seen.add(key)
            rows = [h.chunk.text for h in hits if h.chunk.source == hit.chunk.source]
            for table in self._shelf.tables(*key):
                score = self._planner.score(question, table, rows)
                if score <= 0:
                    continue
                rank = (self._planner.plan(question, table, rows) is not None, score)
                if best is None or rank > best[0]:
                    best = (rank, table, n, rows)
        return None if best is None else best[1:]
