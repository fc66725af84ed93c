"""Every citation the user sees is built here (the KIMAs paper's "reference generation", §3.4): from the
support check for an answer, from the grounded quote for a decline."""

from __future__ import annotations

from collections.abc import Sequence

from kimas_desktop.answer.signals.compare import Value
from kimas_desktop.types import Citation, Hit, Quote, SentenceSupport

__all__ = ["cites_quote", "closest_passages", "supported_citations", "value_citations"]


def supported_citations(support: Sequence[SentenceSupport], hits: Sequence[Hit]) -> tuple[Citation, ...]:
    """The answer's citations: each source that backs a sentence of the answer, pointed at its sentence
    that backs it best, in the order the answer leans on them. A sentence the sources do not back cites
    nothing (it is marked unsupported instead)."""
    best: dict[int, SentenceSupport] = {}
    for s in sorted(support, key=lambda x: x.start):
        if not s.supported or s.source is None or s.evidence_start is None or s.evidence_end is None:
            continue
        if not 1 <= s.source <= len(hits):
            continue
        held = best.get(s.source)
        if held is None or max(s.lexical, s.cosine) > max(held.lexical, held.cosine):
            best[s.source] = s
    out = []
    for n, s in best.items():
        chunk = hits[n - 1].chunk
        a, b = s.evidence_start, s.evidence_end
        assert a is not None and b is not None
        out.append(Citation(n, chunk, " ".join(chunk.text[a:b].split()), a, b))
    return tuple(out)


def value_citations(values: Sequence[Value], hits: Sequence[Hit]) -> tuple[Citation, ...]:
    """A computed answer's citations: the sentence each compared value was read from (one per source)."""
    out: dict[int, Citation] = {}
    for v in values:
        chunk = hits[v.n - 1].chunk
        out.setdefault(
            v.n, Citation(v.n, chunk, " ".join(chunk.text[v.start : v.end].split()), v.start, v.end)
        )
    return tuple(out.values())


def closest_passages(quotes: Sequence[Quote]) -> tuple[Citation, ...]:
    """The quote's sentences as citations: a decline's (the passages that came closest without answering),
    or an answer in the document's own words (``answer/signals/documents.py``)."""
    first = {q.n: q for q in reversed(quotes)}  # each source once, at its first sentence (issue 46)
    return tuple(Citation(q.n, q.chunk, q.display, q.start, q.end) for q in quotes if first[q.n] is q)


def cites_quote(citations: Sequence[Citation], quotes: Sequence[Quote]) -> bool:
    """Whether the answer cites a passage the quote was taken from (numbered alike: ``renumber_quotes``).
    An answer that does leans on the passage the user was shown first, however it words it (issue 69: "the
    model's answer did not use the quoted passage" stood beside an answer citing it)."""
    quoted = {q.chunk.chunk_id for q in quotes}
    return any(c.chunk.chunk_id in quoted for c in citations)
