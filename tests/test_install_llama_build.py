"""scripts/llama_build.py, the install's llama.cpp step (issue 71), run as the installer runs it: a real
process, real locks, a real venv in a temporary folder, and a fake compiler in place of ``pip wheel`` that
prints ninja's ``[n/N]`` lines slowly, fails as a machine without a C++ compiler does, or is killed. The wheel
it writes is a real (tiny) one, so the venv's pip really installs it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
BUILDER = ROOT / "scripts" / "llama_build.py"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.name == "nt", reason="kills a process group (POSIX); the code is portable"),
]

FAKE_COMPILER = r"""
import os, sys, time, zipfile
out, record, mode, steps, delay = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
with open(record, "a") as f:
    f.write(f"start {os.getpid()} {time.time()}\n")
print("-- The CXX compiler identification is GNU 12.2.0", flush=True)
if mode == "fail":
    print("CMake Error at CMakeLists.txt:3 (project):", flush=True)
    print("  No CMAKE_CXX_COMPILER could be found.", flush=True)
    sys.exit(1)
for i in range(1, steps + 1):
    time.sleep(delay)
    print(f"  [{i}/{steps}] Building CXX object vendor/llama.cpp/src/part{i}.cpp.o", flush=True)
name = "llama_cpp_python-0.3.36"
files = {
    "llama_cpp/__init__.py": '__version__ = "0.3.36"\n',
    f"{name}.dist-info/METADATA": "Metadata-Version: 2.1\nName: llama_cpp_python\nVersion: 0.3.36\n",
    f"{name}.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: fake\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
files[f"{name}.dist-info/RECORD"] = "".join(f"{p},,\n" for p in [*files, f"{name}.dist-info/RECORD"])
with zipfile.ZipFile(os.path.join(out, f"{name}-py3-none-any.whl"), "w") as whl:
    for path, text in files.items():
        whl.writestr(path, text)
with open(record, "a") as f:
    f.write(f"end {os.getpid()} {time.time()}\n")
"""


class Rig:
    def __init__(self, tmp: Path, venv: Path) -> None:
        self.venv, self.wheels = venv, tmp / "cache" / "0123456789abcdef"
        self.record = tmp / "compiles.log"
        self.compiler = tmp / "fake_compiler.py"
        self.compiler.write_text(FAKE_COMPILER)

    def start(
        self, *, background: bool, mode: str = "slow", steps: int = 12, delay: float = 0.3
    ) -> subprocess.Popen[str]:
        compile_ = [
            sys.executable,
            str(self.compiler),
            "{out}",
            str(self.record),
            mode,
            str(steps),
            str(delay),
        ]
        args = ["--venv", str(self.venv), "--wheels", str(self.wheels)]
        return subprocess.Popen(
            [sys.executable, str(BUILDER), *args, *(["--background"] if background else []), "--", *compile_],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # the test kills a builder with its compiler, as Ctrl-C would
        )

    def status(self) -> dict[str, object]:
        path = self.venv / "kimas-llama-build.json"
        return json.loads(path.read_text("utf-8")) if path.exists() else {}

    def wait_for(self, ok: Callable[[dict[str, object]], bool], timeout: float = 60.0) -> dict[str, object]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status = self.status()
            if ok(status):
                return status
            time.sleep(0.05)
        pytest.fail(f"the status never got there: {self.status()}")

    def compiles(self) -> list[tuple[str, int, float]]:
        lines = self.record.read_text().split("\n") if self.record.exists() else []
        return [(w[0], int(w[1]), float(w[2])) for w in (line.split() for line in lines) if w]

    def imports_llama(self) -> bool:
        py = self.venv / "bin" / "python"
        return subprocess.run([str(py), "-c", "import llama_cpp"], capture_output=True).returncode == 0


@pytest.fixture
def venv(tmp_path: Path) -> Path:
    path = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
    return path


def test_a_slow_build_shows_its_progress_and_a_second_run_or_a_test_run_beside_it_never_compiles_again(
    tmp_path: Path, venv: Path
) -> None:
    rig = Rig(tmp_path, venv)
    first = rig.start(background=True)
    status = rig.wait_for(lambda s: s.get("state") == "compiling" and int(str(s.get("step"))) >= 3)
    assert status["steps"] == 12 and status["pid"] == first.pid
    assert isinstance(status["left_s"], float) and 0 < status["left_s"] < 30  # from the build's own pace
    second = rig.start(background=True)  # a second run.sh: leaves at once, the first one builds
    assert second.wait(timeout=20) == 0 and first.poll() is None
    beside = rig.start(background=False)  # test.sh: waits for the build in progress, then installs it
    assert first.wait(timeout=60) == 0 and beside.wait(timeout=60) == 0
    assert [kind for kind, _, _ in rig.compiles()] == ["start", "end"]  # one compile, by the first
    assert rig.status()["state"] == "done" and rig.imports_llama()
    assert (venv / ".kimas-llama-0123456789abcdef").exists()
    again = rig.start(background=False)  # later runs: nothing to do
    assert again.wait(timeout=30) == 0 and len(rig.compiles()) == 2


def test_a_build_without_a_compiler_says_so_and_installs_no_wheel(tmp_path: Path) -> None:
    rig = Rig(tmp_path, tmp_path / "venv-never-touched")
    rig.venv.mkdir()
    build = rig.start(background=True, mode="fail")
    assert build.wait(timeout=30) == 1
    status = rig.status()
    assert status["state"] == "failed" and status["error"] == "compiler"
    assert "CMAKE_CXX_COMPILER" in str(status["detail"])
    assert not list(rig.wheels.parent.rglob("*.whl"))
    assert "No CMAKE_CXX_COMPILER" in Path(str(status["log"])).read_text()


def test_a_build_killed_mid_compile_is_never_used_and_the_next_run_builds_it_once(
    tmp_path: Path, venv: Path
) -> None:
    rig = Rig(tmp_path, venv)
    killed = rig.start(background=True, delay=0.5)
    rig.wait_for(lambda s: s.get("state") == "compiling" and int(str(s.get("step"))) >= 2)
    waiting = rig.start(background=False, delay=0.05)  # started beside it: waits, compiles nothing yet
    time.sleep(1.0)
    assert [kind for kind, _, _ in rig.compiles()] == ["start"]
    os.killpg(killed.pid, signal.SIGKILL)  # the builder and its compiler, mid-compile
    killed_at = time.time()
    killed.wait(timeout=10)
    assert finished(rig) is None  # only a half-built folder, never a wheel anyone installs
    assert waiting.wait(timeout=60) == 0  # the lock came free: it compiled, once, after the kill
    compiles = rig.compiles()
    assert [kind for kind, _, _ in compiles] == ["start", "start", "end"]
    assert compiles[1][2] >= killed_at - 0.05 and compiles[1][1] != compiles[0][1]
    assert rig.status()["state"] == "done" and rig.imports_llama()


def finished(rig: Rig) -> Path | None:
    found = sorted(rig.wheels.glob("*.whl")) if rig.wheels.is_dir() else []
    return found[0] if found else None


def _builder_module() -> Any:
    """scripts/llama_build.py as the installer imports it (the scripts folder on the path)."""
    sys.path.insert(0, str(BUILDER.parent))
    import llama_build

    return llama_build


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        ("-- Configuring incomplete, errors occurred!\nCMake Error: CMAKE_C_COMPILER not set, after "
         "EnableLanguage\n", "compiler"),
        ("  error: command 'gcc' failed: No such file or directory: 'gcc'\n", "compiler"),
        ("CMake Error at CMakeLists.txt:1 (cmake_minimum_required):\n  CMake 3.21 or higher is required.  "
         "You are running version 3.16.3\n", "cmake"),
        ("ERROR: Could not find a version that satisfies the requirement scikit-build-core>=0.9.2\n"
         "ERROR: No matching distribution found for scikit-build-core>=0.9.2\n", "network"),
        ("ninja: build stopped: subcommand failed.\nERROR: Failed to build one or more wheels\n", "other"),
    ],
)  # fmt: skip
def test_a_failed_builds_log_says_what_to_install(log: str, cause: str) -> None:
    found, line = _builder_module().diagnose(log)
    assert found == cause and line


def test_progress_is_read_from_ninja_and_make_lines_and_the_time_left_from_the_pace() -> None:
    now = [0.0]
    progress = _builder_module().Progress(clock=lambda: now[0])
    assert not progress.feed("-- Build files have been written to: /tmp/build")
    assert progress.feed("  [10/110] Building C object ggml.c.o") and progress.left_s() is None
    now[0] = 30.0
    assert progress.feed("  [20/110] Building CXX object llama.cpp.o")
    assert progress.left_s() == pytest.approx(270.0)  # 3 s a step so far, 90 steps to go
    assert progress.feed("[ 45%] Building CXX object vendor/llama.cpp/src/llama.cpp.o")
    assert (progress.step, progress.steps) == (45, 100)
