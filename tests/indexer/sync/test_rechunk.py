"""Chunk sizes that changed for a script are applied to the files indexed before (issue 42): the sync reads
such a file again, in the background as for an edit, and only once; files in other scripts stay."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from indexer import Indexer, LanceStore
from indexer.chunking import CHUNKING, chunked_before
from kimas_desktop.text.language import written_in_latin
from tests.indexer.files import small_config, write
from tests.indexer.sync.test_sync import CountingEmbedder

HINDI = "भारत की राजधानी नई दिल्ली है और यहाँ संसद भवन स्थित है। "
CHINESE = "检索增强生成设计模式通常用于在特定数据域中开发大语言模型应用。"
ENGLISH = "The lighthouse keeper logs the weather at noon, and the harbour master reads the log. "


class _EnglishOnly(CountingEmbedder):
    def reads(self, text: str) -> bool:
        return written_in_latin(text)


def test_files_chunked_by_an_older_version_are_read_again_once(tmp_path: Path) -> None:
    store = LanceStore(str(tmp_path / "db"))
    embedder = _EnglishOnly()
    indexer = Indexer(store, embedder, small_config(chunk_tokens=120, overlap_tokens=20))
    docs = tmp_path / "docs"
    for name, text in (("hi.txt", HINDI * 10), ("zh.txt", CHINESE * 4), ("en.txt", ENGLISH * 4)):
        write(docs / name, text)
    indexer.index("c", [docs])
    records = store.manifest("c").values()
    assert all(json.loads(r.card or "{}")["chunking"] == CHUNKING for r in records)

    older = []  # the manifest as version 1 left it: cards without the chunk sizes' version
    for r in records:
        card = json.loads(r.card or "{}")
        del card["chunking"]
        older.append(replace(r, card=json.dumps(card, ensure_ascii=False)))
    store.tables("c").put_files(older)
    assert [Path(r.path).name for r in older if chunked_before(r.card)] == ["hi.txt"]

    report = indexer.index("c", [docs])
    assert report.indexed == 1  # the Hindi file alone; Chinese and English chunk as before
    assert not any(chunked_before(r.card) for r in store.manifest("c").values())
    assert indexer.index("c", [docs]).indexed == 0  # and only once
