"""Issue 45, declines near the threshold: a routed search that looked in one collection does not decline
before the collections routing left out were searched too (``answer/widening.py``, the policy's rule
``widened``). Real LanceDB and the real indexer over two collections; HashEmbedder, the word-overlap
reranker and a scripted chat model that does not judge (as the embedded one)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.paths import Paths
from app.runtime import Builders, Runtime
from indexer import Indexer, LanceStore
from kimas_desktop.answer.outcome import Answered, Declined
from kimas_desktop.answer.policy import AnswerPolicy, Decision
from kimas_desktop.config import GroundingConfig, parse_config
from kimas_desktop.events import Done, Event, QuoteReady, TraceReady
from kimas_desktop.trace import DecisionStage, Trace, WidenStage
from kimas_desktop.types import Answerability
from local_models.fake import HashEmbedder, ScriptedChatModel, WordOverlapReranker
from tests.indexer.files import small_config
from tests.rigs import FakeFeed

# The town's files name the lighthouse and its mural again and again, so routing sends a question about
# them there; only the archive says who painted the mural.
TOWN = [
    "Marlow harbour lighthouse stands on the north pier. The Marlow lighthouse keeper lights the lamp at dusk.",
    "The Marlow lighthouse was restored in 1990. Tours of the Marlow lighthouse start at the harbour gate.",
    "The Marlow ferry leaves the harbour at noon. The ferry passes the lighthouse and the pier.",
    "Visitors to the Marlow lighthouse admire the mural. The mural in the Marlow lighthouse is lit at night.",
]
ARCHIVE = [
    "The mural inside the lighthouse was painted by Edith Crane in 1931.",
    "The parish records list every baptism since 1702, kept in the vestry.",
    "The tithe map of 1841 shows the fields and their owners.",
]
PAINTED = "Who painted the mural in the Marlow lighthouse?"
ANSWER = "Edith Crane painted it. [1]"


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Two collections indexed once into real LanceDB (``root / "data"``)."""
    root = tmp_path_factory.mktemp("widening")
    for name, texts in (("town", TOWN), ("archive", ARCHIVE)):
        folder = root / "docs" / name
        folder.mkdir(parents=True)
        for i, text in enumerate(texts):
            (folder / f"{name}{i}.md").write_text(text + "\n", "utf-8")
    rt = _runtime(root, "routed")
    for name in ("town", "archive"):
        assert rt.indexer().index(name, [root / "docs" / name]).indexed
    rt.close()
    yield root


def _runtime(root: Path, preset: str, **grounding: Any) -> Runtime:
    chat = ScriptedChatModel(lambda messages, schema: ANSWER if schema is None else '{"sources": [1]}')
    builders = Builders(
        chat=lambda c: chat,
        embedder=lambda c, cache: HashEmbedder(dim=64),
        reranker=lambda c, e, cache: WordOverlapReranker(),
        store=lambda c, d: LanceStore(str(d / "lancedb")),
        indexer=lambda st, e, c: Indexer(st, e, small_config()),
        watcher=FakeFeed,
    )
    data = root / "data"
    data.mkdir(exist_ok=True)
    # The lexical threshold at 0.5: the town's closest sentence (0.43 with these fakes) is declined.
    config = parse_config({"preset": preset, "grounding": {"threshold": 0.5, **grounding}})
    return Runtime(Paths(data, data / "config.toml"), config, builders)


def _ask(root: Path, question: str, preset: str = "routed", **grounding: Any) -> tuple[list[Event], Trace]:
    rt = _runtime(root, preset, **grounding)
    try:
        events = list(rt.pipeline().ask(question))
    finally:
        rt.close()
    return events, [e.trace for e in events if isinstance(e, TraceReady)][-1]


def _outcome(events: list[Event]) -> Answered | Declined:
    (done,) = [e for e in events if isinstance(e, Done)]
    assert isinstance(done.outcome, Answered | Declined), done.outcome
    return done.outcome


def test_a_question_routed_to_the_wrong_collection_is_answered_from_the_one_left_out(folders: Path) -> None:
    before, trace = _ask(folders, PAINTED, widen=False)  # as the routed preset declined it before
    assert trace.routes[0].collection == "town"  # routing chose the town: one collection searched
    assert isinstance(_outcome(before), Declined)

    events, trace = _ask(folders, PAINTED, widen_from=0.6)
    outcome = _outcome(events)
    assert isinstance(outcome, Answered) and outcome.text.startswith("Edith Crane")
    quote = [e for e in events if isinstance(e, QuoteReady)][-1].quotes[0]
    assert "Edith Crane" in quote.text and Path(quote.chunk.source).name == "archive0.md"
    (widen,) = [s for s in trace.stages if isinstance(s, WidenStage)]
    assert widen.collections == ("archive",) and widen.found
    decisions = [(s.answer, s.rule) for s in trace.stages if isinstance(s, DecisionStage)]
    assert decisions == [(False, "lexical"), (True, "widened")]


def test_a_wider_search_below_its_bar_keeps_the_first_decline_and_its_quote(folders: Path) -> None:
    # The archive says nothing of the lamp's designer: the decline stands, over the town's passage.
    events, trace = _ask(folders, "Who designed the lamp of the Marlow lighthouse?", widen_from=0.6)
    outcome = _outcome(events)
    assert isinstance(outcome, Declined) and "town" in outcome.text
    assert len([e for e in events if isinstance(e, QuoteReady)]) == 1  # the wider quote never shows
    assert [s.rule for s in trace.stages if isinstance(s, DecisionStage)] == ["lexical", "widened"]
    assert {Path(h.chunk.source).parent.name for h in trace.evidence} == {"town"}


def test_a_search_that_looked_everywhere_declines_without_a_second_search(folders: Path) -> None:
    # The full preset routes to two collections: both were searched, none was left out.
    events, trace = _ask(folders, "Who designed the lamp of the Marlow lighthouse?", preset="full")
    assert isinstance(_outcome(events), Declined)
    assert not [s for s in trace.stages if isinstance(s, WidenStage)]


def test_only_a_lexical_decline_widens_and_the_bar_is_the_wider_evidences() -> None:
    policy = AnswerPolicy(GroundingConfig(widen_from=0.6), judges=False)
    low = Answerability(False, 0.3, 0.4, None)
    declined = policy.decide(low)
    assert policy.widens(declined)
    assert not policy.widens(policy.decide(Answerability(True, 0.7, 0.4, None)))
    assert not policy.widens(policy.decide(low, table=False))  # a table without the row
    assert not policy.widens(Decision(False, "doubted", low))  # the model's check found nothing
    assert policy.widened(declined, Answerability(True, 0.55, 0.4, None)) == declined
    wider = Answerability(True, 0.65, 0.4, None)
    assert policy.widened(declined, wider) == Decision(True, "widened", wider)
    off = AnswerPolicy(GroundingConfig(widen=False), judges=False)
    assert not off.widens(declined)
