"""The values one sync's reader hands to its writer (``indexer.sync.ingest`` draws the whole flow): a ``Job``
(one file to read), a ``Segment`` (its next chunks), ``Done`` (its manifest record), a ``Failure``."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from indexer.chunking import ChunkDraft
from indexer.sync.manifest import FileRecord, FileStat
from indexer.tables.shelf import StoredTable
from kimas_desktop.protocols import Vector


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


@dataclass(frozen=True)
class Job:
    """One file to read this sync."""

    stat: FileStat
    previous: FileRecord | None  # its manifest record, if any
    stale: bool = False  # chunks without a record, left by a writer that was killed, may be stored

    @property
    def path(self) -> str:
        return self.stat.path

    @property
    def replaces(self) -> bool:
        """Whether chunks of an earlier version (or an unfinished sync) of this file may be stored; their
        vectors are re-used for unchanged texts."""
        return self.stale or (self.previous is not None and self.previous.chunks > 0)


@dataclass(eq=False)
class Segment:
    """The next chunks of a file; ``vectors[i]`` is None until embedded (or re-used from the store)."""

    job: Job
    drafts: list[ChunkDraft]
    vectors: list[Vector | None]
    file_hash: str
    progress: float  # share of the file read so far, for the ETA
    ocr_waiting: int = 0  # pages queued for OCR in this sync when the segment was read


@dataclass(frozen=True)
class Done:
    """A file is finished: its manifest record. ``touched``: same bytes as before, only the stat moved.
    ``tables``: the tables read from a spreadsheet or CSV, stored and waiting to be registered."""

    job: Job
    record: FileRecord
    touched: bool = False
    copied: bool = False
    tables: tuple[StoredTable, ...] = ()


@dataclass(frozen=True)
class Failure:
    error: BaseException


Item = Segment | Done | Failure
