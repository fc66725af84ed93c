"""The one composition root: parts kept per config section, what a new config evicts is closed, and a
Settings switch of the chat model frees the old one (the real embedded model, its worker process)."""

from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path

import pytest

from app.desktop import DesktopApp
from app.paths import Paths
from app.runtime import Runtime, real_builders
from app.settings.config_store import ConfigStore
from bench.machine import tree_rss
from kimas_desktop.config import ChatModelConfig, Config, parse_config
from local_models.fake import HashEmbedder, MemorySearcher, ScriptedChatModel, WordOverlapReranker


class ClosingChat(ScriptedChatModel):
    def __init__(self, cfg: ChatModelConfig) -> None:
        super().__init__(lambda messages, schema: "ok")
        self.cfg = cfg
        self.closed = False

    def close(self) -> None:
        self.closed = True


def fake_runtime(tmp_path: Path, built: list[ClosingChat]) -> Runtime:
    embedder = HashEmbedder()

    def chat(cfg: ChatModelConfig) -> ClosingChat:
        built.append(ClosingChat(cfg))
        return built[-1]

    builders = replace(
        real_builders(),
        meaning=None,
        chat=chat,
        embedder=lambda cfg, cache: embedder,
        reranker=lambda cfg, emb, cache: WordOverlapReranker(),
        store=lambda cfg, data: MemorySearcher(embedder),  # type: ignore[arg-type,return-value]
    )
    return Runtime(Paths(tmp_path, tmp_path / "config.toml"), Config(), builders)


def wait_for(condition, timeout: float = 10.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def test_parts_are_kept_per_section_and_what_is_evicted_is_closed(tmp_path: Path) -> None:
    built: list[ClosingChat] = []
    rt = fake_runtime(tmp_path, built)
    first = rt.config
    pipeline = rt.pipeline(first)
    embedder = rt.embedder(first)
    turbo = parse_config({**first.model_dump(), "preset": "turbo"})
    assert rt.pipeline(turbo) is not pipeline  # another config: another pipeline ...
    assert len(built) == 1 and rt.embedder(turbo) is embedder  # ... on the same models
    assert wait_for(lambda: pipeline._pool._shutdown)  # the evicted pipeline was closed
    other = first.updated(chat={"seed": 7})
    assert rt.chat(other) is built[1] and rt.embedder(other) is embedder
    assert wait_for(lambda: built[0].closed)  # the old chat model was closed
    rt.close()
    assert built[1].closed


@pytest.mark.slow
def test_a_settings_switch_of_the_chat_model_frees_the_old_one(tmp_path: Path) -> None:
    from local_models.embedders.embedded import smollm2_path

    gguf = tmp_path / "copy-of-smollm2.gguf"  # another chat model file (the same bytes: the same size)
    gguf.write_bytes(smollm2_path().read_bytes())
    data = tmp_path / "data"
    config = parse_config({"chat": {"n_ctx": 2048}})
    builders = replace(real_builders(), embedder=lambda cfg, cache: HashEmbedder())
    paths = Paths(data, data / "config.toml")
    desk = DesktopApp(Runtime(paths, config, builders), ConfigStore(paths.config_file, config))
    try:
        desk.start(sync=False)
        assert wait_for(lambda: desk.model_state().phase == "ready", 120), desk.model_state()
        old = desk.runtime.chat(desk.config)
        old_pid = old.worker_pid()  # type: ignore[attr-defined]
        assert old_pid is not None
        started = tree_rss(os.getpid())
        worker = tree_rss(old_pid)

        out = desk.settings.save(replace(desk.settings.form(), chat_model_path=str(gguf)))
        assert out.ok and "Loading the model" in out.message, out.message
        assert wait_for(lambda: desk.model_state().phase == "ready", 120), desk.model_state()
        new_pid = desk.runtime.chat(desk.config).worker_pid()  # type: ignore[attr-defined]
        assert new_pid is not None and new_pid != old_pid
        assert wait_for(lambda: not Path(f"/proc/{old_pid}").exists() or _zombie(old_pid), 30)
        after = tree_rss(os.getpid())
        # Both models loaded would add a whole worker; freed, the tree is back near its start-up size.
        print(
            f"RSS tree MB: start-up {started / 1e6:.0f}, old worker {worker / 1e6:.0f}, after switch {after / 1e6:.0f}"
        )
        assert after < started + worker / 2, (started, worker, after)
    finally:
        desk.close()


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_an_embedding_switch_shows_needs_reembedding_in_the_app(tmp_path: Path) -> None:
    """The Runtime hands the store the configured embedder, so the Knowledge tab (not only ``kimas
    collections``) tells a collection built with another model of the same dimension."""
    from kimas_desktop.trace import ReembedStage
    from tests.app.settings.test_model_switch import two_embedders

    two = two_embedders(tmp_path)
    config, paths, docs = two.config, two.paths, two.docs
    rt = Runtime(paths, config, two.builders)
    try:
        rt.indexer(config).index("c", [docs])
        knowledge = DesktopApp(rt, ConfigStore(paths.config_file, config)).knowledge
        assert [s.needs_reembedding for s in knowledge.collections()] == [False]
        switched = config.updated(embedding={"name": "other"})
        [info] = rt.store(switched).collections()
        assert info.needs_reembedding
        trace = rt.pipeline(switched).retrieve("When are the plants watered?").trace
        stale = trace.find(ReembedStage)
        assert stale is not None and stale.collections == ("c",)  # the answer trace says so too
        assert rt.pipeline(config).retrieve("When are the plants watered?").trace.find(ReembedStage) is None
        assert not rt.store(config).collections()[0].needs_reembedding  # and back
    finally:
        rt.close()
