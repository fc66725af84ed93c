"""Build llama-cpp-python's wheel for this machine and install it into a venv: in the background while the
app already runs (``install.py --llama-in-background``, which ``run.sh`` and ``run.ps1`` use), or in the
foreground (``install.py``, so ``test.sh``). Standard library only, on Linux, macOS and Windows.

    python scripts/llama_build.py --venv .venv --wheels CACHE/KEY [--background] -- COMMAND...

COMMAND writes the wheel into the folder put in place of ``{out}`` (``install.py`` passes ``llama_wheel.py ...
--out {out}``, which keeps a stopped compile's files to go on from). Safe to interrupt and to run twice at once:

- one builder per venv in the background: a second one (a second ``run.sh``) leaves at once;
- one compile per wheel key on the machine: it runs under ``<wheels>.lock`` (``install_lock.py``); a process
  that waits for it (``test.sh`` beside ``run.sh``) finds the wheel when the lock comes free and compiles
  nothing;
- the wheel is built in ``<wheels>.tmp`` and renamed to ``<wheels>`` only when complete, so a killed compile
  leaves nothing anyone installs; the next run compiles what is left;
- the venv takes the wheel under ``.venv/kimas-install.lock``, never while another install writes to it.

Progress is read from the build's own output (ninja's ``[n/N]`` lines, make's ``[ p%]``) and written, with
the time left at the rate so far, to ``.venv/kimas-llama-build.json``, which the app reads
(``app/models/chat_build.py``)::

    {"state": "waiting" | "compiling" | "installing" | "done" | "failed", "pid", "started", "updated",
     "step", "steps", "left_s", "error": "compiler" | "cmake" | "network" | "interrupted" | "other",
     "detail", "log"}
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from install_lock import InstallLock

STATUS_FILE = "kimas-llama-build.json"
LOG_FILE = "kimas-llama-build.log"
BUILDER_LOCK = "kimas-llama-build.lock"
VENV_LOCK = "kimas-install.lock"

_NINJA = re.compile(r"^\s*\[(\d+)/(\d+)\]\s")
_MAKE = re.compile(r"^\s*\[\s*(\d+)%\]\s")
# Why a build failed, read from its log: the first cause whose pattern a line matches.
_CAUSES = (
    (
        "compiler",
        r"CMAKE_C(XX)?_COMPILER|compiler identification is unknown|unable to find a compiler"
        r"|Could not find compiler|\b(gcc|g\+\+|cc|c\+\+|clang|cl)(\.exe)?'?: (command )?not found"
        r"|xcrun: error|No such file or directory: '(gcc|g\+\+|cc|c\+\+)'",
    ),
    ("cmake", r"cmake: (command )?not found|CMake [\d.]+ or higher is required|could not find cmake"),
    (
        "network",
        r"Could not fetch URL|Failed to establish a new connection|Temporary failure in name resolution"
        r"|Network is unreachable|No matching distribution found|Read timed out",
    ),
)


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def finished_wheel(wheels: Path) -> Path | None:
    """The complete wheel in the cache (only a finished build is ever renamed there), or None."""
    found = sorted(wheels.glob("llama_cpp_python-*.whl")) if wheels.is_dir() else []
    return found[-1] if found else None


def diagnose(log: str) -> tuple[str, str]:
    """(cause, the log line that shows it) for a failed build; ("other", the last error line) else."""
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    for cause, pattern in _CAUSES:
        for line in lines:
            if re.search(pattern, line, re.IGNORECASE):
                return cause, line[:300]
    errors = [line for line in lines if "error" in line.lower()]
    return "other", (errors or lines or [""])[-1][:300]


class Progress:
    """The build's step from its own output, and the time left at the rate since the first step seen."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.step = 0
        self.steps = 0
        self._clock = clock
        self._first: tuple[float, int] | None = None

    def feed(self, line: str) -> bool:
        """Read one line of output; True when it moved the step."""
        m = _NINJA.match(line) or _MAKE.match(line)
        if m is None:
            return False
        step, steps = (int(m[1]), int(m[2])) if m.re is _NINJA else (int(m[1]), 100)
        if self._first is None or steps != self.steps:
            self._first = (self._clock(), step)
        self.step, self.steps = step, steps
        return True

    def left_s(self) -> float | None:
        if self._first is None or self.step <= self._first[1]:
            return None
        t0, s0 = self._first
        return (self._clock() - t0) / (self.step - s0) * (self.steps - self.step)


class Status:
    """The JSON file the app reads, replaced whole on every write (a reader never sees half of one)."""

    def __init__(self, path: Path, log: Path) -> None:
        self.path, self.log = path, log
        self.started = time.time()

    def write(self, state: str, **fields: Any) -> None:
        data = {"state": state, "pid": os.getpid(), "started": self.started, "updated": time.time()}
        data.update(log=str(self.log), **fields)
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data), "utf-8")
        for _ in range(20):  # Windows refuses the replace while a reader has the file open
            try:
                os.replace(tmp, self.path)
                return
            except PermissionError:
                time.sleep(0.05)


@dataclass(frozen=True)
class Build:
    venv: Path
    wheels: Path  # the cache folder of this key: holds the finished wheel
    command: list[str]  # builds the wheel into "{out}"
    echo: bool = False  # print progress to the terminal (a foreground install)

    @property
    def stamp(self) -> Path:
        """Says the venv has this key's wheel installed."""
        return self.venv / f".kimas-llama-{self.wheels.name}"


def compile_wheel(build: Build, status: Status) -> int:
    """Run the build command into ``<wheels>.tmp``, its output into the log and its progress into the
    status; on success rename the folder to ``<wheels>``. Returns the command's exit code."""
    tmp = build.wheels.with_name(build.wheels.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    progress, shown, said = Progress(), 0.0, -1
    status.write("compiling", step=0, steps=0, left_s=None)
    command = [part.replace("{out}", str(tmp)) for part in build.command]
    with status.log.open("w", encoding="utf-8") as log:
        proc = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace"
        )
        assert proc.stdout is not None
        try:
            for line in proc.stdout:
                log.write(line)
                if progress.feed(line) and time.monotonic() - shown > 1.0:
                    shown = time.monotonic()
                    left = progress.left_s()
                    status.write("compiling", step=progress.step, steps=progress.steps, left_s=left)
                    said = _echo(build, progress, left, said)
            code = proc.wait()
        except KeyboardInterrupt:
            proc.wait()
            status.write("failed", error="interrupted", detail="the build was stopped")
            raise
    if code != 0 or finished_wheel(tmp) is None:
        cause, detail = diagnose(status.log.read_text("utf-8", "replace"))
        status.write("failed", error=cause, detail=detail, code=code)
        return code or 1
    shutil.rmtree(build.wheels, ignore_errors=True)
    tmp.rename(build.wheels)
    return 0


def _echo(build: Build, progress: Progress, left: float | None, said: int) -> int:
    """A line on the terminal about every tenth of the build (foreground only)."""
    tenth = progress.step * 10 // max(progress.steps, 1)
    if build.echo and tenth > said:
        more = f", about {max(1, round(left / 60))} min left" if left is not None else ""
        print(f"  llama.cpp: step {progress.step} of {progress.steps}{more}", file=sys.stderr)
    return max(tenth, said)


def install_wheel(build: Build, wheel: Path) -> None:
    """Put ``wheel`` into the venv (under the venv's install lock; nothing to do when it is there)."""
    py = str(venv_python(build.venv))
    with InstallLock(build.venv / VENV_LOCK):
        if build.stamp.exists():
            return
        pip = [py, "-m", "pip", "install", "-q"]
        subprocess.run([*pip, "--no-deps", "--force-reinstall", str(wheel)], check=True)
        subprocess.run([*pip, str(wheel)], check=True)  # what it needs that the app did not bring
        for old in build.venv.glob(".kimas-llama-*"):
            old.unlink()
        build.stamp.touch()


def run(build: Build, *, background: bool) -> int:
    """Have this key's wheel (compiling it unless it is built or being built) and install it."""
    if background and not InstallLock(build.venv / BUILDER_LOCK).acquire(wait=False):
        return 0  # a builder for this venv runs already (held until this process ends)
    status = Status(build.venv / STATUS_FILE, build.venv / LOG_FILE)
    wheel = finished_wheel(build.wheels)
    if wheel is None:
        lock = InstallLock(build.wheels.with_name(build.wheels.name + ".lock"))
        if not lock.acquire(wait=False):
            if background:  # a foreground waiter says nothing here: the builder's progress is shown
                status.write("waiting")
            else:
                print("Waiting for the llama.cpp build already running...", file=sys.stderr)
            lock.acquire()
        try:
            wheel = finished_wheel(build.wheels)
            if wheel is None:
                if build.echo:
                    print("Compiling llama.cpp for this CPU (once per machine: about 5-13 minutes on 2 "
                          f"cores; log: {status.log})...", file=sys.stderr)  # fmt: skip
                code = compile_wheel(build, status)
                if code != 0:
                    return code
                wheel = finished_wheel(build.wheels)
        finally:
            lock.release()
    assert wheel is not None
    status.write("installing")
    try:
        install_wheel(build, wheel)
    except subprocess.CalledProcessError as err:
        status.write("failed", error="other", detail=f"pip could not install {wheel.name} ({err})")
        return err.returncode or 1
    status.write("done")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--venv", type=Path, required=True)
    parser.add_argument("--wheels", type=Path, required=True)
    parser.add_argument("--background", action="store_true", help="at a lower priority, beside the app")
    parser.add_argument("command", nargs="+", help="builds the wheel into {out}")
    args = parser.parse_args(argv)
    if args.background and hasattr(os, "nice"):
        os.nice(10)  # the app and the user come first; the compile takes what is left
    build = Build(args.venv.resolve(), args.wheels.resolve(), args.command, echo=not args.background)
    try:
        return run(build, background=args.background)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
