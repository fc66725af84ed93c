"""The KIMAs pipeline: question → context manager → router → retrieval agents → filter → summarizer.

This module knows the steps by name only; each lives in its stage's folder, with its injected parts and
one typed method, and writes its own trace records:
1. ``retrieval.turn_search.TurnSearch``: the context manager's rewrite ∥ routing on the raw question's
   embedding (KIMAs §3.5's first parallel stage), the readings, the retrieval agents, the one reranker;
2. ``answer.decider.Decider``: the packed evidence (``answer.evidence``; the context analysis starts
   there, in parallel with the quote: §3.5's second parallel stage), the grounded quote, the answer
   policy, the agentic second round, the online sources;
3. ``answer.writer.AnswerWriter``: the answer in the form the policy chose, the support check, and the
   one ``finish`` every outcome ends with (the quote in the model's place while the chat model is not
   there yet: ``answer.unwritten``).
The per-answer state they hand each other is ``answer.run.Run``.
"""

from __future__ import annotations

import concurrent.futures as cf
import threading
from collections.abc import Iterator, Sequence
from dataclasses import replace

from kimas_desktop.answer.decider import Decider
from kimas_desktop.answer.evidence import EvidencePacker
from kimas_desktop.answer.filter import EvidenceFilter
from kimas_desktop.answer.online_join import OnlineJoin
from kimas_desktop.answer.outcome import NothingFound
from kimas_desktop.answer.phrases import phrase
from kimas_desktop.answer.prompt_plan import PromptPlanner
from kimas_desktop.answer.run import AskOptions, LlmStages, Run
from kimas_desktop.answer.second_round import AgenticRound
from kimas_desktop.answer.signals.agentic import SufficiencyJudge
from kimas_desktop.answer.signals.grounding import Grounder
from kimas_desktop.answer.signals.verify import AnswerCheck
from kimas_desktop.answer.tables.answer import TableAnswerer
from kimas_desktop.answer.unwritten import quote_while_unwritten
from kimas_desktop.answer.writer import AnswerWriter, finish
from kimas_desktop.answer.writing.budget import PromptSpeed
from kimas_desktop.answer.writing.summarizer import Summarizer
from kimas_desktop.answer.writing.support import SupportChecker
from kimas_desktop.cancel import CancellableChat
from kimas_desktop.clock import Clock
from kimas_desktop.config import Config, SourceConfig
from kimas_desktop.context.dependence import TurnDependence
from kimas_desktop.context.manager import ContextAnalyzer, QueryContextualizer
from kimas_desktop.control import CancelToken
from kimas_desktop.events import Event, Status
from kimas_desktop.limits import check_history, check_question
from kimas_desktop.protocols import ChatModel, ChunkSearcher, Embedder, OnlineSource, Reader, Reranker
from kimas_desktop.retrieval.across_scripts import AcrossScripts
from kimas_desktop.retrieval.online import OnlineQueryWriter, OnlineSources
from kimas_desktop.retrieval.second_look import SecondLook
from kimas_desktop.retrieval.second_opinion import SecondOpinion
from kimas_desktop.retrieval.turn_search import RetrievalResult, TurnSearch
from kimas_desktop.retrieval.word_weights import index_weighted
from kimas_desktop.routing.online import SourceMatcher
from kimas_desktop.routing.router import CentroidRouter
from kimas_desktop.trace import TotalStage, TraceBuilder
from kimas_desktop.types import ChatModelDescription, Message

__all__ = ["AskOptions", "Pipeline", "RetrievalResult"]


class Pipeline:
    """One configured pipeline. Cheap to build; models load on first use. Safe for several answers at
    once (each ``ask`` carries its own state)."""

    def __init__(
        self,
        *,
        config: Config,
        chat: ChatModel,
        embedder: Embedder,
        reranker: Reranker,
        searcher: ChunkSearcher,
        sources: Sequence[tuple[OnlineSource, SourceConfig]] = (),
        tables: TableAnswerer | None = None,
        meaning: Embedder | None = None,
        reader: Reader | None = None,
    ) -> None:
        """``meaning``: the embedded multilingual-e5-small when it is installed, for the second opinion on
        the kept evidence's order (``rerank.second_opinion``) and, with ``grounding.meaning =
        "multilingual"``, the quote's sentence similarities; None: neither. ``reader``: the reader the
        quote and the decision read with when ``grounding`` asks (``Grounder``)."""
        self.config = config
        self._chat = chat
        self._dependence = TurnDependence(embedder)
        self._described: ChatModelDescription | None = None
        self._speed = PromptSpeed()
        self._describe_lock = threading.Lock()
        self._pool = cf.ThreadPoolExecutor(max_workers=6, thread_name_prefix="kimas")
        self._online = OnlineSources(sources, self._pool)
        router = CentroidRouter(searcher, embedder, config)
        self._source_matcher = SourceMatcher(embedder, router.mixin_vectors)
        weighed = index_weighted(reranker, searcher)  # a question's words weighed by the index
        share = config.rerank.second_opinion
        second = SecondOpinion(meaning, share) if meaning is not None and share > 0 else None
        across = AcrossScripts(reader) if reader is not None else None
        filter_ = EvidenceFilter(weighed, config.rerank.top_n, config.rerank.min_score, second, across)
        second_look = SecondLook(searcher, filter_.rerank, config.hops, config.rerank.top_n, self._pool)
        self._search = TurnSearch(
            config=config,
            searcher=searcher,
            embedder=embedder,
            router=router,
            rerank=filter_.rerank_readings,
            second_look=second_look,
            pool=self._pool,
        )
        packer = EvidencePacker(config.summarizer, chat.count_tokens, self._pool)
        self._decider = Decider(
            config=config,
            packer=packer,
            grounder=Grounder(
                meaning if meaning is not None and config.grounding.meaning == "multilingual" else embedder,
                config.grounding,
                reader,
            ),
            synopsis=searcher.synopsis,
            second_round=AgenticRound(config.agentic, self._search.agents, filter_.rerank, self._pool),
            online=OnlineJoin(filter_.rerank),
            tables=tables,
        )
        planner = PromptPlanner(config.summarizer, chat.count_tokens, self._speed)
        self._writer = AnswerWriter(planner, SupportChecker(embedder), self._speed)

    def describe_chat(self) -> ChatModelDescription:
        """The chat model's description, asked of it once (loads the model the first time): every stage
        reads this one (``LlmStages.described``)."""
        with self._describe_lock:
            if self._described is None:
                self._described = self._chat.describe()
                self._speed.loaded(self._described.prompt_tokens_per_s)
            return self._described

    def _llm_stages(self, chat: ChatModel) -> LlmStages:
        config = self.config
        return LlmStages(
            chat=chat,
            contextualizer=QueryContextualizer(
                chat, config.context, self._dependence, small_model=lambda: not self.describe_chat().judges
            ),
            analyzer=ContextAnalyzer(chat, config.context),
            summarizer=Summarizer(
                chat,
                max_answer_tokens=config.summarizer.max_answer_tokens,
                temperature=config.summarizer.temperature,
            ),
            judge=SufficiencyJudge(chat, config.agentic.max_queries),
            checker=AnswerCheck(chat),
            described=self.describe_chat,
        )

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._online.close()

    def admit(self, question: str, history: Sequence[Message] = ()) -> None:
        """Refuse a question, or a conversation a client sends with it, over the ``[limits]``
        (``OverLimitError``, naming the limit): every way in calls it before it does anything with them."""
        check_question(question, self.config.limits, self._chat.count_tokens)
        if history:
            check_history(history, self.config.limits, self._chat.count_tokens)

    def retrieve(self, question: str, history: Sequence[Message] = ()) -> RetrievalResult:
        """Steps up to the filter: the best evidence for ``question`` in this conversation (a question
        over the limits is refused: ``admit``)."""
        check_question(question, self.config.limits, self._chat.count_tokens)
        clock = Clock()
        trace = TraceBuilder()
        names = self._search.collections(trace)
        stages = self._llm_stages(self._chat)
        result = self._search.search(question, history, trace, stages.contextualizer, stages.chat, names)
        trace.add(TotalStage(clock.ms()))
        return replace(result, trace=trace.snapshot())

    def ask(
        self,
        question: str,
        history: Sequence[Message] = (),
        *,
        cancel: CancelToken | None = None,
        options: AskOptions = AskOptions(),
    ) -> Iterator[Event]:
        """Answer ``question``: status events, the grounded quote, answer deltas, the support check,
        citations, the trace, then ``Done`` with the outcome. Cancelling ``cancel`` ends the model call in
        progress at once (``Cancelled`` is raised, after the trace of what was done)."""
        chat = self._chat if cancel is None else CancellableChat(self._chat, cancel)
        run = Run(question, list(history), self._llm_stages(chat), options, cancel)
        names = self._search.collections(run.trace)
        if not names:
            run.trace.question = question
            yield from finish(run, NothingFound(phrase("no knowledge", question), "no knowledge"))
            return
        yield Status("context", phrase("understanding", question))
        s = run.stages
        first = self._search.search(question, run.history, run.trace, s.contextualizer, s.chat, names)
        run.focus = first.focus
        searched = tuple(first.active)
        said = f"Searched {', '.join(searched) or 'no collection'}."
        yield Status("retrieve", said, code="searched", values={"collections": searched})
        matches = self._source_matcher.matches(first.query, self._online.specs) if self._online.specs else {}
        sent = OnlineQueryWriter().write(
            question, run.history, first.decision.turns if first.decision else ()
        )
        online = self._online.start(sent.text, asked=options.sources, cancel=cancel, matches=matches)
        decided = yield from self._decider.decide(run, first, online)
        quotes = decided.grounding.quotes if decided is not None else []
        yield from quote_while_unwritten(self._writer.write(run, decided), run, quotes)
