"""One tokenizer's vocabulary, several users: ``share_tokenizer`` gives each its own ``Tokenizer`` on it.

A second ``Tokenizer`` loaded from the same file costs as much memory again: 283 MB for multilingual-e5-small,
whose 250,002-piece unigram vocabulary is most of what the model costs (bench/RESULTS.md, "The second opinion
through the whole app"). Sharing the loaded one itself is not safe either: its truncation, padding and added
tokens are the object's mutable state, set for the embedder (fastembed cuts at the model's window and pads each
batch) and wrong for a user that counts or reads whole texts.

``share_tokenizer`` builds a new ``Tokenizer`` on the loaded one's normalizer, pre-tokenizer and model, which
the ``tokenizers`` library holds by reference (the vocabulary is not copied): the new one costs nothing, and
has no truncation, no padding, no post-processor and no added tokens of its own, so ``encode(text)`` gives
what ``Tokenizer.from_file(...).encode(text, add_special_tokens=False)`` gives with truncation off. Its
owner may set its truncation or padding without touching anyone else's. The embedder's token counts and the
embedded reader's ids come from such copies of the embedder's tokenizer.
"""

from __future__ import annotations

from typing import Any

__all__ = ["share_tokenizer"]


def share_tokenizer(tokenizer: Any) -> Any:
    """A ``tokenizers.Tokenizer`` on ``tokenizer``'s vocabulary, normalizer and pre-tokenizer (shared, not
    copied), with none of its truncation, padding, post-processor or added tokens."""
    from tokenizers import Tokenizer

    shared = Tokenizer(tokenizer.model)
    if tokenizer.normalizer is not None:
        shared.normalizer = tokenizer.normalizer
    if tokenizer.pre_tokenizer is not None:
        shared.pre_tokenizer = tokenizer.pre_tokenizer
    return shared
