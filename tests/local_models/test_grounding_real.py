"""The grounded quote and the answerability decision with the real embedded models over real indexed files
(Markdown and PDF through the product's indexer into LanceDB, the embedded MiniLM embedder and the
fallback reranker), both ways: the answer is in the documents, or the documents are on topic but silent."""

from __future__ import annotations

import pytest

from app.paths import resolve_paths
from app.runtime import Runtime
from kimas_desktop.answer.signals.grounding import Grounder
from kimas_desktop.config import Config
from tests.indexer.files import write, write_pdf

pytestmark = pytest.mark.slow

OFFICE = """# Office handbook

## Opening hours
The office opens at 8:00 and closes at 18:00 on weekdays. On Saturdays it is closed.

## IT
The backup server is called hermes. It copies every laptop each night at 02:00, and copies are
kept for thirty days. Lost passwords are reset by the helpdesk on the second floor.

## Kitchen
Coffee is free for staff. The dishwasher runs after lunch.
"""

TRAVEL = [
    "Travel policy\nTrain tickets are booked through the travel desk. Economy class is the default for\n"
    "trips shorter than four hours. Hotel costs are refunded up to 120 euros per night.",
]


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory) -> Runtime:
    root = tmp_path_factory.mktemp("grounding")
    docs = root / "docs"
    write(docs / "handbook.md", OFFICE)
    write_pdf(docs / "travel.pdf", TRAVEL)
    paths = resolve_paths(str(root / "data"), None)
    s = Runtime(paths, Config())
    report = s.indexer().index("office", [docs])
    assert report.indexed == 2
    return s


def ground(services: Runtime, question: str):  # type: ignore[no-untyped-def]
    pipeline = services.pipeline()
    result = pipeline.retrieve(question)
    grounder = Grounder(services.embedder(services.config), services.config.grounding)
    synopses = [services.store().synopsis(name) for name in result.active]
    return grounder.ground(question, result.hits, synopses, query=result.query)


def test_the_quote_is_verbatim_from_the_source_and_the_question_is_answerable(
    services: Runtime,
) -> None:
    g = ground(services, "What is the backup server called?")
    assert g.idf_from == "collection"  # the synopsis word counts, not the fallback
    quote = g.quotes[0]
    assert "The backup server is called hermes." in quote.text
    assert quote.chunk.text[quote.start : quote.end] == quote.text
    assert quote.chunk.source.endswith("handbook.md")
    assert g.answerability.answerable, g.answerability


def test_a_pdf_sentence_is_quoted_with_its_page(services: Runtime) -> None:
    g = ground(services, "How much are hotel costs refunded per night?")
    quote = g.quotes[0]
    assert "120 euros per night" in quote.display
    assert quote.chunk.page == 1 and quote.chunk.source.endswith("travel.pdf")
    assert g.answerability.answerable, g.answerability


def test_an_on_topic_question_the_documents_do_not_answer_is_declined(services: Runtime) -> None:
    answerable = ground(services, "What is the backup server called?").answerability
    for question in (
        "Who manages the backup server budget in Singapore?",
        "What brand is the office printer?",
    ):
        g = ground(services, question)
        assert not g.answerability.answerable, (question, g.answerability)
        assert g.answerability.score < answerable.score
