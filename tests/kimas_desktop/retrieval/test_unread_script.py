"""A question in a script the embedder never learned (issue 42): an English-only model's vector of a Chinese
question ranks chunks at random, so the agent searches such a question by its words alone (BM25), and a
question the model reads keeps the configured hybrid search. On the seed papers this took the passages
holding the answer to 22 frozen Chinese questions from 12 to 20 in the top 5 (bench/RESULTS.md)."""

from __future__ import annotations

from collections.abc import Sequence

from kimas_desktop.answer.signals.quote import QuoteScorer, QuoteWeights
from kimas_desktop.config import parse_config
from kimas_desktop.protocols import SearchMode, Vector
from kimas_desktop.retrieval.agents import RetrievalAgent
from kimas_desktop.text.language import written_in_latin
from kimas_desktop.types import Chunk, Hit
from local_models.fake import HashEmbedder, MemorySearcher, ScriptedChatModel


class EnglishOnly(HashEmbedder):
    """Reads what the embedded all-MiniLM-L6-v2 reads: text written in Latin letters."""

    def reads(self, text: str) -> bool:
        return written_in_latin(text)


class ModeRecorder(MemorySearcher):
    def __init__(self, embedder: HashEmbedder) -> None:
        super().__init__(embedder)
        self.modes: list[SearchMode] = []

    def search(
        self,
        collection: str,
        *,
        text: str,
        vector: Vector,
        k: int,
        mode: SearchMode = "hybrid",
        sources: Sequence[str] = (),
    ) -> list[Hit]:
        self.modes.append(mode)
        return super().search(collection, text=text, vector=vector, k=k, mode=mode, sources=sources)


def test_a_question_the_embedder_cannot_read_is_searched_by_its_words() -> None:
    embedder = EnglishOnly()
    searcher = ModeRecorder(embedder)
    searcher.add(
        "papers",
        ["检索增强生成(RAG)设计模式通常用于开发大语言模型应用。", "Hybrid search fuses BM25."],
        "/p.txt",
    )
    agent = RetrievalAgent(
        "papers", searcher=searcher, embedder=embedder, chat=ScriptedChatModel(), config=parse_config({})
    )
    agent.search("什么是检索增强生成?")
    agent.search("What is hybrid search?")
    agent.search("Что такое гибридный поиск?")  # Cyrillic: not what an English-only model learned either
    assert searcher.modes == ["fts", "hybrid", "fts"]
    assert written_in_latin("Où est la gare ?") and written_in_latin("12 + 30")  # accents and digits read


def test_the_quote_ranks_the_sentences_of_an_unread_question_by_their_words() -> None:
    """The same principle in the quote scorer: the similarities of a question in a script the embedder never
    learned do not rank its sentences; they stay in the record (the decision's features read them)."""
    text = "RAGentA的多智能体架构基于MAIN-RAG框架。检索增强生成通常用于开发大语言模型应用。"
    hits = [Hit(Chunk("c1", "papers", "/p.txt", text, line_start=1, line_end=1), 0.9)]
    weights = QuoteWeights()
    for embedder, reads in ((EnglishOnly(), False), (HashEmbedder(), True)):
        scored = QuoteScorer(embedder, weights).score("RAGentA 的多智能体架构基于哪个框架?", hits)
        assert any(s.cosine > 0 for s in scored)
        for s in scored:
            cosine = s.cosine if reads else 0.0
            expected = weights.combine(
                s.overlap, cosine, s.rerank, s.sentence.index, s.typed, s.novel, s.instruction
            )
            assert s.score == expected
