"""Two real processes indexing one collection, on a local directory and on the moto S3 server: the second
writer fails naming the first, or waits for it; either way the collection ends exactly as a from-scratch
index of the folder (before writer leases, both wrote every chunk: 3,000 chunks where 1,500 belong)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from indexer import LanceStore
from tests.indexer.files import write
from tests.indexer.store.test_s3 import s3_options  # noqa: F401  (the moto server fixture)
from tests.indexer.sync.test_sync import assert_same, from_scratch, section, snapshot

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.slow

WRITER = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from indexer import Indexer, LanceStore
    from kimas_desktop.errors import CollectionBusyError
    from local_models.fake import HashEmbedder
    from tests.indexer.files import small_config

    class SlowEmbedder(HashEmbedder):
        def embed_passages(self, texts):
            time.sleep(0.3)
            return super().embed_passages(texts)

    uri, folder, wait, gate = sys.argv[1], sys.argv[2], float(sys.argv[3]), Path(sys.argv[5])

    def progress(p):
        print("files", p.files_done, flush=True)
        while p.files_done >= 3 and not gate.exists():  # holding the lease until the test lets go
            time.sleep(0.05)

    store = LanceStore(uri, json.loads(sys.argv[4]), lease_wait_s=wait)
    indexer = Indexer(store, SlowEmbedder(dim=64), small_config(), write_batch_rows=16, embed_window=8)
    try:
        report = indexer.index("c", [Path(folder)], on_progress=progress)
    except CollectionBusyError as err:
        print("busy", err, flush=True)
        sys.exit(3)
    print("report", report.indexed, report.unchanged, flush=True)
    """
)


def _writer(
    uri: str, folder: Path, wait_s: float, options: dict[str, str], gate: Path
) -> subprocess.Popen[str]:
    """A writer process; past its third file it holds on (keeping its lease) until ``gate`` exists."""
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, uri, str(folder), str(wait_s), json.dumps(options), str(gate)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )


def _two_writers(uri: str, folder: Path, wait_s: float, options: dict[str, str]) -> tuple[str, str, int]:
    """Start a writer, and a second one once the first has written; (first's output, second's output,
    second's exit code). The first holds its lease, paused, until the second has given up (``wait_s`` 0),
    or until the second has started (it then waits for the lease): however slow the machine, the second
    meets a live lease (a fixed head start lost that race on a busy machine: the first had finished)."""
    gate = folder.parent / "gate"
    first = _writer(uri, folder, 0.0, options, gate)
    assert first.stdout is not None
    lines = []
    for line in first.stdout:
        lines.append(line)
        if line.startswith("files") and int(line.split()[1]) >= 3:
            break
    second = _writer(uri, folder, wait_s, options, gate)
    if wait_s:
        gate.touch()
    out2, _ = second.communicate(timeout=600)
    gate.touch()
    out1 = "".join(lines) + first.stdout.read()
    first.wait(timeout=600)
    first.stdout.close()
    assert first.returncode == 0, out1
    return out1, out2, second.returncode


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    for i in range(48):
        write(folder / f"d{i % 4}" / f"f{i:02d}.md", "".join(section(f"S{i}-{j}", 4) for j in range(3)))
    return folder


@pytest.mark.parametrize("where", ["local", "s3"])
def test_a_second_writer_fails_naming_the_first_and_nothing_is_doubled(
    tmp_path: Path, where: str, request: pytest.FixtureRequest
) -> None:
    options: dict[str, str] = {} if where == "local" else request.getfixturevalue("s3_options")
    uri = str(tmp_path / "db") if where == "local" else f"s3://team-knowledge/busy-{tmp_path.name}"
    folder = _folder(tmp_path)
    out1, out2, code = _two_writers(uri, folder, 0.0, options)
    assert code == 3 and "busy collection 'c' is being written by process" in out2, out2
    assert "report 48 0" in out1
    assert_same(snapshot(LanceStore(uri, options), "c"), from_scratch(tmp_path, "c", [folder]))


@pytest.mark.parametrize("where", ["local", "s3"])
def test_a_second_writer_waits_for_the_first_then_finds_everything_done(
    tmp_path: Path, where: str, request: pytest.FixtureRequest
) -> None:
    options: dict[str, str] = {} if where == "local" else request.getfixturevalue("s3_options")
    uri = str(tmp_path / "db") if where == "local" else f"s3://team-knowledge/wait-{tmp_path.name}"
    folder = _folder(tmp_path)
    out1, out2, code = _two_writers(uri, folder, 300.0, options)
    assert code == 0 and "report 0 48" in out2, out2
    assert "report 48 0" in out1
    assert_same(snapshot(LanceStore(uri, options), "c"), from_scratch(tmp_path, "c", [folder]))
