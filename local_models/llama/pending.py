"""``PendingLlamaChatModel``: the chat model while llama.cpp is not installed yet (issue 71: ``run.sh``
starts the app while llama.cpp compiles for this computer in the background).

It loads nothing and writes nothing: every ``complete`` and ``stream`` raises ``ModelUnavailableError``
with the code ``NOT_READY``, so the optional LLM steps fall back and the answer is the quote in the
documents' own words (``kimas_desktop.answer.unwritten``); a decline needs no model. Token counts are an
estimate from the text's UTF-8 length, generous rather than short, so the evidence packed for the quote
still fits the real model's window. ``llama_installed()`` says when the real ``LlamaChatModel`` can run;
the app then builds it in place of this one (``Runtime.renew_chat``).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kimas_desktop.answer.unwritten import NOT_READY
from kimas_desktop.config import ChatModelConfig
from kimas_desktop.errors import ModelUnavailableError
from kimas_desktop.types import ChatModelDescription, Message
from local_models.embedders.embedded import SMOLLM2_FILE

if TYPE_CHECKING:
    from kimas_desktop.control import CancelToken

__all__ = ["PendingLlamaChatModel", "llama_installed"]


def llama_installed() -> bool:
    """Whether llama-cpp-python is in this Python's environment now (a wheel installed while the app runs
    counts: the finders' caches are dropped first). Nothing is imported."""
    importlib.invalidate_caches()
    return importlib.util.find_spec("llama_cpp") is not None


class PendingLlamaChatModel:
    """Stands in for ``LlamaChatModel(cfg)`` until llama.cpp is installed."""

    def __init__(self, cfg: ChatModelConfig) -> None:
        self._cfg = cfg

    @property
    def model_id(self) -> str:
        return f"llama/{Path(self._cfg.path).name if self._cfg.path else SMOLLM2_FILE}"

    @property
    def context_size(self) -> int:
        return self._cfg.n_ctx

    def describe(self) -> ChatModelDescription:
        return ChatModelDescription(self.model_id, self._cfg.n_ctx, judges=False)

    def warm_up(self) -> None:
        """Nothing to load: the app loads the real model when the build has installed it."""

    def _not_ready(self) -> ModelUnavailableError:
        return ModelUnavailableError(
            "The chat model is still being prepared (llama.cpp is compiling for this computer); until it "
            "is ready, answers are the sentences of your documents that answer.",
            code=NOT_READY,
        )

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        json_schema: Mapping[str, Any] | None = None,
        cancel: CancelToken | None = None,
    ) -> str:
        raise self._not_ready()

    def stream(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        cancel: CancelToken | None = None,
    ) -> Iterator[str]:
        raise self._not_ready()

    def count_tokens(self, text: str) -> int:
        """About one token per three UTF-8 bytes: over a real tokenizer's count for English (about four
        characters a token) and near it for Chinese or Hindi (one to two tokens a character)."""
        return len(text.encode("utf-8", "surrogatepass")) // 3 + 1

    def close(self) -> None:
        """Nothing to release."""
