"""Tables inside documents kept in step by a real sync into real LanceDB (issue 43): a Markdown table
changed, dropped from its file, the file moved, the file deleted; a document indexed by a version before
tables is read again once (its vectors re-used) so its tables reach the shelf."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from indexer import Indexer, LanceStore
from tests.indexer.files import write

TABLE = "# Tools\n\n| Tool | Count |\n|---|---|\n| hammer | 3 |\n| saw | 1 |\n"


def _counts(store: LanceStore, path: Path) -> list[list[object]]:
    return [store.shelf.arrow(t).column("Count").to_pylist() for t in store.shelf.tables("c", str(path))]


def test_a_documents_tables_follow_its_changes(tmp_path: Path, store: LanceStore, indexer: Indexer) -> None:
    folder = tmp_path / "docs"
    doc = folder / "tools.md"
    write(doc, TABLE)
    indexer.index("c", [folder])
    assert _counts(store, doc) == [[3, 1]]
    write(doc, TABLE + "| drill | 2 |\n")
    indexer.index("c", [folder])
    assert _counts(store, doc) == [[3, 1, 2]]
    moved = folder / "old" / "tools.md"
    moved.parent.mkdir()
    doc.rename(moved)
    indexer.index("c", [folder])
    assert _counts(store, doc) == [] and _counts(store, moved) == [[3, 1, 2]]
    write(moved, "# Tools\n\nNo table any more.\n")
    indexer.index("c", [folder])
    assert _counts(store, moved) == []
    write(moved, TABLE)
    indexer.index("c", [folder])
    moved.unlink()
    indexer.index("c", [folder])
    assert store.shelf.all_tables("c") == []
    assert not [n for n in store.shelf._db.table_names() if "_rows_" in n]


def test_a_document_indexed_before_tables_is_read_again_once(
    tmp_path: Path, store: LanceStore, indexer: Indexer
) -> None:
    folder = tmp_path / "docs"
    doc = folder / "tools.md"
    write(doc, TABLE)
    write(folder / "plain.md", "# Plain\n\nNo table here.\n")
    indexer.index("c", [folder])
    manifest = store.manifest("c")
    old = [  # as a version before document tables left them: cards without "tables", no table shelved
        replace(r, card=json.dumps({k: v for k, v in json.loads(r.card or "").items() if k != "tables"}))
        for r in manifest.values()
    ]
    store.tables("c").put_files(old)
    store.shelf.remove_sources("c", [str(doc)])
    assert _counts(store, doc) == []
    assert indexer.index("c", [folder]).indexed == 2
    assert _counts(store, doc) == [[3, 1]]
    assert indexer.index("c", [folder]).indexed == 0
