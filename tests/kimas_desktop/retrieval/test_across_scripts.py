"""The reader's order of evidence that mixes scripts (issue 68): read only when the evidence holds the
question's script and another, every hit keeping its reranker score; the quote scorer reads the sentences in
the other script at ACROSS_WEIGHT. The reader here scores by a rule (the logic is ours); the trained reader
on real files is in tests/local_models/test_reader_across_scripts.py."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from kimas_desktop.answer.filter import EvidenceFilter
from kimas_desktop.answer.signals.quote import ACROSS_WEIGHT, QuoteScorer, QuoteWeights
from kimas_desktop.retrieval.across_scripts import AcrossScripts, mixes_scripts
from kimas_desktop.types import Chunk, Hit
from local_models.fake import HashEmbedder
from local_models.rerankers import EmbeddingReranker

QUESTION = "How long are backups kept?"
EN = ["Backups are kept on the second server.", "The backup job starts at two."]
ZH = "备份保存九十天，之后自动删除。"


class ChineseFirst:
    """Reads '九十' as the answer; remembers what it was asked to read."""

    model_id = "rule"

    def __init__(self) -> None:
        self.read_texts: list[str] = []

    def read(self, question: str, texts: Sequence[str]) -> list[float]:
        self.read_texts += texts
        return [0.9 if "九十" in t else 0.1 for t in texts]


def hits(texts: Sequence[str]) -> list[Hit]:
    return [
        Hit(Chunk(f"c{i}", "docs", f"/d{i}.md", t, line_start=1, line_end=1), 1.0 - i / 10)
        for i, t in enumerate(texts)
    ]


def test_only_evidence_holding_the_questions_script_and_another_mixes() -> None:
    assert mixes_scripts(QUESTION, [*EN, ZH])
    assert not mixes_scripts(QUESTION, EN)
    assert not mixes_scripts(QUESTION, [ZH])  # all in another script: the reranker's similarity, as before
    assert not mixes_scripts("12 + 30", [*EN, ZH])
    assert not mixes_scripts("备份保存多久？", [*EN, ZH])  # a Chinese question keeps the reranker's order


def test_the_reader_orders_mixed_evidence_and_the_scores_stay() -> None:
    reader = ChineseFirst()
    found = hits([*EN, ZH])
    ordered = AcrossScripts(reader).order(QUESTION, found)
    assert ordered is not None and ordered[0].chunk.text == ZH
    assert {h.chunk.chunk_id: h.score for h in ordered} == {h.chunk.chunk_id: h.score for h in found}
    assert AcrossScripts(reader).order(QUESTION, hits(EN)) is None


def test_the_filter_keeps_the_readers_order_when_the_evidence_mixes() -> None:
    embedder = HashEmbedder()
    reader = ChineseFirst()
    reranker = EmbeddingReranker(embedder)
    read = EvidenceFilter(reranker, top_n=1, across=AcrossScripts(reader)).rerank(QUESTION, hits([*EN, ZH]))
    assert [h.chunk.text for h in read] == [ZH]  # read among every candidate, then cut
    reader.read_texts.clear()
    EvidenceFilter(reranker, top_n=2, across=AcrossScripts(reader)).rerank(QUESTION, hits(EN))
    assert reader.read_texts == []  # one script: never read


def test_the_quote_reads_only_the_other_scripts_sentences_at_the_across_weight() -> None:
    reader = ChineseFirst()
    scorer = QuoteScorer(HashEmbedder(), QuoteWeights(), reader=reader)
    scored = scorer.score(QUESTION, hits([EN[0], ZH]))
    assert reader.read_texts == [ZH]
    chinese = next(s for s in scored if s.chunk.text == ZH)
    assert chinese.read == pytest.approx(0.9)
    weights = QuoteWeights(reader=ACROSS_WEIGHT)
    expected = weights.combine(
        chinese.overlap,
        chinese.cosine,
        chinese.rerank,
        chinese.sentence.index,
        chinese.typed,
        chinese.novel,
        chinese.instruction,
        chinese.read,
    )
    assert chinese.score == pytest.approx(expected)
    reader.read_texts.clear()
    scorer.score(QUESTION, hits(EN))
    assert reader.read_texts == []
