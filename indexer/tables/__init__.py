"""Spreadsheets and CSVs kept as tables beside a collection's chunks (``kimas_desktop/tables.py``).

The indexer writes and lists them (``TableShelf``); the answer side runs planned queries over them.
"""

from __future__ import annotations

from pathlib import PurePath

__all__ = ["TABLE_SUFFIXES", "is_table_file"]

# What is read as tables: the workbooks python-calamine reads, and delimited text.
TABLE_SUFFIXES = frozenset({".csv", ".tsv", ".xlsx", ".xlsm", ".xls", ".ods"})


def is_table_file(path: str | PurePath) -> bool:
    return PurePath(path).suffix.lower() in TABLE_SUFFIXES
