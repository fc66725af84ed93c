"""The quote scorer: the sentence that answers, verbatim with its offsets, on fixtures.

The embedder is the shipped SHA-256 word-vector fake: these tests are about our scoring logic. The
grounder and the decline text are in test_grounding.py, the word weights in tests/kimas_desktop/text/.
"""

from __future__ import annotations

from kimas_desktop.answer.signals.quote import QuoteScorer, QuoteWeights, answer_type, pick_quotes
from kimas_desktop.types import Chunk, Hit
from local_models.fake import HashEmbedder

KENYA = (
    "Kenya is a country in East Africa. Its capital and largest city is Nairobi. "
    "The country has a population of more than 47 million people. Kenya borders Tanzania."
)
HERMES = "Backups run every night. The backup server is called hermes. It keeps thirty days of copies."


def hit(text: str, score: float, source: str = "/docs/kenya.md", n: int = 0) -> Hit:
    return Hit(Chunk(f"c{n}-{abs(hash(text)) % 999}", "docs", source, text, line_start=1, line_end=3), score)


def test_the_quote_is_the_sentence_that_answers_verbatim_with_offsets() -> None:
    scorer = QuoteScorer(HashEmbedder(), QuoteWeights())
    hits = [hit(KENYA, 0.9), hit(HERMES, 0.2, "/docs/it.pdf", 1)]
    scored = scorer.score("What is the population of Kenya?", hits)
    best = scored[0]
    assert best.sentence.text == "The country has a population of more than 47 million people."
    assert best.n == 1
    quotes = pick_quotes(scored, sentences=1)
    q = quotes[0]
    assert q.chunk.text[q.start : q.end] == q.text == best.sentence.text
    scored = scorer.score("What is the backup server called?", hits)
    assert scored[0].sentence.text == "The backup server is called hermes."
    assert scored[0].n == 2


def test_answer_type_prefers_a_sentence_with_a_number_or_a_new_name() -> None:
    assert answer_type("How many people live in Kenya?") == "number"
    assert answer_type("When was it founded?") == "number"
    assert answer_type("Who founded it?") == "name"
    assert answer_type("Why is the sky blue?") == ""
    text = "The company was founded long ago by people. The company was founded in 1998 by Ada Smith."
    weights = QuoteWeights(overlap=1.0, cosine=0.0, rerank=0.0, position=0.0, answer_type=0.5)
    scored = QuoteScorer(HashEmbedder(), weights).score("When was the company founded?", [hit(text, 1.0)])
    assert "1998" in scored[0].sentence.text
    without = QuoteWeights(overlap=1.0, cosine=0.0, rerank=0.0, position=0.1, answer_type=0.0)
    scored = QuoteScorer(HashEmbedder(), without).score("When was the company founded?", [hit(text, 1.0)])
    assert "1998" not in scored[0].sentence.text  # the feature is what picks it


def test_two_close_neighbouring_sentences_become_one_verbatim_quote() -> None:
    text = "Alpha beta gamma. Alpha beta delta. Unrelated words here."
    scorer = QuoteScorer(HashEmbedder(), QuoteWeights(cosine=0.0, rerank=0.0, position=0.0, answer_type=0.0))
    scored = scorer.score("alpha beta", [hit(text, 1.0)])
    quotes = pick_quotes(scored, sentences=2, ratio=0.9)
    assert len(quotes) == 1
    assert quotes[0].text == "Alpha beta gamma. Alpha beta delta."
    assert quotes[0].chunk.text[quotes[0].start : quotes[0].end] == quotes[0].text
    assert (
        len(pick_quotes(scored, sentences=1)) == 1
        and pick_quotes(scored, sentences=1)[0].text.count(".") == 1
    )


def test_a_sentence_two_chunks_hold_is_quoted_once() -> None:
    """bench.echo_rule: a Reddit sentence held by two chunks was quoted twice, side by side."""
    text = "Sure I can do it as a hobby, but some people want success out of things they plan."
    hits = [Hit(Chunk(f"c{i}", "docs", f"/docs/post{i}.md", text), 0.9 - i / 10) for i in range(2)]
    scored = QuoteScorer(HashEmbedder(), QuoteWeights()).score("What hobby is the writer into?", hits)
    assert [q.text for q in pick_quotes(scored, sentences=2, ratio=0.5)] == [text]
