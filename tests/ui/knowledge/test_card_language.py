"""A document card says what its language is (issue 69): a CSV of numbers and codes, which the language
identifier calls "zxx" (no linguistic content), was shown as "language: zxx"; it is said as a table with no
language, in the page's language. A language the identifier tells keeps its code."""

from __future__ import annotations

from app.knowledge.documents import Document
from kimas_desktop.types import CardTable, DocumentCard
from ui.knowledge.documents_view import card_html


def _doc(language: str, tables: tuple[CardTable, ...] = ()) -> Document:
    card = DocumentCard("/d/sales.csv", "sales", language=language, tables=tables)
    return Document("/d/sales.csv", "sales.csv", "indexed", "", 1, 0, 0.0, False, card=card)


def test_a_table_with_no_language_says_so() -> None:
    table = (CardTable("", 1, 3, (("region", "text"), ("month", "date"), ("units", "number"))),)
    english, chinese = card_html(_doc("zxx", table)), card_html(_doc("zxx", table), "zh")
    assert "(document card, a table: no language)" in english and "zxx" not in english
    assert "（文档卡片，表格：没有语言）" in chinese and "zxx" not in chinese
    assert "(document card, no language: numbers or codes)" in card_html(_doc("zxx"))
    assert "(document card, language: de)" in card_html(_doc("de"))
