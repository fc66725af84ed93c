"""The stream guard stops loops and transcripts that small chat models write."""

from __future__ import annotations

import re

from kimas_desktop.answer.writing.guard import StreamGuard, guard_stream


def deltas(text: str) -> list[str]:
    return re.findall(r"\S+\s*|\s+", text)


def run(text: str, size: int = 0) -> tuple[str, StreamGuard, int]:
    """``text`` streamed by words (``size`` 0) or in pieces of ``size`` characters (Chinese has no spaces)."""
    pulled = 0
    pieces = deltas(text) if not size else [text[i : i + size] for i in range(0, len(text), size)]

    def source():  # type: ignore[no-untyped-def]
        nonlocal pulled
        for d in pieces:
            pulled += 1
            yield d

    guard = StreamGuard()
    shown = "".join(guard_stream(source(), guard))
    return shown, guard, pulled


def test_a_transcript_is_cut_before_the_marker_is_ever_shown() -> None:
    text = "Nairobi is the capital.\nuser: How many people live in Kenya?\nassistant: 43\nuser: 45"
    shown, guard, pulled = run(text)
    assert "user" not in shown
    assert guard.text == "Nairobi is the capital."
    assert guard.reason == "transcript"
    assert pulled < len(deltas(text))  # stopped pulling: the model stops generating


def test_a_repeated_sentence_stops_the_answer_and_is_dropped() -> None:
    line = "The server is called hermes. "
    shown, guard, pulled = run("It backs up laptops. " + line * 12)
    assert guard.text == "It backs up laptops. The server is called hermes."
    assert shown.startswith(guard.text) and shown.count("hermes") == 1
    assert guard.reason == "repetition"
    assert pulled < 20


def test_a_normal_answer_passes_unchanged() -> None:
    text = "Answer: the office opens at 8.\nQuestions go to the desk; see [1]."
    shown, guard, _ = run(text)
    assert shown == text and guard.text == text and not guard.stopped
    short, guard, _ = run("Yes")  # a held line start is released at the end
    assert short == "Yes" and guard.text == "Yes"


def test_a_loop_that_is_no_sentence_stops_within_a_few_copies() -> None:
    """Issue 69: what the embedded model streamed for about a minute, each loop kept to its first copy."""
    for head, unit in [
        ("KAG 的数据集中，", "最大的数据集,"),
        ("数据集：", "最大的数据集"),
        ("उत्तर: ", "सबसे बड़ा डेटासेट, "),
        ("三个模块：", "KAG-Builder:[3] KAG-Solver:[1] KAG-Model:[3] "),
    ]:
        shown, guard, pulled = run(head + unit * 40, size=3)
        assert guard.reason == "repetition"
        assert guard.text == (head + unit).strip()
        assert shown.count(unit.strip()) <= 4 and pulled * 3 <= len(head + unit * 5)


def test_text_that_only_repeats_a_little_is_not_a_loop() -> None:
    for text in [
        "Yes, yes. The backups are kept for 90 days.",
        "步骤一：检索。步骤二：生成。",
        "The rows 1, 2, 3 and 4 are summed: 10.",
        "哈哈哈，这个问题很好。",
        "दिल्ली भारत की राजधानी है। दिल्ली बड़ी है।",
    ]:
        for size in (0, 1, 3):
            shown, guard, _ = run(text, size)
            assert shown == text and not guard.stopped
