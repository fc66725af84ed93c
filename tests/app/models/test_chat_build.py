"""The app while llama.cpp compiles beside it (issue 71): the model status line follows the build's status
file (``scripts/llama_build.py`` writes it), a question is answered with the quote and its sources while the
chat model is the stand-in that writes nothing (``local_models/llama/pending.py``), and when the build says
it is done the app loads the chat model and its answers start, with no restart."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from app.desktop import DesktopApp
from app.models.chat_build import BuildStatus, read_status
from app.paths import Paths
from app.runtime import Builders, Runtime
from app.settings.config_store import ConfigStore
from kimas_desktop.answer.outcome import QUOTE_START
from kimas_desktop.config import ChatModelConfig, ReaderConfig, parse_config
from kimas_desktop.errors import ModelUnavailableError
from kimas_desktop.protocols import ChatModel, Embedder, Reader
from local_models.fake import HashEmbedder, MemorySearcher, ScriptedChatModel, WordOverlapReranker
from local_models.llama.pending import PendingLlamaChatModel
from tests.rigs import ANSWER, FakeFeed, FolderIndexer, scripted, write_docs
from ui.markup import model_markdown

QUESTION = "What is the launch code of Project Heliotrope?"


def write_status(path: Path, state: str, **fields: object) -> None:
    data = {"state": state, "pid": os.getpid(), "started": time.time(), "updated": time.time()}
    path.write_text(json.dumps({**data, "log": str(path.with_suffix(".log")), **fields}), "utf-8")


def test_the_status_line_says_how_far_the_build_is_and_why_it_failed_in_the_pages_language(
    tmp_path: Path,
) -> None:
    status = tmp_path / "kimas-llama-build.json"
    assert read_status(status) is None  # no build known: the usual status line
    write_status(status, "compiling", step=45, steps=180, left_s=150.0)
    building = read_status(status)
    assert building is not None and building.phase == "building" and building.percent == 25
    state = building.model_state()
    assert state is not None and state.phase == "loading"
    assert "25% done, about 3 min left" in model_markdown(state)
    assert "已完成 25%，大约还需 3 分钟" in model_markdown(state, language="zh")
    assert "残り約 3 分" in model_markdown(state, language="ja")
    starting = BuildStatus("building").model_state()
    assert starting is not None and "starting to compile" in model_markdown(starting)
    write_status(status, "failed", error="compiler", detail="No CMAKE_CXX_COMPILER could be found.")
    failed = read_status(status)
    state = failed.model_state() if failed is not None else None
    assert state is not None and state.phase == "failed"
    line = model_markdown(state)
    assert "no C++ compiler was found: install one" in line and "CMake" in line and "scripts/run.sh" in line
    assert line.count(". ") == 0  # one sentence: why, what to install, and that answers go on meanwhile
    assert "找不到 C++ 编译器" in model_markdown(state, language="zh")
    assert "C++ कंपाइलर नहीं मिला" in model_markdown(state, language="hi")
    write_status(status, "done")
    done = read_status(status)
    assert done is not None and done.model_state() is None


def test_a_build_whose_process_is_gone_was_stopped_and_says_run_again(tmp_path: Path) -> None:
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True)
    status = tmp_path / "kimas-llama-build.json"
    write_status(status, "compiling", step=3, steps=180, left_s=300.0, pid=int(gone.stdout))
    stopped = read_status(status)
    assert stopped is not None and stopped.phase == "failed" and stopped.error == "interrupted"
    state = stopped.model_state()
    assert state is not None and "stopped before it finished: run scripts/run.sh again" in state.message


class Llama:
    """The chat builder the runtime uses: the stand-in until the build installs llama.cpp, then the model
    (``build_chat_model``'s choice, with ``installed`` for ``llama_installed()``)."""

    def __init__(self) -> None:
        self.installed = threading.Event()
        self.model = ScriptedChatModel(scripted())
        self.built: list[str] = []

    def __call__(self, cfg: ChatModelConfig) -> ChatModel:
        chat: ChatModel = self.model if self.installed.is_set() else PendingLlamaChatModel(cfg)
        self.built.append(type(chat).__name__)
        return chat

    def reader(self, cfg: ReaderConfig, embedder: Embedder, cache: Path) -> Reader | None:
        """A GGUF reader as ``build_reader`` gives it: none (logged) until llama.cpp is installed."""
        return GgufReader() if self.installed.is_set() else None


class GgufReader:
    """Reads every text as answering (what it reads is not this test's subject: that it is used is)."""

    model_id = "llama/reader.gguf"

    def __init__(self) -> None:
        self.asked: list[str] = []

    def read(self, question: str, texts: Sequence[str]) -> list[float]:
        self.asked.append(question)
        return [1.0] * len(texts)

    def close(self) -> None:
        """Nothing to release."""


def desktop(tmp_path: Path, llama: Llama, status: Path, **config: object) -> DesktopApp:
    embedder = HashEmbedder()
    searcher = MemorySearcher(embedder)
    builders = Builders(
        chat=llama,
        embedder=lambda c, cache: embedder,
        reranker=lambda c, e, cache: WordOverlapReranker(),
        store=lambda c, d: searcher,  # type: ignore[arg-type,return-value]
        indexer=lambda st, e, c: FolderIndexer(searcher),
        watcher=FakeFeed,
        reader=llama.reader,
    )
    data = tmp_path / "data"
    data.mkdir()
    cfg = parse_config({"preset": "full", **config})
    paths = Paths(data, data / "config.toml")
    desk = DesktopApp(Runtime(paths, cfg, builders), ConfigStore(paths.config_file, cfg), status)
    assert desk.add_uploads("docs", [(write_docs(tmp_path / "t") / "heliotrope.pdf", "heliotrope.pdf")]).ok
    return desk


def wait_until(ok: object, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not ok():  # type: ignore[operator]
        if time.monotonic() > deadline:
            pytest.fail("timed out")
        time.sleep(0.05)


def test_while_llama_cpp_builds_the_chat_quotes_and_when_it_is_done_the_model_answers_without_a_restart(
    tmp_path: Path,
) -> None:
    llama, status = Llama(), tmp_path / "kimas-llama-build.json"
    write_status(status, "compiling", step=60, steps=180, left_s=200.0)
    gguf_reader = {"reader": {"model": "reader.gguf"}, "grounding": {"reader_weight": 1.0}}
    desk = desktop(tmp_path, llama, status, **gguf_reader)
    try:
        desk.start(sync=False)
        wait_until(lambda: desk.indexing.idle() and desk.model_loading.state().phase == "ready")
        assert "Preparing the chat model" in desk.model_state().message  # not "Ready": the model is not
        turn = list(desk.chat.ask(desk.chat.new_conversation(), QUESTION))[-1]
        assert turn.state == "done" and turn.quotes and "PURPLE-OTTER-42" in turn.quotes[0].text
        assert turn.answer.startswith(QUOTE_START) and "PURPLE-OTTER-42" in turn.answer
        assert [c.chunk.file_name for c in turn.citations] == ["heliotrope.pdf"]
        assert llama.model.calls == [] and llama.built == ["PendingLlamaChatModel"]

        llama.installed.set()  # the wheel is in; then the build says so
        write_status(status, "done")
        wait_until(lambda: desk.model_state().phase == "ready" and "ScriptedChatModel" in llama.built)
        assert desk.model_state().message.startswith("Ready:")
        turn = list(desk.chat.ask(desk.chat.new_conversation(), QUESTION))[-1]
        assert turn.state == "done" and ANSWER.split(" [")[0] in turn.answer  # the model wrote it
        assert llama.model.calls and llama.built == ["PendingLlamaChatModel", "ScriptedChatModel"]
        reader = desk.runtime.reader(desk.config)  # the GGUF reader chosen during the build reads now
        assert isinstance(reader, GgufReader) and reader.asked, reader
    finally:
        desk.close()


def test_the_stand_in_writes_nothing_and_counts_tokens_generously() -> None:
    pending = PendingLlamaChatModel(ChatModelConfig())
    pending.warm_up()  # nothing to load
    assert not pending.describe().judges
    with pytest.raises(ModelUnavailableError) as err:
        pending.complete([])
    assert err.value.code == "chat_model_not_ready"
    for text in (
        "The launch code is PURPLE-OTTER-42.",
        "项目的发射代码是紫色水獭。",
        "परियोजना का कोड बैंगनी है।",
    ):
        assert pending.count_tokens(text) >= len(text) / 4
