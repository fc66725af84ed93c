"""The product on an OS without ``fcntl`` or ``resource`` (Windows), and the portable paths of lock,
process liveness, RSS, RAM, the port probe and the PDF worker's priority.

The import and lock tests run in child processes whose import system refuses ``fcntl`` and ``resource``,
as on Windows (except to psutil's Linux backend, which Windows replaces with its own, and to the MCP SDK's
stdio module, which imports ``fcntl`` only when ``sys.platform`` is not win32); there ``filelock``
falls back to its marker-file lock, which is the branch exercised.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("kimas_desktop", "indexer", "local_models", "app", "ui", "cli")

BLOCK = textwrap.dedent(
    """
    import sys, importlib.abc
    class _NoPosix(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name not in ("fcntl", "resource"):
                return None
            frame = sys._getframe(1)
            while frame is not None and frame.f_globals.get("__name__", "").startswith(
                ("importlib", "_frozen_importlib")
            ):
                frame = frame.f_back
            importer = frame.f_globals.get("__name__", "") if frame is not None else ""
            if importer.startswith("psutil._ps"):  # psutil's Linux backend (Windows has its own)
                return None
            if importer == "mcp.server.stdio":  # the MCP SDK imports it under `sys.platform != "win32"`
                return None
            raise ModuleNotFoundError(f"No module named {name!r} (blocked: as on Windows)", name=name)
    for _name in ("fcntl", "resource"):
        sys.modules.pop(_name, None)
    sys.meta_path.insert(0, _NoPosix())
    """
)


def _run(code: str, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", BLOCK + textwrap.dedent(code), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def product_modules() -> list[str]:
    names = ["launch"]
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


@pytest.mark.slow
def test_every_product_module_imports_without_fcntl_and_resource() -> None:
    modules = product_modules()
    assert "app.instance_lock" in modules and "indexer.parse.worker" in modules and len(modules) > 100
    result = _run(
        """
        import importlib, sys
        try:
            import fcntl
        except ModuleNotFoundError:
            pass
        else:
            raise SystemExit("the blocker does not block")
        failed = []
        for name in sys.argv[1:]:
            try:
                importlib.import_module(name)
            except Exception as err:
                failed.append(f"{name}: {type(err).__name__}: {err}")
        print("\\n".join(failed) or "ok")
        """,
        *modules,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().splitlines()[-1] == "ok", result.stdout


HOLD = """
import sys, time
from pathlib import Path
from app.instance_lock import InstanceLock
lock = InstanceLock(Path(sys.argv[1]))
lock.acquire("http://127.0.0.1:7999")
print("held", flush=True)
time.sleep(60)
"""

TRY = """
import sys
from pathlib import Path
from app.instance_lock import AlreadyRunningError, InstanceLock
lock = InstanceLock(Path(sys.argv[1]))
try:
    lock.acquire("http://127.0.0.1:7860")
except AlreadyRunningError as err:
    print("refused:", err)
else:
    print("acquired")
    lock.release()
"""


def test_without_fcntl_the_instance_lock_refuses_a_second_app_and_a_killed_one_does_not_block(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    holder = subprocess.Popen(
        [sys.executable, "-c", BLOCK + HOLD, str(data)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        second = _run(TRY, str(data), timeout=60)
        assert second.stdout.startswith("refused:"), second.stdout + second.stderr
        assert "at http://127.0.0.1:7999" in second.stdout and f"(process {holder.pid})" in second.stdout
    finally:
        holder.kill()  # as a crash would: no release
        holder.wait()
    after = _run(TRY, str(data), timeout=60)
    assert after.stdout.strip() == "acquired", after.stdout + after.stderr


def test_without_fcntl_the_lease_slot_still_swaps_only_from_the_version_read(tmp_path: Path) -> None:
    result = _run(
        """
        import sys
        from pathlib import Path
        from indexer.store.lease import Conflict, FileSlot
        slot = FileSlot(Path(sys.argv[1]) / "lease.json")
        first = slot.create(b"one")
        try:
            slot.create(b"two")
        except Conflict:
            print("create conflict")
        second = slot.replace(b"three", first)
        try:
            slot.replace(b"four", first)
        except Conflict:
            print("stale replace conflict")
        print(slot.read()[0].decode())
        """,
        str(tmp_path),
        timeout=60,
    )
    assert result.stdout.split("\n")[:3] == ["create conflict", "stale replace conflict", "three"], (
        result.stdout + result.stderr
    )


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_liveness_sends_no_signal(monkeypatch: pytest.MonkeyPatch) -> None:
    """On Windows ``os.kill(pid, 0)`` is CTRL_C_EVENT: the liveness check must not call it."""
    from indexer.store import lease

    dead = _dead_pid()

    class NoKill:
        def __getattr__(self, name: str) -> object:
            return getattr(os, name)

        def kill(self, pid: int, sig: int) -> None:
            raise AssertionError("the lease sent a signal to test a process")

    monkeypatch.setattr(lease, "os", NoKill())  # psutil asks the OS its own way (OpenProcess on Windows)
    assert lease._alive(os.getpid())
    assert not lease._alive(dead)


def test_ram_and_rss_without_sysconf(monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows has no ``os.sysconf`` (nor ``/proc``): RAM and RSS still come out, through psutil."""
    from local_models.catalog.catalog import machine_ram_mb
    from local_models.llama.worker import _rss_bytes

    monkeypatch.delattr(os, "sysconf", raising=False)
    assert machine_ram_mb() > 256
    assert 10 << 20 < _rss_bytes() < 64 << 30


def test_the_port_probe_never_sets_reuseaddr_on_windows() -> None:
    from cli.serve_cmd import probe_options

    windows = [option for option, _ in probe_options("win32")]
    assert socket.SO_REUSEADDR not in windows and windows
    assert socket.SO_REUSEADDR in [option for option, _ in probe_options("linux")]


def test_the_parser_worker_lowers_its_priority_without_os_nice_and_caps_memory_only_on_linux(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import os, psutil; del os.nice; import indexer.parse.worker as w; "
            "before = psutil.Process().nice(); w._lower_priority(); print(before, psutil.Process().nice())",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    before, after = (int(v) for v in result.stdout.split())
    assert after == max(before, 10), result.stderr
    from indexer.parse import worker

    for platform in ("darwin", "win32"):
        monkeypatch.setattr(sys, "platform", platform)
        assert worker._limit_memory() is False
