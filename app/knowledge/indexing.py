"""What indexing looks like from the application: the seams it schedules through, and what it shows.

IndexService     the write side of the collections (``indexer.Indexer``); pause and cancel reach a
                 sync under way through its ``IndexControl`` (``kimas_desktop.control``)
FolderFeed       tells which collection changed on disk (``indexer.FolderWatcher``); never indexes
IndexingState    what indexing is doing now (polled by the UI)
Activity         one line of the indexing log: a code and its values (the UI says it in the page's language),
                 and the English sentence (the log, the CLI)
report_values    a sync's report as an ``Activity``'s values (code "report")
describe_report  the one English sentence a sync's report becomes (the log and the CLI)
describe_damage  the one sentence a damaged index becomes in the app, which rebuilds it (``IndexScheduler``)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from kimas_desktop.control import IndexControl
from kimas_desktop.errors import IndexDamagedError
from kimas_desktop.types import IndexProgress, IndexReport

__all__ = [
    "Activity",
    "FolderFeed",
    "IndexService",
    "IndexingState",
    "ProgressCallback",
    "describe_damage",
    "describe_report",
    "report_values",
]

ProgressCallback = Callable[[IndexProgress], None]


class IndexService(Protocol):
    """The write side of the collections (``indexer.Indexer``)."""

    def index(
        self,
        collection: str,
        folders: Sequence[Path],
        on_progress: ProgressCallback | None = None,
        control: IndexControl | None = None,
    ) -> IndexReport: ...

    def reembed(
        self,
        collection: str,
        folders: Sequence[Path] | None = None,
        on_progress: ProgressCallback | None = None,
        control: IndexControl | None = None,
    ) -> IndexReport:
        """Index again from the source files with the current embedder, into new tables that replace the
        old ones only once complete (the old ones keep answering meanwhile)."""
        ...

    def remove(self, collection: str) -> None: ...


class FolderFeed(Protocol):
    """Watches folders and says which collection changed (``on_change(name)``); it never indexes."""

    def watch(self, folders_by_collection: Mapping[str, Sequence[Path]]) -> None:
        """Watch exactly these folders from now on (returns at once; no change is lost meanwhile)."""
        ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class IndexingState:
    """What indexing is doing right now (``active`` False: idle)."""

    active: bool
    collection: str = ""
    trigger: str = ""
    files_done: int = 0
    files_total: int = 0
    current_file: str = ""
    eta_s: float | None = None
    started_at: float = 0.0
    waiting: tuple[str, ...] = ()  # collections queued after this one
    paused: bool = False
    ocr_pages_waiting: int = 0  # scanned pages and images still queued for OCR

    @property
    def fraction(self) -> float:
        return self.files_done / self.files_total if self.files_total else 0.0


@dataclass(frozen=True)
class Activity:
    """One line of the indexing log. ``code`` and ``values`` say what happened without words ("paused",
    "report" with its counts, …; the UI's table holds the sentences); ``text`` is the English sentence the
    log file and the CLI show."""

    at: float
    collection: str
    text: str
    kind: Literal["info", "problem", "error"] = "info"
    code: str = ""  # "": only ``text`` says it
    values: Mapping[str, str | int | float] = field(default_factory=dict)


def report_values(report: IndexReport, trigger: str = "") -> dict[str, str | int | float]:
    """A sync's report as an ``Activity``'s values: its counts, and what started it (``trigger``: "",
    "watcher", "reembedded", "repair")."""
    return {
        "indexed": report.indexed,
        "chunks": report.chunks_added,
        "deleted": report.deleted,
        "unchanged": report.unchanged,
        "skipped": report.skipped,
        "failed": report.failed,
        "seconds": round(report.seconds, 1),
        "trigger": trigger,
    }


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def describe_report(report: IndexReport) -> str:
    """'2 files indexed (14 chunks), 1 unchanged, 1 skipped in 3.1 s'."""
    parts = []
    if report.indexed:
        parts.append(f"{_plural(report.indexed, 'file')} indexed ({_plural(report.chunks_added, 'chunk')})")
    if report.deleted:
        parts.append(f"{_plural(report.deleted, 'file')} removed")
    if report.unchanged:
        parts.append(f"{report.unchanged} unchanged")
    if report.skipped:
        parts.append(f"{report.skipped} skipped")
    if report.failed:
        parts.append(f"{report.failed} failed")
    return (", ".join(parts) or "no files found") + f" in {report.seconds:.1f} s"


def describe_damage(err: IndexDamagedError) -> str:
    """What the chat says when a collection's index turned out damaged, once its rebuild is asked for."""
    what = f" ({err.what})" if err.what else ""
    return (
        f"The index of collection '{err.collection}' was damaged{what}; it is being rebuilt from its files "
        "— ask again in a moment."
    )
