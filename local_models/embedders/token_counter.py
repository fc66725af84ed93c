"""Counting a text's tokens with the tokenizer the loaded embedding model already holds.

The chunker counts tokens without truncation and without special tokens; the embedding model's tokenizer
truncates to its window. A second ``Tokenizer`` loaded only to count cost as much memory again: 280 MB for
multilingual-e5-small, whose 250,002-piece unigram vocabulary is most of what the model costs
(bench/RESULTS.md, "The second opinion through the whole app"). ``TokenCounter`` runs the same steps as
``Tokenizer.encode(text, add_special_tokens=False)`` (normalize, pre-tokenize, the model on each piece)
through the loaded tokenizer's own parts, which it shares, never copies, and never truncates.
"""

from __future__ import annotations

from typing import Any

__all__ = ["TokenCounter"]


class TokenCounter:
    def __init__(self, tokenizer: Any) -> None:
        """``tokenizer``: a ``tokenizers.Tokenizer``; its truncation and padding are left as they are."""
        self._normalizer = tokenizer.normalizer
        self._pre_tokenizer = tokenizer.pre_tokenizer
        self._model = tokenizer.model

    def count(self, text: str) -> int:
        normalized = self._normalizer.normalize_str(text) if self._normalizer is not None else text
        pieces = (
            [w for w, _ in self._pre_tokenizer.pre_tokenize_str(normalized)]
            if self._pre_tokenizer is not None
            else [normalized]
        )
        return sum(len(self._model.tokenize(p)) for p in pieces if p)
