"""Reciprocal rank fusion and the removal of repeated or overlapping chunks."""

from kimas_desktop.retrieval.fusion import deduplicate, reciprocal_rank_fusion
from kimas_desktop.types import Chunk, Hit


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
