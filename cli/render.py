"""Turn pipeline results into the CLI's JSON contract (keep it stable: scripts and benchmarks use it).

What reaches the terminal goes through ``cli.terminal`` (control characters shown, never obeyed)."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cli.terminal import json_text, redraw
from kimas_desktop.answer.writing.markers import insert_markers, place_markers
from kimas_desktop.context.dependence import TurnDecision
from kimas_desktop.errors import KimasError
from kimas_desktop.pipeline import RetrievalResult
from kimas_desktop.trace import DocumentStage, HopStage, Trace, stage_fields
from kimas_desktop.types import Answerability, Chunk, Citation, Hit, Message, Quote, Route, SentenceSupport


def _lines(chunk: Chunk) -> list[int] | None:
    return list(chunk.lines) if chunk.lines else None


def route_json(r: Route) -> dict[str, Any]:
    return {"collection": r.collection, "score": round(r.score, 5)}


def hit_json(h: Hit) -> dict[str, Any]:
    c = h.chunk
    return {
        "collection": c.collection,
        "source": c.source,
        "page": c.page,
        "ocr": c.ocr,
        "lines": _lines(c),
        "chunk_id": c.chunk_id,
        "heading": c.heading,
        "text": c.text,
        "score": round(h.score, 5),
    }


def citation_json(c: Citation) -> dict[str, Any]:
    return {
        "n": c.n,
        "source": c.chunk.source,
        "page": c.chunk.page,
        "ocr": c.chunk.ocr,
        "lines": _lines(c.chunk),
        "chunk_id": c.chunk.chunk_id,
        "snippet": c.snippet,
        "sentence": c.sentence or None,
        "start": c.start,
        "end": c.end,
    }


def quote_json(quotes: tuple[Quote, ...]) -> dict[str, Any] | None:
    """The grounded quote: its text (the parts joined) and each verbatim part with its citation and its
    character offsets in the chunk's text; None when there is none."""
    if not quotes:
        return None
    return {
        "text": " … ".join(q.display for q in quotes),
        "parts": [
            {
                "text": q.text,
                "n": q.n,
                "source": q.chunk.source,
                "page": q.chunk.page,
                "ocr": q.chunk.ocr,
                "lines": _lines(q.chunk),
                "chunk_id": q.chunk.chunk_id,
                "start": q.start,
                "end": q.end,
                "score": round(q.score, 4),
            }
            for q in quotes
        ],
    }


def answerable_json(a: Answerability) -> dict[str, Any]:
    e = a.evidence
    return {
        "decision": a.answerable,
        "score": a.score,
        "threshold": a.threshold,
        "evidence": None
        if e is None
        else {
            "sentence_overlap": round(e.sentence_overlap, 4),
            "evidence_overlap": round(e.evidence_overlap, 4),
            "cosine": round(e.cosine, 4),
            "rerank": round(e.rerank, 4),
        },
    }


def support_json(s: SentenceSupport) -> dict[str, Any]:
    return {
        "text": s.text,
        "start": s.start,
        "end": s.end,
        "supported": s.supported,
        "lexical": s.lexical,
        "cosine": s.cosine,
        "source": s.source,
        "evidence": None if s.evidence_start is None else {"start": s.evidence_start, "end": s.evidence_end},
        "missing": list(s.missing),
        "reason": s.reason,
        "lacks": list(s.lacks),
    }


def marked_text(answer: str, support: Sequence[SentenceSupport], citations: Sequence[Citation]) -> str:
    """The answer with an [n] after each sentence source n backs; '' when no sentence gets one."""
    markers = place_markers(answer, support, {c.n for c in citations})
    return insert_markers(answer, markers, lambda n: f"[{n}]").strip() if markers else ""


def trace_json(t: Trace) -> dict[str, Any]:
    return {
        "query": t.query,
        "routes": [
            {
                "collection": r.collection,
                "score": r.score,
                "centroid": r.centroid_score,
                "mixin": r.mixin_score,
                "dense": r.dense_score,
                "lexical": r.lexical_score,
            }
            for r in t.routes
        ],
        "agent_queries": t.agent_queries,
        "evidence": [{"n": i + 1, **hit_json(h)} for i, h in enumerate(t.evidence)],
        "stages": [{"stage": s.stage, "ms": s.ms, **stage_fields(s)} for s in t.stages],
    }


def retrieval_json(r: RetrievalResult) -> dict[str, Any]:
    return {
        "question": r.question,
        "query": r.query,
        "routes": [route_json(x) for x in r.routes if x.collection in r.active],
        "hits": [hit_json(h) for h in r.hits],
        "timings_ms": r.trace.timings_ms,
        **({"decision": decision_json(r.decision)} if r.decision is not None else {}),
        **hops_json(r.trace, r.hits),
        **document_json(r.trace),
    }


def hops_json(trace: Trace, hits: Sequence[Hit]) -> dict[str, Any]:
    """Each hop of the multi-hop retrieval: its query, and the passages it added with their places (1-based)
    in the final hits; ``hops_stopped``: why no (further) hop was made. Empty when hops are off."""
    rank = {h.chunk.chunk_id: i + 1 for i, h in enumerate(hits)}
    records = [s for s in trace.stages if isinstance(s, HopStage)]
    if not records:
        return {}
    hops = [
        {
            "round": s.round,
            "query": s.query,
            "added": [{"chunk_id": c, "rank": rank.get(c)} for c in s.added],
        }
        for s in records
        if s.round
    ]
    return {"hops": hops, "hops_stopped": next((s.why for s in records if not s.round), "")}


def document_json(trace: Trace) -> dict[str, Any]:
    """A question about a whole document (its card) or one of its chapters."""
    d = trace.find(DocumentStage)
    if d is None:
        return {}
    return {"document": {"source": d.source, "section": d.section, "passages": d.passages, "why": d.why}}


def decision_json(d: TurnDecision) -> dict[str, Any]:
    """Whether the question needed the conversation, on which earlier messages, and why."""
    return {"depends": d.depends, "turns": list(d.turns), "method": d.method, "reason": d.reason}


def parse_history(data: object, origin: str) -> list[Message]:
    if not isinstance(data, list):
        raise KimasError(f"{origin}: history must be a JSON list of {{role, content}} messages")
    out = []
    for i, m in enumerate(data):
        if (
            not isinstance(m, dict)
            or m.get("role") not in ("user", "assistant")
            or not isinstance(m.get("content"), str)
        ):
            raise KimasError(f"{origin}: message {i} needs role 'user' or 'assistant' and a string content")
        sources = m.get("sources", [])
        if not isinstance(sources, list) or not all(isinstance(x, str) for x in sources):
            raise KimasError(f"{origin}: message {i}'s sources must be a list of file paths")
        out.append(Message(m["role"], m["content"], tuple(sources)))
    return out


def read_history(path: str | None) -> list[Message]:
    if not path:
        return []
    try:
        return parse_history(json.loads(Path(path).read_text("utf-8")), path)
    except (OSError, json.JSONDecodeError) as err:
        raise KimasError(f"cannot read history file {path}: {err}") from None


def read_batch(path: str) -> list[tuple[str, str, list[Message]]]:
    items = []
    try:
        lines = Path(path).read_text("utf-8").splitlines()
    except OSError as err:
        raise KimasError(f"cannot read batch file {path}: {err}") from None
    for no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
        except json.JSONDecodeError as err:
            raise KimasError(f"{path}:{no}: not JSON: {err}") from None
        if not isinstance(d, dict) or not isinstance(d.get("question"), str):
            raise KimasError(f"{path}:{no}: each line needs an id and a question")
        items.append(
            (str(d.get("id", no)), d["question"], parse_history(d.get("history", []), f"{path}:{no}"))
        )
    return items


class Progress:
    """A one-line progress bar on stderr."""

    def __init__(self, total: int, label: str) -> None:
        self.total, self.label, self.start = total, label, time.monotonic()

    def update(self, done: int, current: str = "") -> None:
        width = 30
        filled = int(width * done / max(self.total, 1))
        elapsed = time.monotonic() - self.start
        eta = elapsed / done * (self.total - done) if done else 0.0
        bar = "#" * filled + "-" * (width - filled)
        redraw(f"{self.label} [{bar}] {done}/{self.total} eta {eta:5.0f}s {current[:40]:<40}")
        if done >= self.total:
            sys.stderr.write("\n")


def dumps(obj: object, indent: int | None = None) -> str:
    """JSON for the CLI's output: terminal-safe (every control character escaped)."""
    return json_text(obj, indent)
