"""scripts/llama_wheel.py, the compile ``install.py`` runs for llama-cpp-python's wheel: a compile that stopped
goes on where it stopped. Run as the installer runs it (a real process, real pip, scikit-build-core, CMake and
Ninja from the package index as the install gets them, a real C compiler) on a tiny scikit-build-core project
served as an sdist: its first compile stops at a file that does not compile, as a stopped compile would with the
files before it built; the second compiles only what is left and writes the wheel."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "llama_wheel.py"
NAME, VERSION = "kimas-resume-probe", "0.1"

pytestmark = pytest.mark.slow

FILES = {
    "pyproject.toml": f"""[build-system]
requires = ["scikit-build-core"]
build-backend = "scikit_build_core.build"
[project]
name = "{NAME}"
version = "{VERSION}"
""",
    "PKG-INFO": f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {VERSION}\n",
    "CMakeLists.txt": """cmake_minimum_required(VERSION 3.15)
project(probe C)
add_library(probe SHARED first.c second.c third.c)
install(TARGETS probe DESTINATION kimas_resume_probe)
""",
    "first.c": "int first(void) { return 1; }\n",
    "second.c": "int second(void) { return 2; }\n",
    "third.c": "#error stopped here\n",
}


def sdist(folder: Path) -> None:
    folder.mkdir()
    top = f"kimas_resume_probe-{VERSION}"
    with tarfile.open(folder / f"{top}.tar.gz", "w:gz") as tar:
        for name, text in FILES.items():
            data = text.encode()
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def compile_(work: Path, out: Path, links: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PIP_FIND_LINKS": f"{links} {os.environ.get('PIP_FIND_LINKS', '')}".strip()}
    spec = f"{NAME}=={VERSION}"
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--work", str(work), "--spec", spec, "--out", str(out)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # as llama_build.py reads it (pip's -v output of the compile is on stderr)
        text=True,
        timeout=900,
    )


def test_a_stopped_compile_goes_on_where_it_stopped_and_its_files_go_when_the_wheel_is_built(
    tmp_path: Path,
) -> None:
    links, work, out = tmp_path / "links", tmp_path / "key.build", tmp_path / "out"
    sdist(links)
    stopped = compile_(work, out, links)
    assert stopped.returncode != 0, stopped.stdout
    assert "first.c.o" in stopped.stdout and "#error stopped here" in stopped.stdout
    assert not list(out.glob("*.whl")) and (work / "build").is_dir()  # kept, to go on from
    (work / "src" / "third.c").write_text("int third(void) { return 3; }\n")  # what was wrong is put right
    done = compile_(work, out, links)
    assert done.returncode == 0, done.stdout
    compiled = [line for line in done.stdout.splitlines() if "Building C object" in line]
    assert len(compiled) == 1 and "third.c.o" in compiled[0], compiled  # first.c and second.c were kept
    assert [w.name.split("-")[0] for w in out.glob("*.whl")] == ["kimas_resume_probe"]
    assert not work.exists()  # the compile's files are gone once the wheel is built
