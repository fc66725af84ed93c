"""A Chinese question searched by its words alone (the embedder reads no Chinese) also searches the
glossary's English words of it (issue 57): "2009年有多少只雌性企鹅？" finds palmerpenguins' rows of 2009's
females ("sex: female; year: 2009"), not vega_datasets' stock prices of 2009, whose rows match "2009" alone
(the whole ask path answered it over stocks.csv: "没有 雌性 的行")."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import pytest

from indexer import LanceStore
from indexer.parse.zip_guard import ZipLimits
from indexer.tables.ingest import TableReader
from kimas_desktop.config import parse_config
from kimas_desktop.retrieval.agents import RetrievalAgent
from kimas_desktop.text.language import written_in_latin
from local_models.fake import HashEmbedder, MemorySearcher, ScriptedChatModel

pytest.importorskip("vega_datasets")
pytest.importorskip("palmerpenguins")


class EnglishOnly(HashEmbedder):
    def reads(self, text: str) -> bool:
        return written_in_latin(text)


def test_a_chinese_question_finds_the_english_table_its_glossed_words_name(tmp_path: Path) -> None:
    reader = TableReader(
        LanceStore(str(tmp_path / "db")).shelf, "c", zip_limits=ZipLimits(), text_chars=10**9
    )
    embedder = EnglishOnly()
    searcher = MemorySearcher(embedder)
    for name, data in (
        ("stocks.csv", (files("vega_datasets") / "_data/stocks.csv").read_bytes()),
        ("penguins.csv", (files("palmerpenguins") / "data/penguins.csv").read_bytes()),
    ):
        path = tmp_path / name
        path.write_bytes(data)
        searcher.add("tables", [b.text for b in reader.read(path, data).blocks], str(path))
    config = parse_config({})
    agent = RetrievalAgent(
        "tables", searcher=searcher, embedder=embedder, chat=ScriptedChatModel(), config=config
    )
    hits = agent.search("2009年有多少只雌性企鹅？", k=5)
    assert [Path(h.chunk.source).name for h in hits] == ["penguins.csv"] * 5
    assert all("female" in h.chunk.text and "2009" in h.chunk.text for h in hits)
    english = agent.search("How many female penguins were there in 2009?", k=5)
    assert searcher.searches[-1] == ("tables", "How many female penguins were there in 2009?")
    assert len(english) == 5
