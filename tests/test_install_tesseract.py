"""scripts/install_tesseract.sh (run by scripts/install.sh): Debian's tesseract-ocr is installed when
missing, as root with apt-get, else with sudo; when that fails the install warns and goes on. Run by bash
with a PATH of recording stand-ins for id, apt-get and sudo (the real ones would change this machine)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "install_tesseract.sh"


def stand_in(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text(f"#!{shutil.which('bash')}\n{body}\n")
    path.chmod(0o755)


def run(bin_dir: Path, *, uid: int, apt_works: bool, sudo: bool = True) -> subprocess.CompletedProcess[str]:
    log = bin_dir / "calls.log"
    stand_in(bin_dir, "id", f"echo {uid}")
    ok = f'[ "$1" = install ] && printf "#!/bin/sh\\n" > "{bin_dir}/tesseract" && chmod +x "{bin_dir}/tesseract"'
    stand_in(
        bin_dir, "apt-get", f'echo "apt-get $*" >> "{log}"\n' + (ok + "\nexit 0" if apt_works else "exit 100")
    )
    if sudo:
        stand_in(bin_dir, "sudo", f'echo "sudo $*" >> "{log}"\nexec "$@"')
    return subprocess.run(
        [shutil.which("bash") or "bash", str(SCRIPT)],
        env={**os.environ, "PATH": str(bin_dir)},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def calls(bin_dir: Path) -> list[str]:
    log = bin_dir / "calls.log"
    return log.read_text().splitlines() if log.exists() else []


@pytest.mark.parametrize("uid", [0, 1000])
def test_a_missing_tesseract_is_installed_with_apt_get(tmp_path: Path, uid: int) -> None:
    out = run(tmp_path, uid=uid, apt_works=True)
    assert out.returncode == 0 and "WARNING" not in out.stderr
    assert (tmp_path / "tesseract").exists()
    apt = "apt-get install -y -qq tesseract-ocr"
    assert [c for c in calls(tmp_path) if "install" in c] == ([apt] if uid == 0 else [f"sudo {apt}", apt])


def test_a_failed_install_warns_that_scans_will_be_skipped_and_goes_on(tmp_path: Path) -> None:
    out = run(tmp_path, uid=1000, apt_works=False)
    assert out.returncode == 0
    assert "scanned pages and images will be skipped" in out.stderr and not (tmp_path / "tesseract").exists()
    no_sudo = tmp_path / "nosudo"
    no_sudo.mkdir()
    out = run(no_sudo, uid=1000, apt_works=True, sudo=False)
    assert out.returncode == 0 and "will be skipped" in out.stderr and calls(no_sudo) == []


def test_an_installed_tesseract_is_left_alone(tmp_path: Path) -> None:
    stand_in(tmp_path, "tesseract", "exit 0")
    out = run(tmp_path, uid=0, apt_works=True)
    assert out.returncode == 0 and out.stderr == "" and calls(tmp_path) == []
