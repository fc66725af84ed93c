"""Retrieval agents (KIMAs §3.1, §3.3): one per collection, each with its own rewrite strategy.

An agent rewrites the query its way, searches its collection (hybrid dense + full-text by default) with
the query and each rewrite, and fuses the lists with reciprocal rank fusion. With ``output = "digest"``
it also asks the LLM for the key points of its best chunks, so the summarizer reads less.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from kimas_desktop.clock import elapsed_ms
from kimas_desktop.config import Config
from kimas_desktop.errors import IndexDamagedError, KimasError
from kimas_desktop.optional import optional
from kimas_desktop.protocols import ChatModel, ChunkSearcher, Embedder
from kimas_desktop.retrieval.fusion import reciprocal_rank_fusion
from kimas_desktop.retrieval.other_scripts import OtherScripts
from kimas_desktop.retrieval.strategies import StrategyContext, make_strategy
from kimas_desktop.structured import ask_json
from kimas_desktop.text.gloss import searched
from kimas_desktop.text.words import truncate
from kimas_desktop.types import Hit, Message

__all__ = ["DIGEST_SCHEMA", "AgentResult", "RetrievalAgent"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AgentResult:
    collection: str
    strategy: str
    queries: tuple[str, ...]
    hits: tuple[Hit, ...]
    ms: float
    error: str = ""


DIGEST_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "points": {
            "type": "array",
            "maxItems": 8,
            "items": {
                "type": "object",
                "properties": {"source": {"type": "integer"}, "point": {"type": "string", "maxLength": 300}},
                "required": ["source", "point"],
            },
        }
    },
    "required": ["points"],
}


class RetrievalAgent:
    def __init__(
        self,
        collection: str,
        *,
        searcher: ChunkSearcher,
        embedder: Embedder,
        chat: ChatModel,
        config: Config,
        other_scripts: OtherScripts | None = None,
    ) -> None:
        """``other_scripts``: the collection's files in other scripts than a question, searched on their own
        too (``other_scripts.py``); without it, only the one search."""
        self.collection = collection
        self._searcher = searcher
        self._embedder = embedder
        self._chat = chat
        self._config = config
        self._other_scripts = other_scripts
        settings = config.collection(collection)
        self.strategy_name = settings.strategy or config.retrieval.default_strategy
        self._strategy = make_strategy(self.strategy_name)
        self._settings = settings

    def search(self, query: str, k: int | None = None, sources: Sequence[str] = ()) -> list[Hit]:
        """The collection's best chunks for ``query``; with ``sources``, only those files' chunks."""
        vector = self._embedder.embed_query([query])[0]
        mode, text = self._config.retrieval.mode, query
        if not self._embedder.reads(query):
            mode = "fts"  # the embedder's vector of a script it never learned ranks at random
            text = searched(query)  # and the glossary's English words of a Chinese question
        k = k or self._config.retrieval.k
        hits = self._searcher.search(
            self.collection, text=text, vector=vector, k=k, mode=mode, sources=sources
        )
        other = self._other_scripts.files(self.collection, query) if self._other_scripts else []
        if mode == "fts" or sources or not other:
            return hits
        kept = self._searcher.search(
            self.collection, text=query, vector=vector, k=k, mode="dense", sources=other
        )
        return reciprocal_rank_fusion([hits, kept])[:k]

    def retrieve(self, query: str, sources: Sequence[str] = ()) -> AgentResult:
        """The collection's best chunks for ``query`` and the strategy's rewrites of it, fused. With
        ``sources``, only those files' chunks, for the query alone (the files say what it is about)."""
        start = time.perf_counter()
        ctx = StrategyContext(self._chat, self.collection, self._settings, self.search)
        rewrites = (
            [] if sources else [q for q in self._strategy.queries(query, ctx) if q.strip() and q != query]
        )
        queries = (query, *rewrites)
        try:
            rankings = [
                [replace(h, origin=f"{self.collection}:{i}") for h in self.search(q, sources=sources)]
                for i, q in enumerate(queries)
            ]
        except IndexDamagedError:
            raise  # the answer would leave the collection out unseen; the app says it is being rebuilt
        except KimasError as err:
            log.warning("search in %s failed: %s", self.collection, err)
            return AgentResult(self.collection, self.strategy_name, queries, (), elapsed_ms(start), str(err))
        hits = rankings[0] if len(rankings) == 1 else reciprocal_rank_fusion(rankings)
        hits = hits[: self._config.retrieval.k]
        if self._config.retrieval.output == "digest" and hits:
            hits = self._digest(query, hits)
        return AgentResult(self.collection, self.strategy_name, queries, tuple(hits), elapsed_ms(start))

    def _digest(self, query: str, hits: Sequence[Hit]) -> list[Hit]:
        """Replace chunk texts by LLM-digested key points (chunks without a point are dropped)."""
        top = list(hits[:5])
        listing = "\n".join(f"[{i + 1}] {truncate(h.chunk.text, 500)}" for i, h in enumerate(top))

        def parse(d: dict[str, Any]) -> dict[int, list[str]]:
            points: dict[int, list[str]] = {}
            for p in d["points"]:
                n, text = p["source"], str(p["point"]).strip()
                if isinstance(n, int) and 1 <= n <= len(top) and text:
                    points.setdefault(n, []).append(text)
            return points

        ask = [
            Message(
                "system",
                "List the key points of the numbered passages that help answer the question, "
                "each with its passage number. Reply as JSON.",
            ),
            Message("user", f"{listing}\n\nQuestion: {query}"),
        ]
        points = optional(
            f"the digest in {self.collection} (raw chunks instead)",
            lambda: ask_json(self._chat, ask, DIGEST_SCHEMA, parse, max_tokens=256),
            lambda reason: {},
        )
        if not points:
            return list(hits)
        return [
            replace(h, chunk=replace(h.chunk, text=" ".join(points[i + 1])), vector=None)
            for i, h in enumerate(top)
            if i + 1 in points
        ]
