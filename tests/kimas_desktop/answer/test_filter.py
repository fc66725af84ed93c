"""The evidence filter (KIMAs' rerank-and-filter step): one reranker over all candidates, a score floor,
and packing the sources into the model's token budget."""

from kimas_desktop.answer.filter import EvidenceFilter, format_source, pack
from kimas_desktop.types import Chunk, Hit
from local_models.fake import WordOverlapReranker


def hit(cid: str, text: str = "t", score: float = 0.0, source: str = "/a.md", lines=(1, 5)) -> Hit:
    return Hit(Chunk(cid, "c", source, text, line_start=lines[0], line_end=lines[1]), score)


def test_one_scorer_reranks_all_candidates_against_one_query() -> None:
    f = EvidenceFilter(WordOverlapReranker(), top_n=2)
    out = f.rerank(
        "install the printer driver",
        [
            hit("x", "bake bread", 9.0, "/1"),
            hit("y", "printer driver install", 0.1, "/2"),
            hit("z", "the printer", 5.0, "/3"),
        ],
    )
    assert [h.chunk.chunk_id for h in out] == ["y", "z"]


def test_pack_respects_the_token_budget_and_skips_what_does_not_fit() -> None:
    def count(text: str) -> int:
        return len(text.split())

    hits = [
        hit("a", "w " * 10, source="/1"),
        hit("b", "w " * 100, source="/2"),
        hit("c", "w " * 10, source="/3"),
    ]
    packed, used = pack(hits, 40, count)
    assert [h.chunk.chunk_id for h in packed] == ["a", "c"]
    assert used <= 40
    assert used == sum(count(format_source(i + 1, h)) + 2 for i, h in enumerate(packed))
    assert pack(hits, 5, count) == ([], 0)
    # The first ``keep`` stay whatever they cost; the rest fit in what is left.
    kept, used = pack(hits, 40, count, keep=2)
    assert [h.chunk.chunk_id for h in kept] == ["a", "b"] and used > 40


def test_source_format_names_file_and_place() -> None:
    text = format_source(3, Hit(Chunk("p", "c", "/docs/guide.pdf", "Body", page=7, heading="Intro"), 0))
    assert text.startswith("[3] (guide.pdf, p. 7, Intro)")


def test_weak_evidence_is_dropped_below_the_floor() -> None:
    f = EvidenceFilter(WordOverlapReranker(), top_n=5, min_score=0.5)
    out = f.rerank(
        "printer driver",
        [
            hit("a", "printer driver", source="/1"),
            hit("b", "printer only", source="/2"),
            hit("c", "bread", source="/3"),
        ],
    )
    assert [(h.chunk.chunk_id, h.score) for h in out] == [("a", 1.0), ("b", 0.5)]


def test_two_readings_are_ranked_each_against_itself_and_fused() -> None:
    """A follow-up's rewrite carries the old topic's words; the question as asked finds its own passage.
    Scored against the rewrite alone, the old topic's passages push it out; ranked by its own reading and
    fused by rank, it stays, with the score its reading gave it."""
    f = EvidenceFilter(WordOverlapReranker(), top_n=2)
    rewrite = "tyre pressure Kenya Nairobi capital population"
    old_topic = [
        hit("k1", "Kenya Nairobi capital", source="/k1"),
        hit("k2", "Nairobi capital population", source="/k2"),
    ]
    own = [
        hit("t", "tyre pressure is 2.2 bar", source="/car"),
        hit("k1", "Kenya Nairobi capital", source="/k1"),
    ]
    assert "t" not in [h.chunk.chunk_id for h in f.rerank(rewrite, old_topic + own)]
    fused = f.rerank_readings([(rewrite, old_topic), ("What is the tyre pressure?", own)])
    assert [h.chunk.chunk_id for h in fused] == ["k1", "t"]  # k1: found by both readings
    assert (fused[0].score, fused[1].score) == (0.5, 0.6)  # each reading's own score (k1: the first's)
    assert f.rerank_readings([(rewrite, old_topic)]) == f.rerank(rewrite, old_topic)
