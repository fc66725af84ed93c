"""A ``DesktopSession`` on deterministic fakes: MemorySearcher + HashEmbedder + ScriptedChatModel, an
indexer that makes one chunk per text file, and a watcher the test fires by hand."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kimas_desktop.cancel import CancelToken
from kimas_desktop.config import Config, parse_config
from kimas_desktop.errors import CollectionNotFoundError
from kimas_desktop.index_jobs import IndexService
from kimas_desktop.pipeline import Pipeline
from kimas_desktop.session import Backends, DesktopSession
from kimas_desktop.types import Chunk, IndexProgress, IndexReport, Message
from local_models.fake import HashEmbedder, ScriptedChatModel, WordOverlapReranker
from tests.fakes import MemorySearcher

ANSWER = "The launch code is PURPLE-OTTER-42 [1]."


def scripted(answer: str = ANSWER) -> Callable[[Sequence[Message], Mapping[str, Any] | None], str]:
    """Free text → ``answer``; the agentic judge → sufficient; look-back citations → source 1."""

    def reply(messages: Sequence[Message], schema: Mapping[str, Any] | None) -> str:
        if schema is None:
            return answer
        key = schema["required"][0]
        if key == "sources":
            return json.dumps({"sources": [1]})
        if key == "is_sufficient":
            return json.dumps({"is_sufficient": True, "missing_info": "", "queries": []})
        return json.dumps({key: ""})

    return reply


class SlowChat(ScriptedChatModel):
    """Streams one word every ``delay_s``; remembers whether its stream was closed (model released)."""

    def __init__(self, answer: str, delay_s: float = 0.05) -> None:
        super().__init__(scripted(answer))
        self.delay_s = delay_s
        self.closed = threading.Event()
        self.started = threading.Event()

    def stream(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        cancel: CancelToken | None = None,
    ) -> Iterator[str]:
        try:
            for word in super().stream(
                messages, max_tokens=max_tokens, temperature=temperature, cancel=cancel
            ):
                self.started.set()
                time.sleep(self.delay_s)
                yield word
        finally:
            self.closed.set()


class FolderIndexer:
    """One chunk per file (its text, page 1 for .pdf names, lines otherwise). ``gate`` pauses each file."""

    def __init__(self, searcher: MemorySearcher) -> None:
        self.searcher = searcher
        self.gate: threading.Event | None = None
        self.calls: list[tuple[str, list[Path]]] = []
        self.removed: list[str] = []

    def index(
        self,
        collection: str,
        folders: Sequence[Path],
        on_progress: Callable[[IndexProgress], None] | None = None,
    ) -> IndexReport:
        self.calls.append((collection, list(folders)))
        files = sorted(p for f in folders for p in Path(f).rglob("*") if p.is_file())
        chunks = []
        for i, path in enumerate(files):
            if on_progress is not None:
                on_progress(
                    IndexProgress(collection, i, len(files), str(path), i, 1.0, float(len(files) - i))
                )
            if self.gate is not None:
                self.gate.wait(10)
            text = path.read_text("utf-8", errors="replace")
            pdf = path.suffix == ".pdf"
            chunks.append(
                Chunk(
                    f"{collection}:{path}",
                    collection,
                    str(path),
                    text,
                    page=1 if pdf else None,
                    line_start=None if pdf else 1,
                    line_end=None if pdf else max(1, text.count("\n")),
                )
            )
        self.searcher.chunks[collection] = chunks
        return IndexReport(collection, len(files), 0, 0, 0, 0, len(chunks), 0.01)

    def remove(self, collection: str) -> None:
        if collection not in self.searcher.chunks:
            raise CollectionNotFoundError(collection)
        self.removed.append(collection)
        del self.searcher.chunks[collection]


@dataclass
class FakeWatcher:
    folders: dict[str, list[Path]]
    on_report: Callable[[IndexReport], None]
    service: IndexService
    running: bool = False

    def start(self) -> None:
        self.running = True

    def stop(self) -> None:
        self.running = False

    def edit(self, collection: str) -> IndexReport:
        """What the real watcher does after a file changes: sync through the service, then report."""
        report = self.service.index(collection, self.folders[collection])
        self.on_report(report)
        return report


@dataclass
class Rig:
    session: DesktopSession
    searcher: MemorySearcher
    indexer: FolderIndexer
    chat: ScriptedChatModel
    data_dir: Path
    watchers: list[FakeWatcher] = field(default_factory=list)
    warm_gate: threading.Event = field(default_factory=threading.Event)
    warm_error: list[BaseException] = field(default_factory=list)

    @property
    def watcher(self) -> FakeWatcher:
        return self.watchers[-1]

    def wait_idle(self, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while self.session.indexing_state().active or self.session.indexing_state().waiting:
            if time.monotonic() > deadline:
                raise AssertionError(f"indexing did not finish: {self.session.indexing_state()}")
            time.sleep(0.01)
        time.sleep(0.02)


def make_rig(
    tmp_path: Path,
    *,
    chat: ScriptedChatModel | None = None,
    config: dict[str, Any] | None = None,
    pipeline: Callable[[Config], Pipeline] | None = None,
    warm_gate_open: bool = True,
) -> Rig:
    embedder = HashEmbedder()
    searcher = MemorySearcher(embedder)
    indexer = FolderIndexer(searcher)
    chat = chat or ScriptedChatModel(scripted())
    data_dir = tmp_path / "data"
    data_dir.mkdir(parents=True)
    cfg = parse_config({"preset": "full", **(config or {})})
    holder: dict[str, Rig] = {}

    def build_pipeline(c: Config) -> Pipeline:
        return Pipeline(
            config=c, chat=chat, embedder=embedder, reranker=WordOverlapReranker(), searcher=searcher,
            small_model=True,
        )  # fmt: skip

    def watcher(
        c: Config,
        service: IndexService,
        folders: Mapping[str, Sequence[Path]],
        on_report: Callable[[IndexReport], None],
    ) -> FakeWatcher:
        w = FakeWatcher({k: list(v) for k, v in folders.items()}, on_report, service)
        holder["rig"].watchers.append(w)
        return w

    def warm_up(c: Config) -> None:
        rig = holder["rig"]
        rig.warm_gate.wait(10)
        if rig.warm_error:
            raise rig.warm_error.pop(0)

    backends = Backends(
        searcher=searcher,
        index_service=lambda c: indexer,
        watcher=watcher,
        pipeline=pipeline or build_pipeline,
        warm_up=warm_up,
    )
    session = DesktopSession(
        config=cfg, config_path=data_dir / "config.toml", data_dir=data_dir, backends=backends
    )
    rig = Rig(session, searcher, indexer, chat, data_dir)
    holder["rig"] = rig
    if warm_gate_open:
        rig.warm_gate.set()
    return rig


def write_docs(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "notes.md").write_text("# Notes\n\nThe office plants are watered on Mondays.\n", "utf-8")
    (folder / "heliotrope.pdf").write_text(
        "The launch code of Project Heliotrope is PURPLE-OTTER-42.", "utf-8"
    )  # the fake indexer reads text; only the name says PDF
    return folder
