"""Which files hold code and which Markdown, by extension: the one list the indexer parses by
(``indexer/parse/registry.py``) and the sentence splitter cuts by (``sentences.text_kind``)."""

from __future__ import annotations

from pathlib import PurePath
from typing import Literal

__all__ = ["CODE_SUFFIXES", "MARKDOWN_SUFFIXES", "TextKind", "text_kind"]

TextKind = Literal["prose", "markdown", "code"]

CODE_SUFFIXES = frozenset(
    """.py .pyi .ipynb .js .mjs .cjs .jsx .ts .tsx .java .kt .kts .scala .groovy .gradle .c .h .cc .cpp .cxx
    .hpp .hh .hxx .cs .go .rs .rb .php .swift .m .mm .r .jl .lua .pl .pm .sh .bash .zsh .fish .ps1 .bat .sql
    .css .scss .less .vue .svelte .toml .yaml .yml .json .ini .cfg .conf .xml .cmake .mk .proto .graphql
    .dart .ex .exs .erl .hs .ml .clj .el .vim .tf .nix .zig .sol .f90 .asm .s""".split()
)
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".mkd", ".mdx"})


def text_kind(source: str) -> TextKind:
    """How to split a chunk of the file at ``source`` (a path or file name) into sentences."""
    suffix = PurePath(source).suffix.lower()
    if suffix in CODE_SUFFIXES:
        return "code"
    if suffix in MARKDOWN_SUFFIXES:
        return "markdown"
    return "prose"
