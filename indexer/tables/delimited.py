"""``.csv`` and ``.tsv`` files as one table, streamed: rows are read again for each pass, never held.

The encoding is told from the file's start (a byte-order mark, else UTF-8 when it decodes or a line beyond
ASCII does, else charset-normalizer's guess; a UTF-8 file's lines that are not UTF-8 are read as
Windows-1252); the dialect by ``csv.Sniffer`` on the first lines, at most 4 KB (a ``.tsv`` is tab-separated;
when the sniffer cannot tell, a comma). A ``;``-separated file writes decimals with a comma ("3,5"). A row's
number is the line it starts on; blank lines are skipped; the header is found as in a sheet
(``indexer.tables.layout``), and the lines above it (a title) stay readable as text.
"""

from __future__ import annotations

import codecs
import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice

from charset_normalizer import from_bytes

from indexer.parse.blocks import SkipFile
from indexer.tables.layout import HEADER_SCAN, RawTable, find_header, unique_names
from indexer.tables.values import Cell

__all__ = ["DelimitedFile", "read_delimited"]

SAMPLE = 64 * 1024
SNIFF = 4 * 1024  # csv.Sniffer's time grows with the square of its sample: 25 s on one hostile 64 KB line
DELIMITERS = ",;\t|"
_WESTERN = set("€‚„…‘’“”–—•ŠšŒœŽžŸ°«»¿¡§©®±²³µ·¹º¼½¾ £¥¢")
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


@dataclass(frozen=True)
class DelimitedFile:
    table: RawTable
    notes: list[tuple[int, str]]  # lines above the header, as (line, text)
    decimal_comma: bool


def _encoding(data: bytes) -> str:
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name
    head = data[:SAMPLE]
    try:
        head.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError as err:
        if err.start >= len(head) - 3 and len(data) > SAMPLE:  # a character cut by the sample's end
            return "utf-8"
    if b"\0" in head:
        raise SkipFile("not a text file (it holds NUL bytes), though named as a CSV")
    if _utf8_lines(head):
        return "utf-8"
    if _western(head):
        return "cp1252"
    guess = from_bytes(head).best()
    if guess is None:
        raise SkipFile("not a text file, though named as a CSV (no encoding reads it)")
    return str(guess.encoding)


def _utf8_lines(head: bytes) -> bool:
    """Whether a line of ``head`` beyond ASCII reads as UTF-8: a UTF-8 file with some rows in Windows-1252
    (rows pasted from an older file), read line by line (``_lines``); a file all in a legacy encoding
    practically never holds such a line."""
    return any(not line.isascii() and _decodes(line) for line in head.split(b"\n")[:-1])


def _decodes(line: bytes) -> bool:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _lines(data: bytes, encoding: str) -> Iterator[str]:
    """The file's lines as text, endings kept (as ``newline=""`` reads them). A UTF-8 file is decoded line
    by line, and a line that is not UTF-8 is read as Windows-1252 rather than turned into U+FFFD."""
    if encoding not in ("utf-8", "utf-8-sig"):
        yield from io.TextIOWrapper(io.BytesIO(data), encoding=encoding, errors="replace", newline="")
        return
    for raw in io.BytesIO(data):  # split at b"\n", which is never part of a UTF-8 character
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError:
            text = raw.decode("cp1252", errors="replace")
        if "\r" in text.rstrip("\r\n"):  # an old Mac line ending inside: split there too
            yield from io.StringIO(text, newline="")
        else:
            yield text


def _fit(lines: list[str], delimiter: str) -> tuple[float, int]:
    """How well ``delimiter`` cuts ``lines`` into rows of one width: (share of rows of the commonest
    width, that width); 0 when it does not cut them at all."""
    widths = [len(r) for r in csv.reader(lines, delimiter=delimiter) if any(c.strip() for c in r)]
    if not widths:
        return 0.0, 0
    common = max(set(widths), key=lambda w: (widths.count(w), w))
    return (widths.count(common) / len(widths) if common > 1 else 0.0), common


def _western(head: bytes) -> bool:
    """Whether ``head`` reads as Windows-1252 with only Western letters and punctuation outside ASCII, and
    few of them (an accent here and there, as in French or German; Cyrillic in cp1251 would read as
    accented letters only): the commonest legacy encoding of a CSV, where charset-normalizer may pick a
    DOS code page on a short sample."""
    try:
        text = head.decode("cp1252")
    except UnicodeDecodeError:
        return False
    if not all(c.isascii() or c in _WESTERN or ("À" <= c <= "ÿ" and c not in "×÷") for c in text):
        return False
    accented = sum(1 for c in text if "À" <= c <= "ÿ")
    return accented <= 0.3 * sum(1 for c in text if c.isalpha())


def _dialect(sample: str, tab: bool) -> type[csv.Dialect] | csv.Dialect:
    """The sniffer's dialect when its delimiter cuts the first lines as evenly as any other (it is misled
    by a title line), else the one that does, with the usual quoting. The sniffer reads only the whole
    lines within the first ``SNIFF`` characters, so a hostile line cannot hold indexing for seconds."""
    if tab:
        return csv.excel_tab
    lines = sample[: sample.rfind("\n") + 1 or len(sample)].splitlines()[:50]
    fits = {d: _fit(lines, d) for d in DELIMITERS}
    best = max(DELIMITERS, key=lambda d: fits[d])
    sniffable = "\n".join(lines)[:SNIFF]
    if len(sniffable) == SNIFF:  # whole lines only; none when the first is longer than SNIFF
        sniffable = sniffable[: sniffable.rfind("\n") + 1]
    try:
        sniffed = csv.Sniffer().sniff(sniffable, delimiters=DELIMITERS)
        if fits.get(sniffed.delimiter, (0.0, 0)) >= fits[best]:
            return sniffed
    except csv.Error:
        pass
    dialect = csv.excel()
    dialect.delimiter = best if fits[best][0] > 0 else ","
    return dialect


def _records(
    data: bytes, encoding: str, dialect: type[csv.Dialect] | csv.Dialect
) -> Iterator[tuple[int, list[str]]]:
    reader = csv.reader(_lines(data, encoding), dialect)
    line = 0
    try:
        for cells in reader:
            if any(c.strip() for c in cells):
                yield line + 1, cells
            line = reader.line_num
    except csv.Error as err:
        raise SkipFile(f"not a readable CSV file (line {reader.line_num}: {err})") from None


def read_delimited(data: bytes, *, tab: bool) -> DelimitedFile:
    """The table of a CSV (``tab``: a TSV); ``SkipFile`` when it is not text or not readable as CSV."""
    encoding = _encoding(data)
    sample = data[:SAMPLE].decode(encoding, errors="ignore")
    dialect = _dialect(sample, tab)
    first = list(islice(_records(data, encoding, dialect), HEADER_SCAN))
    if not first:
        raise SkipFile("an empty table (no rows)")
    head = find_header([list[Cell](cells) for _, cells in first])
    width = max(len(cells) for _, cells in first[(head or 0) :])
    header_row, names = 0, unique_names([""] * width)
    notes: list[tuple[int, str]] = []
    if head is not None:
        header_row = first[head][0]
        names = unique_names([*first[head][1], *[""] * (width - len(first[head][1]))])
        notes = [(line, " ".join(" ".join(cells).split())) for line, cells in first[:head]]

    def rows() -> Iterator[tuple[int, list[Cell]]]:
        for line, cells in _records(data, encoding, dialect):
            if line > header_row:
                padded: list[Cell] = [*cells[:width], *[""] * (width - len(cells))]
                yield line, padded

    table = RawTable("", header_row, names, rows)
    return DelimitedFile(table, notes, decimal_comma=getattr(dialect, "delimiter", ",") == ";")
