"""Switching models in a running app (``DesktopApp`` → ``Runtime.load``): a new embedder starts the
re-embedding of collections built with the old one, on the real indexer and LanceDB."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from app.desktop import DesktopApp
from app.paths import Paths
from app.runtime import Builders, Runtime, real_builders
from app.settings.config_store import ConfigStore
from kimas_desktop.config import Config, load_config, parse_config
from local_models.fake import HashEmbedder, ScriptedChatModel, WordOverlapReranker
from tests.indexer.files import write
from tests.indexer.sync.test_reembed import OtherEmbedder


def wait_for(condition: Callable[[], bool], timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


@dataclass(frozen=True)
class TwoEmbedders:
    """Collection ``c`` over one Markdown file in ``docs``, and builders with two embedders of the same
    dimension: ``""`` (the configured one) and ``"other"`` (a switch to it needs re-embedding)."""

    embedders: dict[str, HashEmbedder]
    builders: Builders
    docs: Path
    config: Config
    paths: Paths


def two_embedders(tmp_path: Path) -> TwoEmbedders:
    embedders: dict[str, HashEmbedder] = {"": HashEmbedder(dim=64), "other": OtherEmbedder(dim=64)}
    builders = replace(
        real_builders(),
        meaning=None,
        embedder=lambda cfg, cache: embedders[cfg.name],
        chat=lambda cfg: ScriptedChatModel(lambda messages, schema: "{}"),
        reranker=lambda cfg, emb, cache: WordOverlapReranker(),
    )
    docs = tmp_path / "docs"
    write(docs / "a.md", "# Plants\n\nThe office plants are watered on Mondays.")
    data = tmp_path / "data"
    config = parse_config({"collections": {"c": {"folders": [str(docs)]}}})
    return TwoEmbedders(embedders, builders, docs, config, Paths(data, data / "config.toml"))


def test_a_new_embedder_loads_then_is_saved_and_the_collections_are_re_embedded(tmp_path: Path) -> None:
    two = two_embedders(tmp_path)
    embedders, builders, config, paths = two.embedders, two.builders, two.config, two.paths
    desk = DesktopApp(Runtime(paths, config, builders), ConfigStore(paths.config_file, config))
    try:
        desk.start()
        assert wait_for(lambda: desk.model_state().phase == "ready")
        assert wait_for(lambda: [s.chunks > 0 for s in desk.knowledge.collections()] == [True])
        out = desk.settings.save(replace(desk.settings.form(), embedding_model="other"))
        assert out.ok and "Loading the model" in out.message, out.message
        assert wait_for(lambda: desk.model_state().phase == "ready"), desk.model_state()
        assert "Re-embedding c with the new embedding model" in desk.model_state().message
        assert load_config(paths.config_file).embedding.name == "other"  # saved once it loaded
        assert desk.runtime.embedder(desk.config) is embedders["other"]
        # Without a re-embedding it would stay 'needs re-embedding' (test_runtime: the switch is detected);
        # the one the switch started completes.
        assert wait_for(lambda: not desk.knowledge.collections()[0].needs_reembedding, 60)
    finally:
        desk.close()


def test_an_update_that_changes_the_embedder_re_embeds_on_the_start_up_sync(tmp_path: Path) -> None:
    """A release whose default embedder differs (issue 28's int8) finds collections built with the old one:
    the start-up sync re-embeds them instead of stopping with 'needs re-embedding'."""
    two = two_embedders(tmp_path)
    builders, config, paths = two.builders, two.config, two.paths
    desk = DesktopApp(Runtime(paths, config, builders), ConfigStore(paths.config_file, config))
    try:
        desk.start()
        assert wait_for(lambda: [s.chunks > 0 for s in desk.knowledge.collections()] == [True])
    finally:
        desk.close()
    updated = config.updated(embedding={"name": "other"})
    desk = DesktopApp(Runtime(paths, updated, builders), ConfigStore(paths.config_file, updated))
    try:
        desk.start()
        assert wait_for(lambda: not desk.knowledge.collections()[0].needs_reembedding, 60)
        c = desk.knowledge.collections()[0]
        assert c.chunks > 0 and c.files == 1
        assert wait_for(
            lambda: any(
                a.text.startswith("Re-embedded with the embedding model in use: 1 file")
                for a in desk.indexing.activity()
            )
        ), desk.indexing.activity()
        assert not [a for a in desk.indexing.activity() if a.kind == "error"]
    finally:
        desk.close()
