"""Choosing a parser for a file by its extension, and the list of what we index.

Files with a known extension go to their parser; files without an extension (README, LICENSE,
Makefile) are read as plain text when they decode as text; everything else is skipped with a reason.
"""

from __future__ import annotations

from pathlib import Path

from indexer.documents import Document, SkipFile
from indexer.parse_html import parse_html
from indexer.parse_markdown import parse_markdown
from indexer.parse_pdf import PdfExtractor, parse_pdf
from indexer.parse_text import parse_plain

MARKDOWN = {".md", ".markdown", ".mdown", ".mkd", ".mdx"}
HTML = {".html", ".htm", ".xhtml"}
TEXT = {".txt", ".text", ".rst", ".adoc", ".asciidoc", ".org", ".tex", ".csv", ".tsv", ".log", ".srt"}
CODE = {
    ".py", ".pyi", ".ipynb", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".java", ".kt", ".kts", ".scala",
    ".groovy", ".gradle", ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".cs", ".go", ".rs",
    ".rb", ".php", ".swift", ".m", ".mm", ".r", ".jl", ".lua", ".pl", ".pm", ".sh", ".bash", ".zsh",
    ".fish", ".ps1", ".bat", ".sql", ".css", ".scss", ".less", ".vue", ".svelte", ".toml", ".yaml", ".yml",
    ".json", ".ini", ".cfg", ".conf", ".xml", ".cmake", ".mk", ".proto", ".graphql", ".dart", ".ex", ".exs",
    ".erl", ".hs", ".ml", ".clj", ".el", ".vim", ".tf", ".nix", ".zig", ".sol", ".f90", ".asm", ".s",
}  # fmt: skip
PLAIN_NAMES = {"readme", "license", "copying", "authors", "changelog", "makefile", "dockerfile", "notice"}


def file_kind(path: Path) -> str | None:
    """``pdf``, ``markdown``, ``html``, ``text``, ``code``, or None for a type we do not index."""
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        return "pdf"
    if suffix in MARKDOWN:
        return "markdown"
    if suffix in HTML:
        return "html"
    if suffix in TEXT:
        return "text"
    if suffix in CODE:
        return "code"
    if not suffix or path.name.lower() in PLAIN_NAMES:
        return "text"
    return None


class FileParser:
    """Parses one file into a ``Document``; raises ``SkipFile`` for what it will not index.

    Holds the PDF worker process; call ``close()`` when done. Not thread-safe: use it from one thread.
    """

    def __init__(self, *, pdf_page_timeout_s: float = 60.0) -> None:
        self._pdf = PdfExtractor(page_timeout_s=pdf_page_timeout_s)

    def parse(self, path: Path, data: bytes) -> Document:
        kind = file_kind(path)
        if kind is None:
            raise SkipFile(f"unsupported file type '{path.suffix.lower()}'")
        if kind == "pdf":
            return parse_pdf(path, self._pdf)
        if kind == "markdown":
            return Document(parse_markdown(data), kind)
        if kind == "html":
            return Document(parse_html(data), kind)
        return Document(parse_plain(data), kind)

    def close(self) -> None:
        self._pdf.close()
