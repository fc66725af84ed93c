"""bench.support_check's ``faithful`` label: a sentence that holds the gold is right only when it names
or numbers nothing that neither the question nor the gold passage's file holds."""

from __future__ import annotations

from pathlib import Path

from bench.devkit import Question
from bench.support_check import invents


def test_a_sentence_that_adds_a_name_the_gold_file_lacks_is_not_right(tmp_path: Path) -> None:
    (tmp_path / "docs" / "wiki").mkdir(parents=True)
    (tmp_path / "docs" / "wiki" / "a1.md").write_text(
        'Pazmiño and Paz y Miño both descend from the "Paz Miño" family of five centuries ago.', "utf-8"
    )
    q = Question(
        "q1", "What family do the Pazmiño and Paz y Miño descend from?", "wiki", "a1.md", ("Paz Miño",)
    )
    assert invents("The Paz miño is a branch that began on a small island in the Pacific Ocean.", q, tmp_path)
    assert invents("They descend from the Paz Miño family of 1492.", q, tmp_path)
    # Names and numbers of the question or the gold file, the first word, "I" and citations are no invention.
    assert not invents("They descend from the Paz Miño family [1].", q, tmp_path)
    assert not invents("Both Pazmiño and Paz y Miño descend from it, I think.", q, tmp_path)
