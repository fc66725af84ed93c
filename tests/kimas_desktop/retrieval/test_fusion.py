from kimas_desktop.answer.filter import EvidenceFilter, format_source, pack
from kimas_desktop.retrieval.fusion import deduplicate, reciprocal_rank_fusion
from kimas_desktop.types import Chunk, Hit
from local_models.fake import WordOverlapReranker


def hit(cid: str, text: str = "t", score: float = 0.0, source: str = "/a.md", lines=(1, 5)) -> Hit:
    return Hit(Chunk(cid, "c", source, text, line_start=lines[0], line_end=lines[1]), score)


def test_rrf_rewards_agreement() -> None:
    fused = reciprocal_rank_fusion([[hit("a"), hit("b")], [hit("b"), hit("c")]])
    assert [h.chunk.chunk_id for h in fused] == ["b", "a", "c"]
    assert fused[0].score == 1 / 62 + 1 / 61


WORDS = [f"w{i}" for i in range(40)]


def span(lo: int, hi: int) -> str:
    return " ".join(WORDS[lo:hi])


def test_dedup_drops_repeats_and_overlapping_chunks() -> None:
    hits = [
        hit("a", span(0, 20), lines=(1, 20)),
        hit("a", span(0, 20), lines=(1, 20)),
        hit("b", span(4, 18), lines=(5, 18)),  # mostly inside a
        hit("c", span(17, 40), lines=(18, 40)),  # overlaps a little: kept
        hit("d", "same words here", source="/b.pdf", lines=(0, 0)),
    ]
    pdf = [
        Hit(Chunk("e", "c", "/b.pdf", "words", page=2), 0),
        Hit(Chunk("f", "c", "/b.pdf", "other words here too", page=2), 0),
    ]
    kept = deduplicate([*hits, *pdf])
    # e's text is contained in d's (same file): dropped; f is new text: kept.
    assert [h.chunk.chunk_id for h in kept] == ["a", "c", "d", "f"]


def test_dedup_keeps_distinct_chunks_of_one_long_line() -> None:
    """A paragraph without line breaks is one line holding several chunks (with a small overlap)."""
    parts = [hit("p1", span(0, 22), lines=(3, 3)), hit("p2", span(18, 40), lines=(3, 3))]
    assert [h.chunk.chunk_id for h in deduplicate(parts)] == ["p1", "p2"]


def test_dedup_ignores_the_same_text_in_disjoint_lines_of_a_file() -> None:
    """Line ranges that do not meet rule a pair out, whatever the text (a repeated boilerplate block)."""
    parts = [hit("x", span(0, 10), lines=(1, 4)), hit("y", span(0, 10), lines=(30, 33))]
    assert [h.chunk.chunk_id for h in deduplicate(parts)] == ["x", "y"]


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
