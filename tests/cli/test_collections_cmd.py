"""`kimas index`, `kimas collections` and `kimas remove-collection` through ``cli.main.main`` with a temp
data dir (the embedder is the deterministic fake, so these run without model files)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from app import runtime
from cli.main import main
from kimas_desktop.config import load_config
from local_models.fake import HashEmbedder


@pytest.fixture(autouse=True)
def fake_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    """The runtime's builders, with the fake embedder registered in place of the real one."""
    real = runtime.real_builders
    monkeypatch.setattr(
        runtime, "real_builders", lambda: replace(real(), embedder=lambda cfg, cache: HashEmbedder(dim=32))
    )


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
    assert "collection handbook: 2 files indexed (2 chunks), 1 skipped in" in out
    assert "blob.bin: unsupported file type '.bin'" in out
    config = load_config(data / "config.toml")
    assert config.collection("handbook").folders == [str(folder.resolve())]

    assert main(["index", str(folder), "--collection", "handbook", "--data-dir", str(data)]) == 0
    assert "collection handbook: 2 unchanged, 1 skipped in" in capsys.readouterr().out
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


def test_remove_collection_deletes_index_config_and_uploads(
    tmp_path: Path, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    main(["index", str(folder), "--data-dir", str(data)])
    uploads = data / "uploads" / "handbook"
    uploads.mkdir(parents=True)
    (uploads / "dropped.md").write_text("uploaded in the app")
    assert main(["remove-collection", "handbook", "--data-dir", str(data)]) == 0
    assert not uploads.exists()  # as the app's remove does
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
    assert "There is no folder at" in capsys.readouterr().err


def test_index_refuses_the_folder_holding_the_data_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same guard as the app's: indexing KIMAs' own data (its index, its uploads) would loop."""
    assert main(["index", str(tmp_path), "--data-dir", str(tmp_path / "data")]) == 2
    assert "own data directory" in capsys.readouterr().err
    assert not (tmp_path / "data" / "config.toml").exists()


def _mixed(tmp_path: Path) -> Path:
    docs = tmp_path / "mixed"
    docs.mkdir(parents=True)
    (docs / "en.md").write_text(
        "The lighthouse keeper writes the weather in the log book every day at noon.\n"
    )
    (docs / "de.md").write_text("Dieses Buch soll Ihnen helfen, ein Debian-System effizient zu verwalten.\n")
    (docs / "zh.txt").write_text("检索增强生成(RAG)设计模式通常用于在特定数据域中开发大语言模型(LLM)应用。\n")
    (docs / "hi.txt").write_text("भारत की राजधानी नई दिल्ली है और यहाँ संसद भवन स्थित है।\n")
    return docs


def test_collections_list_the_languages_of_their_documents(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each file's language is told at indexing (its card, issue 42): the script for Chinese or Hindi,
    py3langid for English and German. Real sentences: ../shared/papers and the Debian Reference. With the
    automatic choice off, a library of the English-only model is advised to switch."""
    docs = _mixed(tmp_path)
    data = tmp_path / "data"
    data.mkdir()
    (data / "config.toml").write_text("[embedding]\nauto = false\n")
    main(["index", str(docs), "--data-dir", str(data)])
    capsys.readouterr()
    assert main(["collections", "--data-dir", str(data)]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if "languages:" in x)
    assert sorted(line.split(": ", 1)[1].split(", ")) == ["de 1", "en 1", "hi 1", "zh 1"]
    assert "reads English only" in out and "multilingual-e5-small" in out
    assert main(["collections", "--json", "--data-dir", str(data)]) == 0
    [info] = json.loads(capsys.readouterr().out)
    assert info["languages"] == {"de": 1, "en": 1, "hi": 1, "zh": 1}


def test_a_new_library_not_all_in_english_starts_on_the_multilingual_model(
    tmp_path: Path, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Chosen when its first files are read (issue 56), before anything is embedded; an English library,
    or a library that already holds a collection, keeps the model it has."""
    data = tmp_path / "data"
    assert main(["index", str(_mixed(tmp_path)), "--data-dir", str(data)]) == 0
    assert "not all in English" in capsys.readouterr().out
    assert load_config(data / "config.toml").embedding.name == "multilingual-e5-small"

    english = tmp_path / "english-data"
    assert main(["index", str(folder), "--data-dir", str(english)]) == 0
    assert load_config(english / "config.toml").embedding.name == ""
    assert main(["index", str(_mixed(tmp_path / "later")), "--data-dir", str(english)]) == 0
    assert "not all in English" not in capsys.readouterr().out
    assert load_config(english / "config.toml").embedding.name == ""  # offered, not switched
