"""Which document (and chapter) a question is about: ``retrieval/documents.py`` on hand-made cards."""

from __future__ import annotations

from kimas_desktop.answer.signals.documents import card_answer, card_quote
from kimas_desktop.retrieval.documents import about_documents, card_hit, focus, without_pointer
from kimas_desktop.types import CardSentence, Chunk, DocumentCard, Hit, Section

AUDIT = DocumentCard(
    "/docs/audit_report_2019.pdf",
    "Audit report 2019",
    (
        Section("Summary", 1),
        Section("1. Scope", 2),
        Section("2. Findings", 4),
        Section("2. Findings > 2.1 Invoices", 5),
        Section("3. Advice", 7),
    ),
    (CardSentence("The 2019 audit of Acme took place in Leeds.", "Summary", 1),),
)
KENYA = DocumentCard(
    "/docs/Kenya.md",
    "Kenya",
    (Section("Kenya", None, 1), Section("Kenya > History", None, 9), Section("Kenya > Economy", None, 30)),
    (CardSentence("Kenya is a country in East Africa.", "Kenya", None, 3),),
)
HANDBOOK = DocumentCard(
    "/docs/handbook.md",
    "Staff handbook",
    (
        Section("Staff handbook"),
        Section("Staff handbook > Chapter 1: Hours"),
        Section("Staff handbook > Chapter 2: Pay"),
    ),
)
CARDS = {"work": [AUDIT, HANDBOOK], "world": [KENYA]}


def _hit(card: DocumentCard, collection: str) -> Hit:
    return Hit(Chunk("x", collection, card.source, "some passage"), 0.9)


def test_a_document_named_by_its_title_or_file_name() -> None:
    f = focus("What is the audit report about?", [], CARDS)
    assert f is not None and f.card is AUDIT and f.whole and f.collection == "work"
    f = focus("Summarize Kenya.md", [], CARDS)
    assert f is not None and f.card is KENYA
    assert "named in the question" in f.why


def test_this_document_is_the_one_of_the_best_passage_or_the_only_one() -> None:
    f = focus("What is this document about?", [_hit(HANDBOOK, "work")], CARDS)
    assert f is not None and f.card is HANDBOOK and "best passage" in f.why
    f = focus("Give me a summary of the report.", [], {"work": [AUDIT]})
    assert f is not None and f.card is AUDIT and "only document" in f.why


def test_questions_about_facts_are_left_alone() -> None:
    assert not about_documents("What is the capital of Kenya?")
    assert focus("What is the capital of Kenya?", [_hit(KENYA, "world")], CARDS) is None
    # worded like a document question, but about a dispute in Kenya, not about Kenya.md
    assert focus("What was the dispute in Kenya about?", [_hit(KENYA, "world")], CARDS) is None
    # a summary of something no document is named for
    assert focus("Give an overview of photosynthesis.", [_hit(KENYA, "world")], CARDS) is None


def test_a_chapter_by_its_number_a_numbered_heading_or_its_place() -> None:
    f = focus("What does chapter 2 of the audit report say about invoices?", [], CARDS)
    assert f is not None and f.section is not None and f.section.heading == "2. Findings"
    f = focus("What does section 2.1 of the audit report say?", [], CARDS)
    assert f is not None and f.section is not None and f.section.heading == "2. Findings > 2.1 Invoices"
    f = focus("What does chapter two of the handbook say about overtime?", [], CARDS)
    assert f is not None and f.section is not None and f.section.title == "Chapter 2: Pay"
    f = focus("What does chapter 2 say about the economy?", [_hit(KENYA, "world")], CARDS)
    assert f is not None and f.section is not None and f.section.title == "Economy"  # its 2nd chapter
    # a part or a section must be named so by a heading: "part 2" of an exam is no document's chapter
    assert focus("What is awarded after the FCPS exam part 2?", [_hit(KENYA, "world")], CARDS) is None
    assert focus("What does chapter 9 of the handbook say?", [], CARDS) is None
    assert without_pointer("What does chapter 2 say about invoices?") == "What does say about invoices?"


def test_the_card_is_a_passage_whose_quote_is_its_synopsis() -> None:
    hit = card_hit("work", AUDIT, 0.7)
    assert hit.chunk.text.startswith("Audit report 2019. The 2019 audit of Acme took place in Leeds.")
    assert "Contents: Summary; 1. Scope; 2. Findings; 3. Advice." in hit.chunk.text
    quote = card_quote([_hit(KENYA, "world"), hit], AUDIT)
    assert quote is not None and quote.n == 2 and quote.text == "The 2019 audit of Acme took place in Leeds."
    assert hit.chunk.text[quote.start : quote.end] == quote.text
    assert card_quote([hit], KENYA) is None  # not that card's passage
    # a title with a full stop inside it ("Dr. …") does not move the quote
    doctor = DocumentCard(
        "/d.md", "Dr. Okafor's notes", synopsis=(CardSentence("Okafor studied bees for years."),)
    )
    quote = card_quote([card_hit("c", doctor, 1.0)], doctor)
    assert quote is not None and quote.text == "Okafor studied bees for years."
    assert card_answer(doctor) == "“Dr. Okafor's notes”: Okafor studied bees for years."
    assert card_answer(AUDIT) == (
        "“Audit report 2019”: The 2019 audit of Acme took place in Leeds."
        " Its chapters: Summary; 1. Scope; 2. Findings; 3. Advice."
    )
