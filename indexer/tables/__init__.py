"""Spreadsheets and CSVs kept as tables beside a collection's chunks (``kimas_desktop/tables.py``).

The indexer writes and lists them (``TableShelf``); the answer side runs planned queries over them.
"""

from __future__ import annotations

from pathlib import PurePath

from kimas_desktop.text.file_types import MARKDOWN_SUFFIXES

__all__ = ["DOCUMENT_SUFFIXES", "TABLE_SUFFIXES", "is_table_file", "keeps_tables"]

# Documents whose parsers give their tables as cells (``indexer.tables.documents``).
DOCUMENT_SUFFIXES = frozenset({".docx", ".pptx", ".html", ".htm", ".xhtml", *MARKDOWN_SUFFIXES})
# What is read as tables: the workbooks python-calamine reads, and delimited text.
TABLE_SUFFIXES = frozenset({".csv", ".tsv", ".xlsx", ".xlsm", ".xls", ".ods"})


def is_table_file(path: str | PurePath) -> bool:
    return PurePath(path).suffix.lower() in TABLE_SUFFIXES


def keeps_tables(path: str | PurePath) -> bool:
    """A file whose tables the shelf keeps: a spreadsheet or CSV, or a document that may hold tables."""
    return is_table_file(path) or PurePath(path).suffix.lower() in DOCUMENT_SUFFIXES
