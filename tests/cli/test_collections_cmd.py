"""`kimas index`, `kimas collections` and `kimas remove-collection` through ``cli.main.main`` with a temp
data dir (the embedder is the deterministic fake, so these run without model files)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import launch
from cli.main import main
from kimas_desktop.config import load_config
from local_models.fake import HashEmbedder


@pytest.fixture(autouse=True)
def fake_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(launch.Services, "embedder", property(lambda self: HashEmbedder(dim=32)))


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    docs = tmp_path / "handbook"
    docs.mkdir()
    (docs / "intro.md").write_text("# Intro\n\nWelcome to the handbook.\n")
    (docs / "notes.txt").write_text("Some plain notes.\n")
    (docs / "blob.bin").write_bytes(b"\x00\x01\x02")
    return docs


def test_index_adds_the_folder_to_the_config_and_prints_a_summary(
    tmp_path: Path, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    assert main(["index", str(folder), "--data-dir", str(data)]) == 0
    out = capsys.readouterr().out
    assert "collection handbook: 2 files indexed" in out and "1 skipped, 0 failed" in out
    assert "blob.bin: unsupported file type '.bin'" in out
    config = load_config(data / "config.toml")
    assert config.collection("handbook").folders == [str(folder.resolve())]

    assert main(["index", str(folder), "--collection", "handbook", "--data-dir", str(data)]) == 0
    assert "0 files indexed, 2 unchanged" in capsys.readouterr().out
    assert load_config(data / "config.toml").collection("handbook").folders == [str(folder.resolve())]


def test_collections_lists_counts_model_and_problems(
    tmp_path: Path, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    main(["index", str(folder), "--collection", "hb", "--data-dir", str(data)])
    capsys.readouterr()
    assert main(["collections", "--json", "--data-dir", str(data)]) == 0
    [info] = json.loads(capsys.readouterr().out)
    assert (info["name"], info["files"], info["chunks"], info["dim"]) == ("hb", 2, 2, 32)
    assert info["embedding_model"] == "fake/hash-embedder" and info["updated_at"]
    assert info["problems"] == [
        {
            "path": str(folder.resolve() / "blob.bin"),
            "reason": "unsupported file type '.bin'",
            "kind": "skipped",
        }
    ]
    assert main(["collections", "--data-dir", str(data)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("hb: 2 files, 2 chunks, model fake/hash-embedder (32-d)")
    assert f"folder: {folder.resolve()}" in text


def test_remove_collection_deletes_index_and_config(
    tmp_path: Path, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    main(["index", str(folder), "--data-dir", str(data)])
    assert main(["remove-collection", "handbook", "--data-dir", str(data)]) == 0
    assert "handbook" not in load_config(data / "config.toml").collections
    capsys.readouterr()
    main(["collections", "--json", "--data-dir", str(data)])
    assert json.loads(capsys.readouterr().out) == []
    assert main(["remove-collection", "handbook", "--data-dir", str(data)]) == 2
    assert "no collection named 'handbook'" in capsys.readouterr().err
    assert folder.joinpath("intro.md").exists()


def test_index_refuses_something_that_is_not_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["index", str(tmp_path / "nope"), "--data-dir", str(tmp_path / "data")]) == 2
    assert "is not a folder" in capsys.readouterr().err
