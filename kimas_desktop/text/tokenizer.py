"""The one tokenizer of the project, for every script: ``Tokenizer.tokens`` gives a text's word tokens in
their original case. ``words.words`` is its door; every stage reaches it through there.

1. Words are found with ``scripts.word_pattern``: letters and digits with inner ``'``, ``-``, ``.``, and
   combining marks kept inside a word ("चीन" stays one word). Text written with spaces between words —
   English, German, Hindi, Russian, Arabic — needs nothing more: an English text gives exactly the tokens
   it gave before issue 42 (tests/kimas_desktop/text/test_english_unchanged.py).
2. A word that mixes scripts is cut where the script changes ("500对问答" → "500", "对问答";
   "KAG项目" → "KAG", "项目"), so digits inside Chinese or Japanese text come out as numbers.
3. Chinese runs are segmented by jieba's dictionary (``segmenter.ChineseSegmenter``).
4. Japanese (a text holding kana: its Chinese characters are read as Japanese too), Korean, Thai, Lao,
   Khmer and Myanmar have no segmenter here: a run gives its overlapping pairs of characters (character
   bigrams, a combining mark counted with its base), a run of one character gives that character.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from kimas_desktop.text.scripts import (
    grapheme_clusters,
    has_kana,
    has_marks,
    has_unspaced,
    script_runs,
    word_pattern,
)
from kimas_desktop.text.segmenter import ChineseSegmenter

__all__ = ["Tokenizer", "bigrams"]

_STRIP = "'-."
# The word pattern before issue 42: in a text without combining marks or joiners it finds exactly what
# ``word_pattern`` finds, three times faster.
_ASCII_WORD = re.compile(r"[\w][\w'\-.]*[\w]|[\w]")


def bigrams(run: str) -> list[str]:
    """Overlapping pairs of characters (grapheme clusters) of ``run``; the run itself when it is one."""
    clusters = grapheme_clusters(run)
    if len(clusters) < 2:
        return clusters
    return [a + b for a, b in itertools.pairwise(clusters)]


class Tokenizer:
    """Word tokens of a text in any script (see the module docstring)."""

    def __init__(self, segmenter: ChineseSegmenter) -> None:
        self._segmenter = segmenter

    def tokens(self, text: str) -> list[str]:
        if text.isascii():
            return _ASCII_WORD.findall(text)
        found = (word_pattern() if has_marks(text) else _ASCII_WORD).findall(text)
        if not has_unspaced(text):
            return found
        out: list[str] = []
        japanese = has_kana(text)
        for token in found:
            out += self._split(script_runs(token), japanese) if has_unspaced(token) else [token]
        return out

    def _split(self, runs: Sequence[tuple[str, str]], japanese: bool) -> list[str]:
        out: list[str] = []
        merged: list[tuple[str, str]] = []
        for script, run in runs:  # Japanese: kanji and kana form one run of bigrams
            if japanese and script in ("han", "kana"):
                script = "cjk"
            if merged and merged[-1][0] == script:
                merged[-1] = (script, merged[-1][1] + run)
            else:
                merged.append((script, run))
        for script, run in merged:
            if script == "other":
                piece = run.strip(_STRIP)
                if piece:
                    out.append(piece)
            elif script == "han":
                out += self._segmenter.segment(run)
            else:
                out += bigrams(run)
        return out
