"""Kept ``kimas ask --json`` answers read back for the support check (``bench.support_check``,
``bench.reader_support``): the model's text, the sources it was given, the grounded quote, and today's check
with a data dir's embedder. No ``main``: the benches with one import it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kimas_desktop.answer.writing.support import SupportChecker
from kimas_desktop.types import Chunk, Hit, Quote


def model_text(support: list[dict[str, Any]]) -> str:
    """The model's answer as the check read it: each sentence at its offset, line breaks between."""
    text = ""
    for s in support:
        gap = max(s["start"] - len(text), 1 if text else 0)
        text += ("\n" * gap) + s["text"]
    return text


def hits_of(result: dict[str, Any]) -> list[Hit]:
    """The numbered sources the model was given (``hits[n - 1]`` is source ``n``)."""
    evidence = sorted(result["trace"]["evidence"], key=lambda e: e["n"])
    return [
        Hit(
            Chunk(e["chunk_id"], e["collection"], e["source"], e["text"], page=e["page"], heading=heading(e)),
            1.0,
        )
        for e in evidence
    ]


def heading(evidence: dict[str, Any]) -> str:
    """The source's heading, as the model read it; a batch kept before the trace gave it: the file's first
    Markdown heading (a dev-kit file has one, its title)."""
    if "heading" in evidence:
        return str(evidence["heading"])
    path = Path(evidence["source"])
    lines = path.read_text("utf-8").splitlines() if path.is_file() else []
    return next((line.lstrip("#").strip() for line in lines if line.startswith("#")), "")


def quotes_of(result: dict[str, Any], hits: list[Hit]) -> list[Quote]:
    """The grounded quote's parts; a part from a source the model was not given (an answer of
    bench.answer_loops' batch at abc3c5c quotes source 3 of 2) keeps its text, which is what the check
    reads."""
    parts = (result.get("quote") or {}).get("parts") or []
    return [Quote(p["n"], _chunk(p, hits), 0, len(p["text"]), p["text"], p["score"]) for p in parts]


def _chunk(part: dict[str, Any], hits: list[Hit]) -> Chunk:
    n = part["n"]
    return hits[n - 1].chunk if n <= len(hits) else Chunk(f"quote-{n}", "", "", part["text"])


def make_checker(data_dir: Path) -> SupportChecker:
    """Today's check with the data dir's embedder."""
    from app.paths import read_config, resolve_paths
    from app.runtime import Runtime

    paths = resolve_paths(str(data_dir), None)
    services = Runtime(paths, read_config(paths))
    return SupportChecker(services.embedder(services.config))
