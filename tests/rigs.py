"""A ``DesktopApp`` on deterministic fakes, built through the real ``Runtime`` with fake ``Builders``:
MemorySearcher + HashEmbedder + ScriptedChatModel, an indexer that makes one chunk per text file, and a
folder feed the test fires by hand."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.desktop import DesktopApp
from app.paths import Paths
from app.runtime import Builders, Runtime
from app.settings.config_store import ConfigStore
from kimas_desktop.config import ChatModelConfig, parse_config
from kimas_desktop.control import CancelToken, IndexControl
from kimas_desktop.errors import CollectionNotFoundError
from kimas_desktop.protocols import ChatModel
from kimas_desktop.types import Chunk, IndexProgress, IndexReport, Message
from local_models.fake import HashEmbedder, MemorySearcher, ScriptedChatModel, WordOverlapReranker

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
    """Streams one word every ``delay_s``; remembers whether its stream was closed (``stream_closed``: model released)."""

    def __init__(self, answer: str, delay_s: float = 0.05) -> None:
        super().__init__(scripted(answer))
        self.delay_s = delay_s
        self.stream_closed = threading.Event()
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
            self.stream_closed.set()


class FolderIndexer:
    """One chunk per file (its text, page 1 for .pdf names, lines otherwise). ``gate`` pauses each file."""

    def __init__(self, searcher: MemorySearcher) -> None:
        self.searcher = searcher
        self.gate: threading.Event | None = None
        self.calls: list[tuple[str, list[Path]]] = []
        self.removed: list[str] = []
        self.reembedded: list[str] = []

    def index(
        self,
        collection: str,
        folders: Sequence[Path],
        on_progress: Callable[[IndexProgress], None] | None = None,
        control: IndexControl | None = None,
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
            if control is not None:
                control.checkpoint()  # between files, as the real indexer
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

    def reembed(
        self,
        collection: str,
        folders: Sequence[Path] | None = None,
        on_progress: Callable[[IndexProgress], None] | None = None,
        control: IndexControl | None = None,
    ) -> IndexReport:
        self.reembedded.append(collection)
        return self.index(collection, folders or [], on_progress, control)

    def remove(self, collection: str) -> None:
        if collection not in self.searcher.chunks:
            raise CollectionNotFoundError(collection)
        self.removed.append(collection)
        del self.searcher.chunks[collection]


@dataclass
class FakeFeed:
    """The folder watcher's seam: the test says which collection changed on disk."""

    on_change: Callable[[str], None]
    folders: dict[str, list[Path]] = field(default_factory=dict)
    closed: bool = False

    def watch(self, folders_by_collection: Mapping[str, Sequence[Path]]) -> None:
        self.folders = {k: list(v) for k, v in folders_by_collection.items()}

    def close(self) -> None:
        self.closed = True

    def edit(self, collection: str) -> None:
        self.on_change(collection)


@dataclass
class Rig:
    session: DesktopApp
    searcher: MemorySearcher
    indexer: FolderIndexer
    chat: ScriptedChatModel
    data_dir: Path
    feeds: list[FakeFeed] = field(default_factory=list)
    warm_gate: threading.Event = field(default_factory=threading.Event)
    warm_error: list[BaseException] = field(default_factory=list)

    @property
    def watcher(self) -> FakeFeed:
        return self.feeds[-1]

    def wait_idle(self, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while not self.session.indexing.idle():
            if time.monotonic() > deadline:
                raise AssertionError(f"indexing did not finish: {self.session.indexing.state()}")
            time.sleep(0.01)


class _GatedChat:
    """Loading waits for the rig's gate (and may fail as the test says); the rest is the scripted chat."""

    def __init__(self, chat: ScriptedChatModel, rig: dict[str, Rig]) -> None:
        self._chat, self._rig = chat, rig

    def warm_up(self) -> None:
        rig = self._rig["rig"]
        rig.warm_gate.wait(10)
        if rig.warm_error:
            raise rig.warm_error.pop(0)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._chat, name)


def make_rig(
    tmp_path: Path,
    *,
    chat: ScriptedChatModel | None = None,
    config: dict[str, Any] | None = None,
    chat_builder: Callable[[ChatModelConfig], ChatModel] | None = None,
    warm_gate_open: bool = True,
) -> Rig:
    embedder = HashEmbedder()
    searcher = MemorySearcher(embedder)
    indexer = FolderIndexer(searcher)
    chat = chat or ScriptedChatModel(scripted())
    data_dir = tmp_path / "data"
    data_dir.mkdir(parents=True, exist_ok=True)
    cfg = parse_config({"preset": "full", **(config or {})})
    holder: dict[str, Rig] = {}
    gated = _GatedChat(chat, holder)

    def feed(on_change: Callable[[str], None]) -> FakeFeed:
        f = FakeFeed(on_change)
        holder["rig"].feeds.append(f)
        return f

    builders = Builders(
        chat=chat_builder or (lambda c: gated),  # type: ignore[arg-type,return-value]
        embedder=lambda c, cache: embedder,
        reranker=lambda c, e, cache: WordOverlapReranker(),
        store=lambda c, d: searcher,  # type: ignore[arg-type,return-value]
        indexer=lambda st, e, c: indexer,
        watcher=feed,
    )
    paths = Paths(data_dir, data_dir / "config.toml")
    session = DesktopApp(Runtime(paths, cfg, builders), ConfigStore(paths.config_file, cfg))
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


def indexed_rig(tmp_path: Path, **kw: Any) -> Rig:
    """``make_rig(tmp_path, **kw)`` with the collection "docs" holding the Heliotrope file, indexed."""
    rig = make_rig(tmp_path, **kw)
    assert rig.session.add_uploads(
        "docs", [(write_docs(tmp_path / "t") / "heliotrope.pdf", "heliotrope.pdf")]
    ).ok
    rig.wait_idle()
    return rig
