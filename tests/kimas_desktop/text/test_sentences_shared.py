"""One sentence splitter (kimas_desktop/text/sentences.py) and one list of code suffixes
(kimas_desktop/text/file_types.py), shared by chunking, the grounded quote, the support check and the
indexer's parser choice."""

from __future__ import annotations

from pathlib import Path

from indexer.chunking import Chunker
from indexer.parse.blocks import Block
from indexer.parse.registry import file_kind
from kimas_desktop.answer.signals.quote import QuoteScorer, QuoteWeights, pick_quotes
from kimas_desktop.answer.writing.support import SupportChecker
from kimas_desktop.text.file_types import CODE_SUFFIXES, MARKDOWN_SUFFIXES, text_kind
from kimas_desktop.text.sentences import chunk_sentences
from kimas_desktop.types import Chunk, Hit
from local_models.fake import HashEmbedder

LINE = "Yesterday the small clinic hired Dr. Jane Smith as chief. She runs the unit. * * * Patients like her."


def _chunks(text: str) -> list[str]:
    chunker = Chunker(lambda t: len(t.split()), chunk_tokens=8, overlap_tokens=0, max_tokens=512)
    return [d.text for d in chunker.chunks([Block(text)])]


def test_chunking_cuts_an_overlong_line_where_the_sentence_splitter_does() -> None:
    chunks = _chunks(LINE)
    assert not any(c.endswith("Dr.") for c in chunks)  # an abbreviation does not end a sentence
    assert "She runs the unit." in chunks
    assert "".join(" ".join(chunks).split()) == "".join(LINE.split())  # nothing lost, not even "* * *"


def test_the_indexer_and_the_splitter_read_one_suffix_list() -> None:
    for suffix in CODE_SUFFIXES:
        assert file_kind(Path(f"a{suffix}")) == "code" and text_kind(f"a{suffix}") == "code"
    for suffix in MARKDOWN_SUFFIXES:
        assert file_kind(Path(f"a{suffix}")) == "markdown" and text_kind(f"a{suffix}") == "markdown"


def test_the_quote_and_the_support_check_cut_a_chunk_into_the_same_sentences() -> None:
    code = "def backup():\n    run_every_night(hour=2)  # the backup runs nightly\n    keep_days(30)\n"
    chunk = Chunk("c1", "docs", "/repo/backup.py", code)
    spans = {(s.start, s.end) for s in chunk_sentences(chunk)}
    assert len(spans) == 3  # code: one sentence per line
    hits = [Hit(chunk, 1.0)]
    embedder = HashEmbedder()
    scored = QuoteScorer(embedder, QuoteWeights()).score("How many days are kept?", hits)
    quote = pick_quotes(scored)[0]
    assert (quote.start, quote.end) in spans
    report = SupportChecker(embedder).check("The backup keeps 30 days.", hits)
    support = report.sentences[0]
    assert (support.evidence_start, support.evidence_end) in spans
    assert code[support.evidence_start : support.evidence_end] == "keep_days(30)"
