"""Questions about a whole document or one of its chapters (issue 25), through `kimas ask` on real files,
the indexer, LanceDB and the embedded models: "What is this document about?" quotes the document's card;
"What does chapter 2 say about frost?" cites chapter 2, though other chapters say more about frost."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_query_cmd import kimas

pytestmark = pytest.mark.slow

CHAPTERS = {
    "Soil and planting": [
        "The orchard stands on sandy loam that drains quickly after rain.",
        "Young apple trees are planted in rows four metres apart, facing south.",
        "Each planting hole is filled with compost from the previous autumn.",
        "Frost pockets at the bottom of the slope are left without trees, because frost settles there first.",
    ],
    "Irrigation": [
        "Water comes from the mill pond through a drip line laid along each row.",
        "The drip line runs for two hours before dawn in dry weeks.",
        "In a late frost the sprinklers are switched on so that ice forms a shell around the blossom.",
        "The pond level is checked every Monday and written in the log.",
    ],
    "Harvest and storage": [
        "Picking starts when the first Bramley apples fall on their own.",
        "Frost damage shows as brown rings under the skin, and frost-bitten fruit is pressed for juice.",
        "A frost warning from the weather service stops picking, because frozen fruit bruises.",
        "The cold store keeps apples at three degrees until March, and frost in the store is a fault.",
    ],
    "Volunteers": [
        "Volunteers meet at the gate at eight on Saturdays.",
        "Each new volunteer works beside a member for the first month.",
        "Gloves, ladders and baskets are kept in the green shed.",
        "Lunch is shared in the barn when the weather is bad.",
    ],
}
LEAD = "This guide describes how the Northern Orchard cooperative plants, waters and harvests its apples."


def guide() -> tuple[str, dict[str, tuple[int, int]]]:
    """The generated guide and the lines each chapter spans."""
    lines = ["# Field Guide to the Northern Orchard", "", LEAD, "It is written for new volunteers.", ""]
    spans: dict[str, tuple[int, int]] = {}
    for n, (title, sentences) in enumerate(CHAPTERS.items(), 1):
        start = len(lines) + 1
        lines += [f"## Chapter {n}: {title}", "", " ".join(sentences[:2]), "", " ".join(sentences[2:]), ""]
        spans[title] = (start, len(lines))
    return "\n".join(lines), spans


@pytest.fixture(scope="module")
def spans(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("documents")
    text, chapter_lines = guide()
    for name, files in (("one", ["guide"]), ("two", ["guide", "kenya"])):
        folder = root / name / "docs"
        folder.mkdir(parents=True)
        (folder / "orchard_guide.md").write_text(text)
        if "kenya" in files:
            (folder / "kenya.md").write_text(
                "# Kenya\n\nKenya is a country in East Africa with a coastline on the Indian Ocean.\n"
                "Its capital and largest city is Nairobi.\n"
            )
        out = kimas(root / name / "data", "index", str(folder), "--collection", "docs")
        assert out.returncode == 0, out.stderr
    return {"root": root, "lines": chapter_lines}


def ask(data: Path, question: str, preset: str = "turbo") -> dict[str, Any]:
    out = kimas(data, "ask", question, "--json", "--preset", preset)
    assert out.returncode == 0, out.stderr
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def stages(result: dict[str, Any]) -> dict[str, Any]:
    return {s["stage"]: s for s in result["trace"]["stages"]}


@pytest.mark.parametrize("preset", ["full", "turbo"])
def test_what_is_this_document_about_quotes_its_card(spans: dict[str, Any], preset: str) -> None:
    result = ask(spans["root"] / "one" / "data", "What is this document about?", preset)
    quote = result["quote"]["parts"][0]
    assert quote["chunk_id"].endswith("orchard_guide.md") and quote["chunk_id"].startswith("card:")
    assert quote["text"].startswith(LEAD)
    assert stages(result)["decision"]["rule"] == "document"
    assert {Path(c["source"]).name for c in result["citations"]} == {"orchard_guide.md"}


def test_a_document_named_in_the_question_is_the_one_summarized(spans: dict[str, Any]) -> None:
    result = ask(spans["root"] / "two" / "data", "Summarize the orchard guide.")
    assert result["quote"]["parts"][0]["chunk_id"].startswith("card:")
    doc = stages(result)["document"]
    assert Path(doc["source"]).name == "orchard_guide.md" and "named in the question" in doc["why"]
    # a question about a fact stays with the passages
    result = ask(spans["root"] / "two" / "data", "What is the capital of Kenya?")
    assert "document" not in stages(result)
    assert "Nairobi" in result["quote"]["text"]


def test_what_chapter_2_says_is_cited_from_chapter_2(spans: dict[str, Any]) -> None:
    first, last = spans["lines"]["Irrigation"]
    result = ask(spans["root"] / "two" / "data", "What does chapter 2 say about frost?")
    doc = stages(result)["document"]
    assert doc["section"].endswith("Chapter 2: Irrigation")
    assert "ice forms a shell around the blossom" in result["quote"]["text"]
    for part in result["quote"]["parts"]:
        assert first <= part["lines"][0] <= part["lines"][1] <= last, part
    assert result["citations"], result["answer"]
    for c in result["citations"]:
        assert Path(c["source"]).name == "orchard_guide.md"
        assert first <= c["lines"][0] <= c["lines"][1] <= last, c
    # asked without the chapter, the question finds frost elsewhere first
    result = ask(spans["root"] / "two" / "data", "What does the guide say about frost?")
    assert "document" not in stages(result)
