"""Document outlines and cards (issue 25): built at index time from real files, stored in the manifest,
kept in step with edits, moves and deletions, and made for files an older version indexed."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

from indexer import Indexer, LanceStore
from indexer.chunking import ChunkDraft
from indexer.upkeep.cards import CardBuilder, card_from_json, card_json
from kimas_desktop.types import DocumentCard
from local_models.fake import HashEmbedder
from tests.indexer.files import pdf_bytes, small_config, write
from tests.indexer.sync.test_sync import CountingEmbedder

GUIDE = """# Field Guide to the Northern Orchard

This guide describes how the Northern Orchard cooperative grows, waters and stores its apples.

## Chapter 1: Soil

The orchard stands on sandy loam that drains quickly after rain.
Young apple trees are planted in rows four metres apart, facing south.

## Chapter 2: Irrigation

Water for the apple trees comes from the mill pond through a drip line laid along each row.
In a late frost the sprinklers are switched on so that ice forms a shell around the blossom.

### Pond level

The pond level is checked every Monday and written in the orchard log.

## Chapter 3: Harvest

Picking of the apples starts when the first Bramley apples fall from the trees on their own.
The cold store keeps the apples at three degrees until March.
"""


def _card(store: LanceStore, collection: str, name: str) -> DocumentCard:
    (card,) = [c for c in store.cards(collection) if Path(c.source).name == name]
    return card


def test_a_builder_keeps_the_outline_and_opens_the_card_with_the_lead() -> None:
    builder = CardBuilder("/docs/audit_report-2019.txt")
    drafts = [
        ("", "The 2019 audit of Acme Corporation took place in Leeds in March."),
        ("Findings", "The auditors found three missing invoices in the warehouse ledger of Acme."),
        ("Findings", "The auditors found three missing invoices in the warehouse ledger of Acme."),  # overlap
        ("Findings > Stock", "The warehouse stock counts of Acme matched the ledger within one percent."),
        ("Advice", "Short."),
        ("Advice", "The board of Acme should tender the warehouse contracts every three years."),
    ]
    for i, (heading, text) in enumerate(drafts):
        builder.add(ChunkDraft(i, text, 10, heading=heading, line_start=1 + 3 * i))
    card = builder.card()
    assert card.title == "audit report-2019"  # no heading at the top: the file's name
    assert [s.heading for s in card.outline] == ["Findings", "Findings > Stock", "Advice"]
    assert [s.line for s in card.outline] == [4, 10, 13]
    assert [c.title for c in card.chapters()] == ["Findings", "Advice"]
    texts = [s.text for s in card.synopsis]
    assert texts[0] == "The 2019 audit of Acme Corporation took place in Leeds in March."
    assert len(texts) == len(set(texts)) == 3 and "Short." not in texts
    assert card_from_json(card.source, card_json(card)) == card
    assert card_from_json("/x", None) is None and card_from_json("/x", "{not json") is None


def test_a_chinese_document_gets_a_card_of_its_own_sentences() -> None:
    """Sentences written without spaces were one 'word' each and never prose: a Chinese paper's card had no
    synopsis. Real sentences of ../shared/papers/ragenta.zh.txt and agentic-rag-pattern.zh.txt."""
    builder = CardBuilder("/docs/ragenta.zh.txt")
    text = (
        "检索增强生成(RAG)设计模式通常用于在特定数据域中开发大语言模型(LLM)应用。"
        "本文介绍了一种受人类研究方法启发的新方法,该方法涉及多种搜索技术、观察临时结果、精炼以及在提供响应之前在多步骤过程中重试。"
        "短句。"
    )
    builder.add(ChunkDraft(0, text, 60, line_start=1))
    texts = [s.text for s in builder.card().synopsis]
    assert texts[0].startswith("检索增强生成") and len(texts) == 2 and "短句。" not in texts


def test_code_has_an_outline_of_nothing_and_no_synopsis() -> None:
    builder = CardBuilder("/src/tool.py")
    builder.add(
        ChunkDraft(0, "def main() -> None:\n    print('The tool prints this sentence for you.')\n", 10)
    )
    card = builder.card()
    assert card.title == "tool" and card.synopsis == () and card.outline == ()


def test_cards_follow_edits_moves_and_deletions(tmp_path: Path) -> None:
    store = LanceStore(str(tmp_path / "db"))
    embedder = CountingEmbedder()
    indexer = Indexer(store, embedder, small_config())
    docs = tmp_path / "docs"
    write(docs / "guide.md", GUIDE)
    write(docs / "notes.txt", "Bees visit the orchard in April when the apple blossom opens.\n")
    indexer.index("c", [docs])

    card = _card(store, "c", "guide.md")
    assert card.title == "Field Guide to the Northern Orchard"
    assert [c.title for c in card.chapters()] == [
        "Chapter 1: Soil",
        "Chapter 2: Irrigation",
        "Chapter 3: Harvest",
    ]
    assert "Field Guide to the Northern Orchard > Chapter 2: Irrigation > Pond level" in {
        s.heading for s in card.outline
    }
    assert card.synopsis[0].text.startswith("This guide describes how the Northern Orchard")
    assert card.synopsis[0].line == 3
    assert "Contents: Chapter 1: Soil; Chapter 2: Irrigation; Chapter 3: Harvest." in card.text()
    assert _card(store, "c", "notes.txt").title == "notes"

    write(docs / "guide.md", GUIDE.replace("## Chapter 3: Harvest", "## Chapter 3: Picking and storing"))
    indexer.index("c", [docs])
    assert _card(store, "c", "guide.md").chapters()[2].title == "Chapter 3: Picking and storing"

    embedder.texts.clear()
    (docs / "moved").mkdir()
    shutil.move(docs / "guide.md", docs / "moved" / "guide.md")
    indexer.index("c", [docs])
    assert embedder.texts == []  # a move re-uses the chunks, and the card comes with them
    moved = _card(store, "c", "guide.md")
    assert moved.source == str(docs / "moved" / "guide.md")
    assert moved.chapters()[2].title == "Chapter 3: Picking and storing"

    (docs / "notes.txt").unlink()
    indexer.index("c", [docs])
    assert [Path(c.source).name for c in store.cards("c")] == ["guide.md"]


def test_files_indexed_before_cards_get_theirs_without_embedding(tmp_path: Path) -> None:
    store = LanceStore(str(tmp_path / "db"))
    embedder = CountingEmbedder()
    indexer = Indexer(store, embedder, small_config())
    docs = tmp_path / "docs"
    write(docs / "guide.md", GUIDE)
    indexer.index("c", [docs])
    store.tables("c")._files.drop_columns(["card"])  # the manifest as an older version left it
    assert store.cards("c") == []

    embedder.texts.clear()
    report = indexer.index("c", [docs])
    assert report.indexed == 1 and embedder.texts == []  # read again; every vector re-used
    assert _card(store, "c", "guide.md").title == "Field Guide to the Northern Orchard"
    assert indexer.index("c", [docs]).indexed == 0  # and only once


def test_pdf_bookmarks_are_the_outline_and_the_headings_of_their_pages(tmp_path: Path) -> None:
    from pypdf import PdfReader, PdfWriter

    pages = [
        "Annual report of the orchard cooperative for the members.",
        "The soil of the orchard was limed in October.",
        "The soil tests came back in November.",
        "Water for the trees came from the mill pond all summer.",
    ]
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf_bytes(pages))))
    part = writer.add_outline_item(title="Part I", page_number=0)
    writer.add_outline_item(title="Soil", page_number=1, parent=part)
    writer.add_outline_item(title="Water", page_number=3, parent=part)
    out = io.BytesIO()
    writer.write(out)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "report.pdf").write_bytes(out.getvalue())

    store = LanceStore(str(tmp_path / "db"))
    Indexer(store, HashEmbedder(dim=64), small_config()).index("c", [tmp_path / "docs"])
    by_page = {c.page: c.heading for c in store.chunks("c")}
    assert by_page == {1: "Part I", 2: "Part I > Soil", 3: "Part I > Soil", 4: "Part I > Water"}
    card = _card(store, "c", "report.pdf")
    assert [(s.heading, s.page) for s in card.outline] == [
        ("Part I", 1),
        ("Part I > Soil", 2),
        ("Part I > Water", 4),
    ]
    assert card.title == "Part I"
    assert [c.title for c in card.chapters()] == ["Soil", "Water"]
