"""`kimas ask --json` on a table question (issue 43): a Markdown file holding a table, indexed by `kimas index`
(real parser, LanceDB, embedded models); the JSON answer carries the computation as data, the same in any
language: operation, target, value, rows used, and the file, the table's place and each row's number."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow

KETTLES = """# Kettles

The kettles we tested this spring.

| Kettle | Litres | Maker |
|---|---|---|
| Brio | 1.7 | Acme |
| Tova | 1.2 | Zenit |
| Mira | 1.5 | Acme |
"""


def kimas(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args, "--data-dir", str(data_dir)],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip


def test_ask_json_has_the_table_field(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "kettles.md").write_text(KETTLES, "utf-8")
    out = kimas(tmp_path / "data", "index", str(docs), "--collection", "kitchen")
    assert out.returncode == 0, out.stderr
    out = kimas(tmp_path / "data", "ask", "How many kettles have the maker Acme?", "--json")
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["answer"].startswith("2 (computed from kettles.md, table 1"), answer["answer"]
    table = answer["table"]
    assert Path(table["file"]).name == "kettles.md" and table["sheet"] == "table 1"
    assert (table["operation"], table["value"], table["rows_used"], table["header_row"]) == ("count", 2, 2, 1)
    assert table["rows"] == [
        {"row": 2, "cells": {"Kettle": "Brio", "Litres": "1.7", "Maker": "Acme"}},
        {"row": 4, "cells": {"Kettle": "Mira", "Litres": "1.5", "Maker": "Acme"}},
    ]
    out = kimas(tmp_path / "data", "ask", "Who tested the kettles?", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["table"] is None  # not a table question: the field is null
