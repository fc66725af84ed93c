"""Full-text search over the words of every script (issue 42): real LanceDB in tmp_path, real jieba.

LanceDB's tokenizer splits at spaces and punctuation, so a Chinese sentence used to be one token and a
Chinese word inside it found nothing. The chunk's ``terms`` column holds its text spaced by the project's
tokenizer; a table made before the column is upgraded at the next sync.
"""

from __future__ import annotations

from pathlib import Path

import lancedb
import pyarrow as pa
from lancedb.index import FTS

from indexer import Indexer, LanceStore
from indexer.store.full_text import TERMS
from indexer.store.schema import table_prefix
from kimas_desktop.text.words import spaced
from local_models.fake import HashEmbedder
from tests.indexer.files import small_config

# Real sentences: the first line of ../shared/papers/agentic-rag-pattern.zh.txt, a Japanese and a Hindi one
CHINESE = (
    "检索增强生成(RAG)设计模式通常用于在特定数据域中开发大语言模型(LLM)应用。然而,RAG的过往的研究重点"
    "主要在于提高检索工具的效率,例如嵌入搜索、混合搜索和微调嵌入,而忽视了智能搜索。"
)
JAPANESE = "東京都の図書館では、毎週土曜日に子ども向けの読み聞かせ会を開いています。"
HINDI = "भारत की राजधानी नई दिल्ली है और यहाँ संसद भवन स्थित है।"
ENGLISH = "The lighthouse keeper logs the weather at noon."


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in (("zh.md", CHINESE), ("ja.md", JAPANESE), ("hi.md", HINDI), ("en.md", ENGLISH)):
        (folder / name).write_text(text + "\n", "utf-8")
    return folder


def _found(store: LanceStore, embedder: HashEmbedder, text: str) -> list[str]:
    hits = store.search("c", text=text, vector=embedder.embed_query([text])[0], k=4, mode="fts")
    return [Path(h.chunk.source).name for h in hits]


def test_a_word_inside_a_sentence_of_an_unspaced_script_is_found(
    tmp_path: Path, indexer: Indexer, store: LanceStore, embedder: HashEmbedder
) -> None:
    indexer.index("c", [_folder(tmp_path)])
    assert _found(store, embedder, "智能搜索")[:1] == ["zh.md"]  # jieba's words, inside a sentence
    assert _found(store, embedder, "什么是混合搜索?")[:1] == ["zh.md"]  # a question, spaced alike
    assert _found(store, embedder, "図書館")[:1] == ["ja.md"]  # Japanese bigrams
    assert _found(store, embedder, "राजधानी")[:1] == ["hi.md"]  # a word with vowel signs stays whole
    assert _found(store, embedder, "lighthouse keeper") == ["en.md"]
    assert _found(store, embedder, "दिल") == []  # no match inside "दिल्ली" (simple cut it at the virama)


def test_a_table_made_before_the_terms_is_upgraded_at_the_next_sync(
    tmp_path: Path, indexer: Indexer, store: LanceStore, embedder: HashEmbedder
) -> None:
    folder = _folder(tmp_path)
    indexer.index("c", [folder])
    uri = str(tmp_path / "db")
    table = lancedb.connect(uri).open_table(f"{table_prefix('c')}_chunks")
    # as an older version left it: no terms column, the BM25 index on the text itself
    [index] = table.list_indices()
    table.drop_index(index.name)
    table.drop_columns([TERMS])
    table.create_index("text", config=FTS(), replace=True)
    old = LanceStore(uri)
    assert _found(old, embedder, "lighthouse keeper") == ["en.md"]  # still searchable before the upgrade
    assert _found(old, embedder, "智能搜索") == []  # the broken search this fixes

    Indexer(old, embedder, small_config()).index("c", [folder])  # nothing changed on disk: a plain sync
    upgraded = lancedb.connect(uri).open_table(f"{table_prefix('c')}_chunks")
    assert [i.columns for i in upgraded.list_indices() if i.index_type == "FTS"] == [[TERMS]]
    rows = upgraded.search().select(["text", TERMS]).limit(None).to_list()
    assert {r["text"].strip(): r[TERMS] for r in rows}[
        ENGLISH
    ] == "The lighthouse keeper logs the weather at noon"
    fresh = LanceStore(uri)
    assert _found(fresh, embedder, "智能搜索")[:1] == ["zh.md"]
    assert _found(fresh, embedder, "lighthouse keeper") == ["en.md"]


def test_an_inflected_hindi_word_finds_the_other_forms(
    tmp_path: Path, indexer: Indexer, store: LanceStore, embedder: HashEmbedder
) -> None:
    folder = _folder(tmp_path)
    (folder / "village.md").write_text("गाँव के लड़कों ने मैदान में क्रिकेट खेला।\n", "utf-8")
    indexer.index("c", [folder])
    assert _found(store, embedder, "लड़के")[:1] == ["village.md"]  # the text has the oblique plural लड़कों
    assert _found(store, embedder, "लडके")[:1] == ["village.md"]  # written without the nukta
    assert _found(store, embedder, "गांव")[:1] == ["village.md"]  # anusvara for the text's chandrabindu


def test_a_table_spaced_before_hindi_stems_is_respaced_at_the_next_sync(
    tmp_path: Path, indexer: Indexer, store: LanceStore, embedder: HashEmbedder
) -> None:
    folder = _folder(tmp_path)
    (folder / "village.md").write_text("गाँव के लड़कों ने मैदान में क्रिकेट खेला।\n", "utf-8")
    indexer.index("c", [folder])
    uri = str(tmp_path / "db")
    table = lancedb.connect(uri).open_table(f"{table_prefix('c')}_chunks")
    # as the first spacing left it: the words unstemmed, an index of the default name
    [index] = table.list_indices()
    table.drop_index(index.name)
    unstemmed = {"chunk_id": [], TERMS: []}
    for row in table.search().select(["chunk_id", "text"]).limit(None).to_list():
        unstemmed["chunk_id"].append(row["chunk_id"])
        unstemmed[TERMS].append(" ".join(row["text"].split()))
    table.merge_insert("chunk_id").when_matched_update_all().execute(pa.table(unstemmed))
    table.create_index(TERMS, config=FTS(base_tokenizer="whitespace"), replace=True)
    assert _found(LanceStore(uri), embedder, "लड़के") == []

    Indexer(LanceStore(uri), embedder, small_config()).index("c", [folder])
    upgraded = lancedb.connect(uri).open_table(f"{table_prefix('c')}_chunks")
    assert len([i for i in upgraded.list_indices() if i.index_type == "FTS"]) == 1
    assert _found(LanceStore(uri), embedder, "लड़के")[:1] == ["village.md"]


def test_the_index_counts_the_chunks_holding_each_word(
    tmp_path: Path, indexer: Indexer, store: LanceStore
) -> None:
    """Issue 42: the fallback reranker weighs an unread question's words by the index
    (``kimas_desktop.retrieval.word_weights``): chunks in all collections, and how many hold each word,
    as the full-text index reads it (a Hindi stem, a jieba word)."""
    indexer.index("c", [_folder(tmp_path)])
    hindi, chinese = spaced("राजधानी"), spaced("智能搜索").split()
    rows, found = store.document_frequencies([hindi, *chinese, "lighthouse", "nowhere"])
    assert rows == 4
    assert found == {hindi: 1, **dict.fromkeys(chinese, 1), "lighthouse": 1, "nowhere": 0}
