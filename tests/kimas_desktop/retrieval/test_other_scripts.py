"""Files in other scripts (issue 68): an agent over a collection that mixes English and Chinese files adds a
dense search kept to the files in the other script, fused with its own list; a collection of one script,
a full-text search and a search kept to some files are searched once, as before. The store is in memory
(the logic is ours); the real store and models are in tests/local_models/test_reader_across_scripts.py.
The cards (the collection's manifest) are read once per question, however many searches it makes."""

from __future__ import annotations

from collections.abc import Sequence

from kimas_desktop.config import parse_config
from kimas_desktop.pipeline import Pipeline
from kimas_desktop.protocols import SearchMode, Vector
from kimas_desktop.retrieval.agents import RetrievalAgent
from kimas_desktop.retrieval.other_scripts import FileScripts, OtherScripts
from kimas_desktop.types import CardSentence, DocumentCard, Hit
from local_models.fake import HashEmbedder, MemorySearcher, ScriptedChatModel, WordOverlapReranker

EN = "/docs/backups.md"
ZH = "/docs/备份.md"


class CardedSearcher(MemorySearcher):
    """Cards from the first chunk of each file, as the indexer's hold central sentences; every search kept."""

    def __init__(self) -> None:
        super().__init__(HashEmbedder())
        self.calls: list[tuple[SearchMode, tuple[str, ...]]] = []
        self.cards_read: list[str] = []

    def cards(self, collection: str) -> list[DocumentCard]:
        self.cards_read.append(collection)
        first: dict[str, str] = {}
        for c in self.chunks.get(collection, []):
            first.setdefault(c.source, c.text)
        return [DocumentCard(s, s.rsplit("/", 1)[-1], synopsis=(CardSentence(t),)) for s, t in first.items()]

    def search(
        self,
        collection: str,
        *,
        text: str,
        vector: Vector,
        k: int,
        mode: SearchMode = "hybrid",
        sources: Sequence[str] = (),
    ) -> list[Hit]:
        self.calls.append((mode, tuple(sources)))
        return super().search(collection, text=text, vector=vector, k=k, mode=mode, sources=sources)


def agent(searcher: CardedSearcher, scripts: OtherScripts | None) -> RetrievalAgent:
    config = parse_config({})
    return RetrievalAgent(
        "docs",
        searcher=searcher,
        embedder=searcher.embedder,
        chat=ScriptedChatModel(),
        config=config,
        other_scripts=scripts,
    )


def test_an_english_question_also_searches_the_chinese_files_alone() -> None:
    searcher = CardedSearcher()
    searcher.add("docs", ["Backups run every night at two.", "Restores need the admin key."], EN)
    searcher.add("docs", ["备份保存九十天，之后自动删除。"], ZH)
    hits = agent(searcher, OtherScripts(searcher)).search("How long are backups kept?")
    assert searcher.calls == [("hybrid", ()), ("dense", (ZH,))]
    assert ZH in {h.chunk.source for h in hits}
    searcher.calls.clear()
    agent(searcher, OtherScripts(searcher)).search("备份保存多久？")  # a Chinese question: as before
    assert searcher.calls == [("hybrid", ())]


def test_one_script_a_word_search_or_files_named_search_once() -> None:
    searcher = CardedSearcher()
    searcher.add("docs", ["Backups run every night at two."], EN)
    agent(searcher, OtherScripts(searcher)).search("How long are backups kept?")
    assert searcher.calls == [("hybrid", ())]
    searcher.add("docs", ["备份保存九十天。"], ZH)
    searcher.calls.clear()
    agent(searcher, OtherScripts(searcher)).search("How long are backups kept?", sources=[EN])
    agent(searcher, None).search("How long are backups kept?")
    agent(searcher, OtherScripts(searcher)).search("12 + 30")  # no letters: no script to differ from
    assert searcher.calls == [("hybrid", (EN,)), ("hybrid", ()), ("hybrid", ())]


def test_the_files_follow_the_collections_cards_from_one_question_to_the_next() -> None:
    searcher = CardedSearcher()
    searcher.add("docs", ["Backups run every night at two."], EN)
    known = FileScripts()
    assert OtherScripts(searcher, known).files("docs", "How long?") == []
    searcher.add("docs", ["备份保存九十天。"], ZH)
    scripts = OtherScripts(searcher, known)
    assert scripts.files("docs", "How long?") == [ZH]
    assert scripts.files("docs", "保存多久？") == []  # only a question in Latin letters


def test_a_question_reads_each_collections_cards_once_however_many_searches_it_makes() -> None:
    """The question and its keyword rewrite, each searched twice (its own list and the Chinese file's):
    the cards were read on every search before; now once per question, and again for the next question."""
    searcher = CardedSearcher()
    searcher.add("docs", ["Backups run every night at two.", "Restores need the admin key."], EN)
    searcher.add("docs", ["备份保存九十天，之后自动删除。"], ZH)
    searcher.add("other", ["Printers jam when the paper is damp."], "/other/printers.md")
    searcher.add("other", ["打印机在纸张潮湿时会卡纸。"], "/other/打印机.md")
    config = parse_config({"retrieval": {"default_strategy": "keyword"}, "routing": {"top_k": 2}})
    chat = ScriptedChatModel()
    pipeline = Pipeline(
        config=config,
        chat=chat,
        embedder=searcher.embedder,
        reranker=WordOverlapReranker(),
        searcher=searcher,
    )
    result = pipeline.retrieve("How long are the nightly backups kept?")
    assert set(result.active) == {"docs", "other"}
    assert ("dense", (ZH,)) in searcher.calls and len(searcher.calls) >= 4
    assert sorted(searcher.cards_read) == ["docs", "other"]
    pipeline.retrieve("When do the backups run?")
    assert sorted(searcher.cards_read) == ["docs", "docs", "other", "other"]
