"""``GuardedZip``: the one door every zip-based format (.docx, .pptx, .epub, .odt, and later .xlsx, .ods)
goes through, so a zip bomb is refused before it is inflated.

A zip's central directory declares each member's inflated size. Before anything is read, the archive is
refused (``ZipBomb``, a ``SkipFile`` whose text is the reason shown in the file list) when it has too many
members, when one member declares more than ``max_member_mb``, when all of them together declare more than
``max_inflated_mb``, or when a markup member (XML, XHTML) over a few MB inflates more than ``max_ratio``
times its compressed size (text XML compresses 5 to 30 times; a bomb a thousand times). Declared sizes
can lie, so members are read only through a stream that counts what it inflates and stops at the limits,
whatever the header said; ``verify`` streams every member once that way (in constant memory) before a
library that reads the archive itself (python-docx, python-pptx) gets it. Limits come from ``[indexer]``
in config.toml.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from typing import IO

from indexer.parse.blocks import SkipFile

__all__ = ["GuardedZip", "ZipBomb", "ZipLimits"]

MAX_MEMBERS = 20_000  # a real document has tens to a few thousand parts
RATIO_FROM_BYTES = 4 * 1024**2  # smaller members may compress as well as they like
_READ = 1024**2  # bytes inflated per read while verifying
# Parts that get parsed (text) are held to the ratio; a blank bitmap may pack as well as a bomb.
_MARKUP = (".xml", ".rels", ".xhtml", ".html", ".htm", ".opf", ".ncx")
_MB = 1024**2


@dataclass(frozen=True)
class ZipLimits:
    """How far a zip-based file may inflate (``[indexer]``: max_zip_member_mb, max_zip_inflated_mb,
    max_zip_ratio)."""

    max_member_mb: float = 256.0
    max_inflated_mb: float = 512.0
    max_ratio: float = 100.0


class ZipBomb(SkipFile):
    """A zip-based file that would inflate past a limit; ``str()`` says which."""


class _Counted(io.RawIOBase):
    """A member's inflated bytes, counted against the member's and the archive's limits as they are read."""

    def __init__(self, raw: IO[bytes], archive: GuardedZip) -> None:
        self._raw = raw
        self._archive = archive
        self._read = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        try:
            data = self._raw.read(len(buffer))
        except (zipfile.BadZipFile, EOFError, OSError, ValueError) as err:  # bad CRC, truncated stream
            raise SkipFile(f"not a readable {self._archive.what} file ({err})"[:300]) from None
        self._read += len(data)
        self._archive.count(len(data), self._read)
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self._raw.close()
        super().close()


class GuardedZip:
    """A zip archive (the file's bytes) whose declared sizes were checked on opening and whose
    members are read through counting streams. ``what`` names the format in reasons ("Word (.docx)")."""

    def __init__(self, data: bytes, limits: ZipLimits, what: str) -> None:
        self.what = what
        self.limits = limits
        self._data = data
        self._inflated = 0
        try:
            self._zip = zipfile.ZipFile(io.BytesIO(data))
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as err:
            raise SkipFile(f"not a readable {what} file ({err})"[:300]) from None
        self._check_declared()

    def __enter__(self) -> GuardedZip:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._zip.close()

    def _check_declared(self) -> None:
        members = self._zip.infolist()
        if len(members) > MAX_MEMBERS:
            raise ZipBomb(f"a zip of more than {MAX_MEMBERS} parts: not a document (a zip bomb?)")
        limits = self.limits
        total = 0
        for info in members:
            total += info.file_size
            if info.file_size > limits.max_member_mb * _MB:
                raise ZipBomb(
                    f"one part of it inflates to more than {limits.max_member_mb:g} MB "
                    f"({info.file_size // _MB} MB; the limit is indexer.max_zip_member_mb)"
                )
            ratio = info.file_size / max(info.compress_size, 1)
            markup = info.filename.lower().endswith(_MARKUP)
            if markup and info.file_size > RATIO_FROM_BYTES and ratio > limits.max_ratio:
                raise ZipBomb(
                    f"one part of it inflates {ratio:.0f} times its packed size (more than "
                    f"{limits.max_ratio:g}, the limit is indexer.max_zip_ratio): a zip bomb?"
                )
        if total > limits.max_inflated_mb * _MB:
            raise ZipBomb(self._too_large(total))

    def _too_large(self, total: int) -> str:
        return (
            f"inflates to more than {self.limits.max_inflated_mb:g} MB ({total // _MB} MB; "
            "the limit is indexer.max_zip_inflated_mb)"
        )

    def count(self, more: int, member_so_far: int) -> None:
        """Count ``more`` inflated bytes (``member_so_far`` of the current member); ``ZipBomb`` past a limit,
        whatever the archive declared."""
        self._inflated += more
        if member_so_far > self.limits.max_member_mb * _MB:
            raise ZipBomb(
                f"one part of it inflates to more than {self.limits.max_member_mb:g} MB "
                "(more than it declares; the limit is indexer.max_zip_member_mb)"
            )
        if self._inflated > self.limits.max_inflated_mb * _MB:
            raise ZipBomb(self._too_large(self._inflated))

    def has(self, name: str) -> bool:
        try:
            self._zip.getinfo(name)
        except KeyError:
            return False
        return True

    def open(self, name: str) -> IO[bytes]:
        """A counting, buffered stream of one member; ``SkipFile`` when it is missing or unreadable."""
        try:
            raw = self._zip.open(name)
        except KeyError:
            raise SkipFile(f"not a readable {self.what} file (its part {name[:80]!r} is missing)") from None
        except (zipfile.BadZipFile, NotImplementedError, RuntimeError, OSError, ValueError) as err:
            raise SkipFile(f"not a readable {self.what} file ({err})"[:300]) from None
        return io.BufferedReader(_Counted(raw, self))

    def read(self, name: str) -> bytes:
        """One member's bytes, read through the counting stream."""
        with self.open(name) as stream:
            return stream.read()

    def verify(self) -> None:
        """Inflate every member once through the counting streams, keeping nothing: after this, what the
        central directory declares is what a library reading the archive itself will get."""
        for info in self._zip.infolist():
            if info.is_dir():
                continue
            with self.open(info.filename) as stream:
                while stream.read(_READ):
                    pass
        self._inflated = 0  # what the parser reads next counts afresh

    def stream(self) -> IO[bytes]:
        """The archive's own bytes, for a library that opens the zip itself (after ``verify``)."""
        return io.BytesIO(self._data)
