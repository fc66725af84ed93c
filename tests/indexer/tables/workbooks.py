"""Real workbooks made in the tests: .xlsx with openpyxl (a formula given the value a spreadsheet program
would have saved with it; a password with msoffcrypto-tool), .ods with odfpy."""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from collections.abc import Mapping, Sequence
from typing import Any

Rows = Sequence[Sequence[Any]]


def xlsx_bytes(sheets: Mapping[str, Rows], *, at: Mapping[str, str] | None = None) -> bytes:
    """A workbook with one sheet per entry; ``at`` puts a sheet's first row at another cell ("B3")."""
    import openpyxl

    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        corner = sheet[(at or {}).get(name, "A1")]
        for i, row in enumerate(rows):
            for j, value in enumerate(row):
                if value is not None:
                    sheet.cell(corner.row + i, corner.column + j, value)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def with_cached_values(xlsx: bytes, values: Mapping[str, str]) -> bytes:
    """``xlsx`` with each formula's saved value filled in (openpyxl saves formulas without one; Excel and
    LibreOffice save the value they computed): ``values`` maps a formula's text ("A2*2") to it."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(xlsx)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename.startswith("xl/worksheets/"):
                text = data.decode("utf-8")
                for formula, value in values.items():
                    text = text.replace(f"<f>{formula}</f><v></v>", f"<f>{formula}</f><v>{value}</v>")
                data = text.encode("utf-8")
            dst.writestr(item, data)
    return out.getvalue()


def encrypted_xlsx(xlsx: bytes, password: str) -> bytes:
    from msoffcrypto.format.ooxml import OOXMLFile

    out = io.BytesIO()
    OOXMLFile(io.BytesIO(xlsx)).encrypt(password, out)
    return out.getvalue()


def ods_bytes(sheets: Mapping[str, Rows]) -> bytes:
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.table import Table, TableCell, TableRow
    from odf.text import P

    doc = OpenDocumentSpreadsheet()
    for name, rows in sheets.items():
        table = Table(name=name)
        for row in rows:
            line = TableRow()
            for value in row:
                if isinstance(value, dt.date):
                    cell = TableCell(valuetype="date", datevalue=value.isoformat())
                elif isinstance(value, int | float):
                    cell = TableCell(valuetype="float", value=value)
                else:
                    cell = TableCell(valuetype="string")
                if value is not None:
                    cell.addElement(P(text=str(value)))
                line.addElement(cell)
            table.addElement(line)
        doc.spreadsheet.addElement(table)
    out = io.BytesIO()
    doc.write(out)
    return out.getvalue()
