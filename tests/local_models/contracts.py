"""Contract tests written once; each backend's test class inherits them and provides the fixture.

``EmbedderContract`` needs an ``embedder`` fixture, ``ChatModelContract`` a ``chat`` fixture,
``RerankerContract`` a ``reranker`` fixture, ``ChunkSearcherContract`` a ``searcher`` holding
``SEARCHER_DOCS`` and the ``embedder`` that embedded them. A backend that can fail also overrides ``broken`` with an
instance set up to fail (a corrupt model file, a server that is not there): whatever goes wrong inside it
reaches the caller as a ``KimasError`` (the core catches nothing else). A deterministic fake keeps the
default (None) and the check is skipped for it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kimas_desktop.errors import CollectionNotFoundError, KimasError
from kimas_desktop.protocols import ChatModel, ChunkSearcher, Embedder, Reranker, SearchMode
from kimas_desktop.types import Hit, Message, Synopsis

QUESTION = "How do I install the program on my computer?"
PARAPHRASE = "How to install this program on a computer"
UNRELATED = "Bananas are a yellow fruit that grows in warm places."

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string"}, "confident": {"type": "boolean"}},
    "required": ["answer", "confident"],
}
ASK = [Message("user", "What is the capital of France? Answer in JSON.")]
HELLO = [Message("user", "Say hello.")]


def matches_schema(value: object) -> bool:
    """Enough of JSON Schema for ``SCHEMA``: an object with the required keys of the right types."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("answer"), str)
        and isinstance(value.get("confident"), bool)
    )


class FailureContract:
    @pytest.fixture
    def broken(self) -> Any:
        return None

    @staticmethod
    def fails_with_our_error(broken: Any, *calls: Callable[[Any], object]) -> None:
        if broken is None:
            pytest.skip("a deterministic fake has no failure to provoke")
        for call in calls:
            with pytest.raises(KimasError):
                call(broken)


class EmbedderContract(FailureContract):
    def test_a_failure_is_a_kimas_error(self, broken: Embedder | None) -> None:
        self.fails_with_our_error(
            broken,
            lambda m: m.warm_up(),
            lambda m: m.embed_query([QUESTION]),
            lambda m: m.embed_passages(["x"]),
        )

    def test_is_an_embedder(self, embedder: Embedder) -> None:
        assert isinstance(embedder, Embedder)
        assert embedder.model_id
        assert embedder.dim > 0
        assert embedder.max_tokens > 0

    def test_shapes_and_dtype(self, embedder: Embedder) -> None:
        queries = embedder.embed_query([QUESTION, PARAPHRASE])
        passages = embedder.embed_passages([QUESTION, PARAPHRASE, UNRELATED])
        assert queries.shape == (2, embedder.dim)
        assert passages.shape == (3, embedder.dim)
        assert queries.dtype == passages.dtype == np.float32
        assert embedder.embed_passages([]).shape == (0, embedder.dim)

    def test_rows_are_unit_length(self, embedder: Embedder) -> None:
        rows = embedder.embed_passages([QUESTION, UNRELATED, "x"])
        assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)

    def test_paraphrase_is_closer_than_unrelated_text(self, embedder: Embedder) -> None:
        query = embedder.embed_query([QUESTION])[0]
        paraphrase, unrelated = embedder.embed_passages([PARAPHRASE, UNRELATED])
        assert float(query @ paraphrase) > float(query @ unrelated) + 0.2

    def test_deterministic_and_independent_of_batch_order(self, embedder: Embedder) -> None:
        texts = [UNRELATED, "short", QUESTION * 3, PARAPHRASE]
        batch = embedder.embed_passages(texts)
        one_by_one = np.vstack([embedder.embed_passages([t]) for t in texts])
        assert np.allclose(batch, one_by_one, atol=1e-5)
        assert np.allclose(embedder.embed_passages(texts[::-1])[::-1], batch, atol=1e-5)

    def test_count_tokens_grows_with_text(self, embedder: Embedder) -> None:
        short = embedder.count_tokens("install")
        assert 0 < short < embedder.count_tokens(QUESTION) < embedder.count_tokens(QUESTION * 4)


class ChatModelContract(FailureContract):
    def test_a_failure_is_a_kimas_error(self, broken: ChatModel | None) -> None:
        self.fails_with_our_error(
            broken, lambda m: m.complete(HELLO, max_tokens=4), lambda m: list(m.stream(HELLO, max_tokens=4))
        )

    def test_is_a_chat_model(self, chat: ChatModel) -> None:
        assert isinstance(chat, ChatModel)
        assert chat.model_id
        assert chat.context_size >= 512

    def test_complete_returns_text(self, chat: ChatModel) -> None:
        assert chat.complete(HELLO, max_tokens=8).strip()

    def test_json_schema_completion_parses_and_matches(self, chat: ChatModel) -> None:
        reply = chat.complete(ASK, max_tokens=48, json_schema=SCHEMA)
        assert matches_schema(json.loads(reply)), reply

    def test_temperature_zero_is_repeatable(self, chat: ChatModel) -> None:
        first = chat.complete(HELLO, max_tokens=8, temperature=0.0)
        assert chat.complete(HELLO, max_tokens=8, temperature=0.0) == first

    def test_stream_yields_non_empty_deltas(self, chat: ChatModel) -> None:
        deltas = list(chat.stream(HELLO, max_tokens=8))
        assert deltas
        assert all(isinstance(d, str) and d for d in deltas)
        assert "".join(deltas).strip()

    def test_count_tokens_grows_with_text(self, chat: ChatModel) -> None:
        short = chat.count_tokens("Hello.")
        assert 0 < short < chat.count_tokens("Hello. " * 20)

    def test_stream_tells_the_same_answer_as_complete(self, chat: ChatModel) -> None:
        streamed = "".join(chat.stream(HELLO, max_tokens=8, temperature=0.0))
        assert streamed == chat.complete(HELLO, max_tokens=8, temperature=0.0)


RELEVANT = "To install the program, download the installer and run it on your computer."


class RerankerContract(FailureContract):
    """Needs a ``reranker`` fixture."""

    def test_a_failure_is_a_kimas_error(self, broken: Reranker | None) -> None:
        self.fails_with_our_error(broken, lambda m: m.score(QUESTION, ["a text", "another"]))

    def test_is_a_reranker(self, reranker: Reranker) -> None:
        assert isinstance(reranker, Reranker)
        assert reranker.model_id

    def test_one_score_per_text_in_order(self, reranker: Reranker) -> None:
        texts = [UNRELATED, RELEVANT, "short", PARAPHRASE]
        scores = reranker.score(QUESTION, texts)
        assert len(scores) == len(texts) and all(isinstance(s, float) for s in scores)
        assert reranker.score(QUESTION, texts[::-1])[::-1] == pytest.approx(scores, abs=1e-5)
        assert reranker.score(QUESTION, []) == []

    def test_relevant_text_scores_above_unrelated(self, reranker: Reranker) -> None:
        relevant, unrelated = reranker.score(QUESTION, [RELEVANT, UNRELATED])
        assert relevant > unrelated


# -- ChunkSearcher ------------------------------------------------------------------------------------

# Each file is one short paragraph: one chunk in every searcher.
SEARCHER_DOCS: dict[str, dict[str, str]] = {
    "cooking": {
        "bread.md": "Knead the dough for ten minutes, then let the sourdough rise overnight.",
        "soup.md": "Simmer the onion soup slowly with butter and thyme.",
        "cake.md": "Whisk eggs and sugar, fold in the flour and bake the sponge cake for forty minutes.",
    },
    "bikes": {
        "chain.md": "Oil the bicycle chain and wipe off the old grease every month.",
        "tyres.md": "Check the tyre pressure of the bicycle every week before riding.",
    },
    "empty": {},
}
MODES: tuple[SearchMode, ...] = ("dense", "fts", "hybrid")


class ChunkSearcherContract:
    """Needs a ``searcher`` fixture holding ``SEARCHER_DOCS`` (one collection per key, one chunk per
    file, the file's name as the last part of its source) embedded by the ``embedder`` fixture."""

    @staticmethod
    def find(
        searcher: ChunkSearcher, embedder: Embedder, collection: str, text: str, mode: SearchMode, k: int = 3
    ) -> list[Hit]:
        return searcher.search(collection, text=text, vector=embedder.embed_query([text])[0], k=k, mode=mode)

    @staticmethod
    def names(hits: list[Hit]) -> list[str]:
        return [Path(h.chunk.source).name for h in hits]

    def test_is_a_chunk_searcher(self, searcher: ChunkSearcher) -> None:
        assert isinstance(searcher, ChunkSearcher)

    def test_collections_are_listed_with_their_files_chunks_and_model(
        self, searcher: ChunkSearcher, embedder: Embedder
    ) -> None:
        listed = {c.name: c for c in searcher.collections()}
        assert set(listed) == set(SEARCHER_DOCS)
        for name, files in SEARCHER_DOCS.items():
            info = listed[name]
            assert (info.files, info.chunks) == (len(files), len(files)), info
            assert (info.embedding_model, info.dim) == (embedder.model_id, embedder.dim)
            assert not info.needs_reembedding

    @pytest.mark.parametrize("mode", MODES)
    def test_every_mode_finds_the_chunk_that_answers_first(
        self, searcher: ChunkSearcher, embedder: Embedder, mode: SearchMode
    ) -> None:
        assert self.names(self.find(searcher, embedder, "cooking", "knead the sourdough dough", mode))[0] == (
            "bread.md"
        )
        assert self.names(self.find(searcher, embedder, "cooking", "simmer the onion soup", mode))[0] == (
            "soup.md"
        )
        assert self.names(self.find(searcher, embedder, "bikes", "tyre pressure", mode))[0] == "tyres.md"

    @pytest.mark.parametrize("mode", MODES)
    def test_hits_are_whole_chunks_of_that_collection_best_first_at_most_k(
        self, searcher: ChunkSearcher, embedder: Embedder, mode: SearchMode
    ) -> None:
        question = "oil the bicycle chain, then bake the cake"  # words of both collections
        for collection in ("cooking", "bikes"):
            hits = self.find(searcher, embedder, collection, question, mode, k=10)
            assert hits and all(h.chunk.collection == collection for h in hits)
            assert set(self.names(hits)) <= set(SEARCHER_DOCS[collection])
            assert len({h.chunk.chunk_id for h in hits}) == len(hits)  # no chunk twice
            by_name = {Path(h.chunk.source).name: h.chunk.text for h in hits}
            assert all(by_name[n] == SEARCHER_DOCS[collection][n] for n in by_name)
            scores = [h.score for h in hits]
            assert scores == sorted(scores, reverse=True)
        assert len(self.find(searcher, embedder, "cooking", question, mode, k=1)) == 1

    @pytest.mark.parametrize("mode", MODES)
    def test_a_search_kept_to_some_files_finds_only_their_chunks(
        self, searcher: ChunkSearcher, embedder: Embedder, mode: SearchMode
    ) -> None:
        """What a follow-up uses to stay in the files of the answers it follows: those files' best chunks,
        even when another file matches the words better."""
        every = self.find(searcher, embedder, "cooking", "anything", "dense", k=10)
        path = {Path(h.chunk.source).name: h.chunk.source for h in every}
        text = "knead the sourdough dough, simmer the soup"
        assert self.names(self.find(searcher, embedder, "cooking", text, mode))[0] == "bread.md"
        vector = embedder.embed_query([text])[0]
        kept = [path["soup.md"], path["cake.md"]]
        hits = searcher.search("cooking", text=text, vector=vector, k=3, mode=mode, sources=kept)
        assert "soup.md" in self.names(hits) and "bread.md" not in self.names(hits)
        assert searcher.search("bikes", text=text, vector=vector, k=3, mode=mode, sources=kept) == []

    def test_full_text_search_finds_only_chunks_with_the_words(
        self, searcher: ChunkSearcher, embedder: Embedder
    ) -> None:
        assert self.names(self.find(searcher, embedder, "cooking", "sourdough", "fts")) == ["bread.md"]
        assert sorted(self.names(self.find(searcher, embedder, "bikes", "bicycle", "fts"))) == [
            "chain.md",
            "tyres.md",
        ]
        assert self.find(searcher, embedder, "cooking", "bicycle", "fts") == []  # in the other collection
        assert self.find(searcher, embedder, "cooking", "zebra xylophone", "fts") == []

    def test_dense_search_ranks_every_chunk_and_hybrid_keeps_what_either_found(
        self, searcher: ChunkSearcher, embedder: Embedder
    ) -> None:
        question = "whisk butter"  # full text finds cake.md and soup.md; dense ranks all three
        dense = self.find(searcher, embedder, "cooking", question, "dense", k=10)
        fts = self.find(searcher, embedder, "cooking", question, "fts", k=10)
        hybrid = self.find(searcher, embedder, "cooking", question, "hybrid", k=10)
        assert sorted(self.names(dense)) == sorted(SEARCHER_DOCS["cooking"])
        assert sorted(self.names(fts)) == ["cake.md", "soup.md"]
        assert set(self.names(fts)) | {self.names(dense)[0]} <= set(self.names(hybrid))

    @pytest.mark.parametrize("mode", MODES)
    def test_hits_carry_their_stored_vector(
        self, searcher: ChunkSearcher, embedder: Embedder, mode: SearchMode
    ) -> None:
        """The reranker reuses these instead of embedding the candidates again: they must be the text's."""
        hits = self.find(searcher, embedder, "cooking", "bake the sourdough", mode)
        assert hits
        for hit in hits:
            assert hit.vector is not None
            assert np.allclose(hit.vector, embedder.embed_passages([hit.chunk.text])[0], atol=1e-5)

    def test_the_synopsis_counts_chunks_and_words_and_its_centroids_route(
        self, searcher: ChunkSearcher, embedder: Embedder
    ) -> None:
        cooking, bikes = searcher.synopsis("cooking"), searcher.synopsis("bikes")
        assert cooking is not None and bikes is not None
        assert (cooking.collection, cooking.chunk_count) == ("cooking", 3)
        assert cooking.terms is not None and cooking.terms["sourdough"] == 1 and cooking.terms["minutes"] == 2
        assert "bicycle" not in cooking.terms
        assert cooking.term_total == sum(cooking.terms.values())
        for synopsis, chunks in ((cooking, 3), (bikes, 2)):
            assert 1 <= len(synopsis.centroids) <= chunks
            assert all(len(c) == embedder.dim for c in synopsis.centroids)

        def closeness(synopsis: Synopsis, text: str) -> float:
            centroids = np.asarray(synopsis.centroids, np.float32)
            centroids /= np.linalg.norm(centroids, axis=1, keepdims=True)
            return float(np.max(centroids @ embedder.embed_query([text])[0]))

        cake = "whisk eggs and sugar and bake the cake"
        tyres = "check the tyre pressure before riding"
        assert closeness(cooking, cake) > closeness(bikes, cake)
        assert closeness(bikes, tyres) > closeness(cooking, tyres)

    def test_an_empty_collection_finds_nothing_and_has_no_synopsis(
        self, searcher: ChunkSearcher, embedder: Embedder
    ) -> None:
        for mode in MODES:
            assert self.find(searcher, embedder, "empty", "knead the dough", mode) == []
        assert searcher.synopsis("empty") is None

    def test_an_unknown_collection_is_our_error_and_has_no_synopsis(
        self, searcher: ChunkSearcher, embedder: Embedder
    ) -> None:
        """The retrieval agent turns a ``KimasError`` into a failed search of that one collection."""
        for mode in MODES:
            with pytest.raises(CollectionNotFoundError):
                self.find(searcher, embedder, "nowhere", "knead the dough", mode)
        assert searcher.synopsis("nowhere") is None
