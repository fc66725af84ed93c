"""Writer leases: one writer per collection at a time, enforced in the store itself, so two desktops on a
shared ``s3://`` store, or ``kimas index`` next to the app, never write one collection at once.

A lease is one small JSON object beside the database, ``_kimas_leases/<key>.json``:

    owner (host:pid:token), host, pid, token, acquired_at, heartbeat_at, expires_at, released

It only ever changes by compare-and-swap on the version last read: create-if-absent or
replace-if-unchanged. On an object store that is a conditional PUT (``If-None-Match: *`` and
``If-Match: <ETag>``, through obstore); on a local directory, a write under an exclusive lock (``filelock``)
of a sibling lock file, then an atomic rename. So two writers that race for the same lease cannot both win.

- **acquire**: an absent, released or expired lease is taken; a live one is waited for (bounded), then
  ``CollectionBusyError`` names its holder. Taking over a lease that was never released (its writer was
  killed) sets ``Lease.recovered``: the caller then cleans up what that writer left.
- **heartbeat**: a thread renews the lease every ``ttl/3``. When a renewal finds it replaced, or cannot
  renew it before it expires, the lease is lost, and ``Lease.check()`` raises ``CollectionBusyError`` at the
  writer's next write.
- **expiry** compares the holder's ``expires_at`` with our wall clock (clocks of a team's desktops agree to
  well within the 30 s default). On the holder's own host, a lease whose process is gone expires at once.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

import psutil
from filelock import FileLock

from kimas_desktop.errors import CollectionBusyError, IndexingError

log = logging.getLogger(__name__)

LEASE_DIR = "_kimas_leases"
_CLIENT_OPTIONS = {"allow_http", "allow_invalid_certificates", "timeout", "connect_timeout", "proxy_url"}


class Conflict(Exception):
    """A compare-and-swap lost: the object is not in the state it was read in."""


class Slot(Protocol):
    """One small object that changes only by compare-and-swap."""

    def read(self) -> tuple[bytes, str] | None:
        """(content, version), or None when absent."""
        ...

    def create(self, data: bytes) -> str:
        """Write if absent (else ``Conflict``); the new version."""
        ...

    def replace(self, data: bytes, version: str) -> str:
        """Write if still at ``version`` (else ``Conflict``); the new version."""
        ...


class FileSlot:
    """A file in a local directory; each swap runs under an exclusive lock (``filelock``) of ``<file>.lock``."""

    def __init__(self, path: Path) -> None:
        self._path = path

    def _locked(self) -> FileLock:
        return FileLock(str(self._path) + ".lock")

    def read(self) -> tuple[bytes, str] | None:
        try:
            data = self._path.read_bytes()
        except FileNotFoundError:
            return None
        return data, hashlib.blake2b(data, digest_size=16).hexdigest()

    def _write(self, data: bytes) -> str:
        tmp = self._path.with_name(f"{self._path.name}.{secrets.token_hex(4)}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, self._path)
        return hashlib.blake2b(data, digest_size=16).hexdigest()

    def create(self, data: bytes) -> str:
        with self._locked():
            if self._path.exists():
                raise Conflict
            return self._write(data)

    def replace(self, data: bytes, version: str) -> str:
        with self._locked():
            current = self.read()
            if current is None or current[1] != version:
                raise Conflict
            return self._write(data)


class ObjectSlot:
    """An object in an object store, swapped by conditional PUTs (obstore)."""

    def __init__(self, store: Any, key: str) -> None:
        self._store = store
        self._key = key

    def read(self) -> tuple[bytes, str] | None:
        import obstore

        try:
            result = obstore.get(self._store, self._key)
        except FileNotFoundError:
            return None
        return bytes(result.bytes()), str(result.meta["e_tag"])

    def _put(self, data: bytes, mode: Any) -> str:
        import obstore
        from obstore.exceptions import AlreadyExistsError, PreconditionError

        try:
            result = obstore.put(self._store, self._key, data, mode=mode)
        except (AlreadyExistsError, PreconditionError, FileNotFoundError) as err:
            raise Conflict from err
        return str(result["e_tag"])

    def create(self, data: bytes) -> str:
        return self._put(data, "create")

    def replace(self, data: bytes, version: str) -> str:
        return self._put(data, {"e_tag": version})


def slot_factory(uri: str, storage_options: dict[str, str]) -> Callable[[str], Slot]:
    """Lease slots beside the LanceDB database at ``uri``: a local directory, or ``s3://`` with the same
    ``storage_options`` LanceDB takes."""
    if "://" not in uri or uri.startswith("file://"):
        root = Path(uri.removeprefix("file://")).expanduser() / LEASE_DIR
        return lambda key: FileSlot(root / f"{key}.json")
    if not uri.startswith("s3://"):
        raise IndexingError(f"writer leases need a local directory or s3:// storage, not {uri}")
    from obstore.store import S3Store

    config: dict[str, str] = {}
    client: dict[str, Any] = {}
    for name, value in storage_options.items():
        if name in _CLIENT_OPTIONS:
            client[name] = value.lower() == "true" if value.lower() in ("true", "false") else value
        else:
            config[name if name.startswith("aws_") else f"aws_{name}"] = value
    prefix = uri.rstrip("/") + "/" + LEASE_DIR
    store = S3Store.from_url(prefix, config=config, client_options=client or None)  # type: ignore[arg-type]
    return lambda key: ObjectSlot(store, f"{key}.json")


@dataclass(frozen=True)
class LeaseRecord:
    """What a lease object holds."""

    owner: str  # host:pid:token
    host: str
    pid: int
    token: str
    acquired_at: float
    heartbeat_at: float
    expires_at: float
    released: bool = False

    def describe(self) -> str:
        age = max(0.0, time.time() - self.heartbeat_at)
        since = time.strftime("%H:%M:%S", time.localtime(self.acquired_at))
        return f"process {self.pid} on {self.host} (writing since {since}, last heartbeat {age:.0f} s ago)"

    def expired(self, now: float) -> bool:
        if self.released or now >= self.expires_at:
            return True
        return self.host == socket.gethostname() and not _alive(self.pid)


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists on this host (``psutil``: no signal is sent; on Windows ``os.kill(pid,
    0)`` would send CTRL_C_EVENT)."""
    return bool(psutil.pid_exists(pid))


def _encode(record: LeaseRecord) -> bytes:
    return json.dumps(asdict(record), sort_keys=True).encode()


def _decode(data: bytes) -> LeaseRecord | None:
    try:
        return LeaseRecord(**json.loads(data))
    except (ValueError, TypeError):  # a torn or foreign object: treat it as expired
        return None


class Lease:
    """A held lease; renewed on a thread until ``release()``. ``recovered``: it was taken over from a
    writer that never released it (crashed or killed)."""

    def __init__(
        self, slot: Slot, record: LeaseRecord, version: str, label: str, ttl_s: float, recovered: bool
    ) -> None:
        self._slot = slot
        self.record = record
        self._version = version
        self._label = label
        self._ttl = ttl_s
        self.recovered = recovered
        self._lost: str | None = None
        self._stop = threading.Event()
        self._guard = threading.Lock()
        self._thread = threading.Thread(target=self._beat, name=f"kimas-lease-{label}", daemon=True)
        self._thread.start()

    def check(self) -> None:
        """Raise ``CollectionBusyError`` if the lease was lost (another writer took it over)."""
        if self._lost is not None:
            raise CollectionBusyError(f"stopped writing collection '{self._label}': {self._lost}")

    def _beat(self) -> None:
        while not self._stop.wait(self._ttl / 3):
            self.renew()

    def renew(self) -> None:
        with self._guard:
            if self._lost is not None or self._stop.is_set():
                return
            now = time.time()
            fresh = replace(self.record, heartbeat_at=now, expires_at=now + self._ttl)
            try:
                self._version = self._slot.replace(_encode(fresh), self._version)
                self.record = fresh
            except Conflict:
                current = self._slot.read()
                holder = _decode(current[0]) if current else None
                who = holder.describe() if holder else "nobody"
                self._lost = f"its writer lease was taken over by {who}"
            except Exception as err:  # the store is unreachable: keep trying until the lease expires
                if now >= self.record.expires_at:
                    self._lost = f"the writer lease could not be renewed before it expired ({err})"
                log.warning("renewing the writer lease of '%s' failed: %s", self._label, err)

    def release(self) -> None:
        self._stop.set()
        self._thread.join()
        with self._guard:
            if self._lost is not None:
                return
            try:
                self._slot.replace(_encode(replace(self.record, released=True)), self._version)
            except Conflict:
                pass  # taken over already
            except Exception as err:  # it expires on its own
                log.warning("releasing the writer lease of '%s' failed: %s", self._label, err)

    def __enter__(self) -> Lease:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


class WriterLeases:
    """Hands out the writer lease of each collection. ``ttl_s``: how long a lease lives without a heartbeat;
    ``wait_s``: how long ``acquire`` waits for a live holder before ``CollectionBusyError``."""

    def __init__(
        self, slots: Callable[[str], Slot], *, ttl_s: float = 30.0, wait_s: float = 0.0, poll_s: float = 0.5
    ) -> None:
        self._slots = slots
        self._ttl = ttl_s
        self._wait = wait_s
        self._poll = poll_s
        self._token = secrets.token_hex(8)

    def holder(self, key: str) -> LeaseRecord | None:
        """The live holder of lease ``key``, if any."""
        current = self._slots(key).read()
        record = _decode(current[0]) if current else None
        return None if record is None or record.expired(time.time()) else record

    def acquire(self, key: str, label: str, *, wait_s: float | None = None) -> Lease:
        """The lease ``key`` (``label`` names the collection in messages)."""
        slot = self._slots(key)
        deadline = time.monotonic() + (self._wait if wait_s is None else wait_s)
        while True:
            now = time.time()
            host, pid = socket.gethostname(), os.getpid()
            mine = LeaseRecord(
                f"{host}:{pid}:{self._token}", host, pid, self._token, now, now, now + self._ttl
            )
            current = slot.read()
            try:
                if current is None:
                    return Lease(slot, mine, slot.create(_encode(mine)), label, self._ttl, False)
                held = _decode(current[0])
                if held is None or held.expired(now):
                    version = slot.replace(_encode(mine), current[1])
                    recovered = held is None or not held.released
                    if recovered and held is not None:
                        log.info("taking over the writer lease of '%s' from %s", label, held.describe())
                    return Lease(slot, mine, version, label, self._ttl, recovered)
            except Conflict:
                continue  # someone else moved first: look again
            if time.monotonic() >= deadline:
                raise CollectionBusyError(
                    f"collection '{label}' is being written by {held.describe()}; try again when it is done"
                )
            time.sleep(self._poll)
