"""The entity index kept beside the chunks (issue 25): real files, LanceDB in tmp_path, the real sync."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from indexer import Indexer, LanceStore
from indexer.store.entity_tables import EntityTables
from indexer.upkeep.entity_upkeep import EntityUpkeep, EntityWork
from kimas_desktop.errors import CollectionBusyError
from kimas_desktop.retrieval.entity_lookup import EntityLookup
from local_models.fake import HashEmbedder
from tests.indexer.files import small_config, write
from tests.indexer.sync.test_reembed import OtherEmbedder

TESLA = (
    "# Tesla\n\nNikola Tesla was born on 10 July 1856 in Smiljan. He moved to New York City in 1884, "
    "where he worked for Thomas Edison.\n"
)
EDISON = (
    "# Edison\n\nThomas Edison founded General Electric in 1892 in Schenectady. It employed 2,000 people.\n"
)
WARSAW = "# Warsaw\n\nThe University of Warsaw was founded in 1816. Its campus covers 12 hectares.\n"


def folder(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    write(docs / "tesla.md", TESLA)
    write(docs / "edison.md", EDISON)
    write(docs / "warsaw.md", WARSAW)
    return docs


def rows(store: LanceStore, collection: str = "c") -> dict[tuple[str, str], int]:
    """(source file name, key) → row id, of every mention."""
    tables = store.entity_tables(collection)
    assert tables is not None
    part = tables._mentions.search().with_row_id(True).where("key != ''").limit(None).to_arrow()
    return {
        (Path(r["source"]).name, r["key"]): r["_rowid"]
        for r in part.select(["source", "key", "_rowid"]).to_pylist()
    }


def keys_by_file(store: LanceStore, collection: str = "c") -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for name, key in rows(store, collection):
        out.setdefault(name, set()).add(key)
    return out


def by_id(store: LanceStore, collection: str = "c") -> dict[str, Any]:
    return {c.chunk_id: c for c in store.chunks(collection)}


def test_indexing_links_entities_and_chunks_both_ways(
    tmp_path: Path, indexer: Indexer, store: LanceStore
) -> None:
    indexer.index("c", [folder(tmp_path)])
    assert isinstance(store, EntityLookup)
    chunks = by_id(store)
    found = store.entities_in("c", chunks)
    tesla = next(i for i, c in chunks.items() if "Nikola" in c.text)
    assert {"nikola tesla", "thomas edison", "smiljan", "new york city", "1856-07-10", "1884"} <= {
        e.key for e in found[tesla]
    }
    edison = store.chunks_mentioning("c", ["thomas edison"])
    assert {Path(chunks[i].source).name for i in edison} == {"tesla.md", "edison.md"}
    assert all("Thomas Edison" in chunks[i].text for i in edison)
    both = store.chunks_mentioning("c", ["thomas edison", "general electric"], limit=1)
    assert [Path(chunks[i].source).name for i in both] == ["edison.md"]  # mentions both: first
    linked = {link.entity.key: link.chunks for link in store.linked("c", "thomas edison")}
    assert {"nikola tesla", "general electric", "1892", "2000 people"} <= linked.keys()
    assert "university of warsaw" not in linked  # never in one chunk with Edison
    assert store.linked("c", "nobody") == [] and store.chunks_mentioning("c", ["nobody"]) == []


def test_a_changed_file_replaces_only_its_own_rows(
    tmp_path: Path, indexer: Indexer, store: LanceStore
) -> None:
    docs = folder(tmp_path)
    indexer.index("c", [docs])
    before = rows(store)
    write(docs / "tesla.md", TESLA.replace("Thomas Edison", "George Westinghouse"))
    indexer.index("c", [docs])
    after = rows(store)
    others = {k: v for k, v in before.items() if k[0] != "tesla.md"}
    assert {k: after[k] for k in others} == others  # the same rows, untouched
    assert ("tesla.md", "george westinghouse") in after
    assert ("tesla.md", "thomas edison") not in after
    assert [link.entity.key for link in store.linked("c", "george westinghouse")]
    assert "nikola tesla" not in {link.entity.key for link in store.linked("c", "thomas edison")}


def test_a_deleted_file_takes_its_mentions_and_links(
    tmp_path: Path, indexer: Indexer, store: LanceStore
) -> None:
    docs = folder(tmp_path)
    indexer.index("c", [docs])
    (docs / "warsaw.md").unlink()
    indexer.index("c", [docs])
    assert "warsaw.md" not in keys_by_file(store)
    assert store.chunks_mentioning("c", ["university of warsaw"]) == []
    assert store.linked("c", "university of warsaw") == []
    assert set(keys_by_file(store)) == {"tesla.md", "edison.md"}


class FailingOnce(EntityUpkeep):
    """The upkeep, failing once like a process killed right after the chunk writes."""

    failed = False

    def refresh(self, tables: Any, check: Any = None, changed: Any = None) -> EntityWork:
        if not FailingOnce.failed:
            FailingOnce.failed = True
            raise RuntimeError("killed")
        return super().refresh(tables, check, changed)


def test_a_sync_that_died_before_the_entities_is_repaired_by_the_next(
    tmp_path: Path, indexer: Indexer, store: LanceStore
) -> None:
    docs = folder(tmp_path)
    indexer.index("c", [docs])
    expected = keys_by_file(store)
    write(docs / "tesla.md", TESLA.replace("Thomas Edison", "George Westinghouse"))
    indexer._entities = FailingOnce(store)
    with pytest.raises(Exception, match="killed"):
        indexer.index("c", [docs])
    assert "george westinghouse" not in keys_by_file(store)["tesla.md"]  # the chunks changed, not these
    indexer.index("c", [docs])  # no file changes now: it still notices
    got = keys_by_file(store)
    assert "george westinghouse" in got["tesla.md"] and "thomas edison" not in got["tesla.md"]
    assert {k: v for k, v in got.items() if k != "tesla.md"} == {
        k: v for k, v in expected.items() if k != "tesla.md"
    }


def test_an_edit_redoes_its_file_without_comparing_every_chunk(
    tmp_path: Path, indexer: Indexer, store: LanceStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 59: comparing every chunk id cost 1.4 s a sync at 550,000 chunks, for one saved file."""
    docs = folder(tmp_path)
    indexer.index("c", [docs])
    expected = keys_by_file(store)
    compared: list[str] = []
    every_id = EntityTables.indexed

    def counted(tables: EntityTables) -> set[str]:
        compared.append("indexed")
        return every_id(tables)

    monkeypatch.setattr(EntityTables, "indexed", counted)
    write(docs / "tesla.md", TESLA.replace("Thomas Edison", "George Westinghouse"))
    indexer.index("c", [docs])
    indexer.index("c", [docs])  # and a sync with nothing changed
    assert compared == []
    got = keys_by_file(store)
    assert "george westinghouse" in got["tesla.md"] and "thomas edison" not in got["tesla.md"]
    assert {k: v for k, v in got.items() if k != "tesla.md"} == {
        k: v for k, v in expected.items() if k != "tesla.md"
    }


def test_lost_entity_rows_come_back_on_a_sync_without_changes(
    tmp_path: Path, indexer: Indexer, store: LanceStore
) -> None:
    docs = folder(tmp_path)
    indexer.index("c", [docs])
    expected = keys_by_file(store)
    tables = store.entity_tables("c")
    assert tables is not None
    tables._mentions.delete("source LIKE '%edison.md'")  # as if written by a killed sync
    indexer.index("c", [docs])
    assert keys_by_file(store) == expected
    assert store.chunks_mentioning("c", ["general electric"])


def test_an_index_from_scratch_matches_an_incremental_one(tmp_path: Path, embedder: HashEmbedder) -> None:
    docs = folder(tmp_path)
    incremental = LanceStore(str(tmp_path / "a"))
    ix = Indexer(incremental, embedder, small_config())
    ix.index("c", [docs])
    write(docs / "edison.md", EDISON + "\nEdison died in 1931 in West Orange.\n")
    (docs / "warsaw.md").unlink()
    write(docs / "sub" / "warsaw-copy.md", WARSAW)  # a moved file re-uses its chunks
    ix.index("c", [docs])
    scratch = LanceStore(str(tmp_path / "b"))
    Indexer(scratch, embedder, small_config()).index("c", [docs])
    assert set(rows(incremental)) == set(rows(scratch))
    assert {(lk.entity.key, lk.chunks) for lk in incremental.linked("c", "thomas edison")} == {
        (lk.entity.key, lk.chunks) for lk in scratch.linked("c", "thomas edison")
    }


def test_reembedding_keeps_the_entity_index(
    tmp_path: Path, store: LanceStore, embedder: HashEmbedder
) -> None:
    docs = folder(tmp_path)
    Indexer(store, embedder, small_config()).index("c", [docs])
    before = rows(store)
    store.use_embedder(OtherEmbedder(dim=64))
    Indexer(store, OtherEmbedder(dim=64), small_config()).reembed("c")
    assert rows(store) == before  # same chunk ids: not one row rewritten
    assert set(store.entities_in("c", by_id(store))) == set(by_id(store))


def test_removing_the_collection_drops_its_entity_index(
    tmp_path: Path, indexer: Indexer, store: LanceStore
) -> None:
    indexer.index("c", [folder(tmp_path)])
    indexer.remove("c")
    assert store.entity_tables("c") is None
    assert store.chunks_mentioning("c", ["thomas edison"]) == []


def test_switched_off_there_is_no_entity_index(
    tmp_path: Path, store: LanceStore, embedder: HashEmbedder
) -> None:
    docs = folder(tmp_path)
    Indexer(store, embedder, small_config(entities=False)).index("c", [docs])
    assert store.entity_tables("c") is None
    assert store.entities_in("c", by_id(store)) == {}
    Indexer(store, embedder, small_config()).index("c", [docs])  # switched on: built on the next sync
    assert set(keys_by_file(store)) == {"tesla.md", "edison.md", "warsaw.md"}
    Indexer(store, embedder, small_config(entities=False)).index("c", [docs])  # off again: dropped
    assert store.entity_tables("c") is None


def test_a_sync_that_lost_its_writer_lease_writes_no_entities(
    tmp_path: Path, store: LanceStore, embedder: HashEmbedder
) -> None:
    Indexer(store, embedder, small_config(entities=False)).index("c", [folder(tmp_path)])

    def lost() -> None:
        raise CollectionBusyError("another writer took the collection over")

    with pytest.raises(CollectionBusyError):
        EntityUpkeep(store).refresh(store.tables("c"), check=lost)
    tables = store.entity_tables("c")
    assert tables is not None and tables.indexed() == set()


def test_indexed_look_ups_stay_right_after_more_changes(
    tmp_path: Path, indexer: Indexer, store: LanceStore
) -> None:
    docs = folder(tmp_path)
    indexer.index("c", [docs])
    tables = store.entity_tables("c")
    assert tables is not None
    EntityTables(tables._mentions, tables._links, tables._relations, index_rows=1).compact()
    assert {i.columns[0] for i in tables._mentions.list_indices()} == {"key", "chunk_id", "source"}
    write(docs / "tesla.md", TESLA.replace("Thomas Edison", "George Westinghouse"))
    write(docs / "more.md", "# More\n\nThomas Edison met George Westinghouse in Pittsburgh.\n")
    indexer.index("c", [docs])  # rows the indexes do not cover yet, and deleted rows they do
    chunks = by_id(store)
    assert {Path(chunks[i].source).name for i in store.chunks_mentioning("c", ["thomas edison"])} == {
        "edison.md",
        "more.md",
    }
    assert {lk.entity.key for lk in store.linked("c", "george westinghouse")} >= {
        "thomas edison",
        "nikola tesla",
    }
    assert keys_by_file(store)["tesla.md"] >= {"george westinghouse", "nikola tesla"}
