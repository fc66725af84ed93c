"""Sentence splitting on chunks as the real parsers and chunker make them (PDF, Markdown, code)."""

from __future__ import annotations

from pathlib import Path

from indexer.chunking import Chunker
from indexer.parse.registry import FileParser
from kimas_desktop.text.sentences import split_sentences, text_kind
from tests.indexer.files import write, write_pdf


def chunk_texts(path: Path) -> list[str]:
    parser = FileParser()
    try:
        doc = parser.parse(path, path.read_bytes())
        chunker = Chunker(lambda t: len(t.split()), chunk_tokens=60, overlap_tokens=0, max_tokens=128)
        return [d.text for d in chunker.chunks(doc.blocks)]
    finally:
        parser.close()


def sentences_of(path: Path) -> list[str]:
    out = []
    for text in chunk_texts(path):
        for s in split_sentences(text, text_kind(str(path))):
            assert text[s.start : s.end] == s.text
            out.append(s.text)
    return out


def test_pdf_chunks_split_into_whole_sentences_across_wrapped_lines(tmp_path: Path) -> None:
    page = (
        "The backup server is called hermes. It copies every\n"
        "laptop at 02:00 each night. Restores are requested\n"
        "from the helpdesk."
    )
    found = [" ".join(s.split()) for s in sentences_of(write_pdf(tmp_path / "it.pdf", [page]))]
    assert found == [
        "The backup server is called hermes.",
        "It copies every laptop at 02:00 each night.",
        "Restores are requested from the helpdesk.",
    ]


def test_markdown_chunks_keep_headings_and_list_items_apart(tmp_path: Path) -> None:
    md = (
        "# Office guide\n\nThe office opens at 8. Visitors sign in at the desk.\n\n"
        "## Parking\n\n- Level 2 is for staff.\n- Level 3 is for visitors.\n"
    )
    found = sentences_of(write(tmp_path / "guide.md", md))
    assert "The office opens at 8." in found
    assert "Visitors sign in at the desk." in found
    assert "- Level 2 is for staff." in found and "- Level 3 is for visitors." in found
    assert "# Office guide" in found


def test_code_chunks_split_by_line(tmp_path: Path) -> None:
    code = 'def backup(host: str) -> None:\n    """Copy the host. Then verify."""\n    run(host)\n'
    found = sentences_of(write(tmp_path / "backup.py", code))
    assert found == ["def backup(host: str) -> None:", '"""Copy the host. Then verify."""', "run(host)"]
