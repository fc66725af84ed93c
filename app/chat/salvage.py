"""``salvage``: copy the conversations that still read whole out of a damaged ``conversations.sqlite3``.

The damaged file is only read (opened read-only), never changed: it stays beside the new store, so what
could not be read is not lost. A conversation is copied only when every one of its turns reads back
(positions ``0 .. n-1``, text that decodes, and a question and answer equal to the copies inside the turn's
JSON record, so garbage that happens to decode as text is caught); one that reads in part is left in the
damaged file and counted in ``lost``. Rows are copied as stored.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Salvage", "salvage"]

_Row = tuple[str, str, float, float]
_TurnRow = tuple[str, int, str, str, str]


@dataclass(frozen=True)
class Salvage:
    """What came back: ``recovered`` and ``lost`` count conversations; ``complete`` is False when the list
    of conversations itself could not be read to its end (so more may be missing than ``lost`` says)."""

    recovered: int
    lost: int
    complete: bool


def salvage(damaged: Path, into: sqlite3.Connection) -> Salvage:
    """Copy every conversation of ``damaged`` that reads in full into ``into`` (a fresh, migrated store
    inside an open transaction), with the remembered open conversation when it was copied."""
    try:
        src = sqlite3.connect(f"{damaged.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return Salvage(0, 0, complete=False)
    try:
        conversations, complete = _conversations(src)
        recovered = 0
        for row in conversations:
            turns = _turns(src, row[0])
            if turns is None:
                continue
            into.execute(
                "INSERT OR IGNORE INTO conversations (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)",
                row,
            )
            into.executemany("INSERT OR IGNORE INTO turns VALUES (?, ?, ?, ?, ?)", turns)
            recovered += 1
        _copy_open(src, into)
    finally:
        src.close()
    return Salvage(recovered, len(conversations) - recovered, complete)


def _conversations(src: sqlite3.Connection) -> tuple[list[_Row], bool]:
    """The conversation rows that read, and whether the table read to its end."""
    rows: list[_Row] = []
    try:
        cursor = src.execute("SELECT id, title, created_at, updated_at FROM conversations NOT INDEXED")
        for row in cursor:
            rows.append((str(row[0]), str(row[1]), float(row[2]), float(row[3])))
    except (sqlite3.Error, TypeError, ValueError):
        return rows, False
    return rows, True


def _turns(src: sqlite3.Connection, conv_id: str) -> list[_TurnRow] | None:
    """All turns of ``conv_id``, or None when any of them does not read (through the index, then without
    it, as either may be the damaged part)."""
    query = "SELECT conversation_id, position, question, answer, data FROM turns {} WHERE conversation_id = ?"
    for hint in ("", "NOT INDEXED"):
        try:
            rows = src.execute(query.format(hint), (conv_id,)).fetchall()
        except sqlite3.Error:
            continue
        rows.sort(key=lambda r: r[1])
        whole = rows and [r[1] for r in rows] == list(range(len(rows)))
        if whole and all(_intact(r) for r in rows):
            return [(str(r[0]), int(r[1]), r[2], r[3], r[4]) for r in rows]
    return None


def _intact(row: tuple[object, ...]) -> bool:
    """Text columns that decode and agree with the turn's own JSON record."""
    question, answer, data = row[2], row[3], row[4]
    if not (isinstance(question, str) and isinstance(answer, str) and isinstance(data, str)):
        return False
    try:
        record = json.loads(data)
    except ValueError:
        return False
    return isinstance(record, dict) and record.get("question") == question and record.get("answer") == answer


def _copy_open(src: sqlite3.Connection, into: sqlite3.Connection) -> None:
    try:
        row = src.execute("SELECT value FROM settings WHERE key = 'open'").fetchone()
    except sqlite3.Error:
        return
    if row and into.execute("SELECT 1 FROM conversations WHERE id = ?", (row[0],)).fetchone():
        into.execute("INSERT OR REPLACE INTO settings (key, value) VALUES ('open', ?)", (row[0],))
