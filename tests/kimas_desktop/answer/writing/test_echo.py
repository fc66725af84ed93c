"""What a model copies from its prompt (``answer/writing/echo.py``): source labels (issue 72) and markers
that point to no source (issue 70), dropped from the answer however the stream splits them, and nothing
else of the answer with them."""

from kimas_desktop.answer.writing.echo import EchoFilter, is_label

ECHO = "检索增强生成是一种方法[1] (agentic-rag-pattern.zh.txt, lines 1-2)。它先检索再生成。"
CLEAN = "检索增强生成是一种方法[1]。它先检索再生成。"


def _streamed(
    text: str, size: int, names: set[str] | frozenset[str] = frozenset(), sources: int | None = None
) -> str:
    return "".join(_filtered(text, size, names, sources)[0])


def _filtered(
    text: str, size: int, names: set[str] | frozenset[str] = frozenset(), sources: int | None = None
) -> tuple[str, list[int]]:
    echo = EchoFilter(names, sources)
    shown = "".join(echo.stream(iter([text[i : i + size] for i in range(0, len(text), size)])))
    return shown, echo.dropped


def test_a_copied_label_is_dropped_however_the_stream_splits_it() -> None:
    for size in (1, 2, 3, 7, 1000):
        assert _streamed(ECHO, size) == CLEAN
        assert _streamed(ECHO, size, {"agentic-rag-pattern.zh.txt"}) == CLEAN
    new_form = "RAG 先检索 [2] (kag.txt:23-31)，再生成。"
    assert _streamed(new_form, 4) == "RAG 先检索 [2]，再生成。"


def test_what_the_answer_says_in_parentheses_stays() -> None:
    kept = [
        "The limit is 50 MB (as the manual says).",
        "检索增强生成（RAG）是一种方法。",
        "It uses two stages (retrieval, then generation) and an open ( bracket",
        "Version 3.5 (e.g. 3.5.1) works.",
    ]
    for text in kept:
        for size in (1, 5, 1000):
            assert _streamed(text, size) == text


def test_what_reads_as_a_label() -> None:
    assert is_label("kag.txt, lines 23-31")
    assert is_label("lines 4-9") and is_label("p. 3") and is_label("第 2-8 行")
    assert is_label("report, final version", {"report"})  # a file of the prompt, by its name
    assert not is_label("RAG") and not is_label("see lines 4-9 of the manual for the steps")


def test_a_marker_that_points_to_no_source_is_dropped_and_its_place_kept() -> None:
    """Issue 70: a planted note's own "[9]" came back as the answer's citation of a source not listed."""
    text = "The backups are kept for 7 days only [9]. The audit says 90 days [2]."
    for size in (1, 4, 1000):
        shown, dropped = _filtered(text, size, sources=2)
        assert shown == "The backups are kept for 7 days only. The audit says 90 days [2]."
        assert dropped == [len("The backups are kept for 7 days only")]
    assert _filtered("见【3】和[^7]。", 2, sources=2)[0] == "见和。"
    kept = "Steps [1, 2] and a list [a] and [sic] and [2]"
    assert _filtered(kept, 3, sources=2) == (kept, [])
    assert _filtered(text, 5)[0] == text  # no count given: markers are not checked
