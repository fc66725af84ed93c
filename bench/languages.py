"""Retrieval in every language through the product (issue 42): Hindi against whitespace BM25, and the
Debian Reference in English, German, Japanese and Chinese against the classic tokenizers.

- **Hindi** (``hindi_qa_bigbench_even``): the 2,387 passages as one file each, indexed by `kimas index`
  (embedded models), every question of a half through `kimas retrieve --batch`. Answer in the top 5: a gold
  answer string inside one of the five passages it returns. The baseline is BM25 (k1 1.2, b 0.75) with a
  whitespace tokenizer over the same passages. The halves are ``bench.text_scripts``' (a hash of the id):
  the Hindi stemmer was chosen on ``tune``; ``held-out`` is the figure to quote.
- **Debian Reference** (`apt-get install debian-reference-de debian-reference-ja debian-reference-zh-cn
  debian-reference-en`, HTML under ``/usr/share/debian-reference``): one collection per language, the same
  guide in each. Known-item questions made by ``kimas eval``'s generator (``app.evaluation.questions``:
  four distinctive words of a passage's sentence), asked as the words alone, written as the language
  writes them (Chinese and Japanese words without spaces between them). Recall@5: a returned passage holds
  the sentence (``questions.finds``). Baselines over the product's own chunks: BM25 with a whitespace
  tokenizer, and for Chinese and Japanese with character bigrams.

    python -m bench.languages [--hindi-half held-out] [--hindi-limit N] [--debian-size 100] [--languages en de ja zh-cn]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bench.language_sets import ROOT, debian, hindi


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hindi-half", default="held-out", choices=["held-out", "tune", "none"])
    p.add_argument("--hindi-limit", type=int, default=None, help="only the half's first N questions")
    p.add_argument("--debian-size", type=int, default=100, help="known-item questions per language")
    p.add_argument("--languages", nargs="*", default=["en", "de", "ja", "zh-cn"])
    p.add_argument("--cache", default=str(ROOT / "bench" / ".cache" / "languages"))
    args = p.parse_args()
    cache = Path(args.cache)
    report: dict[str, Any] = {}
    if args.hindi_half != "none":
        report["hindi"] = hindi(cache, args.hindi_half, args.hindi_limit)
        print(json.dumps(report["hindi"]), file=sys.stderr, flush=True)
    for lang in args.languages:
        report[f"debian {lang}"] = debian(cache, lang, args.debian_size)
        print(json.dumps(report[f"debian {lang}"], ensure_ascii=False), file=sys.stderr, flush=True)
    print(json.dumps(report, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
