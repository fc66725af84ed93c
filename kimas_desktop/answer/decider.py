"""The decision: the grounded quote, the lexical answerability, a capable model's check where it can
change the decision, the one answer policy (``policy.py``), then, where they apply, the agentic second
round and the online sources. The local evidence is decided on first, so its quote shows at once."""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, replace

from kimas_desktop.answer.evidence import EvidencePacker
from kimas_desktop.answer.online_join import OnlineJoin
from kimas_desktop.answer.phrases import phrase
from kimas_desktop.answer.policy import AnswerPolicy, Decision
from kimas_desktop.answer.run import PackedEvidence, Run
from kimas_desktop.answer.second_round import AgenticRound
from kimas_desktop.answer.signals.compare import compute
from kimas_desktop.answer.signals.documents import card_quote
from kimas_desktop.answer.signals.grounding import Grounder, Grounding
from kimas_desktop.answer.signals.verify import Verdict
from kimas_desktop.answer.tables.answer import TableAnswer, TableAnswerer
from kimas_desktop.clock import Clock
from kimas_desktop.config import Config
from kimas_desktop.events import Event, QuoteReady, Status
from kimas_desktop.optional import optional
from kimas_desktop.retrieval.documents import without_pointer
from kimas_desktop.retrieval.online import OnlineRound
from kimas_desktop.retrieval.turn_search import RetrievalResult
from kimas_desktop.trace import AgenticStage, AnswerCheckStage, DecisionStage, QuoteStage, Reason
from kimas_desktop.types import Hit, Synopsis

__all__ = ["Decided", "Decider"]

# Why the agentic round did not run (``_search_again``), in English and as a code
EVIDENCE_ANSWERS = Reason("the evidence answers", "evidence_answers")
NO_CHAT_MODEL = Reason("the decision needed no chat model", "no_chat_model")


@dataclass(frozen=True)
class Decided:
    """The evidence the answer is made from, its grounded quote, and the policy's decision on it."""

    evidence: PackedEvidence
    grounding: Grounding
    decision: Decision


class Decider:
    def __init__(
        self,
        *,
        config: Config,
        packer: EvidencePacker,
        grounder: Grounder,
        synopsis: Callable[[str], Synopsis | None],
        second_round: AgenticRound,
        online: OnlineJoin,
        tables: TableAnswerer | None = None,
    ) -> None:
        self._config = config
        self._packer = packer
        self._grounder = grounder
        self._synopsis = synopsis
        self._second_round = second_round
        self._online = online
        self._tables = tables

    def decide(
        self, run: Run, first: RetrievalResult, online: OnlineRound
    ) -> Generator[Event, None, Decided | None]:
        """Decide on the local evidence (its quote shows at once), then on it joined with the online
        sources' when they are asked. None: no evidence at all."""
        if run.policy is None and first.hits:  # before the packing, which starts the context analysis
            run.policy = self._policy(run)  # only for a model that writes
        evidence = self._packer.pack(run, first)
        decided: Decided | None = None
        if evidence.hits:
            decided = yield from self._on(run, first, evidence)
            decided = yield from self._search_again(run, first, decided)
        answers = decided is not None and decided.decision.answer
        hits = yield from self._online.join(run, first, online, answers)
        if hits is None:
            return decided
        return (yield from self._on(run, first, self._packer.pack(run, first, hits)))

    def _on(
        self, run: Run, first: RetrievalResult, evidence: PackedEvidence
    ) -> Generator[Event, None, Decided]:
        grounding = self._ground(run, first, evidence)
        run.table = self._table(run, evidence.hits)
        # A value computed over a table shows with the rows it used, not beside a quoted line of them.
        tabled = run.table is not None and run.table.answered
        yield QuoteReady(
            () if tabled else grounding.quotes, grounding.answerability, grounding.disagree and not tabled
        )
        return Decided(evidence, grounding, (yield from self._decide(run, evidence, grounding)))

    def _ground(self, run: Run, first: RetrievalResult, evidence: PackedEvidence) -> Grounding:
        """The grounded quote and the lexical answerability, over the packed sources."""
        t = Clock()
        synopses = [self._synopsis(name) for name in first.active]
        asked, query = _asked(run.question, first), _asked(first.query, first)
        g = self._grounder.ground(asked, evidence.hits, synopses, query=query)
        if first.focus is not None and first.focus.whole:  # the quote is the card's own sentences
            quote = card_quote(evidence.hits, first.focus.card)
            g = replace(g, quotes=(quote,) if quote is not None else g.quotes)
        a = g.answerability
        quoted = tuple(q.n for q in g.quotes)
        at = run.clock.ms()
        run.trace.add(QuoteStage(t.ms(), at, quoted, a.answerable, a.score, a.threshold, g.idf_from))
        return g

    def _policy(self, run: Run) -> AnswerPolicy:
        """The answer policy for this chat model: whether it judges and whether its written answers are
        shown, both from its one description (the pipeline's, which loads the model the first time)."""
        described = run.stages.described()
        return AnswerPolicy(self._config.grounding, judges=described.judges, writes=described.writes)

    def _check(self, run: Run, hits: tuple[Hit, ...]) -> Verdict | None:
        """The chat model's extract-and-verify check; a failed check is no evidence (None)."""
        t = Clock()

        def failed(reason: str) -> None:
            why = Reason(f"the check failed: {reason}", "check_failed", {"error": reason})
            run.trace.add(AnswerCheckStage(t.ms(), fallback=why.english, fallback_said=why))

        run.checked = True
        verdict = optional("answer check", lambda: run.stages.checker.judge(run.question, hits), failed)
        if verdict is not None:
            v = verdict
            record = AnswerCheckStage(t.ms(), v.answerable, words=v.words, reason=v.reason or v.kind)
            run.trace.add(replace(record, reason_said=v.reason_said))
        return verdict

    def _decide(
        self, run: Run, evidence: PackedEvidence, grounding: Grounding
    ) -> Generator[Event, None, Decision]:
        """The answer policy over the lexical answerability and, where it can change the decision, the
        chat model's check."""
        if run.policy is None:
            run.policy = self._policy(run)
        policy = run.policy
        lexical, try_anyway = grounding.answerability, run.options.try_anyway
        run.computed = compute(run.question, evidence.hits) if run.table is None else None
        verdict = None
        in_code = run.computed is not None or run.table is not None
        if not in_code and policy.asks_model(lexical, try_anyway=try_anyway):
            yield Status("check", phrase("checking", run.question))
            verdict = self._check(run, evidence.hits)
        card = run.focus is not None and run.focus.whole and any(h.origin == "card" for h in evidence.hits)
        table = run.table.answered if run.table is not None else None
        decision = policy.decide(
            lexical, verdict, try_anyway=try_anyway, computed=run.computed is not None, document=card,
            table=table,
        )  # fmt: skip
        kind = verdict.kind if verdict is not None else ""
        run.trace.add(DecisionStage(0.0, decision.answer, decision.rule, lexical.score, kind))
        return decision

    def _table(self, run: Run, hits: tuple[Hit, ...]) -> TableAnswer | None:
        """The question computed over a table of the evidence's files (``answer/tables``); a table that
        holds no row for it is set aside when the user asked the model to try anyway."""
        if self._tables is None:
            return None
        earlier = [m.content for m in run.history if m.role == "user"]
        found = self._tables.answer(run.question, hits, earlier)
        if found is not None and not found.answered and run.options.try_anyway:
            return None
        return found

    def _search_again(
        self, run: Run, first: RetrievalResult, decided: Decided
    ) -> Generator[Event, None, Decided]:
        """When the chat model's check was what declined, the agentic round (if on) searches for what the
        evidence misses, and the new evidence is decided on once more."""
        if not self._config.agentic.enabled:
            return decided
        decision = decided.decision
        if decision.answer or decision.verdict is None:
            why = EVIDENCE_ANSWERS if decision.answer else NO_CHAT_MODEL
            run.trace.add(AgenticStage(0.0, skipped=why.english, skipped_said=why))
            return decided
        yield Status("agentic", phrase("searching again", run.question))
        hits = self._second_round.search(run, first, decided.evidence)
        if hits is None:
            return decided
        evidence = self._packer.pack(run, first, hits)
        if not evidence.hits:
            return decided
        grounding = self._ground(run, first, evidence)
        run.table = self._table(run, evidence.hits)
        return Decided(evidence, grounding, (yield from self._decide(run, evidence, grounding)))


def _asked(question: str, first: RetrievalResult) -> str:
    """What the question asks of its evidence: of a chapter it points at, the rest of its words."""
    if first.focus is not None and first.focus.section is not None:
        return without_pointer(question) or question
    return question
