"""``read_gguf_facts(path)``: the few facts a model list shows, read from a GGUF file's header.

A GGUF file starts with ``GGUF``, a version (2 or 3), the tensor count and the key/value count, then the
key/value pairs (the format is documented in ggml's ``docs/gguf.md``). Only the header is read, never the
weights, and only until the keys we need are seen: ``general.architecture``, ``general.name``,
``general.file_type`` (the quantization), ``<arch>.context_length`` and ``<arch>.pooling_type`` (set by
embedding models). Long arrays (the tokenizer's vocabulary) are skipped without keeping them.

A file that is not GGUF, or is cut short, raises ``GgufError`` (a ``ValueError``); the caller skips it.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

__all__ = ["EMBEDDING_ARCHITECTURES", "GgufError", "GgufFacts", "quantization_name", "read_gguf_facts"]

MAGIC = b"GGUF"
# llama.cpp's LLAMA_FTYPE values (include/llama.h) → the names its quantize tool and file names use.
FILE_TYPES = {
    0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K", 11: "Q3_K_S",
    12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S", 17: "Q5_K_M", 18: "Q6_K",
    19: "IQ2_XXS", 20: "IQ2_XS", 21: "Q2_K_S", 22: "IQ3_XS", 23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL",
    26: "IQ3_S", 27: "IQ3_M", 28: "IQ2_S", 29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16",
    36: "TQ1_0", 37: "TQ2_0", 38: "MXFP4_MOE",
}  # fmt: skip
# Architectures that only embed (no chat): BERT-style encoders.
EMBEDDING_ARCHITECTURES = frozenset({"bert", "nomic-bert", "nomic-bert-moe", "jina-bert-v2", "t5encoder"})
MAX_KEYS = 100_000  # a header claiming more is not a model file we can read
MAX_STRING = 1 << 24

# value types: 0 u8, 1 i8, 2 u16, 3 i16, 4 u32, 5 i32, 6 f32, 7 bool, 8 string, 9 array, 10 u64, 11 i64, 12 f64
_SCALARS = {
    0: "<B",
    1: "<b",
    2: "<H",
    3: "<h",
    4: "<I",
    5: "<i",
    6: "<f",
    7: "<?",
    10: "<Q",
    11: "<q",
    12: "<d",
}
_STRING, _ARRAY = 8, 9


class GgufError(ValueError):
    """Not a GGUF file we can read (wrong magic, an old version, a header cut short)."""


@dataclass(frozen=True)
class GgufFacts:
    architecture: str
    name: str  # general.name; may be empty
    context_length: int  # the context the model was trained for; 0 when the header does not say
    quantization: str  # "Q4_K_M" …; empty when the header does not say
    embedding: bool  # an embedding model (a BERT-style architecture, or a pooling type is set)


def quantization_name(file_type: int) -> str:
    return FILE_TYPES.get(file_type, f"type {file_type}")


def _read(f: BinaryIO, n: int) -> bytes:
    data = f.read(n)
    if len(data) != n:
        raise GgufError("the GGUF header is cut short")
    return data


def _unpack(f: BinaryIO, fmt: str) -> int | float | bool:
    value: int | float | bool = struct.unpack(fmt, _read(f, struct.calcsize(fmt)))[0]
    return value


def _string(f: BinaryIO) -> str:
    n = int(_unpack(f, "<Q"))
    if n > MAX_STRING:
        raise GgufError("a GGUF header string is implausibly long")
    return _read(f, n).decode("utf-8", "replace")


def _value(f: BinaryIO, kind: int) -> object:
    """The value of type ``kind``; arrays are skipped (None) since none of the keys we read is one."""
    if kind in _SCALARS:
        return _unpack(f, _SCALARS[kind])
    if kind == _STRING:
        return _string(f)
    if kind != _ARRAY:
        raise GgufError(f"unknown GGUF value type {kind}")
    item, count = int(_unpack(f, "<I")), int(_unpack(f, "<Q"))
    if item in _SCALARS:
        f.seek(struct.calcsize(_SCALARS[item]) * count, 1)
    else:
        for _ in range(count):
            _value(f, item)
    return None


def _wanted(key: str, found: dict[str, object]) -> bool:
    arch = found.get("general.architecture", "")
    return key.startswith("general.") or key in (f"{arch}.context_length", f"{arch}.pooling_type")


def _done(found: dict[str, object]) -> bool:
    arch = found.get("general.architecture")
    return arch is not None and "general.file_type" in found and f"{arch}.context_length" in found


def _header(f: BinaryIO) -> dict[str, object]:
    if _read(f, 4) != MAGIC:
        raise GgufError("not a GGUF file")
    version = int(_unpack(f, "<I"))
    if version not in (2, 3):
        raise GgufError(f"GGUF version {version} is not supported")
    _unpack(f, "<Q")  # tensor count
    keys = int(_unpack(f, "<Q"))
    if keys > MAX_KEYS:
        raise GgufError("the GGUF header claims too many keys")
    found: dict[str, object] = {}
    for _ in range(keys):
        key, kind = _string(f), int(_unpack(f, "<I"))
        value = _value(f, kind)
        if _wanted(key, found):
            found[key] = value
        if _done(found):
            break
    return found


def read_gguf_facts(path: Path) -> GgufFacts:
    """The header facts of the GGUF file at ``path``; ``GgufError`` (or ``OSError``) when unreadable."""
    with path.open("rb") as f:
        found = _header(f)
    arch = str(found.get("general.architecture", ""))
    context = found.get(f"{arch}.context_length", 0)
    file_type = found.get("general.file_type")
    pooling = found.get(f"{arch}.pooling_type")
    return GgufFacts(
        architecture=arch,
        name=str(found.get("general.name", "")),
        context_length=int(context) if isinstance(context, int) else 0,
        quantization=quantization_name(file_type) if isinstance(file_type, int) else "",
        embedding=arch in EMBEDDING_ARCHITECTURES or (isinstance(pooling, int) and pooling > 0),
    )
