"""Multi-hop retrieval without an LLM (``retrieval/hops.py``): the reflect check, the bridge queries and
how hops join the first round; and through ``Pipeline.retrieve`` on the in-memory searcher."""

from kimas_desktop.config import parse_config
from kimas_desktop.pipeline import Pipeline
from kimas_desktop.retrieval.hops import bridge_queries, covered, merge_hops
from kimas_desktop.text.terms import TermWeights
from kimas_desktop.trace import HopStage
from kimas_desktop.types import Chunk, Hit
from local_models.fake import HashEmbedder, MemorySearcher, ScriptedChatModel, WordOverlapReranker

FACTS = [
    "College commencement ceremonies often happen during the months of December, May, and June.",
    "Frost is common in December, as it is the winter in the northern hemisphere.",
    "The density of a raw pear is about 0.59 grams per cubic centimetre.",
    "Hydrogen is the first element and has an atomic number of one.",
    "The Spice Girls were a band of five singers formed in London.",
]


def hit(text: str, i: int = 0) -> Hit:
    return Hit(Chunk(f"c{i}", "facts", f"/k/f{i}.md", text), 1.0 - i / 10)


WEIGHTS = TermWeights.from_texts(FACTS)


def test_the_reflect_check_hops_only_when_the_best_passage_leaves_words_uncovered() -> None:
    q = "Is it common to see frost during some college commencements?"
    plan = covered(q, [hit(FACTS[0])], WEIGHTS, 0.9)
    assert plan.hop and plan.coverage < 0.9
    single = "When do college commencement ceremonies happen?"
    assert not covered(single, [hit(FACTS[0])], WEIGHTS, 0.9).hop
    assert not covered(q, [], WEIGHTS, 0.9).hop


def test_a_bridge_query_is_the_uncovered_words_and_the_passages_telling_words() -> None:
    q = "Is it common to see frost during some college commencements?"
    (query,) = bridge_queries(q, [hit(FACTS[0])], WEIGHTS, passages=1, terms=3)
    words = query.split()
    assert "frost" in words and "college" not in words  # what the passage left out, not what it said
    assert {"December", "May", "June"} & set(words)  # the bridge to the next fact


def test_hops_fill_the_places_after_the_first_rounds_best() -> None:
    first = [hit(f"first {i}", i) for i in range(6)]
    hop_a = [hit("first 0", 0), hit("new a", 10), hit("new b", 11), hit("new c", 12)]
    hop_b = [hit("new d", 13)]
    merged = merge_hops(first, [hop_a, hop_b], keep=2, per_hop=2, limit=6)
    assert [h.chunk.text for h in merged] == ["first 0", "first 1", "new a", "new d", "new b", "first 2"]


BRIDGE = [
    "Ada Quill was born in Brindleford in 1901 and wrote three novels.",
    "Brindleford is a fishing town on the northern coast of Cornwall.",
    "The sea near Oslo is cold in every month of the year.",
    "The birthplace museum of the painter opened near the old mill in 1990.",
    "Quill pens were cut from goose feathers.",
]


def pipeline(**cfg: object) -> Pipeline:
    emb = HashEmbedder()
    searcher = MemorySearcher(emb)
    for i, fact in enumerate(BRIDGE):
        searcher.add("facts", [fact], f"/k/fact{i}.md")
    config = parse_config({"preset": "turbo", "rerank": {"min_score": 0.1, "top_n": 3}, **cfg})
    chat = ScriptedChatModel(lambda messages, schema: "")
    return Pipeline(config=config, chat=chat, embedder=emb, reranker=WordOverlapReranker(), searcher=searcher)


def test_retrieve_hops_to_a_fact_the_first_round_missed_and_traces_each_hop() -> None:
    q = "Is the birthplace of Ada Quill near the sea?"
    off = pipeline(hops={"enabled": False}).retrieve(q)
    first = [h.chunk.source for h in off.hits]
    assert "/k/fact0.md" not in first  # (the fake reranker's ranking) the Ada Quill fact is missed
    assert not [s for s in off.trace.stages if isinstance(s, HopStage)]
    result = pipeline(hops={"keep": 1}).retrieve(q)
    sources = [h.chunk.source for h in result.hits]
    assert sources[0] == first[0] and "/k/fact0.md" in sources and len(sources) == 3, sources
    hops = [s for s in result.trace.stages if isinstance(s, HopStage)]
    bridges = [h for h in hops if h.round == 1]
    assert len(bridges) == 3  # one bridge query from each of the three best passages
    assert "Oslo" in bridges[0].query and "Cornwall" in bridges[2].query  # each from its own passage
    assert any("facts-0" in h.added for h in bridges)
    assert hops[-1].round == 0 and "stopped" in hops[-1].why
