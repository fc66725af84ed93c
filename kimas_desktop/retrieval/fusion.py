"""Model-free ways to merge and clean ranked lists."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from kimas_desktop.types import Chunk, Hit

__all__ = ["RRF_K", "deduplicate", "reciprocal_rank_fusion"]

RRF_K = 60


def reciprocal_rank_fusion(rankings: Iterable[Sequence[Hit]], *, k: int = RRF_K) -> list[Hit]:
    """Fuse ranked lists: score(d) = Σ 1 / (k + rank). Keeps the first-seen Hit for each chunk."""
    scores: dict[str, float] = {}
    first: dict[str, Hit] = {}
    for ranking in rankings:
        for rank, hit in enumerate(ranking, start=1):
            cid = hit.chunk.chunk_id
            scores[cid] = scores.get(cid, 0.0) + 1.0 / (k + rank)
            first.setdefault(cid, hit)
    order = sorted(scores, key=lambda cid: scores[cid], reverse=True)
    return [replace(first[cid], score=scores[cid]) for cid in order]


def _shingles(text: str) -> set[tuple[str, ...]]:
    words = text.split()
    return {tuple(words[i : i + 3]) for i in range(max(len(words) - 2, 1))}


def _overlaps(a: Chunk, b: Chunk) -> bool:
    """Same file and more than half of the shorter chunk's text (word 3-grams) is in the other.

    Line ranges only rule pairs out: one long line (a paragraph without line breaks) holds several
    distinct chunks, and they must all stay.
    """
    if a.source != b.source:
        return False
    if a.lines and b.lines and max(a.lines[0], b.lines[0]) > min(a.lines[1], b.lines[1]):
        return False
    ta, tb = " ".join(a.text.lower().split()), " ".join(b.text.lower().split())
    if ta in tb or tb in ta:
        return True
    sa, sb = _shingles(ta), _shingles(tb)
    return len(sa & sb) > min(len(sa), len(sb)) / 2


def deduplicate(hits: Sequence[Hit]) -> list[Hit]:
    """Drop repeated chunks and chunks mostly contained in a better-ranked one of the same file."""
    kept: list[Hit] = []
    seen: set[str] = set()
    for hit in hits:
        if hit.chunk.chunk_id in seen or any(_overlaps(hit.chunk, k.chunk) for k in kept):
            continue
        seen.add(hit.chunk.chunk_id)
        kept.append(hit)
    return kept
