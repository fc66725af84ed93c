"""The multilingual embedder's recommendation (issue 42) from the languages recorded at indexing: real
Chinese and Hindi files indexed in real LanceDB with the embedded (English-only) embedder."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.models.languages import collection_languages, collections_advice
from cli.main import main
from indexer import LanceStore
from kimas_desktop.config import EmbeddingModelConfig
from local_models.catalog.catalog import MULTILINGUAL_EMBEDDER
from tests.app.models.multilingual_docs import write_english, write_mixed

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Collection "papers" (two Chinese files, one Hindi, one English) and "english" (two English)."""
    root = tmp_path_factory.mktemp("multilingual")
    data = root / "data"
    papers, english = write_mixed(root / "papers"), write_english(root / "english")
    for folder in (english, papers):  # English first: a library that exists is advised, not switched
        assert main(["index", str(folder), "--quiet", "--data-dir", str(data)]) == 0
    return data


def test_mostly_chinese_and_hindi_documents_get_the_recommendation(data: Path) -> None:
    store = LanceStore(str(data / "lancedb"))
    assert collection_languages(store, "papers") == {"zh": 2, "hi": 1, "en": 1}
    advice = collections_advice(store, ["papers", "english"], EmbeddingModelConfig())
    assert list(advice) == ["papers"]  # English documents: none
    assert "reads English only" in advice["papers"] and MULTILINGUAL_EMBEDDER in advice["papers"]


def test_no_recommendation_once_a_multilingual_embedder_is_in_use(data: Path) -> None:
    store = LanceStore(str(data / "lancedb"))
    assert collections_advice(store, ["papers"], EmbeddingModelConfig(name=MULTILINGUAL_EMBEDDER)) == {}
    assert collections_advice(store, ["papers"], EmbeddingModelConfig(path=str(data))) == {}  # a folder


def test_doctor_lists_the_recommendation_per_collection(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["doctor", "--data-dir", str(data)]) == 0
    lines = capsys.readouterr().out.splitlines()
    papers = next(line for line in lines if line.strip().startswith("papers: ok"))
    english = next(line for line in lines if line.strip().startswith("english: ok"))
    assert "reads English only" in papers and MULTILINGUAL_EMBEDDER in papers
    assert "Use the multilingual embedding model" in papers  # the app's one click
    assert "English only" not in english
