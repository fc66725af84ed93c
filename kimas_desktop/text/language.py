"""The language of a text (a question, a document), offline: ``LanguageDetector.detect(text)`` gives an
ISO 639-1 code ("en", "zh", "hi") or ``"und"`` when the text has no letters to tell by.

Two steps, measured on short questions in ``bench/language_id.py`` (bench/RESULTS.md, issue 42):
1. **The script decides** when only one language of ours is written in it: kana → Japanese, Chinese
   characters without kana → Chinese, Hangul → Korean, Thai, Greek, Hebrew, Georgian, Armenian, and the
   Indic scripts (Devanagari → Hindi, Bengali, Tamil, Telugu…). A short Chinese question is never taken
   for Japanese because of one kanji, nor a Hindi one for Marathi because they share letters.
2. Otherwise (Latin, Cyrillic, Arabic letters) ``py3langid`` (https://github.com/adbar/py3langid, BSD,
   the langid.py model: 97 languages, 4.6 MB, numpy only; no pickle) votes on the text. Its model is read the first
   time a text needs it, once, under a lock.

The script with most letters picks the step, a Chinese character or a kana counting as three letters
(about a word): an English question quoting one Chinese name stays English, and "add 和 git rm 命令。"
is Chinese. A Chinese variety py3langid names (Wu "wuu", Cantonese "yue") is reported as "zh".
"""

from __future__ import annotations

import threading
import unicodedata
from collections import Counter
from dataclasses import dataclass
from typing import Any

__all__ = ["Detection", "LanguageDetector", "main_script", "script_language", "written_in_latin"]

UNDETERMINED = "und"

# Unicode script name (the first word of a letter's Unicode name) → the language it tells by itself.
_SCRIPT_LANGUAGE = {
    "HIRAGANA": "ja",
    "KATAKANA": "ja",
    "HANGUL": "ko",
    "THAI": "th",
    "LAO": "lo",
    "KHMER": "km",
    "MYANMAR": "my",
    "GREEK": "el",
    "HEBREW": "he",
    "GEORGIAN": "ka",
    "ARMENIAN": "hy",
    "DEVANAGARI": "hi",
    "BENGALI": "bn",
    "GURMUKHI": "pa",
    "GUJARATI": "gu",
    "ORIYA": "or",
    "TAMIL": "ta",
    "TELUGU": "te",
    "KANNADA": "kn",
    "MALAYALAM": "ml",
    "SINHALA": "si",
    "ETHIOPIC": "am",
    "TIBETAN": "bo",
}


_CHINESE = {"wuu": "zh", "yue": "zh"}


@dataclass(frozen=True)
class Detection:
    """``code``: ISO 639-1 or "und"; ``script``: the script of most of the text's letters ("LATIN",
    "CJK", "DEVANAGARI"…; "" without letters); ``by_script``: decided by the script alone."""

    code: str
    script: str
    by_script: bool


def _script(ch: str) -> str:
    name = unicodedata.name(ch, "")
    if name.startswith(("CJK UNIFIED", "CJK COMPATIBILITY IDEOGRAPH")):
        return "CJK"
    return name.split(" ", 1)[0]


def _scripts(text: str) -> Counter[str]:
    """Letters per script; a Chinese character or a kana counts three (about a word, not a letter)."""
    counts: Counter[str] = Counter()
    for ch in text:
        if ch.isalpha():
            script = _script(ch)
            counts[script] += 3 if script in ("CJK", "HIRAGANA", "KATAKANA") else 1
    return counts


def main_script(text: str) -> str:
    """The script most of ``text``'s letters are in ("LATIN", "CJK", "DEVANAGARI"…; "" without letters)."""
    counts = _scripts(text)
    return counts.most_common(1)[0][0] if counts else ""


def written_in_latin(text: str) -> bool:
    """Whether most of ``text``'s letters are Latin (or it has none): what an English-only model reads."""
    counts = _scripts(text)
    return not counts or counts.most_common(1)[0][0] == "LATIN"


def script_language(text: str) -> Detection | None:
    """The language ``text``'s script tells by itself (step 1), or None when the script is shared by
    many languages (Latin, Cyrillic, Arabic) or the text has no letters."""
    counts = _scripts(text)
    if not counts:
        return Detection(UNDETERMINED, "", True)
    script = counts.most_common(1)[0][0]
    if script == "CJK" or script in ("HIRAGANA", "KATAKANA"):
        kana = counts["HIRAGANA"] + counts["KATAKANA"]
        return Detection("ja" if kana else "zh", "CJK", True)
    code = _SCRIPT_LANGUAGE.get(script)
    return Detection(code, script, True) if code else None


class LanguageDetector:
    """Detects a text's language (see the module docstring). Cheap to build; the model loads on first use."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._model: Any = None

    def identify(self, text: str) -> Detection:
        found = script_language(text)
        if found is not None:
            return found
        script = _scripts(text).most_common(1)[0][0]
        code, _ = self._load().classify(text)
        return Detection(_CHINESE.get(str(code), str(code)), script, False)

    def detect(self, text: str) -> str:
        """The ISO 639-1 code of ``text``'s language, or "und"."""
        return self.identify(text).code

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                from py3langid.langid import MODEL_FILE, LanguageIdentifier

                self._model = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=False)
            return self._model
