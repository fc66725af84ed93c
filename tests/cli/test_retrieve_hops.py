"""`kimas retrieve --json` runs the multi-hop retrieval `kimas ask` runs and lists each hop (issue 25): its
query and the passages it added, with their places in the final hits. Real files, indexer, LanceDB and the
embedded embedder; the bridge is the LLM-free one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_query_cmd import kimas

pytestmark = pytest.mark.slow

FACTS = {
    "pear.md": "A raw pear has a density of about 0.59 grams per cubic centimetre.",
    "water.md": "Fresh water has a density of about 1 gram per cubic centimetre; objects with a lower density float.",
}
OTHERS = [
    "The violin has four strings tuned in fifths.",
    "Mount Kenya is the second highest mountain in Africa.",
    "Nikola Tesla was born in 1856 in Smiljan.",
    "Warsaw is the capital of Poland.",
    "Pears are grown in orchards in Oregon and Washington.",
    "A sinkhole forms when water dissolves limestone underground.",
    "The pear tree blossoms in early spring.",
    "Swimming pools are treated with chlorine.",
    "Ships float because they displace water.",
    "Apples and pears belong to the rose family.",
    "Water boils at 100 degrees Celsius at sea level.",
    "Wood from the pear tree is used for woodwind instruments.",
    "The Amazon carries more water than any other river.",
    "Lead sinks in water.",
    "Cork floats on water.",
    "A submarine sinks by filling its tanks with water.",
]


def test_retrieve_lists_each_hop_with_the_places_of_what_it_added(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in FACTS.items():
        (docs / name).write_text(text + "\n")
    for i, text in enumerate(OTHERS):
        (docs / f"other{i:02d}.md").write_text(text + "\n")
    assert kimas(tmp_path / "data", "index", str(docs), "--collection", "facts").returncode == 0

    out = kimas(tmp_path / "data", "retrieve", "Would a pear sink in water?", "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    ids = [h["chunk_id"] for h in result["hits"]]
    names = [Path(h["source"]).name for h in result["hits"]]
    assert names.index("pear.md") < 3  # the first fact, found by the question itself
    assert result["hops"] and all(h["round"] == 1 and h["query"] for h in result["hops"])
    assert "stopped" in result["hops_stopped"]
    added = {a["chunk_id"]: a["rank"] for h in result["hops"] for a in h["added"]}
    for chunk_id, rank in added.items():
        assert ids[rank - 1] == chunk_id  # its place in the final order
    assert added and ids[names.index("pear.md")] not in added
    assert min(added.values()) > 5  # the bridge's passages come after the first round's best
