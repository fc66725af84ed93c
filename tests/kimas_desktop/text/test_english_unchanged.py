"""English tokenizes exactly as before issue 42, so no English figure moves: the word toolkit's functions
against a frozen copy of the old ones (``words_before_42.py``) on 300 real English sentences of the
development kit; only words of other scripts inside English text change, each for the better."""

from __future__ import annotations

from pathlib import Path

import pytest

from kimas_desktop.text import words
from kimas_desktop.text.scripts import has_marks, has_unspaced
from tests.kimas_desktop.text import words_before_42 as before

SENTENCES = (Path(__file__).parent / "data" / "english_devkit_sentences.txt").read_text("utf-8").splitlines()
FUNCTIONS = ["words", "content_words", "names", "numbers", "stems", "meaningful_stems", "keywords"]


@pytest.mark.parametrize("name", FUNCTIONS)
def test_english_sentences_give_the_same_tokens_stems_and_content_words(name: str) -> None:
    assert len(SENTENCES) == 300
    changed = [s for s in SENTENCES if getattr(words, name)(s) != getattr(before, name)(s)]
    assert not changed, changed[:3]


def test_english_salient_terms_are_unchanged() -> None:
    for i in range(0, len(SENTENCES), 10):
        batch = SENTENCES[i : i + 10]
        assert words.salient_terms(batch) == before.salient_terms(batch)


# Dev kit sentences whose tokens do change: a Korean, a Chinese and a Turkish word (lower-cased "İ" is
# "i" and a combining dot), a Hebrew word with its vowel points.
FOREIGN = [
    "Hongik University (홍익대학교, Hongik Daehakgyo) is shortened to Hongdae (홍대)",
    "Written by 油炸包子 (Deep-fried Stuffed Bun), this web novel is complete at 3 books",
    "The name İstanbul (Turkish pronunciation: [isˈtanbuɫ]) is commonly held to derive from Greek",
    "Ben is followed by the father's name, e.g. ben adam (Hebrew: בֶּן אדם) or Abraham ben Abraham.",
]


def test_only_words_of_other_scripts_change_inside_english_text() -> None:
    for sentence in FOREIGN:
        assert words.meaningful_stems(sentence) != before.meaningful_stems(sentence)
        for name in ("words", "meaningful_stems"):
            new, old = getattr(words, name)(sentence), getattr(before, name)(sentence)
            if new == old:
                continue
            gained, lost = set(new) - set(old), set(old) - set(new)
            assert gained and all(has_marks(w) or has_unspaced(w) for w in gained), gained
            # what the old tokens lost is a foreign word, or a piece of one that a mark cut off
            assert all(not w.isascii() or any(w in g for g in gained) for w in lost), lost
