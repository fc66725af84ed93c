"""A CSV of a million rows (31 MB) indexes in bounded memory: its rows are streamed three times (kinds,
typed rows to the shelf in batches, text up to its limit), never held. Measured in its own process (a sync
with the deterministic embedder into real LanceDB), against the same process indexing a one-row CSV: on a
2-core EPYC the million rows took 39-40 s and raised the peak RSS from 358 MB to 452-501 MB (+94 to +143 MB;
the bound asserted is +256 MB)."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
_MB = 1024**2
ROWS = 1_000_000

CHILD = """
import json, sys, threading, time
from pathlib import Path
import psutil
from indexer import Indexer, LanceStore
from local_models.fake import HashEmbedder
from tests.indexer.files import small_config

process, peak, stop = psutil.Process(), [0], threading.Event()

def watch():
    while not stop.wait(0.02):
        peak[0] = max(peak[0], process.memory_info().rss)

threading.Thread(target=watch, daemon=True).start()
store = LanceStore(sys.argv[2])
started = time.monotonic()
report = Indexer(store, HashEmbedder(dim=64), small_config()).index("big", [Path(sys.argv[1])])
seconds = time.monotonic() - started
tables = store.shelf.all_tables("big")
if not tables:  # say why (once, under load, none was indexed and the test saw only an IndexError)
    sys.exit(f"no table indexed: {[(p.path, p.reason) for p in report.problems]}")
last = store.shelf.arrow(tables[0]).slice(tables[0].rows - 1)
stop.set()
print(json.dumps({
    "peak": peak[0], "seconds": seconds, "problems": [p.reason for p in report.problems],
    "rows": [t.rows for t in tables], "kinds": [c.kind for c in tables[0].columns],
    "last": {k: str(v[0]) for k, v in last.to_pydict().items()},
}))
"""


def _write(path: Path, rows: int) -> Path:
    path.parent.mkdir(parents=True)
    start = dt.date(2000, 1, 1)
    with path.open("w", encoding="utf-8") as out:
        out.write("id,name,amount,day\n")
        for i in range(1, rows + 1):
            out.write(
                f"{i},item-{i % 977},{(i * 37) % 10000 / 100:.2f},{start + dt.timedelta(days=i % 9000)}\n"
            )
    return path


def _index(docs: Path, data: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(docs), str(data)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.slow
def test_a_million_row_csv_indexes_in_bounded_memory(tmp_path: Path) -> None:
    _write(tmp_path / "one" / "one.csv", 1)
    big = _write(tmp_path / "big" / "big.csv", ROWS)
    assert big.stat().st_size > 30 * _MB
    baseline = _index(tmp_path / "one", tmp_path / "db_one")
    result = _index(tmp_path / "big", tmp_path / "db_big")
    peak, base = int(result["peak"]), int(baseline["peak"])  # type: ignore[call-overload]
    print(f"1M rows: {result['seconds']:.0f} s, peak RSS {peak // _MB} MB (one row: {base // _MB} MB)")
    assert result["problems"] == [] and result["rows"] == [ROWS]
    assert result["kinds"] == ["number", "text", "number", "date"]
    assert result["last"] == {
        "id": "1000000.0",
        "name": "item-529",
        "amount": "0.0",
        "day": "2002-09-27",
        "_row": str(ROWS + 1),
    }
    assert peak - base <= 256 * _MB, f"a million rows cost {(peak - base) // _MB} MB"
