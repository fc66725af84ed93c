"""docs/security.md's table of issue 70's attacks stays true to itself: it has the rows its text says (so
many that broke, so many that held), every row names at least one test, and every test it names exists
(its module imports and holds a test function of that name), so a renamed or deleted test fails here."""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SECURITY = ROOT / "docs" / "security.md"
SECTION = "## Issue 70's attacks, re-run"
NODE = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")


@dataclass(frozen=True)
class Row:
    id: str
    attack: str
    then: str
    tests: tuple[tuple[str, str], ...]  # (file, function)


def section(text: str) -> str:
    return text.split(SECTION, 1)[1].split("\n## ", 1)[0]


def rows(text: str) -> list[Row]:
    """The table's rows: ``| Id | Attack | Then | Now | Re-run by |`` below its header and rule."""
    lines = [line for line in section(text).splitlines() if line.startswith("|")][2:]
    found = []
    for line in lines:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        assert len(cells) == 5, line
        found.append(Row(cells[0], cells[1], cells[2], tuple(NODE.findall(cells[4]))))
    return found


def claimed(text: str) -> tuple[int, int, int]:
    """The counts the text says: "The table has N rows: B that broke and H that held"."""
    said = re.search(r"The table has (\d+) rows: (\d+) that broke and\s+(\d+) that held", section(text))
    assert said, "the section no longer says how many rows it has"
    total, broke, held = (int(n) for n in said.groups())
    return total, broke, held


def missing(tests: tuple[tuple[str, str], ...]) -> list[str]:
    """The named tests that do not exist: no such file, or no test function of that name in its module."""
    lost = []
    for file, function in tests:
        if not (ROOT / file).is_file():
            lost.append(f"{file}::{function}")
            continue
        module = importlib.import_module(file.removesuffix(".py").replace("/", "."))
        if not (function.startswith("test_") and callable(getattr(module, function, None))):
            lost.append(f"{file}::{function}")
    return lost


TEXT = SECURITY.read_text("utf-8")
ROWS = rows(TEXT)


def test_the_table_has_the_rows_its_text_claims() -> None:
    total, broke, held = claimed(TEXT)
    assert len(ROWS) == total
    ids = [f"B{i}" for i in range(1, broke + 1)] + [f"H{i}" for i in range(1, held + 1)]
    assert [r.id for r in ROWS] == ids
    assert all(r.then.startswith("broke") for r in ROWS if r.id.startswith("B"))
    assert all(r.then.startswith("held") for r in ROWS if r.id.startswith("H"))
    assert all(r.tests for r in ROWS), [r.id for r in ROWS if not r.tests]


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_every_test_a_row_names_exists(row: Row) -> None:
    assert missing(row.tests) == []


def test_a_row_naming_a_test_that_does_not_exist_is_caught() -> None:
    table = (
        f"{SECTION}\n\nThe table has 2 rows: 1 that broke and\n1 that held.\n\n"
        "| Id | Attack | Then | Now | Re-run by |\n|--|--|--|--|--|\n"
        "| B1 | a | broke | x | `tests/test_security_table.py::test_every_test_a_row_names_exists` |\n"
        "| H1 | b | held | y | `tests/test_security_table.py::test_renamed_away`, `tests/no_such_file.py::test_x` |\n"
    )
    first, second = rows(table)
    assert claimed(table) == (2, 1, 1)
    assert missing(first.tests) == []
    assert missing(second.tests) == [
        "tests/test_security_table.py::test_renamed_away",
        "tests/no_such_file.py::test_x",
    ]
