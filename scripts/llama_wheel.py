"""Build a scikit-build-core package's wheel (llama-cpp-python's) so that a stopped compile goes on where it
stopped: ``pip wheel`` of a package name unpacks its source into a new temporary folder and builds in a new
isolated environment each time, so CMake configured and compiled everything again after any interruption.
Here the source, the build tools and CMake's build folder stay in ``--work`` until the wheel is built. Standard
library only, on Linux, macOS and Windows; ``install.py`` runs it as ``llama_build.py``'s COMMAND::

    python scripts/llama_wheel.py --work DIR --spec llama-cpp-python==0.3.36 --out OUT

``DIR`` is the compile's alone (``llama_build.py`` holds the wheel key's lock while it runs); it is removed
once the wheel is in ``OUT``. What ``CMAKE_ARGS`` says must not change between runs in one ``DIR``: the key
that names it holds the flags.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

READY = ".kimas-ready"  # in a folder whose preparation finished; its text says for what
_REQUIRES = "from scikit_build_core.build import get_requires_for_build_wheel as r; print('\\n'.join(r()))"


def env_python(env: Path) -> Path:
    return env / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")


def _ready(folder: Path, what: str) -> bool:
    mark = folder / READY
    return mark.is_file() and mark.read_text("utf-8") == what


def source(work: Path, spec: str) -> Path:
    """``spec``'s source distribution unpacked in ``work/src`` (downloaded with pip the first time)."""
    src = work / "src"
    if _ready(src, spec):
        return src
    shutil.rmtree(work, ignore_errors=True)  # another version's, or a half-unpacked one: start over
    sdist = work / "sdist"
    pip = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:"]
    subprocess.run([*pip, spec, "-d", str(sdist)], check=True)
    [archive] = sdist.glob("*.tar.gz")
    unpacked = work / "src.tmp"
    with tarfile.open(archive) as tar:
        if hasattr(tarfile, "data_filter"):  # Python 3.11.4 and newer: no path outside ``unpacked``
            tar.extractall(unpacked, filter="data")
        else:
            tar.extractall(unpacked)  # the sdist pip downloaded from the index
    [top] = unpacked.iterdir()  # the archive's one top folder
    top.rename(src)
    shutil.rmtree(unpacked)
    (src / READY).write_text(spec, "utf-8")
    return src


def build_env(work: Path, src: Path) -> Path:
    """A venv in ``work/env`` with scikit-build-core and what it asks for to build ``src`` (CMake and Ninja
    when this machine's are missing or too old): the same tools on every run, so CMake keeps its cache."""
    env = work / "env"
    py = env_python(env)
    if _ready(env, "built"):
        return py
    shutil.rmtree(env, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
    pip = [str(py), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, "scikit-build-core[pyproject]"], check=True)
    asks = subprocess.run([str(py), "-c", _REQUIRES], cwd=src, capture_output=True, text=True, check=True)
    if needs := asks.stdout.split():
        subprocess.run([*pip, *needs], check=True)
    (env / READY).write_text("built", "utf-8")
    return py


def build(work: Path, spec: str, out: Path) -> int:
    """The wheel into ``out``; the compile's files are kept when it fails or is stopped, removed when done."""
    work.mkdir(parents=True, exist_ok=True)
    src = source(work, spec)
    py = build_env(work, src)
    wheel = [str(py), "-m", "pip", "wheel", "-v", "--no-deps", "--no-build-isolation", str(src)]
    code = subprocess.run([*wheel, "-w", str(out), "-C", f"build-dir={work / 'build'}"]).returncode
    if code == 0:
        shutil.rmtree(work, ignore_errors=True)
    return code


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, required=True, help="kept between runs until the wheel is built")
    parser.add_argument("--spec", required=True, help="what pip downloads: name==version")
    parser.add_argument("--out", type=Path, required=True, help="where the wheel goes")
    args = parser.parse_args(argv)
    try:
        return build(args.work.resolve(), args.spec, args.out.resolve())
    except subprocess.CalledProcessError as err:
        print(f"llama_wheel: {err}", file=sys.stderr)
        return err.returncode or 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
