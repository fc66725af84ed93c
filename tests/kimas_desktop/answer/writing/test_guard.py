"""The stream guard stops loops and transcripts that small chat models write."""

from __future__ import annotations

import re

from kimas_desktop.answer.writing.guard import StreamGuard, guard_stream


def deltas(text: str) -> list[str]:
    return re.findall(r"\S+\s*|\s+", text)


def run(text: str) -> tuple[str, StreamGuard, int]:
    pulled = 0

    def source():  # type: ignore[no-untyped-def]
        nonlocal pulled
        for d in deltas(text):
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
