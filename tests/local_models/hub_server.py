"""A real HTTP server on 127.0.0.1 serving real files in the Hugging Face hub's URL layout.

``GET /<repo>/resolve/main/<file>`` with ``Range: bytes=N-`` support (206), and faults a test switches
on: ``drop_after`` (send that many bytes of the next ``drops`` responses, then close the connection
while the Content-Length promised more) and ``corrupt_at`` (flip one byte at that file offset).
Every GET's path and Range header is recorded.

``HEAD`` answers as the hub does for a large (LFS) file: ``X-Linked-Etag`` is the file's SHA-256,
``X-Linked-Size`` its size, ``X-Repo-Commit`` a commit; ``publish_sha256 = False`` sends a git-style ETag
instead (as the hub does for small files kept in git), so no hash is published.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.local_models.local_http import QuietHandler, StateServer, serving


@dataclass
class HubState:
    files: dict[str, Path] = field(default_factory=dict)  # "repo/file" → file on disk
    drop_after: int | None = None
    drops: int = 0
    corrupt_at: int | None = None
    requests: list[tuple[str, str]] = field(default_factory=list)  # (path, Range header or "")
    heads: list[str] = field(default_factory=list)
    publish_sha256: bool = True
    bytes_sent: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


class _Handler(QuietHandler):
    server: StateServer[HubState]

    def do_HEAD(self) -> None:
        state = self.server.state
        with state.lock:
            state.heads.append(self.path)
        repo, sep, file = self.path.lstrip("/").partition("/resolve/main/")
        source = state.files.get(f"{repo}/{file}") if sep else None
        if source is None:
            self.send_response(404)
            self.send_header("X-Error-Code", "EntryNotFound")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        digest = hashlib.sha256(source.read_bytes()).hexdigest()
        self.send_response(200)
        self.send_header("X-Repo-Commit", "0" * 40)
        if state.publish_sha256:
            self.send_header("X-Linked-Etag", f'"{digest}"')
            self.send_header("X-Linked-Size", str(source.stat().st_size))
        else:
            self.send_header("ETag", f'"{digest[:40]}"')  # a git blob id, not a SHA-256
        self.send_header("Content-Length", str(source.stat().st_size))
        self.end_headers()

    def do_GET(self) -> None:
        state = self.server.state
        with state.lock:
            state.requests.append((self.path, self.headers.get("Range", "")))
        repo, sep, file = self.path.lstrip("/").partition("/resolve/main/")
        source = state.files.get(f"{repo}/{file}") if sep else None
        if source is None:
            self.send_error(404, "Entry not found")
            return
        size = source.stat().st_size
        start = 0
        if (wanted := self.headers.get("Range", "")).startswith("bytes="):
            start = int(wanted[len("bytes=") :].split("-")[0])
            if start >= size:
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{size}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{size - 1}/{size}")
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(size - start))
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        with state.lock:
            limit = state.drop_after if state.drops > 0 else None
            if limit is not None:
                state.drops -= 1
        self._send(source, start, size, limit)

    def _send(self, source: Path, start: int, size: int, limit: int | None) -> None:
        state = self.server.state
        sent = 0
        with source.open("rb") as f:
            f.seek(start)
            offset = start
            while offset < size:
                block = bytearray(f.read(1 << 18))
                if state.corrupt_at is not None and offset <= state.corrupt_at < offset + len(block):
                    block[state.corrupt_at - offset] ^= 0xFF
                if limit is not None and sent + len(block) > limit:
                    block = block[: limit - sent]
                try:
                    self.wfile.write(block)
                except OSError:
                    return
                sent += len(block)
                offset += len(block)
                with state.lock:
                    state.bytes_sent += len(block)
                if limit is not None and sent >= limit:
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(2)  # dropped midway: fewer bytes than Content-Length
                    return


@contextmanager
def hub_server(files: dict[str, Path]) -> Iterator[tuple[str, HubState]]:
    """``(base_url, state)`` of a running server; stopped on exit."""
    state = HubState(files=dict(files))
    with serving(StateServer(_Handler, state)) as url:
        yield url, state


def throttle(monkeypatch: Any, delay_s: float) -> None:
    """Slow every served block by ``delay_s`` (on 127.0.0.1 a 98 MB file otherwise arrives in a quarter of
    a second: before a progress line, an ETA or a cancel can be seen)."""
    send = _Handler._send

    def slow_send(self: Any, source: Path, start: int, size: int, limit: int | None) -> None:
        real = self.wfile

        class Slow:
            def write(self, block: bytes) -> int:
                time.sleep(delay_s)
                return int(real.write(block))

            def flush(self) -> None:
                real.flush()

        self.wfile = Slow()
        try:
            send(self, source, start, size, limit)
        finally:
            self.wfile = real

    monkeypatch.setattr(_Handler, "_send", slow_send)
