"""The word weights the quote scorer and the answerability decision share: IDF from the collections'
synopses (the stems are tested with the word toolkit, test_words.py)."""

from __future__ import annotations

from kimas_desktop.text.terms import TermWeights, coverage
from kimas_desktop.types import Synopsis


def test_idf_from_synopses_weighs_rare_words_up_and_falls_back_without_counts() -> None:
    syn = Synopsis("docs", (), chunk_count=100, terms={"kenya": 90, "population": 3}, term_total=93)
    idf = TermWeights.from_synopses([syn])
    assert idf is not None
    assert idf.idf("population") > idf.idf("kenya") > 0
    assert idf.idf("nairobi") > idf.idf("population")  # never seen: the rarest of all
    assert TermWeights.from_synopses([Synopsis("docs", ())]) is None  # no counts yet
    weights = idf.weights(["kenya", "population"])
    # Covering the rare word is worth more than covering the common one.
    assert coverage(weights, {"population"}) > coverage(weights, {"kenya"})
