"""Widening before a decline: a routed search looked in some of the collections only (knowledge routing
activates the best one or two, KIMAs §3.2), so before the answer says "your documents don't say", the
collections routing left out are searched too, and the evidence of them all is decided on once more.

Why: with one collection routed (the ``routed`` preset), a question routed to the wrong collection finds
nothing there and was declined while another collection held the answer: on the dev kit's tune half it
declined 0.22 of the answerable questions against 0.153 with two collections (``full``), 12 more, 5 of
them with the answer in the other preset's quote (bench/answers.py Part 1; notes/results-declines.md).

The widened evidence answers only by the policy's rule ``widened`` (``policy.py``): a decline stands
unless the wider search makes the answer likely. The search runs every left-out collection's agent on the
turn's query, as the first search did, and reranks their hits with the first ones; any failure keeps the
first evidence (and its decline).
"""

from __future__ import annotations

import concurrent.futures as cf
from collections.abc import Callable, Sequence

from kimas_desktop.answer.run import Run
from kimas_desktop.clock import Clock
from kimas_desktop.optional import optional
from kimas_desktop.protocols import ChatModel
from kimas_desktop.retrieval.agents import RetrievalAgent
from kimas_desktop.retrieval.turn_search import RetrievalResult
from kimas_desktop.trace import WidenStage
from kimas_desktop.types import Hit

__all__ = ["WiderSearch", "left_out"]

Agents = Callable[[Sequence[str], ChatModel], list[RetrievalAgent]]
Rerank = Callable[[str, list[Hit]], list[Hit]]


def left_out(first: RetrievalResult) -> list[str]:
    """The collections routing scored but the search did not look in, best first."""
    return [r.collection for r in first.routes if r.collection not in first.active]


class WiderSearch:
    def __init__(self, agents: Agents, rerank: Rerank, pool: cf.Executor) -> None:
        self._agents = agents
        self._rerank = rerank
        self._pool = pool

    def search(self, run: Run, first: RetrievalResult) -> list[Hit] | None:
        """The first hits and the left-out collections' best for the turn's query, reranked together.
        None: every collection was searched already, or the search failed."""
        others = left_out(first)
        if not others:
            return None
        clock, failed = Clock(), list[str]()
        agents = self._agents(others, run.stages.chat)

        def found() -> list[Hit]:
            results = list(self._pool.map(lambda a: a.retrieve(first.query), agents))
            return [h for r in results for h in r.hits]

        hits = optional("the wider search (the first evidence instead)", found, failed.append)
        if hits is None:
            run.trace.add(WidenStage(clock.ms(), tuple(others), fallback=failed[0]))
            return None
        ranked = self._rerank(first.query, [*first.hits, *hits])
        run.trace.add(WidenStage(clock.ms(), tuple(others), found=len(hits)))
        return ranked
