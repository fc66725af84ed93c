"""``gguf_facts(file)``: the few facts a model list shows, read from a GGUF file's header.

A GGUF file starts with ``GGUF``, a version (2 or 3), the tensor count and the key/value count, then the
key/value pairs (the format is documented in ggml's ``docs/gguf.md``). Only the header is read, never the
weights, and only until the keys we need are seen: ``general.architecture``, ``general.name``,
``general.file_type`` (the quantization), ``<arch>.context_length`` and ``<arch>.pooling_type`` (set by
embedding models). Every other value (the tokenizer's long arrays) is skipped without keeping it.

Model discovery reads files it did not write, so the reader holds limits: no length read from the file is
trusted before it is checked, and nothing is recursed into without bound. Errors::

    GgufError (ValueError)   not a GGUF file we can read: wrong magic, an old version, a header cut short
    └── GgufLimitError       a header beyond the limits below (arrays nested deeper than MAX_NESTING, more
                             than MAX_KEYS keys, an array of more than MAX_ITEMS items, a string longer than
                             MAX_STRING bytes), or not read by the caller's deadline

``read_gguf_facts(path)`` opens ``path`` and reads it; discovery opens files itself (``local_files``: regular
files only) and calls ``gguf_facts``.
"""

from __future__ import annotations

import math
import struct
import time
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

__all__ = [
    "EMBEDDING_ARCHITECTURES",
    "GgufError",
    "GgufFacts",
    "GgufLimitError",
    "gguf_facts",
    "quantization_name",
    "read_gguf_facts",
]

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
MAX_STRING = 1 << 24  # a string value (a chat template is a few KB)
MAX_KEY = (1 << 16) - 1  # docs/gguf.md: a key is at most 65535 bytes
MAX_ITEMS = 1 << 24  # items in one array (the largest vocabularies have ~260k tokens)
MAX_NESTING = 3  # arrays of arrays; llama.cpp writes none nested, ggml's format allows them

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


class GgufLimitError(GgufError):
    """A GGUF header beyond the reader's limits (nesting, counts, sizes, time): see the module docstring."""


@dataclass(frozen=True)
class GgufFacts:
    architecture: str
    name: str  # general.name; may be empty
    context_length: int  # the context the model was trained for; 0 when the header does not say
    quantization: str  # "Q4_K_M" …; empty when the header does not say
    embedding: bool  # an embedding model (a BERT-style architecture, or a pooling type is set)


def quantization_name(file_type: int) -> str:
    return FILE_TYPES.get(file_type, f"type {file_type}")


class _HeaderReader:
    """Reads a GGUF header's values from ``f``, each length checked against its limit before it is used,
    and the clock against ``deadline`` (``time.monotonic``) before each read."""

    def __init__(self, f: BinaryIO, deadline: float) -> None:
        self._f = f
        self._deadline = deadline

    def bytes(self, n: int) -> bytes:
        if time.monotonic() > self._deadline:
            raise GgufLimitError("the GGUF header was not read in time")
        data = self._f.read(n)
        if len(data) != n:
            raise GgufError("the GGUF header is cut short")
        return data

    def number(self, fmt: str) -> int | float | bool:
        value: int | float | bool = struct.unpack(fmt, self.bytes(struct.calcsize(fmt)))[0]
        return value

    def count(self, limit: int, what: str) -> int:
        n = int(self.number("<Q"))
        if n > limit:
            raise GgufLimitError(f"the GGUF header claims {n:,} {what} (at most {limit:,} are read)")
        return n

    def string(self, limit: int = MAX_STRING) -> str:
        return self.bytes(self.count(limit, "bytes in a string")).decode("utf-8", "replace")

    def value(self, kind: int) -> object:
        """A scalar or a string (the keys we keep are never arrays)."""
        if kind in _SCALARS:
            return self.number(_SCALARS[kind])
        if kind == _STRING:
            return self.string()
        self.skip(kind)
        return None

    def skip(self, kind: int, depth: int = 0) -> None:
        """Moves past a value of type ``kind`` without keeping it; ``depth``: the arrays it is inside."""
        if kind in _SCALARS:
            self._f.seek(struct.calcsize(_SCALARS[kind]), 1)
        elif kind == _STRING:
            self._f.seek(self.count(MAX_STRING, "bytes in a string"), 1)
        elif kind == _ARRAY:
            if depth >= MAX_NESTING:
                raise GgufLimitError(f"the GGUF header nests arrays deeper than {MAX_NESTING}")
            item, count = int(self.number("<I")), self.count(MAX_ITEMS, "items in an array")
            if item in _SCALARS:
                self._f.seek(struct.calcsize(_SCALARS[item]) * count, 1)
            else:
                for _ in range(count):
                    self.skip(item, depth + 1)
        else:
            raise GgufError(f"unknown GGUF value type {kind}")


def _wanted(key: str, found: dict[str, object]) -> bool:
    arch = found.get("general.architecture", "")
    wanted = ("general.architecture", "general.name", "general.file_type")
    return key in wanted or key in (f"{arch}.context_length", f"{arch}.pooling_type")


def _done(found: dict[str, object]) -> bool:
    arch = found.get("general.architecture")
    return arch is not None and "general.file_type" in found and f"{arch}.context_length" in found


def _header(read: _HeaderReader) -> dict[str, object]:
    if read.bytes(4) != MAGIC:
        raise GgufError("not a GGUF file")
    version = int(read.number("<I"))
    if version not in (2, 3):
        raise GgufError(f"GGUF version {version} is not supported")
    read.number("<Q")  # tensor count
    found: dict[str, object] = {}
    for _ in range(read.count(MAX_KEYS, "keys")):
        key, kind = read.string(MAX_KEY), int(read.number("<I"))
        if _wanted(key, found):
            found[key] = read.value(kind)
        else:
            read.skip(kind)
        if _done(found):
            break
    return found


def gguf_facts(f: BinaryIO, deadline: float = math.inf) -> GgufFacts:
    """The header facts of the GGUF file open in ``f`` (binary, at its start); ``GgufError`` when it is
    not one we can read, ``GgufLimitError`` when it is beyond the limits or ``deadline`` (``time.monotonic``)
    passes before it is read."""
    found = _header(_HeaderReader(f, deadline))
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


def read_gguf_facts(path: Path) -> GgufFacts:
    """The header facts of the GGUF file at ``path``, a file the caller knows to be a regular one (opening a
    FIFO blocks); ``GgufError`` (or ``OSError``) when unreadable."""
    with path.open("rb") as f:
        return gguf_facts(f)
