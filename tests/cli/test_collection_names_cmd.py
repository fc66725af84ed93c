"""`kimas rename-collection` and `kimas unwatch-folder` through ``cli.main.main`` (issue 46), on the real
LanceDB store in a temp data dir with the deterministic fake embedder: a rename keeps the id and the
index; unwatching a folder takes its files' chunks out at once and leaves the files on disk."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from app import runtime
from cli.main import main
from indexer import LanceStore
from kimas_desktop.config import load_config
from local_models.fake import HashEmbedder

CHINESE = "研究资料 2026"


@pytest.fixture(autouse=True)
def fake_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    real = runtime.real_builders
    monkeypatch.setattr(
        runtime, "real_builders", lambda: replace(real(), embedder=lambda cfg, cache: HashEmbedder(dim=32))
    )


@pytest.fixture
def two(tmp_path: Path) -> tuple[Path, Path]:
    out = []
    for name in ("alpha", "beta"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / f"{name}.md").write_text(f"# {name}\n\nThe {name} module.\n")
        out.append(folder.resolve())
    return out[0], out[1]


def _listing(data: Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    capsys.readouterr()
    assert main(["collections", "--json", "--data-dir", str(data)]) == 0
    return list(json.loads(capsys.readouterr().out))


def test_rename_then_unwatch_by_the_new_name(
    tmp_path: Path, two: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = two
    data = tmp_path / "data"
    for folder in two:
        assert main(["index", str(folder), "--collection", "hb", "--data-dir", str(data)]) == 0
    assert main(["rename-collection", "hb", CHINESE, "--data-dir", str(data)]) == 0
    assert f"collection hb is now named {CHINESE} (id hb; nothing was re-indexed)" in capsys.readouterr().out
    [info] = _listing(data, capsys)
    assert (info["id"], info["name"], info["files"]) == ("hb", CHINESE, 2)
    assert main(["collections", "--data-dir", str(data)]) == 0
    assert capsys.readouterr().out.startswith(f"{CHINESE} (id hb): 2 files")

    assert main(["unwatch-folder", CHINESE, str(b), "--data-dir", str(data)]) == 0
    out = capsys.readouterr().out
    assert f"no longer watching {b} for {CHINESE}" in out and "1 file removed, 1 unchanged" in out, out
    [info] = _listing(data, capsys)
    assert (info["files"], info["folders"]) == (1, [str(a)])
    store = LanceStore(str(data / "lancedb"))
    assert {Path(s).parent for s in store.tables("hb").sources()} == {a}
    assert (b / "beta.md").exists()
    assert load_config(data / "config.toml").collections["hb"].folders == [str(a)]


def test_refusals_are_sentences(
    tmp_path: Path, two: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = two
    data = tmp_path / "data"
    assert main(["index", str(a), "--collection", "My docs", "--data-dir", str(data)]) == 0
    assert "collection my-docs:" in capsys.readouterr().out
    assert main(["index", str(b), "--collection", "notes", "--data-dir", str(data)]) == 0
    assert main(["rename-collection", "notes", "MY DOCS", "--data-dir", str(data)]) == 2
    assert "already a collection named 'MY DOCS'" in capsys.readouterr().err
    assert main(["unwatch-folder", "my docs", str(b), "--data-dir", str(data)]) == 2
    assert f"'{b}' is not a folder of 'My docs'" in capsys.readouterr().err
    assert main(["rename-collection", "nothing", "x", "--data-dir", str(data)]) == 2
    assert "no collection named 'nothing'" in capsys.readouterr().err
