"""Hostile CSV files read in bounded time and without losing text (issue 70, item 5): real files written to
``tmp_path`` and read back as the indexer reads them (``indexer.tables.delimited``)."""

from __future__ import annotations

import time
from pathlib import Path

from indexer.tables.delimited import read_delimited


def test_one_hostile_64_kb_line_is_read_in_well_under_a_second(tmp_path: Path) -> None:
    # ',"' 32,000 times: csv.Sniffer took 25-35 s on it (quadratic in its sample), and its 16,000 columns
    # named "," were numbered in quadratic time ("," (2), "," (3), ...)
    path = tmp_path / "hostile.csv"
    path.write_bytes((',"' * 32_000 + "\nid,note,score\n1,a,5\n2,b,7\n").encode())
    start = time.monotonic()
    found = read_delimited(path.read_bytes(), tab=False)
    rows = list(found.table.rows())
    took = time.monotonic() - start
    assert took < 3.0, f"{took:.1f} s"
    assert [line for line, _ in rows] == [2, 3, 4] and rows[1][1][:3] == ["1", "a", "5"]


def _cells(path: Path) -> list[list[str]]:
    found = read_delimited(path.read_bytes(), tab=False)
    return [[str(c) for c in cells] for _, cells in found.table.rows()]


def test_windows_1252_rows_in_a_utf8_file_keep_their_letters(tmp_path: Path) -> None:
    # rows pasted from an older file: "Café crème" and "Müller" in cp1252 among UTF-8 rows, near the start
    # (told from the file's first 64 KB) and far past it (read as the rows stream)
    path = tmp_path / "mixed.csv"
    utf8 = [f"Zoë {i},Málaga,{i}\n".encode() for i in range(4000)]
    legacy = ["Café crème,Besançon,1\n".encode("cp1252"), "Müller,Köln,2\n".encode("cp1252")]
    path.write_bytes(b"name,city,n\n" + legacy[0] + b"".join(utf8) + legacy[1])
    rows = _cells(path)
    assert len(rows) == 4002
    assert rows[0] == ["Café crème", "Besançon", "1"] and rows[-1] == ["Müller", "Köln", "2"]
    assert rows[1] == ["Zoë 0", "Málaga", "0"]
    assert not any("\ufffd" in cell for row in rows for cell in row)


def test_a_100k_column_csv_is_read_with_every_column_named_apart(tmp_path: Path) -> None:
    # issue 70's 100k-column CSV, its header one name repeated: each column gets its own name in linear time
    # (numbering them took quadratic time: 16,000 columns took 21 s, 100,000 would take minutes)
    n = 100_000
    path = tmp_path / "wide.csv"
    rows = "".join(",".join(str(r * n + i) for i in range(n)) + "\n" for r in range(20))
    path.write_text(",".join(["amount"] * n) + "\n" + rows)
    start = time.monotonic()
    found = read_delimited(path.read_bytes(), tab=False)
    read = list(found.table.rows())
    took = time.monotonic() - start
    assert took < 30.0, f"{took:.1f} s"
    names = found.table.names
    assert len(names) == len(set(names)) == n and names[:2] == ("amount", "amount (2)")
    assert len(read) == 20 and read[-1][0] == 21 and read[-1][1][-1] == str(20 * n - 1)
