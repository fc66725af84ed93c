"""`kimas relations`: the optional relation pass through the CLI with the embedded chat model (real files,
indexer, LanceDB, llama.cpp): it reads a limited number of passages, goes on where it stopped when run
again, and `--show` lists what it found (the small model's relations are noise, so only their form is
checked)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.cli.test_query_cmd import kimas

pytestmark = pytest.mark.slow

TEXT = """# Inventors

## Tesla

Nikola Tesla worked for Thomas Edison in New York in 1884.

## Westinghouse

George Westinghouse bought the patents of Nikola Tesla in 1888.

## Niagara

The Niagara Falls power plant of George Westinghouse opened in 1895.
"""


def test_the_pass_reads_what_it_may_and_goes_on_where_it_stopped(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "inventors.md").write_text(TEXT)
    data = tmp_path / "data"
    assert kimas(data, "index", str(docs), "--collection", "people").returncode == 0

    first = kimas(data, "relations", "people", "--limit", "1")
    assert first.returncode == 0, first.stderr
    assert "1 passages read this time" in first.stdout
    unread = int(re.search(r"(\d+) unread before this pass", first.stderr).group(1))  # type: ignore[union-attr]
    assert unread == 3 and "read 1 of 1 passages" in first.stderr  # three sections name two entities each
    again = kimas(data, "relations", "people", "--limit", "1")
    assert again.returncode == 0, again.stderr
    assert "2 unread before this pass" in again.stderr  # the one read before is not read again

    shown = kimas(data, "relations", "people", "--show", "Nikola Tesla")
    assert shown.returncode == 0, shown.stderr
    for line in shown.stdout.splitlines():
        assert line.count(" | ") == 2, line
    assert kimas(data, "relations", "nobody").returncode != 0
