"""Watched folders (issue 21): virtual and device file systems and KIMAs' own data are refused, clearly."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.rigs import Rig, make_rig


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    rig = make_rig(tmp_path)
    rig.session.start()
    yield rig
    rig.session.close()


@pytest.mark.parametrize("folder", ["/proc", "/proc/self", "/sys", "/sys/kernel", "/dev"])
def test_system_folders_are_refused(rig: Rig, folder: str) -> None:
    if not Path(folder).is_dir():
        pytest.skip(f"no {folder} here")
    outcome = rig.session.add_folder("sys", folder)
    assert not outcome.ok
    assert "not documents" in outcome.message and "choose a folder of documents" in outcome.message
    assert rig.session.knowledge.folders("sys") in (None, [])


def test_a_virtual_file_system_mounted_anywhere_is_refused(rig: Rig, tmp_path: Path) -> None:
    point = tmp_path / "looks-like-documents"
    point.mkdir()
    if subprocess.run(["mount", "-t", "proc", "proc", str(point)], capture_output=True).returncode != 0:
        pytest.skip("cannot mount a proc file system here (needs root)")
    try:
        outcome = rig.session.add_folder("sys", str(point))
    finally:
        subprocess.run(["umount", str(point)], check=True)
    assert not outcome.ok and "on a 'proc' file system" in outcome.message


def test_the_data_directory_and_what_is_inside_it_are_refused(rig: Rig, tmp_path: Path) -> None:
    data = rig.session.knowledge.data_dir
    (data / "lancedb").mkdir(parents=True, exist_ok=True)
    for folder in (data, data.parent, data / "lancedb"):
        outcome = rig.session.add_folder("own", str(folder))
        assert not outcome.ok and "KIMAs' own data directory" in outcome.message, folder
    docs = tmp_path / "docs"
    docs.mkdir()
    assert rig.session.add_folder("own", str(docs)).ok


def test_a_folder_whose_name_is_not_utf8_is_refused(rig: Rig, tmp_path: Path) -> None:
    import os

    bad = os.fsencode(tmp_path) + b"/docs\xff"
    os.mkdir(bad)
    outcome = rig.session.add_folder("bad", os.fsdecode(bad))
    assert not outcome.ok and "not valid UTF-8" in outcome.message
