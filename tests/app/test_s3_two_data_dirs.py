"""One collection on an S3-compatible object store, read and written by two installs of the app (issue 59):
two data directories, each with its own ``config.toml`` pointing ``[storage]`` at the same bucket, and
the real ``kimas`` command in separate processes with the embedded embedder. What one indexes, the other
lists and finds; an edit re-indexed by one is what the other finds next, with nothing lost or doubled."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.indexer.files import write
from tests.indexer.store.test_s3 import s3_options  # noqa: F401  (the moto server fixture)

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def _install(where: Path, options: dict[str, str]) -> Path:
    """A data directory whose config puts its collections in the shared bucket."""
    where.mkdir(parents=True)
    lines = ["[storage]", 'uri = "s3://team-knowledge/two-installs"', "[storage.options]"]
    lines += [f'{key} = "{value}"' for key, value in options.items()]
    (where / "config.toml").write_text("\n".join(lines) + "\n")
    return where


def _kimas(data: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", *args, "--data-dir", str(data)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _found(data: Path, question: str) -> list[dict[str, object]]:
    [result] = [json.loads(line) for line in _kimas(data, "retrieve", question, "--json").splitlines()]
    return list(result["hits"])


def test_two_installs_share_one_collection_on_an_object_store(
    tmp_path: Path,
    s3_options: dict[str, str],  # noqa: F811
) -> None:
    mine, theirs = _install(tmp_path / "mine", s3_options), _install(tmp_path / "theirs", s3_options)
    folder = tmp_path / "runbooks"
    write(
        folder / "queue.md", "# Queue\n\nRestart the queue worker when the backlog passes ten thousand jobs."
    )
    write(folder / "database.md", "# Database\n\nVacuum the orders tables every Sunday night after backups.")
    _kimas(mine, "index", str(folder), "--collection", "team", "--quiet")

    listed = json.loads(_kimas(theirs, "collections", "--json"))
    assert [(c["name"], c["files"], c["chunks"]) for c in listed] == [("team", 2, 2)]
    hits = _found(theirs, "When are the orders tables vacuumed?")
    assert str(hits[0]["source"]).endswith("database.md")

    write(folder / "database.md", "# Database\n\nVacuum the orders tables every Saturday morning instead.")
    _kimas(mine, "index", str(folder), "--collection", "team", "--quiet")
    hits = _found(theirs, "When are the orders tables vacuumed?")
    assert "Saturday" in str(hits[0]["text"]) and not any("Sunday" in str(h["text"]) for h in hits)
    listed = json.loads(_kimas(theirs, "collections", "--json"))
    assert [(c["name"], c["files"], c["chunks"]) for c in listed] == [("team", 2, 2)]
