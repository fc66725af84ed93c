"""The online sources' evidence joined to the local (KIMAs §3.3.1's online agents): both reranked together.
Sources set to ``weak`` are asked only when the local evidence does not answer; each is waited for no
longer than its time limit."""

from __future__ import annotations

from collections.abc import Callable, Generator

from kimas_desktop.answer.run import Run
from kimas_desktop.clock import Clock
from kimas_desktop.events import Event, Status
from kimas_desktop.retrieval.online import OnlineRound
from kimas_desktop.retrieval.turn_search import RetrievalResult
from kimas_desktop.trace import OnlineStage, RerankStage
from kimas_desktop.types import Hit

__all__ = ["OnlineJoin"]


class OnlineJoin:
    def __init__(self, rerank: Callable[[str, list[Hit]], list[Hit]]) -> None:
        self._rerank = rerank

    def join(
        self, run: Run, first: RetrievalResult, online: OnlineRound, answers: bool
    ) -> Generator[Event, None, list[Hit] | None]:
        """The local and online hits reranked together, or None when no source was asked or none brought
        any. ``answers``: whether the local evidence answers (a ``weak`` source is asked only if not)."""
        if not answers:
            online.local_was_weak()
        if online.asked:
            asked = tuple(online.asked)
            yield Status("online", f"Asking {', '.join(asked)}…", code="asking", values={"sources": asked})
        found: list[Hit] = []
        for o in online.join():
            r = o.result
            if r is None:
                skipped = o.skipped
                run.trace.add(OnlineStage(0.0, o.source, skipped=str(skipped or ""), skipped_said=skipped))
                continue
            why = o.why
            record = OnlineStage(
                r.ms, o.source, r.query, str(why or ""), r.results, r.pages_read, len(r.hits), r.error,
                why_said=why, error_said=r.error_said,
            )  # fmt: skip
            run.trace.add(record)
            found += r.hits
        if not found:
            return None
        t = Clock()
        hits = self._rerank(first.query, [*first.hits, *found])
        run.trace.add(RerankStage(t.ms(), len(first.hits) + len(found), len(hits)))
        return hits
