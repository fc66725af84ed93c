"""The runtime closes every model it built, through ``close()`` in the model protocols: the one a
config switch evicts, the ones built for a switch that failed, and all of them when it closes."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from app.paths import Paths
from app.runtime import Runtime, real_builders
from kimas_desktop.config import Config
from kimas_desktop.errors import ModelError
from kimas_desktop.protocols import ChatModel, Embedder, Reranker
from local_models.fake import HashEmbedder, MemorySearcher, ScriptedChatModel, WordOverlapReranker


class Built:
    """The fakes the runtime built, in order, per role."""

    def __init__(self) -> None:
        self.chats: list[ScriptedChatModel] = []
        self.embedders: list[HashEmbedder] = []
        self.rerankers: list[WordOverlapReranker] = []


def runtime(tmp_path: Path, built: Built) -> Runtime:
    def chat(cfg: object) -> ScriptedChatModel:
        built.chats.append(ScriptedChatModel())
        return built.chats[-1]

    def embedder(cfg: object, cache: Path) -> HashEmbedder:
        built.embedders.append(HashEmbedder())
        return built.embedders[-1]

    def reranker(cfg: object, emb: object, cache: Path) -> WordOverlapReranker:
        built.rerankers.append(WordOverlapReranker())
        return built.rerankers[-1]

    builders = replace(
        real_builders(),
        meaning=None,
        chat=chat,
        embedder=embedder,
        reranker=reranker,
        store=lambda cfg, data: MemorySearcher(HashEmbedder()),  # type: ignore[arg-type,return-value]
    )
    return Runtime(Paths(tmp_path, tmp_path / "config.toml"), Config(), builders)


def test_the_fakes_are_models_with_close() -> None:
    assert isinstance(ScriptedChatModel(), ChatModel)
    assert isinstance(HashEmbedder(), Embedder)
    assert isinstance(WordOverlapReranker(), Reranker)


def test_a_switch_closes_each_evicted_model_once_and_close_closes_the_rest(tmp_path: Path) -> None:
    built = Built()
    rt = runtime(tmp_path, built)
    first = rt.config
    rt.chat(first), rt.embedder(first), rt.reranker(first)
    other = first.updated(chat={"seed": 7}, embedding={"batch_size": 8}, rerank={"semantic_weight": 0.5})
    rt.load(other)
    assert len(built.chats) == len(built.embedders) == len(built.rerankers) == 2
    rt.close()  # also waits for the evicted ones' closing threads
    old = [built.chats[0], built.embedders[0], built.rerankers[0]]
    new = [built.chats[1], built.embedders[1], built.rerankers[1]]
    assert [m.closed for m in old] == [1, 1, 1]
    assert [m.closed for m in new] == [1, 1, 1]


def test_a_failed_switch_closes_what_it_built_and_keeps_what_is_in_use(tmp_path: Path) -> None:
    built = Built()
    rt = runtime(tmp_path, built)
    first = rt.config
    in_use = rt.chat(first), rt.embedder(first)

    def refuse() -> None:
        raise ModelError("the config could not be saved")

    with pytest.raises(ModelError):
        rt.load(first.updated(chat={"seed": 7}, embedding={"batch_size": 8}), commit=refuse)
    assert [built.chats[1].closed, built.embedders[1].closed] == [1, 1]
    assert rt.chat(first) is in_use[0] and rt.embedder(first) is in_use[1]
    assert [m.closed for m in in_use] == [0, 0]
    rt.close()


def test_a_model_whose_close_fails_does_not_stop_the_others_closing(tmp_path: Path) -> None:
    built = Built()
    rt = runtime(tmp_path, built)
    config = rt.config
    embedder, chat = rt.embedder(config), rt.chat(config)  # closed in reverse: the chat model first

    def broken() -> None:
        raise ModelError("the worker would not stop")

    chat.close = broken  # type: ignore[method-assign]
    rt.close()
    assert embedder.closed == 1  # type: ignore[attr-defined]
