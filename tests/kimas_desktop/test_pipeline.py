import json
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from kimas_desktop.answer.filter import format_source
from kimas_desktop.answer.outcome import NO_KNOWLEDGE, NOTHING_FOUND, NothingFound
from kimas_desktop.answer.writing.summarizer import key_sentences_block
from kimas_desktop.config import parse_config
from kimas_desktop.events import (
    AnswerDelta,
    CitationsReady,
    Done,
    QuoteReady,
    Status,
    SupportReady,
    TraceReady,
)
from kimas_desktop.pipeline import AskOptions, Pipeline, RetrievalResult
from kimas_desktop.retrieval.strategies import StrategyContext, register_strategy
from kimas_desktop.trace import (
    AgenticStage,
    AnswerCheckStage,
    AnswerStage,
    BudgetStage,
    ContextStage,
    PackStage,
    QuoteStage,
    RewriteStage,
    StageRecord,
    SupportStage,
    Trace,
)
from kimas_desktop.types import Message
from local_models.fake import HashEmbedder, MemorySearcher, ScriptedChatModel, WordOverlapReranker

R = TypeVar("R", bound=StageRecord)


def _found(trace: Trace, kind: type[R]) -> R:
    record = trace.find(kind)
    assert record is not None, f"no {kind.__name__} in the trace"
    return record


def make(chat: ScriptedChatModel, **cfg: Any) -> tuple[Pipeline, MemorySearcher]:
    emb = HashEmbedder()
    searcher = MemorySearcher(emb)
    searcher.add(
        "pets", ["Cats sleep sixteen hours a day.", "Dogs need daily walks in the park."], "/k/pets.md"
    )
    searcher.add(
        "cars", ["The engine oil must be changed every 10000 km.", "Tyre pressure is 2.2 bar."], "/k/car.pdf"
    )
    config = parse_config({"preset": "full", **cfg})
    return Pipeline(
        config=config, chat=chat, embedder=emb, reranker=WordOverlapReranker(), searcher=searcher
    ), searcher


MODEL_SAYS_ANSWERABLE = {"answer": json.dumps({"answer": "every 10000 km"})}  # words of car.pdf
# The answer policy asks a judging model only near the threshold; these tests widen that band to every
# score, so the model's check is asked whatever the fake embedder's evidence scores.
BAND = {"model_rescues_from": 0.0, "model_doubts_below": 1.0}
MODEL_FINDS_NOTHING = json.dumps({"answer": ""})


def by_schema(replies: Mapping[str, str], answer: str):  # type: ignore[no-untyped-def]
    """Reply by the JSON schema's first required key; stream ``answer`` for free text. Unless a test says
    otherwise, the model's answerability check copies the car manual's answer (answer_check.py)."""

    def reply(messages: Sequence[Message], schema: Mapping[str, Any] | None) -> str:
        if schema is None:
            return answer
        return {**MODEL_SAYS_ANSWERABLE, **replies}[schema["required"][0]]

    return reply


def test_ask_routes_retrieves_answers_and_cites() -> None:
    chat = ScriptedChatModel(
        by_schema(
            {
                "is_sufficient": json.dumps({"is_sufficient": True, "missing_info": "", "queries": []}),
                "sources": json.dumps({"sources": [1]}),
            },
            "Change the engine oil every 10000 km [1].",
        )
    )
    pipe, _ = make(chat, routing={"top_k": 1}, grounding={"llm_check": "off"})  # the agentic round runs
    events = list(pipe.ask("How often must the engine oil be changed?"))
    assert isinstance(events[0], Status)
    answer = "".join(e.text for e in events if isinstance(e, AnswerDelta))
    assert answer.startswith("Change the engine oil")
    cites = next(e for e in events if isinstance(e, CitationsReady))
    assert cites.citations[0].chunk.source == "/k/car.pdf"
    trace = [e for e in events if isinstance(e, TraceReady)][-1].trace
    assert next(r.collection for r in trace.routes) == "cars"
    assert trace.agent_queries.keys() == {"cars"}  # only the routed collection was searched
    assert {
        "rewrite",
        "route",
        "retrieve",
        "rerank",
        "pack",
        "agentic",
        "first_token",
        "answer",
        "citations",
        "total",
    } <= trace.timings_ms.keys()
    assert _found(trace, AgenticStage).skipped == "the evidence answers"  # no model check said otherwise
    assert isinstance(events[-1], Done) and events[-1].answered_from_sources
    # the answer prompt carries the numbered evidence
    answer_prompt = next(m for m, s in chat.calls if s is None)
    assert "[1] (car.pdf" in answer_prompt[1].content


def test_no_collections_means_no_llm_and_a_hint() -> None:
    chat = ScriptedChatModel(["should not be called"])
    emb = HashEmbedder()
    pipe = Pipeline(
        config=parse_config({}),
        chat=chat,
        embedder=emb,
        reranker=WordOverlapReranker(),
        searcher=MemorySearcher(emb),
    )
    events = list(pipe.ask("anything?"))
    assert events[-1] == Done(NothingFound(NO_KNOWLEDGE, "no knowledge"))
    assert chat.calls == []


def test_agentic_round_searches_again_and_fuses() -> None:
    judge = json.dumps({"is_sufficient": False, "missing_info": "tyres", "queries": ["tyre pressure bar"]})
    replies = {"is_sufficient": judge, "answer": MODEL_FINDS_NOTHING}  # the check declines: search again
    chat = ScriptedChatModel(by_schema(replies, "answer"), judges=True)
    pipe, searcher = make(chat, routing={"top_k": 1}, rerank={"min_score": 0.0}, grounding=BAND)
    events = list(pipe.ask("engine oil change interval"))
    trace = [e for e in events if isinstance(e, TraceReady)][-1].trace
    assert _found(trace, AgenticStage).queries == ("tyre pressure bar",)
    assert ("cars", "tyre pressure bar") in searcher.searches
    assert any("Tyre" in h.chunk.text for h in trace.evidence)


def test_the_models_answerability_judgement_decides_whether_the_agentic_round_runs() -> None:
    judge = json.dumps({"is_sufficient": False, "missing_info": "tyres", "queries": ["tyre pressure bar"]})
    for verdicts, searched, declined in (
        ([True], False, False),  # the evidence answers: no second round
        ([False, True], True, False),  # it does not: search again, and the new evidence answers
        ([False, False], True, True),  # still not: declined
    ):
        said = iter(verdicts)

        def reply(
            messages: Sequence[Message], schema: Mapping[str, Any] | None, said: Iterator[bool] = said
        ) -> str:
            if schema is None:
                return "Change the engine oil every 10000 km."
            key = schema["required"][0]
            if key == "answer":
                return json.dumps({"answer": "every 10000 km" if next(said) else ""})
            return judge

        chat = ScriptedChatModel(reply, judges=True)
        pipe, searcher = make(
            chat, routing={"top_k": 1}, rerank={"min_score": 0.0}, retrieval={"k": 1}, grounding=BAND
        )
        events = list(pipe.ask("How often must the engine oil be changed?"))
        trace = [e for e in events if isinstance(e, TraceReady)][-1].trace
        assert (("cars", "tyre pressure bar") in searcher.searches) is searched, verdicts
        assert [s.answerable for s in trace.stages if isinstance(s, AnswerCheckStage)] == verdicts
        done = events[-1]
        assert isinstance(done, Done) and done.answered_from_sources is not declined, verdicts
        if not searched:
            assert _found(trace, AgenticStage).skipped == "the evidence answers"


def test_agentic_failure_keeps_the_first_round() -> None:
    replies = {"is_sufficient": "garbage", "answer": MODEL_FINDS_NOTHING}
    chat = ScriptedChatModel(by_schema(replies, "answer"), judges=True)
    pipe, _ = make(chat, grounding=BAND)
    events = list(pipe.ask("engine oil"))
    trace = [e for e in events if isinstance(e, TraceReady)][-1].trace
    assert "judgement failed" in _found(trace, AgenticStage).fallback
    assert trace.evidence


def test_follow_up_is_rewritten_and_history_is_analysed() -> None:
    replies = {
        "needs_history": json.dumps({"needs_history": "previous", "query": "dogs walks"}),
        "analysis": json.dumps({"analysis": "about dogs", "indices_of_related_messages": [0]}),
        "is_sufficient": json.dumps({"is_sufficient": True, "missing_info": "", "queries": []}),
        "sources": '{"sources": [1]}',
        "answer": json.dumps({"answer": "daily walks"}),
    }
    chat = ScriptedChatModel(by_schema(replies, "They need daily walks [1]."))
    pipe, _ = make(chat, context={"rewrite": "llm"})
    history = [Message("user", "Tell me about dogs"), Message("assistant", "Dogs are pets.")]
    events = list(pipe.ask("How often do they need it?", history))
    trace = [e for e in events if isinstance(e, TraceReady)][-1].trace
    assert trace.query.startswith("dogs walks")
    assert not _found(trace, RewriteStage).also_as_asked  # "they … it": no reading of its own
    assert trace.routes[0].collection == "pets"
    assert _found(trace, ContextStage).related == (0,)
    answer_prompt = next(m for m, s in chat.calls if s is None)
    # Earlier questions as a plain list: no "user:" lines a small model would continue as a transcript.
    assert "- Tell me about dogs" in answer_prompt[1].content
    assert "user:" not in answer_prompt[1].content
    assert "Dogs are pets." not in answer_prompt[1].content  # not related: left out


def test_a_wrong_guess_that_the_question_follows_up_does_not_lose_what_it_finds_alone() -> None:
    """The model takes a change of subject for a follow-up and searches the old topic's words with it; the
    question is also searched as asked, so the passage it finds alone stays in the evidence."""
    replies = {
        "needs_history": json.dumps(
            {
                "needs_history": "topic",
                "query": "Cats sleep sixteen hours a day pressure dogs daily walks park",
            }
        )
    }
    chat = ScriptedChatModel(by_schema(replies, ""))
    pipe, _ = make(chat, context={"rewrite": "llm"}, rerank={"top_n": 2})
    history = [Message("user", "Tell me about pets"), Message("assistant", "Cats sleep, dogs walk.")]
    result = pipe.retrieve("What should the tyre pressure of the car be?", history)
    assert "What should the tyre pressure of the car be?" in result.trace.agent_queries["cars"]
    assert any("2.2 bar" in h.chunk.text for h in result.hits)
    rewrite = _found(result.trace, RewriteStage)
    assert rewrite.depends == "topic" and rewrite.also_as_asked
    # A question searched as asked once is not searched twice.
    alone = pipe.retrieve("What should the tyre pressure of the car be?")
    assert not _found(alone.trace, RewriteStage).also_as_asked


REX = "Rex left home in May."  # in /k/pets.md, the file the conversation's answer came from


def rex_asked_after_an_answer(
    judged: Mapping[str, str], top_n: int, *others: tuple[str, list[str]]
) -> Callable[[tuple[str, ...]], RetrievalResult]:
    """``pets`` with pets.md holding ``REX`` and the ``others`` (file, passages); "When did Rex leave?"
    asked after an answer naming the given files, the model judging the turn as ``judged`` says."""
    chat = ScriptedChatModel(by_schema({"needs_history": json.dumps(judged)}, ""))
    pipe, searcher = make(chat, context={"rewrite": "llm"}, rerank={"top_n": top_n})
    searcher.add("pets", [REX], "/k/pets.md")
    for source, texts in others:
        searcher.add("pets", texts, source)

    def ask(sources: tuple[str, ...]) -> RetrievalResult:
        history = [
            Message("user", "Tell me about our dogs"),
            Message("assistant", "Dogs need walks.", sources),
        ]
        return pipe.retrieve("When did Rex leave?", history)

    return ask


VET = ("/k/vet.md", ["When did the vet Rex leave the clinic?", "Rex the vet did leave when it closed."])


def test_a_follow_up_is_also_searched_in_the_files_its_earlier_answers_came_from() -> None:
    """A follow-up by closeness that names something new ("When did Rex leave?" after an answer from
    pets.md): the rewrite's words find zoo.md best and the question's own words vet.md; kept to the file the
    conversation's answer came from, its search finds that file's passage about this Rex."""
    zoo = ("/k/zoo.md", ["Zoo keepers say the dogs sleep.", "The zoo dogs walk daily, zoo keepers say."])
    follow_up = rex_asked_after_an_answer(
        {"needs_history": "topic", "query": "zoo keepers dogs"}, 3, zoo, VET
    )
    kept = follow_up(("/k/pets.md",))
    assert REX in [h.chunk.text for h in kept.hits]
    assert _found(kept.trace, RewriteStage).within == ("/k/pets.md",)
    for sources in ((), ("/k/gone.md",)):  # no file named; a file the question's own search does not find
        lost = follow_up(sources)
        assert REX not in [h.chunk.text for h in lost.hits]
        assert _found(lost.trace, RewriteStage).within == ()


def test_a_question_that_stands_alone_is_also_searched_in_the_conversations_files_it_finds() -> None:
    """Self-contained by the model's judgement, searched as asked: its own search ranks vet.md first,
    and finds pets.md, the file the conversation's answer came from, lower; kept to it, it keeps its
    passage. With no file named, the evidence is the search as asked alone."""
    asked = rex_asked_after_an_answer({"needs_history": "no", "query": "When did Rex leave?"}, 2, VET)
    kept = asked(("/k/pets.md",))
    assert _found(kept.trace, RewriteStage).depends == "self-contained"
    assert REX in [h.chunk.text for h in kept.hits]
    assert _found(kept.trace, RewriteStage).within == ("/k/pets.md",)
    alone = asked(())
    assert [h.chunk.source for h in alone.hits] == ["/k/vet.md", "/k/vet.md"]


def test_the_quote_does_not_wait_for_the_context_analysis() -> None:
    """The context analysis (a model call) picks the earlier messages for the answer prompt only: the
    grounded quote is shown while it runs, and its choice still reaches the answer."""
    quote_shown = threading.Event()
    replies = by_schema(
        {
            "needs_history": json.dumps({"needs_history": "previous", "query": "dogs walks"}),
            "analysis": json.dumps({"analysis": "about dogs", "indices_of_related_messages": [0]}),
            "is_sufficient": json.dumps({"is_sufficient": True, "missing_info": "", "queries": []}),
            "sources": '{"sources": [1]}',
            "answer": json.dumps({"answer": "daily walks"}),
        },
        "They need daily walks [1].",
    )
    analysis_saw_the_quote: list[bool] = []

    def reply(messages: Sequence[Message], schema: Mapping[str, Any] | None) -> str:
        if schema is not None and schema["required"][0] == "analysis":
            analysis_saw_the_quote.append(quote_shown.wait(5))
        return str(replies(messages, schema))

    chat = ScriptedChatModel(reply)
    pipe, _ = make(chat, context={"rewrite": "llm"})
    history = [Message("user", "Tell me about dogs"), Message("assistant", "Dogs are pets.")]
    events = []
    for event in pipe.ask("How often do they need it?", history):
        if isinstance(event, QuoteReady):
            quote_shown.set()
        events.append(event)
    assert analysis_saw_the_quote == [True]
    trace = [e for e in events if isinstance(e, TraceReady)][-1].trace
    assert _found(trace, ContextStage).related == (0,)
    answer_prompt = next(m for m, s in chat.calls if s is None)
    assert "- Tell me about dogs" in answer_prompt[1].content


def test_turbo_uses_keywords_without_llm_before_the_answer() -> None:
    chat = ScriptedChatModel(by_schema({"sources": '{"sources": [1]}'}, "ok"))
    pipe, searcher = make(chat, preset="turbo")
    list(
        pipe.ask("What is the tyre pressure please?", [Message("user", "hi"), Message("assistant", "hello")])
    )
    assert next(s for _, s in chat.calls) is None  # the first LLM call is the answer itself
    assert any(q == "tyre pressure" for _, q in searcher.searches)


def test_custom_strategy_registers_by_name() -> None:
    class Shout:
        uses_llm = False

        def queries(self, query: str, ctx: StrategyContext) -> list[str]:
            return [query.upper() + " ENGINE"]

    register_strategy("shout", Shout)
    chat = ScriptedChatModel(by_schema({"sources": "{}"}, "ok"))
    pipe, searcher = make(chat, preset="turbo", collections={"cars": {"strategy": "shout"}})
    result = pipe.retrieve("oil")
    assert ("cars", "OIL ENGINE") in searcher.searches
    assert result.trace.agent_queries["cars"] == ("oil", "OIL ENGINE")


def test_llm_strategy_failure_searches_with_the_query() -> None:
    chat = ScriptedChatModel(["not json"])
    pipe, _searcher = make(
        chat, preset="turbo", collections={"pets": {"strategy": "hyde"}, "cars": {"strategy": "hyde"}}
    )
    result = pipe.retrieve("cats sleep")
    assert result.trace.agent_queries["pets"] == ("cats sleep",)
    assert result.hits[0].chunk.text.startswith("Cats sleep")


def test_nothing_relevant_means_not_found_without_the_llm() -> None:
    chat = ScriptedChatModel(["should not be called"])
    pipe, _ = make(chat, preset="turbo", rerank={"min_score": 0.5})
    events = list(pipe.ask("volcanoes on mars"))
    assert events[-1] == Done(NothingFound(NOTHING_FOUND, "nothing close"))
    assert chat.calls == []


def test_the_quote_comes_first_and_the_answer_is_checked_against_the_sources() -> None:
    chat = ScriptedChatModel(
        by_schema(
            {
                "is_sufficient": json.dumps({"is_sufficient": True, "missing_info": "", "queries": []}),
                "sources": json.dumps({"sources": [1]}),
            },
            "Change the engine oil every 10000 km [1]. Use oil from Castrol every 5000 km.",
        )
    )
    pipe, _ = make(chat, routing={"top_k": 1})
    events = list(pipe.ask("How often must the engine oil be changed?"))
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("QuoteReady") < kinds.index("AnswerDelta") < kinds.index("SupportReady")
    quote = next(e for e in events if isinstance(e, QuoteReady))
    assert quote.answerability.answerable
    assert quote.quotes[0].text == "The engine oil must be changed every 10000 km."
    support = next(e for e in events if isinstance(e, SupportReady))
    faithful, invented = support.sentences
    assert faithful.supported and not invented.supported
    assert set(invented.missing) == {"Castrol", "5000"}
    trace = [e for e in events if isinstance(e, TraceReady)][-1].trace
    assert _found(trace, SupportStage).unsupported == 1
    assert _found(trace, QuoteStage).at_ms <= trace.timings_ms["first_token"]
    cites = next(e for e in events if isinstance(e, CitationsReady))
    assert cites.citations[0].sentence == "The engine oil must be changed every 10000 km."  # the sentence
    assert [c.n for c in cites.citations] == [1]  # the invented sentence cites nothing
    # The citations come from the support check: the model's look-back step is not asked.
    assert not any(s is not None and "sources" in s["required"] for _, s in chat.calls)
    # The quote reaches the answer prompt as the key sentence, numbered like its source.
    prompt = next(m for m, s in chat.calls if s is None)[1].content
    assert "Most relevant sentences:\n[1] The engine oil must be changed every 10000 km." in prompt


def test_evidence_that_does_not_answer_is_declined_without_asking_the_model() -> None:
    chat = ScriptedChatModel(
        by_schema(
            {
                "is_sufficient": json.dumps({"is_sufficient": True, "missing_info": "", "queries": []}),
                "sources": json.dumps({"sources": [1]}),
            },
            "The dog was called Max.",
        )
    )
    pipe, _ = make(chat, routing={"top_k": 1}, rerank={"min_score": 0.0})
    events = list(pipe.ask("Which veterinarian vaccinated the dogs last winter?"))
    quote = next(e for e in events if isinstance(e, QuoteReady))
    assert not quote.answerability.answerable
    done = events[-1]
    assert isinstance(done, Done) and not done.answered_from_sources
    assert done.answer.startswith(
        "Your documents don't say “Which veterinarian vaccinated the dogs last winter”"
    )
    assert chat.calls == []  # no LLM step at all
    cites = next(e for e in events if isinstance(e, CitationsReady))
    assert cites.citations[0].chunk.chunk_id == quote.quotes[0].chunk.chunk_id
    # The user can still let the model try.
    tried = list(
        pipe.ask("Which veterinarian vaccinated the dogs last winter?", options=AskOptions(try_anyway=True))
    )
    assert tried[-1].answer == "The dog was called Max."  # type: ignore[union-attr]


DOGS = {"sources": '{"sources": [1]}', "answer": json.dumps({"answer": "daily walks"})}


def test_a_looping_answer_is_cut_and_a_transcript_never_shown() -> None:
    loop = "Dogs need daily walks. " * 30
    pipe, _ = make(ScriptedChatModel(by_schema(DOGS, loop)), agentic={"enabled": False})
    events = list(pipe.ask("How often do dogs need walks?"))
    assert events[-1].answer == "Dogs need daily walks."  # type: ignore[union-attr]
    trace = [e for e in events if isinstance(e, TraceReady)][-1].trace
    assert _found(trace, AnswerStage).stopped == "repetition"
    chat = ScriptedChatModel(by_schema(DOGS, "Daily walks.\nuser: And cats?\nassistant: Cats sleep."))
    pipe, _ = make(chat, agentic={"enabled": False})
    events = list(pipe.ask("How often do dogs need walks?"))
    shown = "".join(e.text for e in events if isinstance(e, AnswerDelta))
    assert "user:" not in shown and events[-1].answer == "Daily walks."  # type: ignore[union-attr]


def asked_schemas(chat: ScriptedChatModel) -> list[str]:
    return [schema["required"][0] for _, schema in chat.calls if schema is not None]


CAR = "How often must the engine oil be changed?"


def test_a_model_able_to_judge_declines_what_the_sources_do_not_state() -> None:
    chat = ScriptedChatModel(
        by_schema({"answer": MODEL_FINDS_NOTHING}, "Every 5000 km, they say."), judges=True
    )
    pipe, _ = make(chat, routing={"top_k": 1}, agentic={"enabled": False}, grounding=BAND)
    events = list(pipe.ask(CAR))
    answer = "".join(e.text for e in events if isinstance(e, AnswerDelta))
    # the model's answer was never asked for; the quote holds the manual's interval, so the decline
    # does not call the documents silent (issue 45)
    assert answer.startswith("The closest passage may answer this: “The engine oil must be changed")
    assert "5000" not in answer and None not in [schema for _, schema in chat.calls]
    done = next(e for e in events if isinstance(e, Done))
    assert done.answered_from_sources is False
    trace = [e for e in events if isinstance(e, TraceReady)][-1].trace
    assert "answer_check" in trace.timings_ms


def test_the_model_judging_answerable_lets_it_answer_and_a_failed_judgement_keeps_the_lexical_decision() -> (
    None
):
    for verdict in (MODEL_SAYS_ANSWERABLE["answer"], "not json at all"):
        replies = {"answer": verdict, "sources": json.dumps({"sources": [1]})}
        chat = ScriptedChatModel(by_schema(replies, "Every 10000 km [1]."), judges=True)
        pipe, _ = make(chat, routing={"top_k": 1}, agentic={"enabled": False}, grounding=BAND)
        events = list(pipe.ask(CAR))
        assert "".join(e.text for e in events if isinstance(e, AnswerDelta)).startswith("Every 10000 km")
        assert "answer" in asked_schemas(chat)


def test_the_embedded_model_is_not_asked_to_judge_unless_configured() -> None:
    emb = HashEmbedder()
    searcher = MemorySearcher(emb)
    searcher.add("cars", ["The engine oil must be changed every 10000 km."], "/k/car.pdf")
    for llm_check, asked in (("auto", False), ("off", False), ("on", True)):
        chat = ScriptedChatModel(by_schema({"sources": json.dumps({"sources": [1]})}, "Every 10000 km [1]."))
        config = parse_config({"preset": "turbo", "grounding": {"llm_check": llm_check, **BAND}})
        pipe = Pipeline(
            config=config, chat=chat, embedder=emb, reranker=WordOverlapReranker(), searcher=searcher
        )  # the fake describes itself as a model that does not judge, like the embedded one
        list(pipe.ask(CAR))
        assert ("answer" in asked_schemas(chat)) is asked, llm_check


def test_stopping_the_answer_during_the_model_judgement_stops_it_and_is_not_taken_for_a_failed_judgement() -> (
    None
):
    from kimas_desktop.errors import Cancelled

    def reply(messages: Sequence[Message], schema: Mapping[str, Any] | None) -> str:
        if schema is not None and schema["required"][0] == "answer":
            raise Cancelled("stopped")
        return "Every 10000 km [1]."

    chat = ScriptedChatModel(reply, judges=True)
    pipe, _ = make(chat, routing={"top_k": 1}, agentic={"enabled": False}, grounding=BAND)
    events = []
    try:
        for e in pipe.ask(CAR):
            events.append(e)
    except Cancelled:
        pass
    else:
        raise AssertionError("the cancel was swallowed")
    assert not any(isinstance(e, AnswerDelta) for e in events)


def test_the_key_sentences_take_the_place_of_evidence() -> None:
    def ask(budget: int) -> tuple[ScriptedChatModel, list[Any]]:
        chat = ScriptedChatModel(by_schema({}, "Change the engine oil every 10000 km."))
        pipe, searcher = make(chat, rerank={"min_score": 0.0}, summarizer={"context_tokens": budget})
        filler = "The workshop manual describes the engine, its oil filter, the gearbox and the brakes"
        searcher.add("cars", [f"{filler}, part {i}. " * 3 for i in range(6)], "/k/manual.md")
        return chat, list(pipe.ask("How often must the engine oil be changed?"))

    _, roomy = ask(4096)
    everything = [e for e in roomy if isinstance(e, TraceReady)][-1].trace
    pack_all = next(s for s in everything.stages if isinstance(s, PackStage))
    budget = pack_all.tokens + 2  # every source fits, but not with the key sentences too
    chat, events = ask(budget)
    trace = [e for e in events if isinstance(e, TraceReady)][-1].trace
    first, trimmed = [s for s in trace.stages if isinstance(s, PackStage)]
    assert first.sources == pack_all.sources and trimmed.round == 3 and trimmed.sources < first.sources
    quote = next(e for e in events if isinstance(e, QuoteReady))
    prompt_sources = "\n\n".join(format_source(i + 1, h) for i, h in enumerate(trace.evidence))
    used = chat.count_tokens(prompt_sources) + chat.count_tokens(key_sentences_block(quote.quotes))
    assert len(trace.evidence) == trimmed.sources and used <= first.tokens <= budget
    for q in quote.quotes:  # a quoted source keeps its place and its number, as the user was shown
        assert trace.evidence[q.n - 1].chunk.chunk_id == q.chunk.chunk_id
    # With room to spare the key sentences still take the place of evidence: the prompt does not grow.
    _, events = ask(4096)
    trace = [e for e in events if isinstance(e, TraceReady)][-1].trace
    first, trimmed = [s for s in trace.stages if isinstance(s, PackStage)]
    assert trimmed.round == 3 and trimmed.tokens <= first.tokens - chat.count_tokens(
        key_sentences_block(quote.quotes)
    )
    prompt = next(m for m, schema in chat.calls if schema is None)[1].content
    assert "Most relevant sentences:\n[1] The engine oil must be changed every 10000 km." in prompt


def test_retrieving_a_first_question_does_not_load_the_chat_model_to_describe_it() -> None:
    class Counting(ScriptedChatModel):
        described = 0

        def describe(self):  # type: ignore[no-untyped-def]
            Counting.described += 1
            return super().describe()

    chat = Counting(by_schema({}, "ok"))
    pipe, _ = make(chat)
    assert pipe.retrieve("How often must the engine oil be changed?").hits
    assert Counting.described == 0  # a first question needs no rewrite, so no model description
    history = [Message("user", "Tell me about cars"), Message("assistant", "They have engines.")]
    pipe.retrieve("How often is it changed?", history)
    assert Counting.described == 1  # a follow-up's rewrite asks once; the pipeline keeps the answer


def test_the_answer_prompt_keeps_the_sources_the_model_reads_before_the_first_word_is_due() -> None:
    """Latency budget (issue 28): at the model's measured prompt speed, the sources beyond what it reads
    within ``summarizer.first_token_s`` are cut, lowest ranked first; the quoted ones stay."""

    class Slow(ScriptedChatModel):
        def describe(self):  # type: ignore[no-untyped-def]
            return replace(super().describe(), prompt_tokens_per_s=self.speed)

    def ask(target: float, speed: float) -> tuple[Slow, list[Any]]:
        chat = Slow(by_schema({}, "Change the engine oil every 10000 km."))
        chat.speed = speed  # type: ignore[attr-defined]
        pipe, searcher = make(chat, rerank={"min_score": 0.0}, summarizer={"first_token_s": target})
        filler = "The workshop manual describes the engine, its oil filter, the gearbox and the brakes"
        searcher.add("cars", [f"{filler}, part {i}. " * 3 for i in range(6)], "/k/manual.md")
        return chat, list(pipe.ask("How often must the engine oil be changed?"))

    def final(events: list[Any]) -> Trace:
        return [e for e in events if isinstance(e, TraceReady)][-1].trace

    unlimited = final(ask(0.0, 100.0)[1])
    free = _found(unlimited, BudgetStage)
    assert free.allowed is None and free.cut == 0 and free.sources == len(unlimited.evidence) > 3
    chat, events = ask(3.0, 100.0)  # about 280 prompt tokens in time: the system prompt and two sources
    trace = final(events)
    budget = _found(trace, BudgetStage)
    assert budget.tokens_per_s == 100.0 and budget.speed_from == "measured at load"
    assert budget.allowed is not None and budget.allowed <= 3.0 * 100
    assert budget.cut > 0 and budget.sources == len(trace.evidence) < free.sources
    assert budget.prompt <= budget.allowed or budget.over
    prompt = next(m for m, schema in chat.calls if schema is None)
    assert chat.count_tokens(prompt[0].content) + chat.count_tokens(prompt[1].content) <= budget.prompt + 8
    quote = next(e for e in events if isinstance(e, QuoteReady))
    for q in quote.quotes:  # a quoted source keeps its place and its number, as the user was shown
        assert trace.evidence[q.n - 1].chunk.chunk_id == q.chunk.chunk_id
    # Far too slow for any source: the quoted ones stay anyway, and the trace says the budget was exceeded.
    trace = final(ask(0.5, 10.0)[1])
    tight = _found(trace, BudgetStage)
    assert tight.over and tight.sources == max(q.n for q in quote.quotes) == len(trace.evidence)
