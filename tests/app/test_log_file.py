"""``kimas.log``: rotated at its size limit, fed by third-party loggers (fastembed's loguru too), one line per
message with control characters escaped."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.log_file import LogFile, open_log_file


@pytest.fixture
def log_file(tmp_path: Path) -> Iterator[tuple[Path, LogFile]]:
    path = tmp_path / "kimas.log"
    handle = open_log_file(path, max_bytes=4_000, backups=2)
    try:
        yield path, handle
    finally:
        handle.close()


def test_the_log_rotates_at_its_size_limit(log_file: tuple[Path, LogFile]) -> None:
    path, _ = log_file
    log = logging.getLogger("kimas.test.rotation")
    for i in range(300):
        log.info("line %04d %s", i, "x" * 60)
    assert path.stat().st_size <= 4_000
    assert (path.parent / "kimas.log.1").is_file() and (path.parent / "kimas.log.2").is_file()
    assert not (path.parent / "kimas.log.3").exists()  # the oldest is dropped
    assert "line 0299" in path.read_text("utf-8")
    total = sum(p.stat().st_size for p in path.parent.glob("kimas.log*"))
    assert total <= 3 * 4_000


def test_fastembeds_loguru_messages_land_in_the_log(log_file: tuple[Path, LogFile], tmp_path: Path) -> None:
    from fastembed import TextEmbedding

    with pytest.raises(ValueError):  # nothing cached and no download allowed: fastembed logs why
        TextEmbedding("BAAI/bge-small-en-v1.5", cache_dir=str(tmp_path / "empty"), local_files_only=True)
    text = log_file[0].read_text("utf-8")
    assert "ERROR fastembed.common.model_management: Could not find model in cache_dir" in text


def test_control_characters_are_escaped_and_a_message_stays_one_line(log_file: tuple[Path, LogFile]) -> None:
    path, _ = log_file
    log = logging.getLogger("kimas.test.escape")
    log.warning("skipped %s", "evil\x1b[31mred\x00\nFAKE 2026 ERROR forged")
    try:
        raise ValueError("bad\x1bname")
    except ValueError:
        log.exception("failed")
    text = path.read_text("utf-8")
    assert "\x1b" not in text and "\x00" not in text
    assert "skipped evil\\x1b[31mred\\x00\\nFAKE 2026 ERROR forged" in text
    assert not any(line.startswith("FAKE") for line in text.splitlines())
    assert "Traceback (most recent call last):\n" in text and "ValueError: bad\\x1bname" in text
