"""The GGUF reader (issue 68) on a real model through the real path: ``[reader] model`` → ``Runtime.reader``
→ ``LlamaReader`` → the llama.cpp worker process (``local_models/llama/worker.py``, its ``score`` request).

The embedded SmolLM2-135M-Instruct stands in for Qwen3-Reranker-0.6B (no hub here): a ChatML model with "yes"
and "no" as single tokens, so the prompt, the cut, the yes/no odds, the worker and its crashes are the ones a
Qwen3-Reranker gets. Its judgement is not (it says "yes" to nearly everything), so nothing here asserts which
text answers: a reference computed apart (llama.cpp in a process of its own, Qwen3-Reranker's template written
out here) checks that the probabilities are p(yes) of that prompt.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.doctor import reader_report
from app.models.catalog import choice, pull
from app.paths import Paths
from app.runtime import Runtime
from kimas_desktop.answer.signals.quote import QuoteScorer, QuoteWeights
from kimas_desktop.config import Config
from kimas_desktop.errors import ModelCrashedError, ModelUnavailableError
from kimas_desktop.retrieval.across_scripts import AcrossScripts
from local_models.embedders.embedded import smollm2_path
from local_models.fake import HashEmbedder
from local_models.reader.llama_reader import LlamaReader
from local_models.reader.onnx_reader import EmbeddedReader
from tests.kimas_desktop.retrieval.test_across_scripts import hits
from tests.local_models.hub_server import hub_server

pytestmark = pytest.mark.slow

QUESTION = "How long are the backups kept?"
TEXTS = [
    "Backups are kept for ninety days on the second server.",
    "The cafeteria opens at noon.",
    "备份保存九十天，之后自动删除。",
    "बैकअप नब्बे दिनों तक रखे जाते हैं।",
    "Backups rotate. " * 600,  # about 2,400 tokens: cut to the reader's 512
]

# Qwen3-Reranker's prompt, written out as its model card gives it (not imported from the code under test).
REFERENCE = r"""
import json, math, sys
import llama_cpp, numpy as np
path, question, texts = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
llama = llama_cpp.Llama(model_path=path, n_ctx=1024, n_threads=1, n_threads_batch=1, verbose=False)
system = ('Judge whether the Document meets the requirements based on the Query and the Instruct provided. '
          'Note that the answer can only be "yes" or "no".')
prefix = f"<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n"
suffix = "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"
[yes], [no] = llama.tokenize(b"yes", add_bos=False), llama.tokenize(b"no", add_bos=False)
out = []
for text in texts:
    user = f"<Instruct>: Given a question, judge whether the document answers it\n<Query>: {question}\n<Document>: {text}"
    tokens = (llama.tokenize(prefix.encode(), add_bos=True, special=True) + llama.tokenize(user.encode(), add_bos=False)[:512]
              + llama.tokenize(suffix.encode(), add_bos=False, special=True))
    llama.reset()
    llama.eval(tokens)
    logits = np.ctypeslib.as_array(llama._ctx.get_logits_ith(-1), shape=(llama.n_vocab(),))
    out.append(1 / (1 + math.exp(-(float(logits[yes]) - float(logits[no])))))
print(json.dumps(out))
"""


def _runtime(data: Path, model: str) -> tuple[Runtime, Config]:
    config = Config().updated(reader={"model": model})
    return Runtime(Paths(data, data / "config.toml"), config), config


@pytest.fixture(scope="module")
def configured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Runtime, Config]]:
    """A runtime whose config names the GGUF file as the reader."""
    runtime, config = _runtime(tmp_path_factory.mktemp("data"), str(smollm2_path()))
    yield runtime, config
    runtime.close()


def test_the_configured_gguf_reads_each_text_in_order_and_the_same_every_time(
    configured: tuple[Runtime, Config],
) -> None:
    runtime, config = configured
    reader = runtime.reader(config)
    assert isinstance(reader, LlamaReader) and runtime.reader(config) is reader  # built once
    assert reader.model_id == "llama-reader/SmolLM2-135M-Instruct.Q4_1.gguf"
    first = reader.read(QUESTION, TEXTS)
    assert len(first) == len(TEXTS) and all(0.0 < p < 1.0 for p in first)
    assert len({round(p, 6) for p in first}) == len(first)  # each text its own reading
    # The same texts in another order, or alone: the same probabilities, exactly (a pair does not depend
    # on what the worker read before it).
    assert reader.read(QUESTION, TEXTS[::-1]) == first[::-1]
    assert reader.read(QUESTION, TEXTS[1:2]) == first[1:2]
    assert reader.read(QUESTION, []) == []
    out = subprocess.run(
        [sys.executable, "-c", REFERENCE, str(smollm2_path()), QUESTION, json.dumps(TEXTS)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    reference = json.loads(out.stdout)
    # llama.cpp's sums differ a little with how a prompt is batched (the worker evaluates the question's
    # part once); "no" read for "yes" would give 1 - p, about 0.1 here.
    assert first == pytest.approx(reference, abs=0.03)


def test_doctor_names_the_reader_its_size_and_where_it_comes_from(configured: tuple[Runtime, Config]) -> None:
    runtime, config = configured
    said = reader_report(config, runtime.paths.models_cache)
    assert said.startswith("SmolLM2-135M-Instruct.Q4_1.gguf, 98.4 MB, a GGUF run by llama.cpp")
    assert f"local GGUF file, at {smollm2_path()}" in said
    assert reader_report(Config(), runtime.paths.models_cache).startswith("kimas-reader-e5-small, 11.7 MB")


def _kill_while_reading(reader: LlamaReader, after_s: float = 0.5) -> threading.Timer:
    """Kill the reader's worker ``after_s`` from now, in the middle of the reading the caller starts."""
    reader.warm_up()
    pid = reader.worker_pid()
    assert pid is not None
    killer = threading.Timer(after_s, os.kill, (pid, signal.SIGKILL))
    killer.start()
    return killer


LONG = " ".join(f"Backup set {n} is kept on the second server." for n in range(30))  # 30 sentences


def test_a_killed_worker_is_a_clear_error_the_answer_reads_without_it_and_the_next_reading_starts_it(
    tmp_path: Path,
) -> None:
    runtime, config = _runtime(tmp_path, str(smollm2_path()))
    reader = runtime.reader(config)
    assert isinstance(reader, LlamaReader)
    try:
        expected = reader.read(QUESTION, TEXTS[:2])
        pid = reader.worker_pid()
        killer = _kill_while_reading(reader)
        started = time.monotonic()
        with pytest.raises(ModelCrashedError, match=r"The reader .* stopped \(killed by SIGKILL"):
            reader.read(QUESTION, TEXTS[:2] * 40)
        assert time.monotonic() - started < 30  # an error, not a hang
        killer.join()
        # Evidence that mixes scripts keeps the reranker's order, as without a reader.
        mixed = hits(["Backups are kept on the second server.", "备份保存九十天，之后自动删除。"] * 40)
        killer = _kill_while_reading(reader)
        assert AcrossScripts(reader).order(QUESTION, mixed) is None
        killer.join()
        # The next reading starts a new worker and reads as before.
        assert reader.read(QUESTION, TEXTS[:2]) == expected
        assert reader.worker_pid() not in (None, pid)
    finally:
        runtime.close()
    assert reader.worker_pid() is None  # closing the runtime ends the worker


def test_the_quote_is_scored_as_without_a_reader_when_the_reader_crashes() -> None:
    reader = LlamaReader(smollm2_path())
    found = hits([LONG, "The cafeteria opens at noon."])
    try:
        scorer = QuoteScorer(HashEmbedder(), QuoteWeights(reader=1.0), reader=reader)
        read = scorer.score(QUESTION, found)
        assert all(s.read is not None and 0 < s.read < 1 for s in read)
        killer = _kill_while_reading(reader)
        unread = scorer.score(QUESTION, found)
        killer.join()
        without = QuoteScorer(HashEmbedder(), QuoteWeights(reader=1.0)).score(QUESTION, found)
        assert [(s.sentence.text, s.score, s.read) for s in unread] == [
            (s.sentence.text, s.score, s.read) for s in without
        ]
        assert all(s.read is None for s in unread)
    finally:
        reader.close()


def test_a_missing_file_or_one_that_is_no_gguf_says_so(tmp_path: Path) -> None:
    missing = tmp_path / "gone.gguf"
    runtime, config = _runtime(tmp_path / "data", str(missing))
    assert runtime.reader(config) is None  # answers are read without a reader
    assert reader_report(config, runtime.paths.models_cache).startswith(
        f"NOT AVAILABLE: The reader file {missing} ([reader] model) is neither a reader of the catalog nor a "
        "GGUF file"
    )
    with pytest.raises(ModelUnavailableError, match="reader's GGUF file is missing"):
        LlamaReader(missing)
    broken = tmp_path / "notes.gguf"
    broken.write_text("not a model", "utf-8")
    reader = LlamaReader(broken)
    with pytest.raises(ModelUnavailableError, match="cannot read it as a GGUF model"):
        reader.read(QUESTION, TEXTS[:1])
    started = time.monotonic()
    with pytest.raises(ModelUnavailableError, match="cannot read it as a GGUF model"):
        reader.read(QUESTION, TEXTS[:1])  # not loaded again for every question
    assert time.monotonic() - started < 0.5 and reader.worker_pid() is None
    assert runtime.reader(Config()) is not None  # the embedded one, once the config names no file


def test_the_catalog_reader_downloads_is_chosen_by_name_and_reads(tmp_path: Path) -> None:
    """``qwen3-reranker-0.6b`` served by a hub-layout server on 127.0.0.1 (the SmolLM2 bytes under its name):
    pulled into the model cache, chosen as Settings and ``kimas models use`` choose it, read through the
    runtime; another choice ends its worker."""
    paths = Paths(tmp_path, tmp_path / "config.toml")
    name, repo = "qwen3-reranker-0.6b", "ggml-org/Qwen3-Reranker-0.6B-Q8_0-GGUF"
    file = "qwen3-reranker-0.6b-q8_0.gguf"
    with hub_server({f"{repo}/{file}": smollm2_path()}) as (url, _state):
        result = pull(paths, name, base_url=url)
    assert result.path == paths.models_cache / "gguf" / file and result.verified
    picked = choice(paths, name)
    assert (picked.section, picked.as_dict()) == ("reader", {"model": name})
    config = Config().updated(**{picked.section: picked.as_dict()})
    runtime = Runtime(paths, config)
    try:
        reader = runtime.reader(config)
        assert isinstance(reader, LlamaReader) and reader.model_id == f"llama-reader/{name}"
        assert len(reader.read(QUESTION, TEXTS[:3])) == 3
        said = reader_report(config, paths.models_cache)
        assert said.startswith(f"{name}, 98.4 MB") and f"from {url.rstrip('/')}/{repo}" in said
        assert "SHA-256 verified" in said
        assert isinstance(runtime.reader(Config()), EmbeddedReader)
        deadline = time.monotonic() + 10
        while reader.worker_pid() is not None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert reader.worker_pid() is None  # the reader it replaced was closed
    finally:
        runtime.close()
