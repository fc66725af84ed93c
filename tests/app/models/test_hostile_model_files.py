"""Model discovery reads hostile files safely (issue 70): every hostile file is a real one in ``tmp_path``,
written byte by byte (``hostile_files``); the scan lists the good models beside them, skips each hostile one
and says why, and neither raises, hangs nor points outside the folders it was given."""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

import pytest

from app.models.gguf_header import MAX_NESTING, GgufFacts, GgufLimitError, read_gguf_facts
from app.models.local_files import MAX_MANIFEST_BYTES, FileScan, FileScanReport, ModelFolders, SkippedFile
from app.settings.first_start import STATE_FILE, FirstStartHint
from kimas_desktop.config import Config
from tests.app.models.hostile_files import (
    ESCAPE_NAME,
    finished_within,
    gguf_header,
    gguf_string,
    hostile_home,
    manifest,
    model_layer,
    nested_arrays_gguf,
)
from tests.app.models.model_folders import OLLAMA_DIGEST, lm_studio_folder, ollama_folder, put_model

GOOD = ["SmolLM2-135M-Instruct-Q4_1", "hf.co/bartowski/SmolLM2-135M-Instruct-GGUF:Q4_1", "smollm2:135m"]
POSIX = hasattr(os, "mkfifo")
needs_fifo = pytest.mark.skipif(not POSIX, reason="os.mkfifo exists on POSIX only")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def hostile(home: Path) -> dict[str, Path]:
    return hostile_home(home)


@pytest.fixture
def good_home(home: Path) -> Path:
    """The good models only (``model_folders``), for one hostile file at a time."""
    lm_studio_folder(home)
    ollama_folder(home)
    return home


def folders(home: Path) -> ModelFolders:
    return ModelFolders(lm_studio=(home / ".lmstudio" / "models",), ollama=(home / ".ollama" / "models",))


def scan(home: Path, hostile: dict[str, Path]) -> FileScanReport:
    fifos = [p for k, p in hostile.items() if "fifo" in k]
    return finished_within(30, fifos, FileScan(folders(home)).scan)


def _array(item: int, count: int) -> bytes:
    return struct.pack("<IQ", item, count)


@pytest.mark.parametrize(
    "pairs",
    [
        [("tokenizer.evil", 9, _array(10, 2**64 - 1))],  # 2**64 u64s: 2**67 bytes to seek past
        [("tokenizer.evil", 9, _array(8, 2**40))],  # a trillion strings
        [("general.name", 8, struct.pack("<Q", 2**62))],  # a string of 4 EiB
        [("tokenizer.evil", 8, struct.pack("<Q", 2**62))],  # the same, in a value that is skipped
    ],
    ids=["u64-array-of-2^64", "string-array-of-2^40", "string-of-2^62-bytes", "skipped-string-of-2^62-bytes"],
)
def test_a_header_claiming_absurd_sizes_is_a_limit_error(
    tmp_path: Path, pairs: list[tuple[str, int, bytes]]
) -> None:
    path = tmp_path / "huge.gguf"
    path.write_bytes(gguf_header(pairs))
    with pytest.raises(GgufLimitError, match="claims"):
        read_gguf_facts(path)


def test_a_60_kb_header_of_5000_nested_arrays_is_a_limit_error_not_a_recursion_error(tmp_path: Path) -> None:
    path = tmp_path / "nested.gguf"
    path.write_bytes(nested_arrays_gguf())
    assert 59_000 < path.stat().st_size < 61_000
    with pytest.raises(GgufLimitError, match="nests arrays deeper"):
        read_gguf_facts(path)


def test_arrays_nested_within_the_limit_are_skipped_and_the_facts_read(tmp_path: Path) -> None:
    nested = _array(9, 2) + (_array(9, 1) * (MAX_NESTING - 2) + _array(8, 1) + gguf_string("x")) * 2
    path = tmp_path / "model.gguf"
    path.write_bytes(
        gguf_header(
            [
                ("general.architecture", 8, gguf_string("llama")),
                ("tokenizer.nested", 9, nested),
                ("llama.context_length", 4, struct.pack("<I", 4096)),
                ("general.file_type", 4, struct.pack("<I", 15)),
            ]
        )
    )
    assert read_gguf_facts(path) == GgufFacts("llama", "", 4096, "Q4_K_M", False)


def test_the_scan_lists_the_good_models_beside_the_hostile_files(
    home: Path, hostile: dict[str, Path]
) -> None:
    models = finished_within(30, [p for k, p in hostile.items() if "fifo" in k], FileScan(folders(home)).find)
    assert sorted(m.name for m in models) == GOOD
    blobs = home / ".ollama" / "models" / "blobs"
    assert all(
        m.path is not None
        and m.path.parent
        in (blobs, home / ".lmstudio" / "models" / "lmstudio-community" / "SmolLM2-135M-Instruct-GGUF")
        for m in models
    )


@pytest.mark.parametrize(
    "digest", ["../../../Documents/other.gguf", "{outside}"], ids=["dot-dot", "absolute"]
)
def test_a_digest_pointing_outside_blobs_is_not_a_model(good_home: Path, digest: str) -> None:
    outside = put_model(good_home / "Documents" / "other.gguf")  # a real model, but not one of Ollama's
    ollama = good_home / ".ollama" / "models"
    escape = manifest(
        ollama, "registry.ollama.ai/library/escape/latest", model_layer(digest.format(outside=outside))
    )
    report = FileScan(folders(good_home)).scan()
    assert sorted(m.name for m in report.models) == GOOD
    assert SkippedFile(escape, "bad-digest") in report.skipped


@needs_fifo
@pytest.mark.parametrize("name", ["fifo", "link-to-fifo", "fifo-blob", "link-to-device"])
def test_a_fifo_or_device_named_like_a_model_is_skipped_unopened(
    home: Path, hostile: dict[str, Path], name: str
) -> None:
    report = scan(home, hostile)
    assert SkippedFile(hostile[name], "not-a-regular-file") in report.skipped


def test_each_file_skipped_for_a_cause_is_listed_once_with_its_reason(
    home: Path, hostile: dict[str, Path]
) -> None:
    lm_studio = home / ".lmstudio" / "models"
    ollama = home / ".ollama" / "models"
    expected = [
        SkippedFile(lm_studio / "evil" / "repo" / ESCAPE_NAME, "beyond-limits"),
        SkippedFile(hostile["absolute"], "bad-digest"),
        SkippedFile(hostile["brackets"], "bad-manifest"),
        SkippedFile(hostile["traversal"], "bad-digest"),
        SkippedFile(
            ollama / "manifests" / "registry.ollama.ai" / "library" / "gone" / "latest", "missing-blob"
        ),
        SkippedFile(
            lm_studio / "lmstudio-community" / "SmolLM2-135M-Instruct-GGUF" / "broken-Q4_K_M.gguf", "not-gguf"
        ),
    ]
    if POSIX:
        expected += [
            SkippedFile(hostile["fifo"], "not-a-regular-file"),
            SkippedFile(hostile["link-to-fifo"], "not-a-regular-file"),
            SkippedFile(hostile["link-to-device"], "not-a-regular-file"),
            SkippedFile(hostile["loop"], "unreadable"),
            SkippedFile(hostile["loop"].with_name("loop-b.gguf"), "unreadable"),
            SkippedFile(hostile["fifo-blob"], "not-a-regular-file"),
        ]
    doubled = ModelFolders(lm_studio=(lm_studio, lm_studio.parent), ollama=(ollama, ollama))
    fifos = [p for k, p in hostile.items() if "fifo" in k]
    for where in (folders(home), doubled):
        report = finished_within(30, fifos, FileScan(where).scan)
        assert sorted(m.name for m in report.models) == GOOD
        assert sorted(report.skipped, key=str) == sorted(expected, key=str)


@pytest.mark.parametrize(
    "body",
    [
        b"[" * 200_000 + b"]" * 200_000,  # nested brackets, no object at all
        b'{"layers": [' + b"{" * 1000 + b"}" * 1000 + b"]}",  # not JSON
        b"\xff\xfe{}",  # not UTF-8
        json.dumps(model_layer(OLLAMA_DIGEST)).encode() + b" " * MAX_MANIFEST_BYTES,  # good, but too big
        b"[]",
        b'{"layers": "sha256:00"}',
        b'{"layers": [1, 2]}',
        model_layer(5),
        model_layer(["sha256:" + "5e" * 32]),
    ],
    ids=[
        "brackets",
        "invalid-nested",
        "not-utf8",
        "too-big",
        "a-list",
        "layers-a-string",
        "layers-numbers",
        "digest-a-number",
        "digest-a-list",
    ],
)
def test_a_manifest_that_is_not_one_is_skipped_and_the_others_read(good_home: Path, body: object) -> None:
    bad = manifest(good_home / ".ollama" / "models", "registry.ollama.ai/library/bad/latest", body)
    report = FileScan(folders(good_home)).scan()
    assert sorted(m.name for m in report.models) == GOOD
    assert SkippedFile(bad, "bad-manifest") in report.skipped


def test_a_manifest_without_a_model_layer_names_no_model_and_is_no_error(good_home: Path) -> None:
    quiet = manifest(
        good_home / ".ollama" / "models", "registry.ollama.ai/library/adapter/latest", {"layers": []}
    )
    report = FileScan(folders(good_home)).scan()
    assert quiet not in {s.path for s in report.skipped} and sorted(m.name for m in report.models) == GOOD


def test_the_scan_stops_at_its_time_budget_and_says_where(home: Path, hostile: dict[str, Path]) -> None:
    fifos = [p for k, p in hostile.items() if "fifo" in k]
    report = finished_within(30, fifos, FileScan(folders(home), budget_s=0).scan)
    assert report.models == ()
    assert [s.reason for s in report.skipped] == ["out-of-time"]
    assert report.skipped[0].path.suffix == ".gguf"


def test_the_first_start_hint_looks_past_hostile_files(
    home: Path, hostile: dict[str, Path], tmp_path: Path
) -> None:
    fifos = [p for k, p in hostile.items() if "fifo" in k]
    hint = FirstStartHint(tmp_path / "data", scan=FileScan(folders(home)).find)
    assert finished_within(30, fifos, lambda: hint.suggestion(Config())) is None  # SmolLM2 is not better
    assert (tmp_path / "data" / STATE_FILE).is_file()
