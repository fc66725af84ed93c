"""Spreadsheets and CSVs kept as tables beside a collection's chunks (``kimas_desktop/tables.py``).

The indexer writes and lists them (``TableShelf``); the answer side runs planned queries over them.
"""
