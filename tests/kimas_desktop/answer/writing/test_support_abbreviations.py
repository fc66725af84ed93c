"""A name the sources write abbreviated, as newspapers do ("Burkburnett, Tex."), is in the sources: the
answer's "Texas" is not invented (issue 45: a right sentence of the dev kit's tune split was marked)."""

from __future__ import annotations

from kimas_desktop.answer.writing.support import SupportChecker
from kimas_desktop.types import Chunk, Hit, SentenceSupport
from local_models.fake import HashEmbedder

STORM = "A second tornado struck the town of Burkburnett, Tex., about 15 miles north of Wichita Falls."


def check(answer: str, source: str = STORM) -> SentenceSupport:
    hits = [Hit(Chunk("a", "news", "/news/storm.md", source), 0.9)]
    [sentence] = (
        SupportChecker(HashEmbedder()).check(answer, hits, "Where was a second tornado seen?").sentences
    )
    return sentence


def test_a_name_the_source_abbreviates_is_held_and_another_name_is_not() -> None:
    written_out = check("A second tornado struck Burkburnett, Texas.")
    assert written_out.supported and written_out.missing == ()
    other = check("A second tornado struck Burkburnett, Oklahoma.")
    assert not other.supported and other.missing == ("Oklahoma",)
    # A word that ends a sentence is no abbreviation of a longer name unless it is capitalized and begins it.
    assert check(
        "A second tornado struck Burkburnett, Texas.", STORM.replace("Tex.", "near the border.")
    ).missing == ("Texas",)


def test_scripts_without_capitals_have_no_abbreviations_and_keep_their_facts() -> None:
    zh = check("第二场龙卷风袭击了伯克伯内特，距离25英里。", "第二场龙卷风袭击了伯克伯内特，距离15英里。")
    assert not zh.supported and zh.missing == ("25",)
    hi = check("दूसरा तूफ़ान बर्कबर्नेट से 25 मील दूर आया।", "दूसरा तूफ़ान बर्कबर्नेट से 15 मील दूर आया।")
    assert not hi.supported and hi.missing == ("25",)


def test_a_name_ending_a_source_sentence_is_no_abbreviation_of_a_longer_name() -> None:
    # "Kent." ends a sentence: it is the county, not "Kentucky" abbreviated; the longer name is invented.
    source = "A second tornado struck the village of Ash in Kent. It was seen about noon."
    assert check("A second tornado struck Ash in Kentucky.", source).missing == ("Kentucky",)
    assert check("A second tornado struck Ash, Kent.", source).missing == ()
