"""The full-text index of a chunk table, over the same words as every other stage (issue 42).

LanceDB's ``simple`` tokenizer splits at every character that is no letter or digit: a Chinese sentence
was one token (a Chinese word found nothing) and a Hindi word was cut at its virama. Each chunk row
therefore carries ``terms``: its words as ``words.spaced`` gives them, separated by single spaces, and the
BM25 index on ``terms`` splits at spaces only; a query is spaced the same way. English words are cut
exactly where ``simple`` cut them, and the index keeps its lower case, English stemmer, stop words and
ASCII folding, so an English collection searches as before.

A table made before the column, or spaced by an older ``spaced`` (the index's name says which:
``SPACING``), is upgraded in place by ``ensure_terms``, which the indexer runs at every sync (so the app
upgrades each collection in the background when it starts): the column is added as a copy of ``text`` if
it is missing, every row whose terms differ gets its spaced form, then the index named for this spacing is
built and any other full-text index dropped. Until the new index exists, searches use the old one; a sync
interrupted half way does the rest at the next sync, and each step leaves a readable table.

Spacings: 1, words as the tokenizer gives them; 2, Hindi words folded and stemmed, Hindi stopwords left out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa
from lancedb.index import FTS

from kimas_desktop.text.words import spaced

__all__ = [
    "TERMS",
    "build_index",
    "document_frequencies",
    "ensure_terms",
    "fts_column",
    "query_terms",
    "terms_of",
]

TERMS = "terms"
SPACING = 2
_INDEX = f"{TERMS}_spacing{SPACING}_idx"
_BATCH = 4096


def terms_of(texts: list[str]) -> list[str]:
    return [spaced(t) for t in texts]


def query_terms(text: str) -> str:
    return spaced(text)


def document_frequencies(table: Any, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
    """The table's row count, and how many rows hold each of ``terms`` (spaced words, one full-text query
    each). ``(0, {})`` until ``terms`` is indexed: an old table's ``text`` index reads words another way."""
    rows = table.count_rows()
    if not rows or fts_column(table) != TERMS:
        return 0, {}
    found = {}
    for term in dict.fromkeys(terms):
        query = table.search(term, query_type="fts", fts_columns=TERMS).select(["_score"]).limit(rows)
        found[term] = query.to_arrow().num_rows
    return rows, found


def _full_text(table: Any) -> list[Any]:
    return [i for i in table.list_indices() if i.index_type == "FTS"]


def fts_column(table: Any) -> str:
    """The column a full-text search reads: ``terms`` once it is indexed, else ``text`` (an old table)."""
    return TERMS if any(TERMS in i.columns for i in _full_text(table)) else "text"


def build_index(table: Any) -> None:
    table.create_index(TERMS, config=FTS(base_tokenizer="whitespace"), replace=True, name=_INDEX)


def ensure_terms(table: Any, check: Callable[[], None] | None = None) -> bool:
    """Bring a table made before ``terms`` up to date (see the module docstring). ``check``: called
    between steps (a lost lease stops the upgrade there). Whether anything was done."""
    before = _full_text(table)
    if [i.name for i in before] == [_INDEX]:
        return False
    if TERMS not in table.schema.names:
        table.add_columns({TERMS: "text"})
    _respace(table, check)
    if check is not None:
        check()
    build_index(table)
    for index in before:
        if index.name != _INDEX:
            table.drop_index(index.name)
    return True


def _respace(table: Any, check: Callable[[], None] | None) -> None:
    """Write the spaced form of the rows whose ``terms`` is not it."""
    reader = table.search().select(["chunk_id", "text", TERMS]).limit(None).to_batches(_BATCH)
    changed: dict[str, list[str]] = {"chunk_id": [], TERMS: []}
    for batch in reader:
        columns = [batch.column(c).to_pylist() for c in ("chunk_id", "text", TERMS)]
        for cid, text, terms in zip(*columns, strict=True):
            want = spaced(text or "")
            if terms != want:
                changed["chunk_id"].append(cid)
                changed[TERMS].append(want)
    if changed["chunk_id"]:
        if check is not None:
            check()
        table.merge_insert("chunk_id").when_matched_update_all().execute(pa.table(changed))
