"""Files that used to break or tie up a collection (issue 21): a name that is not UTF-8, and one huge line.

The huge file runs through the real CLI with the real embedded model in its own process, whose peak
memory it reports; Cancel is timed against the real model too.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from indexer import Indexer, LanceStore
from kimas_desktop.control import IndexControl
from kimas_desktop.errors import Cancelled
from tests.indexer.files import small_config

ROOT = Path(__file__).resolve().parents[3]
BAD_NAME = b"\xff\xfe notes.md"


def _bad_name_folder(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "good.md").write_text("# Good\n\nThe otters of the river sleep in the afternoon.\n", "utf-8")
    with open(os.fsencode(docs) + b"/" + BAD_NAME, "wb") as f:
        f.write(b"# Bad name\n\nA file whose name is not UTF-8.\n")
    return docs


def test_a_file_name_that_is_not_utf8_is_skipped_and_the_others_index(
    tmp_path: Path, indexer: Indexer, store: LanceStore
) -> None:
    docs = _bad_name_folder(tmp_path)
    report = indexer.index("docs", [docs])
    assert (report.indexed, report.skipped, report.failed) == (1, 1, 0)
    (problem,) = report.problems
    assert problem.kind == "skipped" and problem.path == f"{docs}/\\xff\\xfe notes.md"
    assert "not valid UTF-8" in problem.reason and "rename" in problem.reason
    again = indexer.index("docs", [docs])
    assert (again.indexed, again.unchanged, again.skipped) == (0, 1, 1)
    assert store.collection("docs").files == 1


def test_the_cli_says_so_without_a_traceback(tmp_path: Path) -> None:
    docs = _bad_name_folder(tmp_path)
    out = subprocess.run(
        [sys.executable, "-m", "cli.main", "index", str(docs), "--data-dir", str(tmp_path / "data")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr + out.stdout
    assert "1 file indexed" in out.stdout and "1 skipped" in out.stdout
    assert "\\xff\\xfe notes.md: its name is not valid UTF-8 text" in out.stdout


def _one_line(path: Path, megabytes: int) -> None:
    """``megabytes`` MB of words and sentences on a single line, written in pieces."""
    rng = random.Random(7)
    words = [
        "".join(rng.choice("abcdefghijklmnoprstu") for _ in range(rng.randint(2, 9))) for _ in range(4000)
    ]
    piece = (" ".join(rng.choice(words) for _ in range(170_000)) + ". ").encode()
    with path.open("wb") as f:
        written = 0
        while written < megabytes * 1_000_000:
            f.write(piece)
            written += len(piece)


# The peak of this process only: Linux keeps ru_maxrss across exec, so it also holds the pytest parent's
# resident size at fork (large once other tests loaded models); VmHWM starts again at exec.
_MEASURED = """
import pathlib, resource, sys
from cli.main import main
code = main(sys.argv[1:])
status = pathlib.Path("/proc/self/status")
hwm = [l.split()[1] for l in status.read_text().splitlines() if l.startswith("VmHWM")] if status.exists() else []
peak = int(hwm[0]) if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print("MAXRSS_MB", peak // 1024, flush=True)
sys.exit(code)
"""


@pytest.mark.slow
def test_a_50_mb_one_line_file_is_skipped_with_bounded_memory_and_not_retried(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    _one_line(docs / "huge.txt", 50)
    (docs / "good.md").write_text("# Good\n\nThe otters of the river sleep in the afternoon.\n", "utf-8")
    data = tmp_path / "data"
    data.mkdir()
    (data / "config.toml").write_text("[indexer]\nmax_file_chunks = 1000\n")

    def index() -> tuple[str, float, int]:
        t0 = time.monotonic()
        out = subprocess.run(
            [sys.executable, "-c", _MEASURED, "index", str(docs), "--data-dir", str(data)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
        rss = int(out.stdout.split("MAXRSS_MB")[1].split()[0])
        return out.stdout, time.monotonic() - t0, rss

    first, seconds, rss = index()
    assert "1 file indexed" in first and "1 skipped" in first, first
    assert "huge.txt: more than 1000 chunks (the limit is indexer.max_file_chunks)" in first
    assert rss <= 1536, f"peak memory {rss} MB"
    second, again_s, _ = index()
    assert "0 files indexed" in second or "unchanged" in second, second
    assert "huge.txt: more than 1000 chunks" in second  # still reported, not read again
    assert again_s < seconds
    print(f"50 MB one-line file: skipped in {seconds:.1f} s, peak {rss} MB; second run {again_s:.1f} s")


@pytest.mark.slow
def test_cancel_stops_inside_a_huge_file_within_5_s(tmp_path: Path) -> None:
    local_models = pytest.importorskip("local_models")
    from kimas_desktop.config import EmbeddingModelConfig

    embedder = local_models.build_embedder(EmbeddingModelConfig(), tmp_path / "models")
    embedder.warm_up()
    docs = tmp_path / "docs"
    docs.mkdir()
    _one_line(docs / "huge.txt", 50)
    indexer = Indexer(
        LanceStore(str(tmp_path / "db")), embedder, small_config(chunk_tokens=120, max_file_chunks=10**6)
    )
    control = IndexControl()
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(indexer.index("docs", [docs], control=control))
        except Cancelled as err:
            outcome.append(err)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    time.sleep(8)  # deep inside the file by now
    assert worker.is_alive()
    t0 = time.monotonic()
    control.cancel()
    worker.join(30)
    took = time.monotonic() - t0
    assert not worker.is_alive() and isinstance(outcome[0], Cancelled)
    assert took < 5, f"cancel took {took:.1f} s"
    print(f"cancel inside a 50 MB one-line file took {took:.2f} s")
