"""Word, PowerPoint, EPUB, OpenDocument, RTF and e-mail files made by the tests with the libraries people
use to write them: what text, headings, lists and tables (as readable rows) come out, in reading order."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from PIL import Image

from indexer.parse.blocks import Block, SkipFile
from indexer.parse.registry import FileParser, file_kind


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (40, 30), (200, 30, 30)).save(out, "PNG")
    return out.getvalue()


def parse(path: Path) -> list[Block]:
    parser = FileParser()
    try:
        return list(parser.parse(path, path.read_bytes()).blocks)
    finally:
        parser.close()


def text_of(blocks: list[Block]) -> str:
    return "\n".join(b.text for b in blocks)


def test_docx_headings_lists_table_and_image_in_reading_order(tmp_path: Path) -> None:
    import docx

    document = docx.Document()
    document.add_heading("Field manual", level=1)
    document.add_paragraph("The station opens at dawn.")
    document.add_heading("Equipment", level=2)
    document.add_paragraph("Carry a compass", style="List Bullet")
    document.add_paragraph("Carry a whistle", style="List Bullet")
    document.add_picture(io.BytesIO(_png()))
    table = document.add_table(rows=3, cols=2)
    for row, (item, weight) in zip(
        table.rows, [("Item", "Weight"), ("Tent", "2.4 kg"), ("Stove", "0.3 kg")], strict=True
    ):
        row.cells[0].text, row.cells[1].text = item, weight
    document.add_heading("Rations", level=2)
    document.add_paragraph("Water first.")
    path = tmp_path / "manual.docx"
    document.save(path)

    blocks = parse(path)
    assert file_kind(path) == "docx"
    assert [b.text for b in blocks] == [
        "Field manual",
        "The station opens at dawn.",
        "Equipment",
        "- Carry a compass",
        "- Carry a whistle",
        "Item | Weight\nItem: Tent; Weight: 2.4 kg\nItem: Stove; Weight: 0.3 kg",
        "Rations",
        "Water first.",
    ]
    assert blocks[1].heading == "Field manual"
    assert blocks[5].heading == "Field manual > Equipment"
    assert blocks[7].heading == "Field manual > Rations"


def test_pptx_one_page_per_slide_with_title_bullets_table_and_notes(tmp_path: Path) -> None:
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Quarterly review"
    body = slide.placeholders[1].text_frame
    body.text = "Revenue grew"
    sub = body.add_paragraph()
    sub.text = "mostly in Norway"
    sub.level = 1
    slide.notes_slide.notes_text_frame.text = "Mention the ferry contract."
    second = deck.slides.add_slide(deck.slide_layouts[5])
    second.shapes.title.text = "Offices"
    shape = second.shapes.add_table(3, 2, Inches(1), Inches(2), Inches(6), Inches(2))
    for r, (city, staff) in enumerate([("City", "Staff"), ("Bergen", "41"), ("Tromsø", "12")]):
        shape.table.cell(r, 0).text, shape.table.cell(r, 1).text = city, staff
    second.shapes.add_picture(io.BytesIO(_png()), Inches(1), Inches(5))
    path = tmp_path / "review.pptx"
    deck.save(path)

    blocks = parse(path)
    assert (blocks[0].page, blocks[0].heading) == (1, "Quarterly review")
    first = text_of([b for b in blocks if b.page == 1])
    assert "Revenue grew\n  - mostly in Norway" in first
    assert "Notes: Mention the ferry contract." in first
    second_text = text_of([b for b in blocks if b.page == 2])
    assert "City: Bergen; Staff: 41\nCity: Tromsø; Staff: 12" in second_text
    assert {b.heading for b in blocks if b.page == 2} == {"Offices"}


def _epub(path: Path, chapters: list[tuple[str, str]]) -> None:
    manifest = "".join(
        f'<item id="c{i}" href="text/c{i}.xhtml" media-type="application/xhtml+xml"/>'
        for i in range(len(chapters))
    )
    spine = "".join(f'<itemref idref="c{i}"/>' for i in reversed(range(len(chapters))))  # spine order rules
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mimetype", "application/epub+zip")
        z.writestr(
            "META-INF/container.xml",
            '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
            '<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
            "</rootfiles></container>",
        )
        z.writestr(
            "OEBPS/content.opf",
            '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
            f'<manifest>{manifest}<item id="img" href="img/p.png" media-type="image/png"/></manifest>'
            f"<spine>{spine}</spine></package>",
        )
        z.writestr("OEBPS/img/p.png", _png())
        for i, (title, body) in enumerate(chapters):
            z.writestr(
                f"OEBPS/text/c{i}.xhtml",
                f'<html xmlns="http://www.w3.org/1999/xhtml"><body><h1>{title}</h1>{body}</body></html>',
            )


def test_epub_chapters_in_spine_order_with_lists_tables_and_images(tmp_path: Path) -> None:
    path = tmp_path / "book.epub"
    _epub(
        path,
        [
            ("Second chapter", "<p>The lighthouse keeper wrote daily.</p>"),
            (
                "First chapter",
                '<p>It begins.</p><ul><li>a lamp</li><li>a logbook</li></ul><img src="../img/p.png"/>'
                "<table><tr><th>Year</th><th>Ships</th></tr><tr><td>1901</td><td>17</td></tr></table>",
            ),
        ],
    )
    blocks = parse(path)
    texts = [b.text for b in blocks]
    assert texts.index("First chapter") < texts.index("Second chapter")
    assert "a lamp" in texts and "a logbook" in texts
    assert "Year: 1901; Ships: 17" in text_of(blocks)
    assert (
        next(b for b in blocks if b.text == "The lighthouse keeper wrote daily.").heading == "Second chapter"
    )


def test_odt_headings_list_and_table(tmp_path: Path) -> None:
    t = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
    tb = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
    o = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
    content = (
        f'<office:document-content xmlns:office="{o}" xmlns:text="{t}" xmlns:table="{tb}"><office:body>'
        '<office:text><text:h text:outline-level="1">Minutes</text:h><text:p>Present:<text:s text:c="2"/>'
        "all</text:p><text:list><text:list-item><text:p>budget approved</text:p></text:list-item></text:list>"
        "<table:table><table:table-row><table:table-cell><text:p>Task</text:p></table:table-cell>"
        "<table:table-cell><text:p>Owner</text:p></table:table-cell></table:table-row><table:table-row>"
        "<table:table-cell><text:p>Roof</text:p></table:table-cell><table:table-cell><text:p>Ada</text:p>"
        "</table:table-cell></table:table-row></table:table></office:text></office:body></office:document-content>"
    )
    path = tmp_path / "minutes.odt"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        z.writestr("content.xml", content)
    assert [b.text for b in parse(path)] == [
        "Minutes",
        "Present:  all",
        "- budget approved",
        "Task | Owner\nTask: Roof; Owner: Ada",
    ]


def test_rtf_and_eml(tmp_path: Path) -> None:
    rtf = tmp_path / "letter.rtf"
    rtf.write_text(
        r"{\rtf1\ansi{\fonttbl\f0\fswiss Helvetica;}\f0 Dear committee,\par\par The {\b bridge} opens in May.\par}"
    )
    assert "The bridge opens in May." in text_of(parse(rtf))

    from email.message import EmailMessage

    message = EmailMessage()
    message["Subject"] = "Boiler service"
    message["From"] = "ops@example.org"
    message["To"] = "team@example.org"
    message.set_content("The boiler is serviced on Thursday.\n\nBring the key.")
    message.add_attachment(_png(), maintype="image", subtype="png", filename="boiler.png")
    eml = tmp_path / "note.eml"
    eml.write_bytes(bytes(message))
    blocks = parse(eml)
    assert "Subject: Boiler service" in blocks[0].text
    assert "The boiler is serviced on Thursday." in text_of(blocks)
    assert {b.heading for b in blocks} == {"Boiler service"}


@pytest.mark.parametrize("suffix", [".docx", ".pptx", ".epub", ".odt"])
def test_broken_office_files_are_skipped_with_a_reason(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"broken{suffix}"
    path.write_bytes(b"PK\x03\x04 this is not really a zip archive")
    with pytest.raises(SkipFile, match="not a readable"):
        parse(path)


def test_html_and_markdown_tables_become_readable_rows(tmp_path: Path) -> None:
    html = tmp_path / "plans.html"
    html.write_text(
        "<h1>Plans</h1><table><tr><th>Plan</th><th>Price</th></tr><tr><td>Basic</td><td>9 EUR</td></tr>"
        "<tr><td>Pro</td><td><b>29</b> EUR</td></tr></table><p>Prices include tax.</p>"
    )
    blocks = parse(html)
    assert blocks[1].text == "Plan | Price\nPlan: Basic; Price: 9 EUR\nPlan: Pro; Price: 29 EUR"
    assert blocks[2].text == "Prices include tax."

    md = tmp_path / "plans.md"
    md.write_text(
        "# Plans\n\n| Plan | Price |\n|------|------:|\n| Basic | 9 EUR |\n| Pro | 29 EUR |\n\nAfter.\n"
    )
    table = parse(md)[1]
    assert table.text == "Plan | Price\n\nPlan: Basic; Price: 9 EUR\nPlan: Pro; Price: 29 EUR"
    assert table.line_start == 3  # rows keep their source lines: "Pro" is line 6


def test_a_manuals_note_boxes_are_text_not_tables() -> None:
    """The Debian Reference (real DocBook HTML, ``debian-reference-en``) lays out each Note/Tip/Warning as
    a table: its label, then its text. Such a box keeps its lines in the text but is no table (no row
    fills two cells), so a table question never reads it; the chapter's real tables stay tables."""
    chapter = Path("/usr/share/debian-reference/ch02.en.html")
    if not chapter.exists():
        pytest.skip("debian-reference-en is not installed")
    blocks = parse(chapter)
    notes = [b for b in blocks if b.text.startswith(("Note\n", "Tip\n", "Warning\n", "Caution\n"))]
    assert len(notes) >= 10 and not any(b.table for b in notes)
    packages = [b for b in blocks if b.table and b.table[0][:2] == ("package", "popcon")]
    assert len(packages) >= 2 and all(len(b.table) >= 3 for b in packages)
    caution = next(b for b in notes if b.text.startswith("Caution\n"))
    assert caution.text.splitlines()[1].startswith("For your production server")


def test_a_one_column_list_stays_a_table(tmp_path: Path) -> None:
    page = tmp_path / "fruit.html"
    page.write_text("<table><tr><th>Fruit</th></tr><tr><td>Apple</td></tr><tr><td>Pear</td></tr></table>")
    assert parse(page)[0].table == (("Fruit",), ("Apple",), ("Pear",))
