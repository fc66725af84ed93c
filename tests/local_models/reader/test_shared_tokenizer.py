"""The embedded reader, the token counter and the e5 embedder hold e5's tokenizer once (Issue 68 follow-up).

multilingual-e5-small's tokenizer is 283 MB resident (its 250,002-piece vocabulary). The reader read a second
copy from the embedder's ``tokenizer.json``; it now reads with a ``share_tokenizer`` copy of the one the loaded
embedder holds, whose truncation (the embedder's window) and padding are not its own. The figures below were
computed with the real models before the change: counts and reader logits must not move.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from kimas_desktop.config import EmbeddingModelConfig
from local_models.embedders.e5_embedded import E5_NAME
from local_models.embedders.fastembed_embedder import FastEmbedEmbedder
from local_models.embedders.shared_tokenizer import share_tokenizer

pytestmark = pytest.mark.slow

TEXTS = [
    "Debian is a free operating system developed by volunteers from around the world. " * 3,
    "KAG 框架在知识图谱之上构建了逻辑推理与检索增强生成。备份保存九十天。",
    "भारत की राजधानी नई दिल्ली है और यह यमुना नदी के किनारे बसी है।",
    "Das Passwort\twird gespeichert … ｆｕｌｌ ①",
    "x " * 400,  # past the embedder's 128-token cut: counted and read whole
]
QUESTIONS = ["How long are the backups kept?", "भारत की राजधानी क्या है?"]
# Before the change (commit dda6a55), the real e5 file's token counts:
COUNTS = [49, 26, 19, 7, 401]

_IN_A_CHILD = """
import json, sys
import psutil
from app.paths import resolve_paths
from app.runtime import Runtime
from kimas_desktop.config import Config
texts, questions = json.loads(sys.argv[2])
config = Config().updated(embedding={"name": "multilingual-e5-small", "auto": False})
runtime = Runtime(resolve_paths(sys.argv[1], None), config)
embedder = runtime.embedder(config)
embedder.embed_passages(texts)
counts = [embedder.count_tokens(t) for t in texts]
before = psutil.Process().memory_info().rss
reader = runtime.reader(config)
logits = [reader.logits(q, texts) for q in questions]
grew = (psutil.Process().memory_info().rss - before) / 2**20
counts_after = [embedder.count_tokens(t) for t in texts]
from local_models.reader.onnx_reader import EmbeddedReader
own = EmbeddedReader()  # as before the change: a tokenizer of its own, built from the e5 file
before = [own.logits(q, texts) for q in questions]
print(json.dumps({"counts": counts, "counts_after": counts_after, "logits": logits, "before": before,
                  "grew_mb": grew}))
"""


def test_the_app_holds_e5s_tokenizer_once_and_reads_and_counts_as_before(tmp_path: Path) -> None:
    """The app's runtime (collections embedded with e5, the embedded reader): the reader's first readings
    load its graph, map e5's word rows and run, and load no second tokenizer (283 MB: they grew the process
    by 402 MB before, 120 now). In a child process, so no memory another test freed hides a copy."""
    out = subprocess.run(
        [sys.executable, "-c", _IN_A_CHILD, str(tmp_path), json.dumps([TEXTS, QUESTIONS])],
        capture_output=True,
        text=True,
        check=True,
    )
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["counts"] == got["counts_after"] == COUNTS
    # The same graph on the same CPU: int8 kernels differ between CPUs (an AVX2 EPYC without VNNI reads
    # logits up to 0.9 away from the Xeon's), so "as before" is the reader with a tokenizer of its own here.
    for logits, expected in zip(got["logits"], got["before"], strict=True):
        assert logits == pytest.approx(expected, rel=1e-4, abs=1e-4)
    assert got["grew_mb"] < 200, got["grew_mb"]


def test_a_shared_copy_costs_nothing_and_its_settings_are_its_own(tmp_path: Path) -> None:
    """``share_tokenizer`` on the embedder's tokenizer: no new memory, the ids of the file read whole (the
    embedder's cut at 128, its padding and its special tokens are not carried), and truncation set on the
    copy leaves the embedder's alone."""
    from tokenizers import Tokenizer

    embedder = FastEmbedEmbedder(EmbeddingModelConfig(name=E5_NAME), tmp_path)
    embedder.warm_up()
    held = embedder._model.model.tokenizer  # fastembed's, cut at the embedder's window
    assert held.truncation["max_length"] == 128
    before = psutil.Process().memory_info().rss
    copies = [embedder.shared_tokenizer() for _ in range(3)]
    assert (psutil.Process().memory_info().rss - before) / 2**20 < 20
    whole = Tokenizer.from_file(str(embedder._directory / "tokenizer.json"))  # type: ignore[operator]
    whole.no_truncation()
    texts = [*TEXTS, "<s> markup </s> stays text"]
    expected = [e.ids for e in whole.encode_batch(texts, add_special_tokens=False)]
    assert [e.ids for e in copies[0].encode_batch(texts, add_special_tokens=False)] == expected
    copies[1].enable_truncation(5)
    assert len(copies[1].encode(TEXTS[0]).ids) == 5
    assert held.truncation["max_length"] == 128 and copies[2].truncation is None
    assert [len(e.ids) for e in share_tokenizer(held).encode_batch(texts)] == [len(i) for i in expected]
    assert [embedder.count_tokens(t) for t in TEXTS] == COUNTS
