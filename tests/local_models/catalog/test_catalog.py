"""The catalog data file: well-formed, consistent with fastembed and with the embedded model files."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from kimas_desktop.errors import ConfigError, ModelUnavailableError
from local_models.catalog.catalog import CatalogEntry, find_entry, load_catalog, machine_ram_mb
from local_models.catalog.install import install, models_status
from local_models.embedders.embedded import minilm_archive, smollm2_path


@pytest.fixture(scope="module")
def catalog() -> list[CatalogEntry]:
    return load_catalog()


def test_every_role_is_covered_from_half_a_billion_to_eight(catalog: list[CatalogEntry]) -> None:
    chat = [e for e in catalog if e.role == "chat"]
    assert {"qwen2.5-0.5b-instruct", "llama-3.1-8b-instruct"} <= {e.name for e in chat}
    for entry in chat:
        assert entry.quantization and entry.context >= 4096 and entry.licence and entry.size_mb > 0
        assert entry.ram_mb > entry.size_mb  # weights plus the KV cache
        assert entry.files[0].endswith(".gguf")
    embedders = [e for e in catalog if e.role == "embedding"]
    assert any("languages" in e.languages for e in embedders)  # a multilingual one
    assert [e for e in catalog if e.role == "reranker"]


def test_urls_use_the_hub_layout_and_a_configurable_base(catalog: list[CatalogEntry]) -> None:
    entry = find_entry(catalog, "qwen2.5-0.5b-instruct")
    assert entry.source == (
        "https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct-GGUF/resolve/main/qwen2.5-0.5b-instruct-q4_k_m.gguf"
    )
    assert entry.url(entry.files[0], "http://127.0.0.1:9/").startswith("http://127.0.0.1:9/Qwen/")


def test_fastembed_names_and_files_are_what_fastembed_fetches(catalog: list[CatalogEntry]) -> None:
    from fastembed import TextEmbedding
    from fastembed.rerank.cross_encoder import TextCrossEncoder

    known = {m["model"]: m for m in TextEmbedding.list_supported_models()}
    known |= {m["model"]: m for m in TextCrossEncoder.list_supported_models()}
    for entry in catalog:
        if entry.role in ("chat", "reader") or entry.embedded:  # GGUFs, or in a package
            continue
        description = known[entry.name]
        assert entry.repo == description["sources"]["hf"], entry.name
        assert description["model_file"] in entry.files
        assert set(description.get("additional_files") or []) <= set(entry.files)
        if entry.role == "embedding":
            assert entry.dim == description["dim"]


def test_the_embedded_models_hashes_are_those_of_their_files(catalog: list[CatalogEntry]) -> None:
    chat = find_entry(catalog, "smollm2-135m-instruct")
    assert chat.sha256[chat.files[0]] == hashlib.sha256(smollm2_path().read_bytes()).hexdigest()
    embedder = next(e for e in catalog if e.role == "embedding" and e.embedded)
    assert embedder.sha256["model.zip"] == hashlib.sha256(minilm_archive().read_bytes()).hexdigest()


def test_fits_leaves_room_for_the_system() -> None:
    entry = CatalogEntry("chat", "x", "X", 4000, 6000, "MIT", "o/r", ("x.gguf",))
    assert entry.fits(8192) and not entry.fits(7000)
    assert machine_ram_mb() > 0


def test_status_is_offline_and_says_installed(
    catalog: list[CatalogEntry], tmp_path: Path, no_network: list[object]
) -> None:
    rows = {r.entry.name: r for r in models_status(catalog, tmp_path, ram_mb=4096)}
    assert rows["smollm2-135m-instruct"].installed == smollm2_path()
    assert rows["qwen2.5-0.5b-instruct"].installed is None
    assert rows["qwen2.5-0.5b-instruct"].fits and not rows["llama-3.1-8b-instruct"].fits
    result = install(find_entry(catalog, "smollm2-135m-instruct"), tmp_path)  # nothing to download
    assert result.choice.as_dict() == {"path": "", "kind": "llama"}
    assert not no_network and not tmp_path.joinpath("gguf").exists()


def test_a_broken_catalog_names_the_problem(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(
        '[[chat]]\nname = "a"\ntitle = "A"\nsize_mb = 1\nram_mb = 1\nlicence = "MIT"\nrepo = "o/r"\nfiles = ["a.gguf"]\nsize = 3\n'
    )
    with pytest.raises(ConfigError, match=r"'a' \(chat\) has unknown keys size"):
        load_catalog(path)
    path.write_text('[[chat]]\nname = "a"\n')
    with pytest.raises(ConfigError, match="lacks files, licence"):
        load_catalog(path)
    with pytest.raises(ModelUnavailableError, match="no model named 'zz'"):
        find_entry(load_catalog(), "zz")
