from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import pytest

from kimas_desktop.config import RerankConfig
from kimas_desktop.errors import ModelUnavailableError
from kimas_desktop.protocols import Embedder, Reranker
from kimas_desktop.text.words import spaced
from local_models import CrossEncoderReranker, EmbeddingReranker, FastEmbedEmbedder, build_reranker
from local_models.fake import HashEmbedder
from local_models.rerankers import term_overlap_scores

QUERY = "How do I reset the router password?"
CANDIDATES = [
    "Bananas ripen faster in a paper bag.",
    "To reset the password of your router, hold the reset button for ten seconds.",
    "The router supports WPA3 encryption.",
]


def test_term_overlap_is_bounded_and_ranks_matches() -> None:
    scores = term_overlap_scores(QUERY, CANDIDATES)
    assert scores[0] == 0.0
    assert all(0.0 <= s < 1.0 for s in scores)
    assert scores[1] > scores[2] > 0.0
    assert term_overlap_scores(QUERY, []) == []
    assert term_overlap_scores("", CANDIDATES) == [0.0, 0.0, 0.0]


def test_term_overlap_does_not_depend_on_candidate_order() -> None:
    forward = term_overlap_scores(QUERY, CANDIDATES)
    assert term_overlap_scores(QUERY, CANDIDATES[::-1]) == forward[::-1]


@pytest.mark.parametrize("which", ["fake", pytest.param("real", marks=pytest.mark.slow)])
def test_fallback_puts_the_answer_first(which: str, request: pytest.FixtureRequest) -> None:
    embedder: Embedder = HashEmbedder() if which == "fake" else request.getfixturevalue("real_embedder")
    reranker = EmbeddingReranker(embedder)
    assert isinstance(reranker, Reranker)
    scores = reranker.score(QUERY, CANDIDATES)
    assert len(scores) == 3
    assert max(range(3), key=scores.__getitem__) == 1
    assert reranker.score(QUERY, []) == []


def test_empty_model_builds_the_fallback(tmp_path: Path) -> None:
    reranker = build_reranker(RerankConfig(), HashEmbedder(), tmp_path)
    assert isinstance(reranker, EmbeddingReranker)
    assert reranker.model_id == "fallback/fake/hash-embedder+bm25"


def test_unknown_cross_encoder_warns_and_falls_back(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        reranker = build_reranker(RerankConfig(model="nobody/nothing"), HashEmbedder(), tmp_path)
    assert isinstance(reranker, EmbeddingReranker)
    assert "does not know the cross-encoder" in caplog.text


def test_uncached_cross_encoder_offline_falls_back_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, no_network: list[object]
) -> None:
    cfg = RerankConfig(model="Xenova/ms-marco-MiniLM-L-6-v2")
    with caplog.at_level(logging.WARNING):
        reranker = build_reranker(cfg, HashEmbedder(), tmp_path)
        assert isinstance(reranker, CrossEncoderReranker)
        assert "not in the model cache" in caplog.text
        caplog.clear()
        scores = reranker.score(QUERY, CANDIDATES)
        assert "Hugging Face hub cannot be reached" in caplog.text
        caplog.clear()
        assert reranker.score(QUERY, CANDIDATES) == scores
    assert caplog.text == ""  # warned once
    assert scores == EmbeddingReranker(HashEmbedder()).score(QUERY, CANDIDATES)
    assert reranker.model_id.startswith("fallback/")


def test_cross_encoder_without_fallback_raises(tmp_path: Path, no_network: list[object]) -> None:
    reranker = CrossEncoderReranker(RerankConfig(model="Xenova/ms-marco-MiniLM-L-6-v2"), tmp_path)
    with pytest.raises(ModelUnavailableError, match=r"rerank\.model"):
        reranker.score(QUERY, CANDIDATES)


@pytest.mark.slow
def test_real_fallback_prefers_meaning_over_one_shared_word(real_embedder: FastEmbedEmbedder) -> None:
    paraphrase, shared_word = EmbeddingReranker(real_embedder).score(
        "how can I change my login password",
        [
            "Steps to update the credentials you sign in with.",
            "The password of the Wi-Fi is printed on the box.",
        ],
    )
    assert paraphrase > shared_word


@pytest.mark.slow
def test_real_fallback_rewards_an_exact_code(real_embedder: FastEmbedEmbedder) -> None:
    scores = EmbeddingReranker(real_embedder).score(
        "error code E1234 in the installer",
        [
            "Installation problems are often caused by errors.",
            "An installer may show error messages.",
            "The installer failed with error E1234 when the disk was full.",
        ],
    )
    assert max(range(3), key=scores.__getitem__) == 2


def test_fallback_embeds_each_passage_once() -> None:
    embedder = HashEmbedder()
    reranker = EmbeddingReranker(embedder, cache_size=3)
    texts = ["alpha beta", "gamma", "delta"]
    first = reranker.score("alpha", texts)
    calls = embedder.calls
    assert reranker.score("alpha", list(reversed(texts))) == list(reversed(first))
    assert embedder.calls == calls + 1  # only the query was embedded again
    reranker.score("alpha", ["epsilon"])  # evicts the least recently used passage: "delta"
    assert embedder.calls == calls + 3
    reranker.score("alpha", ["alpha beta"])  # still cached: only the query
    assert embedder.calls == calls + 4
    reranker.score("alpha", ["delta"])  # evicted: embedded again
    assert embedder.calls == calls + 6


@pytest.mark.parametrize("which", ["fake", pytest.param("real", marks=pytest.mark.slow)])
def test_fallback_uses_stored_vectors_instead_of_embedding(
    which: str, request: pytest.FixtureRequest
) -> None:
    embedder: Embedder = HashEmbedder() if which == "fake" else request.getfixturevalue("real_embedder")
    stored = [tuple(float(x) for x in v) for v in embedder.embed_passages(CANDIDATES)]
    expected = EmbeddingReranker(embedder).score(QUERY, CANDIDATES)
    counting = HashEmbedder()
    if which == "fake":
        reranker = EmbeddingReranker(counting)
        got = reranker.score(QUERY, CANDIDATES, stored)
        assert counting.calls == 1  # the query only
        assert reranker.score(QUERY, CANDIDATES, [stored[0], None, stored[2]]) == pytest.approx(got)
        assert counting.calls == 3  # the query and the one text without a stored vector
    else:
        got = EmbeddingReranker(embedder).score(QUERY, CANDIDATES, stored)
    assert got == pytest.approx(expected, abs=1e-5)


class _EnglishOnly(HashEmbedder):
    def reads(self, text: str) -> bool:
        return text.isascii()


def test_a_question_the_embedder_cannot_read_is_reranked_by_its_words_in_its_own_script() -> None:
    """Issue 42: a Chinese question with an English-only embedder. ``\\w+`` kept each Chinese sentence one
    term (no overlap at all), and the cosine of a script the model never learned ranks at random."""
    question = "什么是混合搜索?"
    passages = ["RAG的研究重点在于嵌入搜索、混合搜索和微调嵌入。", "本文提出基于智能Agent的检索增强方案。"]
    overlap = term_overlap_scores(question, passages)
    assert overlap[0] > 0.0 and overlap[1] == 0.0
    scores = EmbeddingReranker(_EnglishOnly(), semantic_weight=0.3).score(question, passages)
    assert scores[1] == 0.0 and scores[0] == pytest.approx(0.1 + 0.9 * overlap[0])  # the words alone
    english = EmbeddingReranker(_EnglishOnly(), semantic_weight=0.3).score(QUERY, CANDIDATES)
    assert english != pytest.approx(
        term_overlap_scores(QUERY, CANDIDATES)
    )  # a read question keeps its cosine


def test_a_passage_sharing_a_word_of_an_unread_question_clears_the_floor() -> None:
    """Issue 42: on the Hindi dev kit a share of a long question's words seldom reached rerank.min_score
    (0.1, a floor set on the mixed scale where cosine carries a related passage), and 41 of 200 questions
    kept no passage at all. A passage with any of its words clears it now; one with none is unrelated."""
    question = "भारत गणराज्य के मुख्य मंत्री के पास किन दो केंद्र-शासित प्रदेशों का प्रभार है?"
    passages = ["दिल्ली और पुद्दुचेरी केंद्र-शासित प्रदेशों के मुख्य मंत्री हैं।", "गाँव के लड़कों ने क्रिकेट खेला।"]
    scores = EmbeddingReranker(_EnglishOnly()).score(question, passages)
    assert scores[0] >= 0.1 and scores[1] < 0.1
    hindi_stems = term_overlap_scores("लड़कों", ["लड़के खेलते हैं।"])
    assert hindi_stems[0] > 0  # the FTS terms' stems: an inflected form meets its other forms


class _Index:
    """Statistics as a collection's full-text index gives them (``TermStatistics``)."""

    def __init__(self, rows: int, frequencies: dict[str, int]) -> None:
        self.rows, self.frequencies = rows, frequencies
        self.asked: list[list[str]] = []

    def document_frequencies(self, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
        self.asked.append(list(terms))
        return self.rows, {t: self.frequencies.get(t, 0) for t in terms}


def test_an_unread_question_weighs_its_words_by_the_index_not_by_the_candidates() -> None:
    """Issue 42: the search picked the candidates for the question's rare word, so all of them hold it,
    and weighed over the candidates it counted for nothing: a passage holding only a common word of the
    question came first (Hindi dev kit: search 0.740 answer in top 5, reranked 0.707). Weighed by the
    index, the rare word counts as rare again and the order is the search's."""
    question = "संसद भवन कहाँ है?"
    passages = ["नई संसद दिल्ली में है।", "संसद का उद्घाटन हुआ।", "भवन निर्माण के नियम बदले।"]
    rare, common = "संसद", "भवन"
    assert {rare, common} <= set(spaced(question).split())
    index = _Index(5000, {rare: 3, common: 900})
    by_candidates = EmbeddingReranker(_EnglishOnly()).score(question, passages)
    weighed = EmbeddingReranker(_EnglishOnly()).weighed_by(index)
    by_index = weighed.score(question, passages)
    assert index.asked and rare in index.asked[0]
    assert min(by_index[0], by_index[1]) > by_index[2] + 0.2  # the rare word first
    assert by_candidates[2] > by_candidates[0]  # over the candidates, the common word weighed more
    assert weighed.score(QUERY, CANDIDATES) == pytest.approx(
        EmbeddingReranker(_EnglishOnly()).score(QUERY, CANDIDATES)
    )  # a question the embedder reads: scored as before, with the candidates' weights
    assert EmbeddingReranker(_EnglishOnly()).weighed_by(_Index(0, {})).score(question, passages) == (
        pytest.approx(by_candidates)
    )  # an index without full-text terms yet: the candidates' weights
