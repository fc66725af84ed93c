"""The reader's runtime (issue 68) on a graph made here: what it feeds the graph and how it reads it back.

The graph stands in for trained weights (none are shipped yet): it returns, per pair, the sum of the word
vectors it was given over the pair's tokens, so the test can check the vectors against e5's own table
(the real 4-bit file, dequantized whole), the pair layout, and that scores come back in the texts' order
whatever the batching.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from kimas_desktop.errors import ModelUnavailableError
from local_models.embedders.e5_embedded import e5_weights
from local_models.embedders.e5_file import dequantize_q4, read_e5_file
from local_models.reader.onnx_reader import EmbeddedReader

pytestmark = pytest.mark.slow


def summing_graph(path: Path, hidden: int) -> Path:
    """logit = sum over the sequence and the hidden axis of vectors x mask."""
    vectors = helper.make_tensor_value_info("vectors", TensorProto.FLOAT, ["b", "s", hidden])
    mask = helper.make_tensor_value_info("mask", TensorProto.INT64, ["b", "s"])
    logit = helper.make_tensor_value_info("logit", TensorProto.FLOAT, ["b"])
    axes = helper.make_tensor("axes", TensorProto.INT64, [2], [1, 2])
    one = helper.make_tensor("one", TensorProto.INT64, [1], [-1])
    nodes = [
        helper.make_node("Cast", ["mask"], ["m"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["m", "one"], ["m3"]),
        helper.make_node("Mul", ["vectors", "m3"], ["kept"]),
        helper.make_node("ReduceSum", ["kept", "axes"], ["logit"], keepdims=0),
    ]
    graph = helper.make_graph(nodes, "summing", [vectors, mask], [logit], [axes, one])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


@pytest.fixture(scope="module")
def table() -> np.ndarray:
    model = read_e5_file(e5_weights())
    return dequantize_q4(model.tensors["emb.word"], model.shape.vocab_rows)  # type: ignore[arg-type]


def test_pairs_are_fed_as_e5s_word_vectors_and_scored_in_order(tmp_path: Path, table: np.ndarray) -> None:
    reader = EmbeddedReader(summing_graph(tmp_path / "g.onnx", table.shape[1]), max_tokens=48, threads=1)
    question = "How long are the backups kept?"
    texts = ["备份保存九十天。", "Backups are kept for ninety days on the second server " * 8, "कितने दिन?"]
    got = reader.logits(question, texts)
    for text, value in zip(texts, got, strict=True):
        ids = reader._pairs(question, [text])[0]
        assert len(ids) <= 48 and ids[0] == reader._bos and ids[-1] == reader._eos
        assert value == pytest.approx(float(table[ids].sum()), rel=1e-4, abs=1e-3)
    probabilities = reader.read(question, texts)
    assert probabilities == pytest.approx([1 / (1 + np.exp(-min(max(v, -40), 40))) for v in got])


def test_missing_weights_say_so(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailableError, match="reader's weights are missing"):
        EmbeddedReader(tmp_path / "none.onnx")


def test_the_mapped_word_rows_and_the_embedders_tokenizer_read_the_same(
    tmp_path: Path, table: np.ndarray
) -> None:
    """The reader maps e5's file and keeps only its word rows, and reads the tokenizer the e5 embedder
    wrote when it is there (faster and leaner than building it again): the same vectors, the same ids."""
    from local_models.embedders.e5_embedded import e5_tokenizer_json

    mapped = read_e5_file(e5_weights(), keep={"emb.word"}, mapped=True)
    assert set(mapped.tensors) == {"emb.word"}
    rows = dequantize_q4(mapped.tensors["emb.word"], mapped.shape.vocab_rows)  # type: ignore[arg-type]
    assert np.array_equal(rows, table)
    shared = tmp_path / "tokenizer.json"
    shared.write_text(e5_tokenizer_json(mapped, 512), "utf-8")  # as materialize_e5 writes it
    graph = summing_graph(tmp_path / "sum.onnx", table.shape[1])
    texts = ["Meson 最初于 2013 年发布。", "Das Passwort\twird gespeichert …", "ｆｕｌｌ ①", "x " * 400]
    built = EmbeddedReader(graph).logits("When was Meson released?", texts)
    assert EmbeddedReader(graph, tokenizer=shared).logits("When was Meson released?", texts) == built
    gone = EmbeddedReader(graph, tokenizer=tmp_path / "missing.json")  # not written yet: built as before
    assert gone.logits("When was Meson released?", texts) == built
