"""How a run is sized and timed (issue 46): the questions answered by the model are a sample that keeps
the figures meaningful (a third of them controls, every collection, the set's first question first),
and the time left comes from the seconds the questions took, answered ones and retrieval-only ones
apart, the latest weighing most."""

from __future__ import annotations

from app.evaluation.questions import EvalQuestion
from app.evaluation.run import TimeLeft, _sample, time_left_text


def test_the_answered_sample_has_controls_every_collection_and_starts_the_run() -> None:
    known = [EvalQuestion(f"k{i}", "?", True, "big" if i < 60 else "small") for i in range(1, 81)]
    controls = [EvalQuestion(f"u{i}", "?", False) for i in range(1, 21)]
    asked = _sample([*known, *controls], 8)
    assert len(asked) == 8 and "k1" in asked  # the first question is answered: the speed is known at once
    assert sum(q.startswith("u") for q in asked) == 2  # at least a third of 8 (their share would be 1.6)
    by = {c: sum(q.qid in asked for q in known if q.collection == c) for c in ("big", "small")}
    assert by == {"big": 4, "small": 2}  # in proportion, the small collection too
    assert _sample([*known, *controls], 0) == set()
    assert len(_sample(known[:3], 8)) == 3  # no more than there are


def test_the_time_left_follows_the_measured_speed() -> None:
    clock = TimeLeft(total=10, asked=2)
    assert clock.seconds() is None  # nothing measured yet
    clock.measured(True, 20.0)
    assert clock.seconds() is None  # retrieval-only speed not known yet
    clock.measured(False, 0.5)
    assert clock.seconds() == 1 * 20.0 + 7 * 0.5
    for _ in range(TimeLeft.RECENT):
        clock.measured(False, 1.5)  # the machine got busier: the recent speed counts
    assert clock.seconds() == 20.0  # one answered question left; no plain ones
    assert time_left_text(None) == "measuring the speed…"
    assert (time_left_text(3), time_left_text(42), time_left_text(61), time_left_text(128)) == (
        "about 5 s left",
        "about 40 s left",
        "about 1 min left",
        "about 2 min 10 s left",
    )
