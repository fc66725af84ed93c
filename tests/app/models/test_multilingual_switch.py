"""The one click to the multilingual embedder (issue 42): fetched when not on disk, switched the Settings
tab's way, the collections re-embedded in the background.

The target is the embedded multilingual-e5-small (issue 56): installed with the app, so the switch needs no
download; the end-to-end test switches to it for real. No model hub is reachable here: the offline test
points the switch at a catalog model that must be downloaded, and a hub address where nothing listens."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from app.desktop import DesktopApp
from app.paths import Paths
from app.runtime import Runtime, real_builders
from app.settings.config_store import ConfigStore
from kimas_desktop.config import load_config, parse_config
from local_models.catalog.catalog import MULTILINGUAL_EMBEDDER
from local_models.embedders.e5_embedded import E5_MODEL_ID
from local_models.fake import ScriptedChatModel, WordOverlapReranker
from tests.app.models.multilingual_docs import write_mixed
from tests.rigs import make_rig
from ui.knowledge import handlers as kh
from ui.markup import esc

HUB_MODEL = "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2"


def wait_for(condition: Callable[[], bool], timeout: float = 120.0) -> bool:
    """Polls a state until it holds (a guard, not a pace: it returns as soon as it does)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def _real_desk(tmp_path: Path) -> DesktopApp:
    """The embedded embedder (int8) and real LanceDB over Chinese, Hindi and English files; a scripted chat
    model and the word-overlap reranker (not what this test is about)."""
    builders = replace(
        real_builders(),
        chat=lambda cfg: ScriptedChatModel(lambda messages, schema: "{}"),
        reranker=lambda cfg, emb, cache: WordOverlapReranker(),
    )
    docs = write_mixed(tmp_path / "papers")
    config = parse_config({"collections": {"papers": {"folders": [str(docs)]}}})
    data = tmp_path / "data"
    paths = Paths(data, data / "config.toml")
    return DesktopApp(Runtime(paths, config, builders), ConfigStore(paths.config_file, config))


@pytest.mark.slow
def test_one_click_switches_the_embedder_and_re_embeds_in_the_background(tmp_path: Path) -> None:
    desk = _real_desk(tmp_path)
    try:
        desk.start()
        assert wait_for(lambda: [c.chunks > 0 for c in desk.knowledge.collections()] == [True])
        assert desk.knowledge.collections()[0].embedding_model == "local/all-MiniLM-L6-v2-int8"
        assert "Most of these documents are not in English" in kh.collections_view(desk)
        assert kh.multilingual_status(desk)[0]  # the button shows
        assert desk.multilingual.target == MULTILINGUAL_EMBEDDER

        assert "Switching" in kh.multilingual_switch(desk)
        assert wait_for(lambda: desk.multilingual.state().phase == "done"), desk.multilingual.state()
        assert "Re-embedding papers" in desk.multilingual.state().message
        assert load_config(desk.config_path).embedding.name == MULTILINGUAL_EMBEDDER  # saved once it loaded
        assert wait_for(
            lambda: (
                [c.embedding_model for c in desk.knowledge.collections()] == [E5_MODEL_ID]
                and not desk.knowledge.collections()[0].needs_reembedding
            )
        ), desk.knowledge.collections()
        assert kh.multilingual_status(desk)[0] is False  # the catalog says it reads about 100 languages
        assert "not in English" not in kh.collections_view(desk)

        embedder = desk.runtime.embedder(desk.config)
        for question in ("KAG框架", "What does the KAG framework build on top of a knowledge graph?"):
            hits = desk.runtime.store(desk.config).search(
                "papers", text=question, vector=embedder.embed_query([question])[0], k=3, mode="vector"
            )
            assert hits and Path(hits[0].chunk.source).name == "kag.zh.txt", (question, hits[:1])
    finally:
        desk.close()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_offline_a_download_fails_once_and_changes_nothing(tmp_path: Path) -> None:
    rig = make_rig(tmp_path)
    desk = rig.session
    desk.config_store.update(lambda c: c)  # the config file as the app writes it
    before = desk.config_path.read_text("utf-8")
    desk.multilingual.base_url = f"http://127.0.0.1:{_closed_port()}"  # the hub cannot be reached
    desk.multilingual.target = HUB_MODEL  # a catalog model that must be downloaded
    phases: list[str] = []

    desk.multilingual.start()
    assert wait_for(lambda: phases.append(desk.multilingual.state().phase) or phases[-1] == "failed")
    state = desk.multilingual.state()
    assert state.message.startswith(f"Could not download {HUB_MODEL}")
    assert "Nothing was changed" in state.message
    assert kh.multilingual_status(desk)[1] == f"⚠ {esc(state.message)}"  # what the Knowledge tab shows
    assert set(phases) <= {"switching", "downloading", "failed"}  # never "done", never a load
    assert desk.config_path.read_text("utf-8") == before
    assert desk.config.embedding.name == "" and desk.config.embedding.path == ""
    assert desk.model_state().phase != "failed"  # no model load was tried
    assert not (
        desk.runtime.paths.models_cache
        / "models--Qdrant--paraphrase-multilingual-MiniLM-L12-v2-onnx-Q"
        / "snapshots"
        / "kimas"
        / "model_optimized.onnx"
    ).exists()
    desk.close()
