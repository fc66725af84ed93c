"""Multi-hop retrieval without an LLM (KAG's solver, its "reflect, then retrieve the bridge" loop).

A question whose answer needs two facts from two places ("Would a pear sink in water?": the density of a
pear, and of water) is asked in words that match the first fact at best; the second one shares words with
the first fact, not with the question. So after the first round:

1. **reflect**: does the evidence cover the question? The best passage alone is compared with the
   question's content words, weighted by how rare they are (``coverage``). A single-fact question is
   usually covered by its best passage, and then no hop is made (its ranking stays exactly as it was).
2. **bridge**: for each of the best passages, a next query is made of the question's words that passage
   does not cover and the passage's own telling words the question does not name (names, numbers and rare
   words first): the bridge to the next fact.
3. the new passages each bridge query finds are placed after the first round's best ones, so the first
   round's top stays and the hops fill the places after it.

Rounds are bounded (``hops.rounds``); each hop is reported (query, new passages, why it stopped).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kimas_desktop.text.terms import TermWeights, coverage
from kimas_desktop.text.words import content_words, stem, stems, words
from kimas_desktop.trace import Reason
from kimas_desktop.types import Hit

__all__ = ["Hop", "HopPlan", "bridge_queries", "covered", "merge_hops"]


@dataclass(frozen=True)
class Hop:
    round: int
    query: str
    found: tuple[str, ...]  # chunk ids this hop added


@dataclass(frozen=True)
class HopPlan:
    """What the reflect check decided: ``hop`` False when the best passage covers the question."""

    hop: bool
    coverage: float
    why: str
    why_said: Reason | None = None  # ``why`` as a code (the trace says it in the page's language)


def _plan(hop: bool, share: float, why: Reason) -> HopPlan:
    return HopPlan(hop, share, why.english, why)


def covered(question: str, hits: Sequence[Hit], weights: TermWeights, threshold: float) -> HopPlan:
    """The reflect check: whether the best passage covers the question's words (IDF-weighted)."""
    if not hits:
        return _plan(False, 0.0, Reason("nothing found to start from", "nothing_to_start"))
    share = coverage(weights.weights(content_words(question)), stems(hits[0].chunk.text))
    if share >= threshold:
        english = f"the best passage covers the question ({share:.2f})"
        return _plan(False, share, Reason(english, "covers", {"share": f"{share:.2f}"}))
    english = f"the best passage covers {share:.0%} of the question's words"
    return _plan(True, share, Reason(english, "covers_part", {"share": f"{share * 100:.0f}"}))


def _telling(text: str, exclude: set[str], weights: TermWeights, limit: int) -> list[str]:
    """``text``'s most telling words not in ``exclude`` (stems): names and numbers first, then rare words."""
    score: dict[str, float] = {}
    shown: dict[str, str] = {}
    for i, w in enumerate(words(text)):
        low = w.lower()
        s = stem(w)
        if s in exclude or low not in {c for c in content_words(w)} or len(w) < 3:
            continue
        bonus = 1.5 if any(ch.isdigit() for ch in w) or (i > 0 and w[0].isupper()) else 1.0
        score[s] = max(score.get(s, 0.0), bonus * max(weights.idf(low), 0.05))
        shown.setdefault(s, w)
    return [shown[s] for s in sorted(score, key=lambda x: score[x], reverse=True)[:limit]]


def bridge_queries(
    question: str, hits: Sequence[Hit], weights: TermWeights, *, passages: int, terms: int
) -> list[str]:
    """One next query per best passage: the question's words it leaves uncovered + its bridge words."""
    asked = content_words(question)
    asked_stems = {stem(w) for w in asked}
    out: list[str] = []
    for h in hits[:passages]:
        said = stems(h.chunk.text)
        missing = [w for w in dict.fromkeys(asked) if stem(w) not in said]
        bridge = _telling(h.chunk.text, asked_stems, weights, terms)
        query = " ".join([*missing, *bridge]).strip()
        if query and query not in out:
            out.append(query)
    return out


def merge_hops(
    first: Sequence[Hit], hops: Sequence[Sequence[Hit]], *, keep: int, per_hop: int, limit: int
) -> list[Hit]:
    """The first round's best ``keep``, then each hop's best ``per_hop`` new passages in turn, then the rest
    of the first round; at most ``limit``."""
    seen = {h.chunk.chunk_id for h in first[:keep]}
    out = list(first[:keep])
    known = {f.chunk.chunk_id for f in first}
    fresh = [[h for h in hop if h.chunk.chunk_id not in known][:per_hop] for hop in hops]
    depth = max((len(f) for f in fresh), default=0)
    for i in range(depth):
        for f in fresh:
            if i < len(f) and f[i].chunk.chunk_id not in seen:
                seen.add(f[i].chunk.chunk_id)
                out.append(f[i])
    for h in first[keep:]:
        if h.chunk.chunk_id not in seen:
            seen.add(h.chunk.chunk_id)
            out.append(h)
    return out[:limit]
