"""Sources that state the asked value differently (issue 70): which sentence is a rival of the best one."""

from __future__ import annotations

from kimas_desktop.answer.signals.disagree import rival, values
from kimas_desktop.answer.signals.quote import ScoredSentence
from kimas_desktop.text.sentences import chunk_sentences
from kimas_desktop.types import Chunk


def scored(text: str, source: str, score: float, overlap: float = 0.5, cosine: float = 0.8) -> ScoredSentence:
    chunk = Chunk(source, "ops", source, text)
    return ScoredSentence(1, chunk, chunk_sentences(chunk)[0], score, overlap, cosine, 1.0, True)


NOTE = "The backups are kept for 7 days only [9]."
AUDIT = "Backups are retained for 90 days on the offsite storage."
ASKED = "How long are backups kept?"


def test_a_value_is_a_number_with_the_word_after_it_and_a_year_is_a_year() -> None:
    assert values(NOTE) == {("7", "day")}  # the [9] marker states nothing
    assert values("备份保留90天。") == {("90", "天")}
    assert values("a 7-day window") == {("7", "day")}
    assert values("founded in 1998 by two brothers") == {("1998", "year")}
    assert values("2000 employees") == {("2000", "employ"), ("2000", "year")}


def test_another_file_stating_the_value_otherwise_is_a_rival() -> None:
    best, other = scored(NOTE, "/d/note.md", 1.76, 0.45, 0.80), scored(AUDIT, "/d/audit.md", 1.52, 0.17, 0.81)
    assert rival(ASKED, [best, other]) is other
    zh_best, zh_other = (
        scored("备份只保留7天[9]。", "/d/笔记.md", 1.8),
        scored("备份在异地存储中保留90天。", "/d/审计.md", 1.5),
    )
    assert rival("备份保留多少天？", [zh_best, zh_other]) is zh_other


def test_no_rival_when_the_files_agree_the_units_differ_or_the_file_is_the_same() -> None:
    best = scored(NOTE, "/d/note.md", 1.8)
    assert rival(ASKED, [best, scored("Backups are kept for 7 days.", "/d/b.md", 1.7)]) is None
    assert rival(ASKED, [best, scored("Mail is kept for 7 weeks.", "/d/b.md", 1.7)]) is None
    assert rival(ASKED, [best, scored(AUDIT, "/d/note.md", 1.7)]) is None  # one file: its own two values
    both = scored("In 2021 the backups were kept for 7 days.", "/d/b.md", 1.7)
    assert rival(ASKED, [scored("In 2019 backups were kept for 7 days.", "/d/a.md", 1.8), both]) is None


def test_no_rival_that_answers_much_less_well_or_only_shares_the_unit_or_for_a_name() -> None:
    best = scored(NOTE, "/d/note.md", 1.8)
    assert rival(ASKED, [best, scored(AUDIT, "/d/audit.md", 0.9)]) is None  # under 0.55 of the best
    assert rival(ASKED, [best, scored(AUDIT, "/d/audit.md", 1.1)]) is not None
    refund = scored("Customers may ask for a refund within 14 days.", "/d/terms.md", 2.4)
    shipping = scored("Orders are delivered within 3 days.", "/d/shipping.md", 2.0)  # "days" alone
    assert rival("How many days do customers have to ask for a refund?", [refund, shipping]) is None
    assert rival("Who keeps the backups?", [best, scored(AUDIT, "/d/audit.md", 1.7)]) is None
