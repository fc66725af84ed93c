"""File cards pick prose sentences in every script and skip code, tables, list items, bylines and the
tails of sentences a chunk boundary cut (issue 46: a Chinese article's card opened with a byline and bullet
points, an English article's with a Python function signature, so "What is this document about?" got one
word). Real files through the real indexer: ../shared/papers/*.zh.txt, the Hindi dev kit's passages, and an
English article with a code block and a table, as Markdown and as HTML."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from indexer import Indexer, LanceStore
from kimas_desktop.text.sentences import split_sentences
from kimas_desktop.types import DocumentCard
from local_models.fake import HashEmbedder
from tests.indexer.files import small_config, write

SHARED = Path(__file__).resolve().parents[4] / "shared"
PAPERS = sorted((SHARED / "papers").glob("*.zh.txt"))
HINDI = SHARED / "eval" / "devkit" / "hindi_qa_bigbench_even" / "corpus.jsonl"

SIGNATURE = "def cached_answer(question: str, store: dict[str, str]) -&gt; str:"
LEAD = "This article explains how a small cache keeps a question answering service fast when the same questions come back."
MORE = (
    "The cache stores each answer under its question, so a repeated question costs a dictionary look-up "
    "instead of a model call."
)
LATER = (
    "A larger cache keeps more answers, but it also keeps answers that may have gone stale after the "
    "documents changed.\nWe therefore clear the cache whenever the index is rebuilt, which the indexer "
    "announces with an event."
)
CODE = '''def cached_answer(question: str, store: dict[str, str]) -> str:
    """Return the stored answer for the question, computing it once."""
    if question not in store:
        store[question] = compute(question)
    return store[question]
'''
MARKDOWN = f"""# Caching answers in Python

```python
{CODE}```

{LEAD}
{MORE}

| size | hits | misses |
|------|------|--------|
| 100 | 72 | 28 |
| 1000 | 91 | 9 |

{LATER}
"""
# A blog page whose code is not in <pre>: the signature and its docstring read as one paragraph.
HTML = f"""<html><body><h1>Caching answers in Python</h1>
<p>{SIGNATURE} Return the stored answer for the question, computing it once.</p>
<div class="highlight">def compute(question: str) -&gt; str:<br>    return model.complete(question).text.strip()</div>
<p>{LEAD} {MORE}</p>
<table><tr><td>size</td><td>hits</td></tr><tr><td>100</td><td>72</td></tr></table>
<p>{LATER}</p></body></html>"""

ENDS = re.compile(r"[.!?。！？；।][\"'”’）)」』]*$")


def _cards(tmp_path: Path, files: dict[str, str]) -> dict[str, DocumentCard]:
    docs = tmp_path / "docs"
    for name, text in files.items():
        write(docs / name, text)
    store = LanceStore(str(tmp_path / "db"))
    Indexer(store, HashEmbedder(), small_config()).index("c", [docs])
    return {Path(c.source).name: c for c in store.cards("c")}


def _han(text: str) -> int:
    return sum("\u4e00" <= ch <= "\u9fff" for ch in text)


@pytest.mark.parametrize("paper", PAPERS, ids=[p.name for p in PAPERS])
def test_a_chinese_papers_card_is_its_own_prose(tmp_path: Path, paper: Path) -> None:
    """Before: agentic-rag-pattern's card opened with its byline ("来自:旺知识"), kag's and ragenta's held
    bullet points ("• 使用 LogicExecutor …", "• 0 :部分支持 …")."""
    card = _cards(tmp_path, {paper.name: paper.read_text("utf-8")})[paper.name]
    texts = [s.text for s in card.synopsis]
    assert len(texts) == 3, texts
    whole = paper.read_text("utf-8")
    for text in texts:
        assert ENDS.search(text), text
        assert text in whole, text  # verbatim
        assert not text.startswith(("•", "来自", "图源", "作者")), text
        assert "\n" not in text, text  # no label line run into it
        assert _han(text) >= 10, text  # Chinese prose, not an English prompt or code


def test_an_article_with_code_and_a_table_opens_its_card_with_its_lead(tmp_path: Path) -> None:
    """Before: the HTML page's card opened with the function signature; the Markdown one held the tail of
    a sentence a chunk boundary cut ("may have gone stale after the documents changed.")."""
    cards = _cards(tmp_path, {"article.md": MARKDOWN, "article.html": HTML})
    for name, card in cards.items():
        texts = [s.text for s in card.synopsis]
        assert texts and texts[0] == LEAD, (name, texts)
        for text in texts:
            assert text[0].isupper() and text in (LEAD, MORE, *LATER.split("\n")), (name, text)
            assert "def " not in text and "->" not in text and "hits" not in text, (name, text)


def test_a_hindi_texts_card_is_whole_sentences_ending_in_a_danda(tmp_path: Path) -> None:
    """Real passages of the Hindi dev kit, in chunks of 40 tokens: the card's sentences are whole sentences
    of the text (before: the tails of sentences a chunk boundary cut, "है जो प्रोटिस्ट, के मुख्य …")."""
    rows = [json.loads(line) for line in HINDI.read_text("utf-8").splitlines()[:6]]
    text = "\n\n".join(r["text"] for r in rows) + "\n"
    card = _cards(tmp_path, {"hindi.txt": text})["hindi.txt"]
    whole = {s.text for s in split_sentences(text)}
    texts = [s.text for s in card.synopsis]
    assert len(texts) == 3 and card.language == "hi", texts
    for t in texts:
        assert t.endswith("।") and t in whole, t


def test_a_guide_of_lists_and_code_keeps_only_its_prose(tmp_path: Path) -> None:
    """../shared/papers/agentic-retrieval-guide.txt, a README saved as text: mostly lists and code. Before,
    its card held a list item run into the next item's number ("❌ LLM API call failure\\n  2.") and a line
    of code ('query = "What foods does the user like?'), so the Knowledge tab showed them as its summary."""
    guide = SHARED / "papers" / "agentic-retrieval-guide.txt"
    card = _cards(tmp_path, {guide.name: guide.read_text("utf-8")})[guide.name]
    texts = [s.text for s in card.synopsis]
    assert texts and texts[0].startswith("Agentic retrieval is an LLM-guided multi-round retrieval method")
    for text in texts:
        assert text[0].isupper() and "\n" not in text and " = " not in text and "❌" not in text, texts
