"""The support check: each answer sentence against the sources."""

from __future__ import annotations

from kimas_desktop.answer.writing.support import SupportChecker, facts
from kimas_desktop.types import Chunk, Hit
from local_models.fake import HashEmbedder

IT = "Backups run every night at 02:00. The backup server is called hermes. Copies are kept for 30 days."
PARK = "Staff park on level 2. Visitors park on level 3."


def hits() -> list[Hit]:
    return [
        Hit(Chunk("a", "docs", "/docs/it.pdf", IT, page=4), 0.9),
        Hit(Chunk("b", "docs", "/docs/parking.md", PARK, line_start=1, line_end=2), 0.5),
    ]


def test_facts_are_numbers_and_names_not_citation_markers() -> None:
    assert facts("The server BackupPC keeps 45 days of copies [1].") == ["45", "BackupPC"]
    assert facts("Copies are kept for 30 days [1, 2].") == ["30"]


def test_a_name_in_the_possessive_is_the_name_a_source_holds() -> None:
    """ "Mr. Canby's Sunday column" from a source naming Mr. Canby (a SQuAD-Shifts NYT answer the check
    marked "not in the sources" for "Canby's"); an apostrophe written straight or curly alike."""
    assert facts("It ran in Mr. Canby's Sunday column.") == facts("It ran in Mr. Canby’s Sunday column.")
    assert "Canby" in facts("It ran in Mr. Canby's Sunday column.")
    text = "Vincent Canby wrote a second article defending the film. Mr. Canby wrote it for the Sunday paper."
    source = [Hit(Chunk("n", "news", "/news/film.txt", text), 0.9)]
    said = SupportChecker(HashEmbedder()).check("Mr. Canby's Sunday article defended the film.", source)
    assert said.sentences[0].supported and said.sentences[0].missing == ()


def test_a_fabricated_name_or_number_is_unsupported_and_a_faithful_sentence_is_supported() -> None:
    checker = SupportChecker(HashEmbedder())
    answer = (
        "The backup server is called hermes [1]. The server is called BackupPC. Copies are kept for 45 days."
    )
    report = checker.check(answer, hits())
    first, name, number = report.sentences
    assert first.supported and first.source == 1
    assert IT[first.evidence_start : first.evidence_end] == "The backup server is called hermes."
    assert not name.supported and name.missing == ("BackupPC",)
    assert not number.supported and number.missing == ("45",)
    assert report.unsupported == 2
    assert answer[name.start : name.end] == name.text


def test_a_sentence_is_backed_by_whichever_source_holds_it() -> None:
    checker = SupportChecker(HashEmbedder())
    parked = checker.check("Visitors park on level 3.", hits()).sentences[0]
    assert parked.supported and parked.source == 2
    wrong = checker.check("Visitors park on level 4.", hits()).sentences[0]
    assert not wrong.supported and wrong.missing == ("4",)


def test_an_answer_that_ignores_or_contradicts_the_quote_is_told_apart() -> None:
    from kimas_desktop.answer.writing.support import uses_quote

    quote = "The backup server is called hermes."
    question = "What is the backup server called?"
    assert uses_quote("It is called hermes [1].", quote, question) is True
    assert uses_quote("The server is called BackupPC.", quote, question) is False
    assert uses_quote("", quote, question) is None


def test_an_answer_that_takes_the_questions_premise_for_a_fact_is_unsupported() -> None:
    # Asked about the alpha module, the sources only name the beta one: the model's near-copy of the
    # beta sentence with "alpha" put in must not pass as backed by the source.
    source = [Hit(Chunk("c", "docs", "/docs/beta/README.md", "The beta module is named TANGERINE."), 0.9)]
    checker = SupportChecker(HashEmbedder())
    question = "What is the alpha module named?"
    premise = checker.check("The alpha module is named TANGERINE [1].", source, question).sentences[0]
    assert not premise.supported and premise.missing == ("alpha",)
    honest = checker.check("The beta module is named TANGERINE [1].", source, question).sentences[0]
    assert honest.supported
    # A question word the sources do have is no premise: "named" and "module" are in the source.
    assert checker.check("It is named TANGERINE.", source, question).sentences[0].supported


def test_the_word_that_names_what_is_asked_for_is_no_premise() -> None:
    """ "What month …?" answered "… in the month of June": the sources say "June", never "month"; the word
    the question asks by is the slot's name, not a claim (a SQuAD-Shifts NYT question, issue 45)."""
    text = "The prison break occurred in June. For days after it, officers searched the honor block."
    source = [Hit(Chunk("p", "news", "/news/prison.txt", text), 0.9)]
    checker = SupportChecker(HashEmbedder())
    month = "What month did the prison break occur?"
    said = checker.check("The prison break occurred in the month of June.", source, month).sentences[0]
    assert said.supported and said.missing == (), said
    # A word of the question the sources lack is still a premise when it is not the slot's name.
    week = "What month did the prison break occur in the first week?"
    taken = checker.check("The prison break occurred in the first week of June.", source, week).sentences[0]
    assert not taken.supported and taken.missing == ("first", "week")


def test_the_questions_name_for_a_first_person_source_is_no_premise() -> None:
    """ "What coupon does the writer have?" of a post saying "I have …": "the writer" is who says "I", not a
    word the model took from the question (a SQuAD-Shifts Reddit question, issue 45)."""
    checker = SupportChecker(HashEmbedder())
    question = "What coupon does the writer currently have to use for the next hour?"
    post = [
        Hit(Chunk("r", "posts", "/posts/m3.txt", "I currently have a 20% off coupon for the next hour."), 0.9)
    ]
    said = checker.check("The writer currently has a 20% off coupon for the next hour.", post, question)
    assert said.sentences[0].supported and said.sentences[0].missing == (), said
    # A source about someone else does not speak as "the writer": the word is still a premise there.
    text = "Shoppers currently have a 20% off coupon for the next hour."
    news = [Hit(Chunk("n", "news", "/news/sale.txt", text), 0.9)]
    taken = checker.check("The writer currently has a 20% off coupon for the next hour.", news, question)
    assert not taken.sentences[0].supported and taken.sentences[0].missing == ("writer",)


def test_a_sources_heading_and_file_name_are_what_the_model_read() -> None:
    """The model reads each source labelled by its file name and heading ("[1] (a136.md, Amazon Reviews
    1585)"): a sentence that names them invents nothing (0.5B model, SQuAD-Shifts, issue 45)."""
    text = "For me, easiyo is especially good in winter, when I don't have the help of the warmer weather."
    chunk = Chunk("e", "reviews", "/reviews/a136.md", text, heading="Amazon Reviews 1585")
    checker = SupportChecker(HashEmbedder())
    said = "Based on Amazon Reviews 1585 in a136.md, easiyo is especially good in winter."
    found = checker.check(said, [Hit(chunk, 0.9)], "What season is easiyo best to use?").sentences[0]
    assert found.supported and found.missing == (), found
    # A name the heading does not hold is still in no source.
    other = "Based on Amazon Reviews 1587, easiyo is especially good in winter."
    assert checker.check(other, [Hit(chunk, 0.9)]).sentences[0].missing == ("1587",)


def test_a_question_word_is_held_by_its_base_form() -> None:
    """ "… to be used?" of a source saying "use": the light stem keeps "used" and "use" apart."""
    text = "I'm struggling to figure out how to use them in our save the dates, in a subtle way."
    post = [Hit(Chunk("w", "posts", "/posts/w.txt", text), 0.9)]
    checker = SupportChecker(HashEmbedder())
    question = "How would they like the photos to be used?"
    said = checker.check("They would like them to be used in a subtle way.", post, question).sentences[0]
    assert "used" not in said.missing, said


def test_the_citations_are_the_sources_that_back_each_sentence_at_that_sentence() -> None:
    from kimas_desktop.answer.writing.citations import supported_citations

    checker = SupportChecker(HashEmbedder())
    # Two sentences of one source share most words; the one holding the answer's number is the evidence.
    busy = "The night backup runs at 02:00. The night backup of the mail server runs at 03:00."
    sources = [*hits(), Hit(Chunk("c", "docs", "/docs/mail.md", busy), 0.4)]
    answer = "Visitors park on level 3. The night backup runs at 03:00. Lunch is free on Fridays."
    report = checker.check(answer, sources, question="When does the mail backup run?")
    park, backup, lunch = report.sentences
    assert park.supported and park.source == 2
    assert backup.supported and backup.source == 3
    assert busy[backup.evidence_start : backup.evidence_end].endswith("runs at 03:00.")
    assert not lunch.supported
    cites = supported_citations(report.sentences, sources)
    assert [c.n for c in cites] == [2, 3]  # in the order the answer leans on them; nothing for lunch
    assert cites[0].sentence == "Visitors park on level 3."
    assert cites[1].sentence == "The night backup of the mail server runs at 03:00."


class SameMeaning:
    """Every text means the same (cosine 1): only the words and facts tell sentences apart."""

    dim = 4

    def embed_query(self, texts: list[str]):  # type: ignore[no-untyped-def]
        import numpy as np

        return np.full((len(texts), self.dim), 0.5, dtype=np.float32)

    embed_passages = embed_query


def test_the_evidence_sentence_is_the_one_that_holds_the_sentences_facts() -> None:
    source = "The pump was serviced by Anna. The pump was serviced in 2019 by Bruno."
    [s] = (
        SupportChecker(SameMeaning())
        .check(  # type: ignore[arg-type]
            "Bruno serviced it in 2019.", [Hit(Chunk("p", "docs", "/docs/pump.md", source), 0.9)]
        )
        .sentences
    )
    assert (
        s.supported and source[s.evidence_start : s.evidence_end] == "The pump was serviced in 2019 by Bruno."
    )


def test_words_about_the_answer_itself_need_no_source() -> None:
    checker = SupportChecker(HashEmbedder())
    assert checker.check("The answer is: 30.", hits()).sentences[0].supported
    assert checker.check("The answer in the document is 30.", hits()).sentences[0].supported
    assert not checker.check("The answer is: 45.", hits()).sentences[0].supported
