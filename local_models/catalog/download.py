"""Downloads users can trust: one file from a URL into the model cache, all or nothing.

``download_file`` streams into ``<partial dir>/<name>.part`` with progress reports (bytes, speed, ETA),
resumes a ``.part`` left by an earlier attempt or a dropped connection with an HTTP ``Range`` request,
checks the free disk space before writing a byte, stops when its ``CancelToken`` is cancelled (the
``.part`` stays, so the next attempt resumes), checks the SHA-256 of the whole file, and only then moves
it into place with one atomic rename and writes a receipt beside it (``<name>.kimas.json``: where it
came from, its SHA-256, whether that matched a published one). A file whose checksum does not match is
deleted, never used. ``published`` asks the hub (``huggingface_hub``'s file metadata, so ``HF_ENDPOINT``
mirrors work) for the SHA-256 it publishes of a large file, before the download.

The bytes themselves travel through our own loop rather than ``huggingface_hub``'s: its downloader retries
a refused connection five times a second apart (offline must fail at once), keeps a partial file only in
its own cache layout, and has no cancel; ours adds the free-disk check, cancel and progress reports.

Offline, a download fails at once (a refused connection is not retried): no hang, no file left.

    DownloadError (a ModelUnavailableError)   cannot download: offline, not found, no disk space, ...
    └── ChecksumMismatchError                 the bytes are not the published file (deleted)
    Cancelled                                 the user stopped it
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

import httpx

from kimas_desktop.control import CancelToken
from kimas_desktop.errors import Cancelled, ModelUnavailableError

__all__ = [
    "ChecksumMismatchError",
    "DownloadError",
    "DownloadProgress",
    "Published",
    "Receipt",
    "download_file",
    "published",
    "read_receipt",
    "sha256_of",
    "write_receipt",
]

RECEIPT_SUFFIX = ".kimas.json"
_CHUNK = 1 << 20
_REPORT_EVERY_S = 0.25
_SPARE_BYTES = 64 << 20  # left free after the download
_TRUTHY = {"1", "true", "yes", "on"}
_SHA256 = re.compile(r"[0-9a-f]{64}")

Phase = Literal["connecting", "downloading", "verifying", "done"]


class DownloadError(ModelUnavailableError):
    """The file could not be downloaded; the message says why and what to do."""


class ChecksumMismatchError(DownloadError):
    """The downloaded bytes do not have the published SHA-256; the file was deleted."""


@dataclass(frozen=True)
class DownloadProgress:
    """One progress report. ``total`` is None while the server has not said; ``eta_s`` likewise."""

    file: str
    phase: Phase
    done: int
    total: int | None
    bytes_per_s: float
    eta_s: float | None

    @property
    def fraction(self) -> float | None:
        return self.done / self.total if self.total else None


@dataclass(frozen=True)
class Receipt:
    """Where an installed file came from. ``verified``: its SHA-256 matched a published one (otherwise the
    hash was recorded on first download, so later corruption is still noticed)."""

    url: str
    sha256: str
    size: int
    verified: bool
    name: str = ""


ProgressCallback = Callable[[DownloadProgress], None]
DiskFree = Callable[[Path], int]


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def read_receipt(path: Path) -> Receipt | None:
    """The receipt of an installed file (or directory), or None when it has none."""
    file = path / f"kimas{RECEIPT_SUFFIX}" if path.is_dir() else path.with_name(path.name + RECEIPT_SUFFIX)
    try:
        data = json.loads(file.read_text("utf-8"))
        return Receipt(**data)
    except (OSError, ValueError, TypeError):
        return None


def write_receipt(path: Path, receipt: Receipt) -> None:
    file = path / f"kimas{RECEIPT_SUFFIX}" if path.is_dir() else path.with_name(path.name + RECEIPT_SUFFIX)
    tmp = file.with_name(file.name + ".tmp")
    tmp.write_text(json.dumps(asdict(receipt), indent=1), "utf-8")
    os.replace(tmp, file)


@dataclass(frozen=True)
class Published:
    """What the hub publishes about a file before it is downloaded: its SHA-256 (empty when the hub gives
    none: a small file kept in git, whose ETag is a git hash) and its size."""

    sha256: str
    size: int | None


def published(url: str, *, timeout_s: float = 10.0, name: str = "") -> Published:
    """The hub's metadata of ``url`` (a ``/resolve/`` URL on the hub or a mirror in its layout), through
    ``huggingface_hub``: for a large (LFS) file the hub sends its SHA-256 as ``X-Linked-Etag``.

    Raises ``DownloadError`` at once when the hub cannot be reached or has no such file; any other failure
    of this request leaves the hash unknown (the download then records its hash instead of checking it).
    """
    from huggingface_hub import get_hf_file_metadata
    from huggingface_hub.errors import HfHubHTTPError

    label = name or url.rsplit("/", 1)[-1]
    try:
        meta = get_hf_file_metadata(url, token=False, timeout=timeout_s)
    except httpx.ConnectError as err:
        raise _unreachable(label, url, err) from err
    except HfHubHTTPError as err:
        status = err.response.status_code if err.response is not None else 0
        if status in (404, 401, 403):
            raise _not_public(label, url, status) from err
        return Published("", None)
    except (httpx.HTTPError, OSError, ValueError):
        return Published("", None)
    etag = (meta.etag or "").lower()
    return Published(etag if _SHA256.fullmatch(etag) else "", meta.size)


def _disk_free(path: Path) -> int:
    return shutil.disk_usage(path).free


class _Meter:
    def __init__(self, name: str, on_progress: ProgressCallback | None) -> None:
        self._name = name
        self._report = on_progress
        self._start = time.monotonic()
        self._last = 0.0
        self._start_bytes = 0

    def begin(self, done: int) -> None:
        """A transfer starts: its first block is reported at once, whatever was reported just before."""
        self._start, self._start_bytes, self._last = time.monotonic(), done, 0.0

    def __call__(self, phase: Phase, done: int, total: int | None, *, force: bool = False) -> None:
        if self._report is None:
            return
        now = time.monotonic()
        if not force and now - self._last < _REPORT_EVERY_S:
            return
        self._last = now
        elapsed = max(now - self._start, 1e-6)
        rate = (done - self._start_bytes) / elapsed
        eta = (total - done) / rate if total is not None and rate > 0 else None
        self._report(DownloadProgress(self._name, phase, done, total, rate, eta))


def _check_space(where: Path, needed: int, disk_free: DiskFree, name: str) -> None:
    free = disk_free(where)
    if needed + _SPARE_BYTES > free:
        raise DownloadError(
            f"Not enough disk space for {name}: it needs {needed / 1e6:,.0f} MB more and {where} has "
            f"{free / 1e6:,.0f} MB free. Free some space, or choose a smaller model.",
            code="download_no_space",
            values={
                "name": name,
                "needed": f"{needed / 1e6:,.0f}",
                "where": str(where),
                "free": f"{free / 1e6:,.0f}",
            },
        )


def download_file(
    url: str,
    target: Path,
    *,
    sha256: str = "",
    size_hint: int | None = None,
    partial_dir: Path | None = None,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    name: str = "",
    attempts: int = 4,
    timeout_s: float = 30.0,
    transport: httpx.BaseTransport | None = None,
    disk_free: DiskFree = _disk_free,
) -> Receipt:
    """Download ``url`` to ``target`` (see the module docstring); returns its receipt.

    ``sha256``: the published hash; empty when none is known (then the hash is recorded, not checked).
    ``size_hint``: the expected size, for the disk check before connecting (the server's
    Content-Length is checked again before the first byte is written). ``partial_dir`` must be on the
    same file system as ``target`` (default: ``target``'s folder / ``.partial``).
    """
    label = name or target.name
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in _TRUTHY:
        raise DownloadError(
            f"Cannot download {label}: HF_HUB_OFFLINE is set (offline mode). Unset it first.",
            code="download_offline_mode",
            values={"name": label},
        )
    partial_dir = partial_dir or target.parent / ".partial"
    partial_dir.mkdir(parents=True, exist_ok=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    part = partial_dir / (target.name + ".part")
    have = part.stat().st_size if part.exists() else 0
    if size_hint is not None:
        _check_space(partial_dir, max(size_hint - have, 0), disk_free, label)
    meter = _Meter(label, on_progress)
    meter("connecting", have, size_hint, force=True)
    timeout = httpx.Timeout(timeout_s, connect=min(timeout_s, 10.0))
    with httpx.Client(timeout=timeout, transport=transport, follow_redirects=True) as client:
        total = _fetch(client, url, part, label, attempts, meter, cancel, disk_free)
    meter("verifying", total, total, force=True)
    actual = sha256_of(part)
    if sha256 and actual != sha256.lower():
        part.unlink(missing_ok=True)
        raise ChecksumMismatchError(
            f"{label} from {url} is not the published file (SHA-256 {actual[:16]}…, expected "
            f"{sha256[:16]}…): it was deleted and not used. Try again; if it happens again, the source "
            "has changed or the connection alters data.",
            code="download_checksum",
            values={"name": label},
        )
    os.replace(part, target)
    receipt = Receipt(url=url, sha256=actual, size=total, verified=bool(sha256), name=name)
    write_receipt(target, receipt)
    meter("done", total, total, force=True)
    return receipt


def _fetch(
    client: httpx.Client,
    url: str,
    part: Path,
    label: str,
    attempts: int,
    meter: _Meter,
    cancel: CancelToken | None,
    disk_free: DiskFree,
) -> int:
    """Fill ``part`` with the whole file; returns its size. Dropped connections resume with Range."""
    failure = ""
    for attempt in range(attempts):
        if attempt:
            time.sleep(min(0.2 * 2**attempt, 2.0))
        have = part.stat().st_size if part.exists() else 0
        headers = {"Range": f"bytes={have}-"} if have else {}
        try:
            with client.stream("GET", url, headers=headers) as response:
                if response.status_code == 416 and have:
                    return have  # the .part already holds the whole file; the checksum decides
                if response.status_code in (404, 401, 403):
                    raise _not_public(label, url, response.status_code)
                if response.status_code >= 400:
                    failure = f"HTTP {response.status_code}"
                    continue
                resumed = response.status_code == 206
                start = have if resumed else 0
                length = response.headers.get("Content-Length")
                total = start + int(length) if length is not None else None
                if total is not None:
                    _check_space(part.parent, total - start, disk_free, label)
                meter.begin(start)
                done = start
                with part.open("r+b" if resumed else "wb") as out:
                    out.seek(start)
                    out.truncate()
                    for block in response.iter_bytes(_CHUNK):
                        if cancel is not None and cancel.cancelled:
                            raise Cancelled(f"download of {label} stopped")
                        out.write(block)
                        done += len(block)
                        meter("downloading", done, total)
                if total is None or done == total:
                    return done
                failure = f"the server sent {done} of {total} bytes"
        except httpx.ConnectError as err:
            raise _unreachable(label, url, err) from err
        except httpx.TransportError as err:  # dropped midway, timed out: resume from what arrived
            failure = f"{type(err).__name__}: {err}"
    raise DownloadError(
        f"Cannot download {label} from {url} after {attempts} attempts ({failure}). Run the download "
        "again to resume it.",
        code="download_interrupted",
        values={"name": label, "host": httpx.URL(url).host, "attempts": attempts},
    )


def _unreachable(label: str, url: str, err: Exception) -> DownloadError:
    """Offline, or the host refuses: the sentence with the connection's own error (for the log and the
    CLI), and as the code "download_offline" with the file and the host (the UI's words)."""
    host = httpx.URL(url).host
    return DownloadError(
        f"Cannot download {label}: cannot connect to {host} ({err}). Check the internet connection; the "
        "models already installed keep working.",
        code="download_offline",
        values={"name": label, "host": host},
    )


def _not_public(label: str, url: str, status: int) -> DownloadError:
    return DownloadError(
        f"Cannot download {label}: {url} answered HTTP {status} (not found or not public). The catalog "
        "entry may be out of date.",
        code="download_not_public",
        values={"name": label, "url": url, "status": status},
    )
