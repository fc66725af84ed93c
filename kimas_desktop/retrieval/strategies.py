"""Per-collection query rewrite strategies of the retrieval agents (KIMAs §3.2, Figure 2b).

A strategy turns the context-enriched query into the queries an agent searches with. Built in: ``none``,
``keyword`` (LLM-free), ``prompt`` (a per-collection instruction), ``retrieval`` (search, let the LLM
rewrite with what came back), ``hyde`` (a hypothetical answer passage), ``translation`` (into the
collection's language). Register your own with ``register_strategy``. An LLM strategy that fails returns
the query unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from kimas_desktop.config import CollectionConfig
from kimas_desktop.errors import ConfigError
from kimas_desktop.optional import optional
from kimas_desktop.protocols import ChatModel
from kimas_desktop.structured import ask_json, string_field
from kimas_desktop.text.words import keywords, truncate
from kimas_desktop.types import Hit, Message

__all__ = [
    "HydeRewrite",
    "KeywordRewrite",
    "NoRewrite",
    "PromptRewrite",
    "RetrievalRewrite",
    "RewriteStrategy",
    "StrategyContext",
    "TranslationRewrite",
    "make_strategy",
    "register_strategy",
    "strategy_names",
]


@dataclass(frozen=True)
class StrategyContext:
    chat: ChatModel
    collection: str
    settings: CollectionConfig
    search: Callable[[str], list[Hit]]  # a first search, for the retrieval strategy


class RewriteStrategy(Protocol):
    uses_llm: bool

    def queries(self, query: str, ctx: StrategyContext) -> list[str]:
        """The queries to search with (the agent also searches with ``query`` itself)."""
        ...


_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"text": {"type": "string", "maxLength": 400}},
    "required": ["text"],
}


def _ask_text(ctx: StrategyContext, system: str, user: str, max_tokens: int = 128) -> str | None:
    messages = [Message("system", system + ' Reply as JSON: {"text": "..."}'), Message("user", user)]
    text = optional(
        f"the rewrite strategy for {ctx.collection} (the query instead)",
        lambda: ask_json(
            ctx.chat,
            messages,
            _SCHEMA,
            lambda d: string_field(d, "text", max_len=1600),
            max_tokens=max_tokens,
        ),
        lambda reason: "",
    )
    return text or None


class NoRewrite:
    uses_llm = False

    def queries(self, query: str, ctx: StrategyContext) -> list[str]:
        return []


class KeywordRewrite:
    """Keywords only, without an LLM (stopwords dropped); full-text search likes them."""

    uses_llm = False

    def queries(self, query: str, ctx: StrategyContext) -> list[str]:
        kw = keywords(query)
        return [kw] if kw != query else []


class PromptRewrite:
    uses_llm = True

    def queries(self, query: str, ctx: StrategyContext) -> list[str]:
        instruction = ctx.settings.prompt or "Rewrite the query so it finds the right passages."
        out = _ask_text(ctx, f"You rewrite search queries. {instruction}", f"Query: {query}")
        return [out] if out else []


class RetrievalRewrite:
    uses_llm = True

    def queries(self, query: str, ctx: StrategyContext) -> list[str]:
        hits = ctx.search(query)[:3]
        if not hits:
            return []
        found = "\n".join(f"- {truncate(h.chunk.text, 300)}" for h in hits)
        out = _ask_text(
            ctx,
            "You improve a search query using passages a first search returned: use their terminology, "
            "keep the query's intent.",
            f"Passages:\n{found}\n\nQuery: {query}",
        )
        return [out] if out else []


class HydeRewrite:
    uses_llm = True

    def queries(self, query: str, ctx: StrategyContext) -> list[str]:
        out = _ask_text(
            ctx,
            "Write a short passage (2-3 sentences) that would answer the question, as it might appear in "
            "a document.",
            f"Question: {query}",
            max_tokens=140,
        )
        return [out] if out else []


class TranslationRewrite:
    uses_llm = True

    def queries(self, query: str, ctx: StrategyContext) -> list[str]:
        language = ctx.settings.language
        if not language:
            return []
        out = _ask_text(ctx, f"Translate the search query into {language}. Keep names unchanged.", query)
        return [out] if out else []


_REGISTRY: dict[str, Callable[[], RewriteStrategy]] = {
    "none": NoRewrite,
    "keyword": KeywordRewrite,
    "prompt": PromptRewrite,
    "retrieval": RetrievalRewrite,
    "hyde": HydeRewrite,
    "translation": TranslationRewrite,
}


def register_strategy(name: str, factory: Callable[[], RewriteStrategy]) -> None:
    """Make a custom strategy available to ``[collections.NAME] strategy = "name"``."""
    _REGISTRY[name] = factory


def strategy_names() -> Sequence[str]:
    return tuple(_REGISTRY)


def make_strategy(name: str) -> RewriteStrategy:
    try:
        return _REGISTRY[name]()
    except KeyError:
        raise ConfigError(
            f"unknown rewrite strategy {name!r}; choose one of {', '.join(_REGISTRY)}"
        ) from None
