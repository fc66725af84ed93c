"""``read_gguf_facts``: the facts of a GGUF file, read from its header (the embedded SmolLM2, and headers
written here byte by byte as ggml's docs/gguf.md lays them out)."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from app.models.gguf_header import GgufError, GgufFacts, read_gguf_facts
from local_models.embedders.embedded import smollm2_path


def _string(text: str) -> bytes:
    data = text.encode()
    return struct.pack("<Q", len(data)) + data


def _header(pairs: list[tuple[str, int, bytes]]) -> bytes:
    """GGUF v3: magic, version, tensor count, key count, then key, value type, value."""
    out = b"GGUF" + struct.pack("<IQQ", 3, 0, len(pairs))
    return out + b"".join(_string(k) + struct.pack("<I", t) + v for k, t, v in pairs)


def _head(n: int) -> bytes:
    with smollm2_path().open("rb") as f:
        return f.read(n)


def test_reads_the_embedded_smollm2() -> None:
    facts = read_gguf_facts(smollm2_path())
    assert (facts.architecture, facts.context_length, facts.quantization, facts.embedding) == (
        "llama",
        8192,
        "Q4_1",
        False,
    )
    assert "135M" in facts.name


def test_an_embedding_model_after_a_long_array(tmp_path: Path) -> None:
    tokens = struct.pack("<IQ", 8, 3) + b"".join(_string(t) for t in ("[CLS]", "[SEP]", "hello"))
    scores = struct.pack("<IQ", 6, 3) + struct.pack("<3f", 0.0, 0.0, -1.5)
    path = tmp_path / "nomic-embed-text-v1.5.Q8_0.gguf"
    path.write_bytes(
        _header(
            [
                ("general.architecture", 8, _string("nomic-bert")),
                ("general.name", 8, _string("nomic-embed-text-v1.5")),
                ("tokenizer.ggml.tokens", 9, tokens),
                ("tokenizer.ggml.scores", 9, scores),
                ("nomic-bert.context_length", 4, struct.pack("<I", 2048)),
                ("nomic-bert.pooling_type", 4, struct.pack("<I", 1)),
                ("general.file_type", 4, struct.pack("<I", 7)),
            ]
        )
    )
    assert read_gguf_facts(path) == GgufFacts("nomic-bert", "nomic-embed-text-v1.5", 2048, "Q8_0", True)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"GGML" + bytes(20),
        b"GGUF" + struct.pack("<I", 1) + bytes(16),
        _head(200),
    ],
    ids=["empty", "not-gguf", "version-1", "cut-short"],
)
def test_a_file_that_is_not_a_readable_gguf_is_an_error(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "model.gguf"
    path.write_bytes(data)
    with pytest.raises(GgufError):
        read_gguf_facts(path)
