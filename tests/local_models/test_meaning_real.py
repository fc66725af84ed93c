"""The sentence that answers, not the one that repeats the question (issue 58): the quote's sentence
similarities read by the embedded multilingual-e5-small (``grounding.meaning``) over a real indexed file,
beside the collections' MiniLM, and in Chinese and Hindi as in English."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.paths import resolve_paths
from app.runtime import Runtime
from kimas_desktop.config import Config
from kimas_desktop.events import QuoteReady
from local_models import FastEmbedEmbedder
from tests.indexer.files import write

pytestmark = pytest.mark.slow

# Wikipedia's opening of "Normandy" in its own words: the country is named once, in a sentence that says
# "Normandy" once; the sentences around it repeat the question's word.
NORMANDY = """# Normans

The Normans were the people who in the 10th and 11th centuries gave their name to Normandy, a region in
France. Normandy was the site of several important developments in the history of classical music in
the 11th century. The music of Normandy drew on the liturgy of the abbeys of Normandy.

Normandy took its name from the Norse raiders. The dukes of Normandy built abbeys across Normandy, and
the monks of Normandy copied the chants of Normandy in the abbeys of Normandy.
"""


def runtime(root: Path, meaning: str) -> Runtime:
    paths = resolve_paths(str(root / f"data-{meaning}"), None)
    config = Config.model_validate({"grounding": {"meaning": meaning}})
    services = Runtime(paths, config)
    assert services.indexer().index("history", [root / "docs"]).indexed == 1
    return services


def quote_of(services: Runtime, question: str) -> str:
    """The best sentence of the quote the whole pipeline shows first (the answer is not waited for)."""
    events = services.pipeline().ask(question)
    ready = next(e for e in events if isinstance(e, QuoteReady))
    del events  # an unfinished answer is closed with its generator
    return ready.quotes[0].text


def test_the_multilingual_sentence_scorer_quotes_the_sentence_that_names_the_country(tmp_path: Path) -> None:
    write(tmp_path / "docs" / "normans.md", NORMANDY)
    meaning = runtime(tmp_path, "multilingual")
    assert isinstance(meaning.meaning(meaning.config), FastEmbedEmbedder)
    assert meaning.meaning(meaning.config) is not meaning.embedder(meaning.config)
    question = "In what country is Normandy located?"
    assert "France" in quote_of(meaning, question)
    index = runtime(tmp_path, "index")
    print("the index embedder's quote:", quote_of(index, question))


@pytest.mark.parametrize(
    ("question", "answer", "repeats"),
    [
        ("诺曼底位于哪个国家？", "诺曼底是法国的一个地区。", "诺曼底的音乐和诺曼底的修道院在诺曼底很有名。"),
        (
            "नॉर्मंडी किस देश में है?",
            "नॉर्मंडी फ्रांस का एक क्षेत्र है।",
            "नॉर्मंडी का संगीत नॉर्मंडी के मठों में नॉर्मंडी में प्रसिद्ध था।",
        ),
    ],
)
def test_the_sentence_that_answers_scores_above_the_one_that_repeats_the_question_in_every_script(
    tmp_path: Path,
    question: str,
    answer: str,
    repeats: str,
) -> None:
    config = Config.model_validate({"grounding": {"meaning": "multilingual"}})
    services = Runtime(resolve_paths(str(tmp_path / "data"), None), config)
    e5 = services.meaning(services.config)
    q = e5.embed_query([question])[0]
    said, echo = e5.embed_passages([answer, repeats]) @ q
    assert said > echo + 0.05, (said, echo)


def test_collections_embedded_with_e5_use_their_own_copy_and_nothing_asked_loads_none(tmp_path: Path) -> None:
    from local_models import sentence_meaning
    from local_models.catalog.catalog import MULTILINGUAL_EMBEDDER

    config = Config.model_validate(
        {"grounding": {"meaning": "multilingual"}, "embedding": {"name": MULTILINGUAL_EMBEDDER}}
    )
    services = Runtime(resolve_paths(str(tmp_path / "data"), None), config)
    assert services.meaning(config) is services.embedder(config)  # one e5 in memory, not two
    assert sentence_meaning(services.embedder(config), tmp_path) is services.embedder(config)
    second = Config.model_validate({"rerank": {"second_opinion": 0.25}})
    assert isinstance(services.meaning(second), FastEmbedEmbedder)  # the second opinion's own copy
    assert services.meaning(second) is not services.embedder(second)
    assert services.meaning(Config()) is None  # nothing asks for it by default
