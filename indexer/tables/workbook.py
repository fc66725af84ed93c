"""Workbooks (``.xlsx``, ``.xlsm``, ``.xls``, ``.ods``) read with python-calamine: every worksheet, each
cell as its value (a formula as the value the program that saved it computed; a formula never computed,
as written by some libraries, reads as empty).

A zip-based workbook passes the zip guard (``indexer.parse.zip_guard``) before calamine sees it. An Office
workbook saved with a password is an encrypted OLE container, not a zip: it is skipped with that reason, as
is a damaged or truncated file. Chart sheets and other non-worksheets are left out.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import cast

import python_calamine as calamine

from indexer.parse.blocks import SkipFile
from indexer.parse.zip_guard import GuardedZip, ZipLimits
from indexer.tables.layout import SheetLayout, layout_sheet
from indexer.tables.values import Cell

__all__ = ["WORKBOOKS", "Workbook", "read_workbook"]

WORKBOOKS = {
    ".xlsx": "Excel (.xlsx)",
    ".xlsm": "Excel (.xlsm)",
    ".xls": "Excel (.xls)",
    ".ods": "OpenDocument spreadsheet (.ods)",
}
_ZIPPED = {".xlsx", ".xlsm", ".ods"}
_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ENCRYPTED = "EncryptedPackage".encode("utf-16-le")
PASSWORD = (
    "a password-protected workbook: its cells cannot be read without the password (save a copy "
    "without it to index it)"
)


@dataclass
class Workbook:
    sheets: list[SheetLayout] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what was left out, said for the file's record


def _check(suffix: str, data: bytes, limits: ZipLimits) -> None:
    what = WORKBOOKS[suffix]
    if data.startswith(_OLE) and _ENCRYPTED in data:
        raise SkipFile(PASSWORD)
    if suffix in _ZIPPED and not data.startswith(_OLE):
        with GuardedZip(data, limits, what) as archive:
            archive.verify()


def read_workbook(suffix: str, data: bytes, limits: ZipLimits) -> Workbook:
    """The worksheets of a workbook (``suffix`` one of ``WORKBOOKS``); ``SkipFile`` when it is
    password-protected, damaged, or would inflate past ``limits``."""
    _check(suffix, data, limits)
    what = WORKBOOKS[suffix]
    book = Workbook()
    try:
        workbook = calamine.CalamineWorkbook.from_filelike(io.BytesIO(data))
        for meta in workbook.sheets_metadata:
            if meta.typ != calamine.SheetTypeEnum.WorkSheet:
                book.notes.append(f"sheet '{meta.name}' is not a worksheet (left out)")
                continue
            cells = workbook.get_sheet_by_name(meta.name).to_python(skip_empty_area=False)
            grid = cast("list[list[Cell]]", cells)  # calamine's cells are among ours
            book.sheets.append(layout_sheet(meta.name, grid))
    except calamine.PasswordError:
        raise SkipFile(PASSWORD) from None
    except (calamine.CalamineError, ValueError, OSError) as err:
        raise SkipFile(f"not a readable {what} file ({err})"[:300]) from None
    return book
