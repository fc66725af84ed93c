"""Which writing system a character belongs to, as far as cutting words goes, and the word pattern that
keeps combining marks inside words.

Python's ``\\w`` matches letters and digits but not combining marks (Unicode categories Mn, Mc, Me): the
vowel signs of Devanagari, Bengali, Tamil and Thai, Arabic harakat, a decomposed accent. A word pattern
built on ``\\w`` alone cuts "चीन" into "च", "न"; ``word_pattern`` adds the marks (and the zero-width
joiners some scripts need inside a word) to the characters a word may continue with.

``Script`` names the runs a token is cut into (``script_runs``):
- ``han``: Chinese characters (segmented by a dictionary, ``segmenter.py``);
- ``kana``: Japanese hiragana and katakana; ``hangul``: Korean;
- ``nospace``: Thai, Lao, Khmer, Myanmar — written without spaces between words, no segmenter here;
- ``other``: everything written with spaces between words (Latin, Cyrillic, Greek, Devanagari, Arabic…)
  and all digits, so "500对问答" gives the number "500" apart from its Chinese words.
A combining mark belongs to the run of the character it follows.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Literal

__all__ = [
    "Script",
    "grapheme_clusters",
    "has_kana",
    "has_marks",
    "has_unspaced",
    "script_of",
    "script_runs",
    "word_pattern",
]

Script = Literal["han", "kana", "hangul", "nospace", "other"]

_RANGES: tuple[tuple[int, int, Script], ...] = (
    (0x0E00, 0x0EFF, "nospace"),  # Thai, Lao
    (0x1000, 0x109F, "nospace"),  # Myanmar
    (0x1100, 0x11FF, "hangul"),  # Hangul Jamo
    (0x1780, 0x17FF, "nospace"),  # Khmer
    (0x19E0, 0x19FF, "nospace"),  # Khmer symbols
    (0x3005, 0x3007, "han"),  # 々 〆 〇
    (0x3040, 0x30FF, "kana"),  # Hiragana, Katakana (ー included)
    (0x3130, 0x318F, "hangul"),  # Hangul compatibility Jamo
    (0x31F0, 0x31FF, "kana"),  # Katakana phonetic extensions
    (0x3400, 0x4DBF, "han"),  # CJK extension A
    (0x4E00, 0x9FFF, "han"),  # CJK unified ideographs
    (0xA960, 0xA97F, "hangul"),
    (0xAC00, 0xD7FF, "hangul"),  # Hangul syllables, Jamo extended B
    (0xF900, 0xFAFF, "han"),  # CJK compatibility ideographs
    (0xFF66, 0xFF9F, "kana"),  # half-width katakana
    (0x20000, 0x3134F, "han"),  # CJK extensions B–G
)
_FIRST_SPECIAL = 0x0E00
_UNSPACED = re.compile("[" + "".join(f"{chr(low)}-{chr(high)}" for low, high, _ in _RANGES) + "]")
_JOINERS = "\u200c\u200d"  # zero-width non-joiner and joiner: inside Devanagari, Persian, Malayalam words


def script_of(ch: str) -> Script:
    """The script run ``ch`` starts or continues (see the module docstring)."""
    code = ord(ch)
    if code < _FIRST_SPECIAL:
        return "other"
    for low, high, script in _RANGES:
        if low <= code <= high:
            return script
    return "other"


def has_unspaced(token: str) -> bool:
    """Whether ``token`` holds a character of a script written without spaces (any but ``other``)."""
    return _UNSPACED.search(token) is not None


def has_kana(text: str) -> bool:
    """Whether ``text`` holds hiragana or katakana: its Chinese characters are then read as Japanese."""
    return any(script_of(ch) == "kana" for ch in text if ord(ch) >= 0x3040)


@lru_cache(maxsize=1)
def _mark_class() -> str:
    """The combining marks as a regex character class body (ranges), built once from ``unicodedata``."""
    codes = [c for c in range(0x300, 0x20000) if unicodedata.category(chr(c)).startswith("M")]
    codes += range(0xE0100, 0xE01F0)  # variation selectors supplement (Mn)
    parts: list[str] = []
    start = prev = codes[0]
    for c in [*codes[1:], -1]:
        if c == prev + 1:
            prev = c
            continue
        parts.append(re.escape(chr(start)) + ("-" + re.escape(chr(prev)) if prev > start else ""))
        start = prev = c
    return "".join(parts)


@lru_cache(maxsize=1)
def word_pattern() -> re.Pattern[str]:
    """A word: a letter or digit, then letters, digits, combining marks, joiners and inner ``'``, ``-``,
    ``.``, ending on a letter, digit or mark. Without marks or joiners it matches what
    ``[\\w][\\w'\\-.]*[\\w]|[\\w]`` matches (the word pattern before issue 42)."""
    marks = _mark_class()
    return re.compile(rf"\w(?:[\w{marks}{_JOINERS}'\-.]*[\w{marks}])?", re.UNICODE)


def has_marks(text: str) -> bool:
    """Whether ``text`` holds a combining mark or a zero-width joiner (else ``\\w`` alone finds its words)."""
    return any(_is_mark(ch) for ch in set(text) if ord(ch) >= 0x300)


def _is_mark(ch: str) -> bool:
    return unicodedata.category(ch).startswith("M") or ch in _JOINERS


def script_runs(token: str) -> list[tuple[Script, str]]:
    """``token`` cut where its script changes; a mark or joiner stays with the character before it."""
    runs: list[tuple[Script, str]] = []
    start = 0
    current: Script = script_of(token[0])
    for i in range(1, len(token)):
        ch = token[i]
        script = current if _is_mark(ch) else script_of(ch)
        if script != current:
            runs.append((current, token[start:i]))
            start, current = i, script
    runs.append((current, token[start:]))
    return runs


def grapheme_clusters(run: str) -> list[str]:
    """A run cut into user-perceived characters: a base character with the marks that follow it
    (Thai "กิ" is one cluster, not two)."""
    clusters: list[str] = []
    for ch in run:
        if clusters and _is_mark(ch):
            clusters[-1] += ch
        else:
            clusters.append(ch)
    return clusters
