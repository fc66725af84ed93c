"""``LlamaProcess``: one running ``worker.py`` (the llama.cpp worker script) and the pipes to it.

A thread reads the worker's frames into a queue as fast as it writes them; ``None`` in the queue means
the worker is gone. ``exit_reason()`` turns how it ended into words ("killed by SIGSEGV: a crash in
llama.cpp", "killed by SIGKILL: the system may have run out of memory").
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import queue
import signal
import struct
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from ipc.frames import pump_frames

__all__ = ["LlamaProcess", "LoadFailed", "WorkerGone", "loaded_process"]

_WORKER = Path(__file__).with_name("worker.py")


class WorkerGone(Exception):
    """The worker process ended; ``str()`` says how."""


class LoadFailed(Exception):
    """The worker could not load the model; ``str()`` is its error."""


class LlamaProcess:
    def __init__(self) -> None:
        fd, name = tempfile.mkstemp(prefix="kimas-llama-cancel-")
        self._cancel_path = Path(name)
        with os.fdopen(fd, "r+b") as f:
            f.write(b"\0" * 8)
            f.flush()
            self._cancel = mmap.mmap(f.fileno(), 8)
        # A fixed mmap threshold: glibc otherwise raises it after each large free, so the multi-MB prompt
        # states the cache drops stay in the heap as fragments and the worker's RSS keeps growing.
        env = {**os.environ, "MALLOC_MMAP_THRESHOLD_": str(1 << 20), "MALLOC_TRIM_THRESHOLD_": str(1 << 20)}
        self.proc = subprocess.Popen(
            [sys.executable, "-s", str(_WORKER), name],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            close_fds=True,
        )
        self.frames: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._next_id = 0
        threading.Thread(target=self._pump, name="kimas-llama-pump", daemon=True).start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        pump_frames(self.proc.stdout, self.frames)

    def send(self, op: str, **fields: Any) -> int:
        """Send one request; returns its id (frames about it carry the same id)."""
        self._next_id += 1
        line = json.dumps({"id": self._next_id, "op": op, **fields}, ensure_ascii=False) + "\n"
        stdin = self.proc.stdin
        assert stdin is not None
        try:
            stdin.write(line.encode("utf-8", "surrogatepass"))
            stdin.flush()
        except OSError as err:
            raise WorkerGone(self.exit_reason()) from err
        return self._next_id

    def cancel(self, request_id: int) -> None:
        """Ask the worker to stop ``request_id`` now (safe from any thread, and after the worker died)."""
        with contextlib.suppress(ValueError):  # already closed
            struct.pack_into("<q", self._cancel, 0, request_id)

    def next_frame(self, request_id: int, timeout_s: float | None) -> dict[str, Any]:
        """The next frame about ``request_id`` (frames of earlier, abandoned requests are skipped)."""
        while True:
            try:
                frame = self.frames.get(timeout=timeout_s)
            except queue.Empty:
                raise TimeoutError from None
            if frame is None:
                self.frames.put(None)  # stays gone for every later reader
                raise WorkerGone(self.exit_reason())
            if frame.get("id") == request_id:
                return frame

    def alive(self) -> bool:
        return self.proc.poll() is None

    def exit_reason(self) -> str:
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "it stopped answering"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            if -code == signal.SIGKILL:
                return f"killed by {name}: the system may have run out of memory"
            if -code in (signal.SIGSEGV, signal.SIGBUS, signal.SIGILL, signal.SIGABRT, signal.SIGFPE):
                return f"killed by {name}: a crash in llama.cpp"
            return f"killed by {name}"
        return f"it exited with code {code}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        with contextlib.suppress(BufferError):
            self._cancel.close()
        self._cancel_path.unlink(missing_ok=True)


def loaded_process(params: dict[str, Any], timeout_s: float) -> tuple[LlamaProcess, dict[str, Any]]:
    """A new worker that loaded the model of ``params`` (the ``load`` request: ``Worker.load``), and what it
    said of it. Raises ``WorkerGone`` (the loader crashed), ``TimeoutError`` or ``LoadFailed``, the worker
    stopped."""
    process = LlamaProcess()
    try:
        frame = process.next_frame(process.send("load", params=params), timeout_s)
        if frame["t"] != "ok":
            raise LoadFailed(str(frame.get("error", "")))
    except BaseException:
        process.stop()
        raise
    return process, frame
