"""Fixtures for the indexer tests: LanceDB in tmp_path and the deterministic ``HashEmbedder`` (its tokens
are words)."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer import Indexer, LanceStore
from local_models.fake import HashEmbedder
from tests.indexer.files import small_config


@pytest.fixture
def embedder() -> HashEmbedder:
    return HashEmbedder(dim=64)


@pytest.fixture
def store(tmp_path: Path) -> LanceStore:
    return LanceStore(str(tmp_path / "db"))


@pytest.fixture
def indexer(store: LanceStore, embedder: HashEmbedder) -> Indexer:
    return Indexer(store, embedder, small_config())
