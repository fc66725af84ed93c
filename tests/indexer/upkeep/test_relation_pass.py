"""The optional relation pass over the entity index (issue 25): a scripted chat model, real LanceDB and
files; resumable after a cancel, incremental after a change, and a bad reply does not stall it."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from indexer import Indexer, LanceStore
from indexer.upkeep.relation_pass import RelationPass, RelationProgress
from kimas_desktop.control import IndexControl
from kimas_desktop.errors import Cancelled
from kimas_desktop.types import Message
from local_models.fake import ScriptedChatModel
from tests.indexer.files import write
from tests.indexer.upkeep.test_entities import EDISON, TESLA, WARSAW


def listed(messages: Sequence[Message]) -> dict[str, int]:
    """entity name → its number, from the prompt."""
    part = messages[-1].content.split("Entities:\n", 1)[1]
    return {m.group(2): int(m.group(1)) for m in re.finditer(r"^(\d+)\. (.+)$", part, re.M)}


def reader(messages: Sequence[Message], schema: Mapping[str, Any] | None) -> str:
    """Relates the first two entities listed, as "related to"; Tesla's birthplace properly."""
    assert schema is not None and "relations" in schema["properties"]
    numbers = listed(messages)
    if "Nikola Tesla" in numbers and "Smiljan" in numbers:
        pair = (numbers["Nikola Tesla"], numbers["Smiljan"], "born in")
    else:
        pair = (1, 2, "related to")
    return json.dumps({"relations": [{"subject": pair[0], "predicate": pair[2], "object": pair[1]}]})


def relation_rows(store: LanceStore, name: str) -> list[tuple[str, str, str, int]]:
    """(subject, predicate, object, row id) of the relations read in file ``name``."""
    tables = store.entity_tables("c")
    assert tables is not None
    where = f"source LIKE '%/{name}' AND subject != ''"
    rows = tables._relations.search().with_row_id(True).where(where).limit(None).to_arrow().to_pylist()
    return sorted((r["subject"], r["predicate"], r["object"], r["_rowid"]) for r in rows)


def indexed(tmp_path: Path, indexer: Indexer) -> Path:
    docs = tmp_path / "docs"
    for name, text in (("tesla.md", TESLA), ("edison.md", EDISON), ("warsaw.md", WARSAW)):
        write(docs / name, text)
    indexer.index("c", [docs])
    return docs


def test_a_pass_stores_relations_between_the_passage_entities(
    tmp_path: Path, indexer: Indexer, store: LanceStore
) -> None:
    indexed(tmp_path, indexer)
    chat = ScriptedChatModel(reader)
    seen: list[RelationProgress] = []
    final = RelationPass(store, chat).run("c", seen.append)
    assert final.finished and final.done == final.total == len(chat.calls) == 3 and final.failed == 0
    assert [p.done for p in seen[:-1]] == [1, 2, 3]
    born = [r for r in store.relations("c", "nikola tesla") if r.predicate == "born in"]
    assert [(r.subject.name, r.object.name) for r in born] == [("Nikola Tesla", "Smiljan")]
    assert "Smiljan" in {c.chunk_id: c.text for c in store.chunks("c")}[born[0].chunk_id]
    assert store.relations("c", "smiljan") == born  # found from either end
    again = RelationPass(store, chat).run("c")
    assert again.total == 0 and len(chat.calls) == 3  # nothing read twice


def test_a_cancelled_pass_keeps_what_it_read_and_the_next_one_resumes(
    tmp_path: Path, indexer: Indexer, store: LanceStore
) -> None:
    indexed(tmp_path, indexer)
    control = IndexControl()

    def cancel_after_two(messages: Sequence[Message], schema: Mapping[str, Any] | None) -> str:
        if len(chat.calls) == 2:
            control.cancel()
        return reader(messages, schema)

    chat = ScriptedChatModel(cancel_after_two)
    with pytest.raises(Cancelled):
        RelationPass(store, chat).run("c", control=control)
    assert len(chat.calls) == 2
    rest = ScriptedChatModel(reader)
    final = RelationPass(store, rest).run("c")
    assert final.total == 1 and len(rest.calls) == 1


def test_a_reply_that_does_not_fit_counts_as_failed_and_the_pass_goes_on(
    tmp_path: Path, indexer: Indexer, store: LanceStore
) -> None:
    indexed(tmp_path, indexer)
    bad = json.dumps({"relations": [{"subject": 1, "predicate": "x", "object": 99}]})
    chat = ScriptedChatModel(["not json", bad, json.dumps({"relations": []})])
    final = RelationPass(store, chat).run("c")
    assert (final.done, final.failed, final.relations) == (3, 2, 0)
    assert RelationPass(store, chat).run("c").total == 0  # read, even if failed: not asked again


def test_a_changed_file_loses_its_relations_and_only_it_is_read_again(
    tmp_path: Path, indexer: Indexer, store: LanceStore
) -> None:
    docs = indexed(tmp_path, indexer)
    RelationPass(store, ScriptedChatModel(reader)).run("c")
    others = relation_rows(store, "edison.md") + relation_rows(store, "warsaw.md")
    assert len(others) == 2
    write(docs / "tesla.md", TESLA.replace("Smiljan", "Gospić"))
    indexer.index("c", [docs])
    assert store.relations("c", "smiljan") == []
    chat = ScriptedChatModel(reader)
    final = RelationPass(store, chat).run("c")
    assert final.total == 1 and "Gospić" in chat.calls[0][0][-1].content
    assert relation_rows(store, "edison.md") + relation_rows(store, "warsaw.md") == others  # untouched


def test_without_an_entity_index_there_is_nothing_to_read(tmp_path: Path, store: LanceStore) -> None:
    chat = ScriptedChatModel(reader)
    assert RelationPass(store, chat).run("nothing").total == 0
    assert chat.calls == []


def test_predicates_that_are_not_words_are_dropped(
    tmp_path: Path, indexer: Indexer, store: LanceStore
) -> None:
    indexed(tmp_path, indexer)

    def junk(messages: Sequence[Message], schema: Mapping[str, Any] | None) -> str:
        numbers = listed(messages)
        first = next(iter(numbers))
        items = [
            {"subject": 1, "predicate": "2011 }, {", "object": 2},
            {"subject": 1, "predicate": first, "object": 2},  # the entity's own name
            {"subject": 2, "predicate": "is near", "object": 2},  # itself
            {"subject": 1, "predicate": "Is Near", "object": 2},
        ]
        return json.dumps({"relations": items})

    final = RelationPass(store, ScriptedChatModel(junk)).run("c")
    assert (final.done, final.failed, final.relations) == (3, 0, 3)
    tables = store.entity_tables("c")
    assert tables is not None
    rows = tables._relations.search().where("subject != ''").limit(None).to_arrow().to_pylist()
    assert {r["predicate"] for r in rows} == {"is near"}


def test_relations_of_chunks_gone_meanwhile_are_dropped_and_read_again_later(
    tmp_path: Path, indexer: Indexer, store: LanceStore
) -> None:
    docs = indexed(tmp_path, indexer)
    RelationPass(store, ScriptedChatModel(reader)).run("c")
    tables = store.entity_tables("c")
    assert tables is not None
    tables._mentions.delete("source LIKE '%/tesla.md'")  # a sync redid the file while the pass ran
    assert RelationPass(store, ScriptedChatModel(reader)).run("c").total == 0
    assert relation_rows(store, "tesla.md") == [] and store.relations("c", "smiljan") == []
    indexer.index("c", [docs])  # the entities come back
    chat = ScriptedChatModel(reader)
    assert RelationPass(store, chat).run("c").total == 1
    assert [r.predicate for r in store.relations("c", "smiljan")] == ["born in"]
