"""scripts/install.py's Tesseract step: Debian's tesseract-ocr is installed when missing, as root with
apt-get, else with sudo; when that fails the install warns and goes on. Run with a PATH of recording
stand-ins for apt-get and sudo (the real ones would change this machine)."""

from __future__ import annotations

import os
import platform
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import install  # noqa: E402

BASH = shutil.which("bash") or "/bin/bash"
CHMOD = shutil.which("chmod") or "/bin/chmod"  # the stand-ins run with only their own folder on PATH


def stand_in(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text(f"#!{BASH}\n{body}\n")
    path.chmod(0o755)


def run(
    bin_dir: Path, monkeypatch: pytest.MonkeyPatch, *, uid: int, apt_works: bool, sudo: bool = True
) -> str | None:
    log = bin_dir / "calls.log"
    ok = f'[ "$1" = install ] && printf "#!/bin/sh\\n" > "{bin_dir}/tesseract" && {CHMOD} +x "{bin_dir}/tesseract"'
    stand_in(
        bin_dir, "apt-get", f'echo "apt-get $*" >> "{log}"\n' + (ok + "\nexit 0" if apt_works else "exit 100")
    )
    if sudo:
        stand_in(bin_dir, "sudo", f'echo "sudo $*" >> "{log}"\nexec "$@"')
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setattr(os, "geteuid", lambda: uid, raising=False)
    monkeypatch.setattr(platform, "system", lambda: "Linux")
    return install.tesseract_hint()


def calls(bin_dir: Path) -> list[str]:
    log = bin_dir / "calls.log"
    return log.read_text().splitlines() if log.exists() else []


@pytest.mark.parametrize("uid", [0, 1000])
def test_a_missing_tesseract_is_installed_with_apt_get(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, uid: int
) -> None:
    assert run(tmp_path, monkeypatch, uid=uid, apt_works=True) is None
    assert (tmp_path / "tesseract").exists()
    apt = "apt-get install -y -qq tesseract-ocr"
    assert [c for c in calls(tmp_path) if "install" in c] == ([apt] if uid == 0 else [f"sudo {apt}", apt])


def test_a_failed_install_warns_that_scans_will_be_skipped_and_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hint = run(tmp_path, monkeypatch, uid=1000, apt_works=False)
    assert hint is not None and "scanned pages and images will be skipped" in hint
    assert not (tmp_path / "tesseract").exists()
    no_sudo = tmp_path / "nosudo"
    no_sudo.mkdir()
    hint = run(no_sudo, monkeypatch, uid=1000, apt_works=True, sudo=False)
    assert hint is not None and "will be skipped" in hint and calls(no_sudo) == []


def test_an_installed_tesseract_is_left_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stand_in(tmp_path, "tesseract", "exit 0")
    assert run(tmp_path, monkeypatch, uid=0, apt_works=True) is None and calls(tmp_path) == []
