"""Contract tests written once; each backend's test class inherits them and provides the fixture.

``EmbedderContract`` needs an ``embedder`` fixture, ``ChatModelContract`` a ``chat`` fixture,
``RerankerContract`` a ``reranker`` fixture. A backend that can fail also overrides ``broken`` with an
instance set up to fail (a corrupt model file, a server that is not there): whatever goes wrong inside it
reaches the caller as a ``KimasError`` (the core catches nothing else). A deterministic fake keeps the
default (None) and the check is skipped for it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from kimas_desktop.errors import KimasError
from kimas_desktop.protocols import ChatModel, Embedder, Reranker
from kimas_desktop.types import Message

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
