"""E-books (.epub), OpenDocument text (.odt), RTF and e-mail (.eml): formats the standard library (and
``striprtf`` for RTF) reads well enough that no heavier dependency is worth it.

.epub: the XHTML files in the order of the book's spine, each read like HTML (headings, tables).
.odt: ``content.xml``: headings (``text:h`` with their outline level), paragraphs, list items, tables.
.rtf: plain text with paragraphs. .eml: the headers that identify a message (subject, from, to, date),
then its plain-text body (or its HTML body when it has no plain one); attachments are left out.
"""

from __future__ import annotations

import email
import email.policy
import io
import posixpath
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Iterator

from indexer.documents import Block, SkipFile, join_heading
from indexer.parse_html import parse_html
from indexer.parse_text import decode_text, line_blocks, split_lines
from indexer.tables import table_lines

MAX_MEMBER_BYTES = 64 * 1024**2  # an archive member larger than this (unpacked) is left out: zip bombs

_ODF_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
_ODF_TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
_ODF_OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"


def _zip(data: bytes, what: str) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError) as err:
        raise SkipFile(f"not a readable {what} file ({err})") from None


def _member(archive: zipfile.ZipFile, name: str) -> bytes | None:
    try:
        info = archive.getinfo(name)
    except KeyError:
        return None
    if info.file_size > MAX_MEMBER_BYTES:
        return None
    return archive.read(info)


def _xml(data: bytes | None, what: str) -> ET.Element:
    if data is None:
        raise SkipFile(f"not a readable {what} file (a required part is missing or too large)")
    try:
        return ET.fromstring(data)
    except ET.ParseError as err:
        raise SkipFile(f"not a readable {what} file ({err})") from None


def parse_epub(data: bytes) -> Iterator[Block]:
    archive = _zip(data, "EPUB")
    container = _xml(_member(archive, "META-INF/container.xml"), "EPUB")
    rootfile = next((e.get("full-path") for e in container.iter() if e.tag.endswith("rootfile")), None)
    if not rootfile:
        raise SkipFile("not a readable EPUB file (no package document)")
    package = _xml(_member(archive, rootfile), "EPUB")
    base = posixpath.dirname(rootfile)
    items = {
        e.get("id"): e.get("href", "")
        for e in package.iter()
        if e.tag.endswith("}item") and "html" in (e.get("media-type") or "")
    }
    spine = [e.get("idref") for e in package.iter() if e.tag.endswith("}itemref")]
    for idref in spine:
        href = items.get(idref)
        if not href:
            continue
        content = _member(archive, posixpath.normpath(posixpath.join(base, href)))
        if content is not None:
            yield from parse_html(content)


def _odf_text(element: ET.Element) -> str:
    """The text of an ODF element, with its spaces (``text:s``), tabs and line breaks."""
    parts: list[str] = [element.text or ""]
    for child in element:
        name = child.tag.rsplit("}", 1)[-1]
        if name == "s":
            parts.append(" " * int(child.get(f"{{{_ODF_TEXT}}}c", "1")))
        elif name in ("tab", "line-break"):
            parts.append(" ")
        elif name not in ("note", "annotation"):
            parts.append(_odf_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


def parse_odt(data: bytes) -> Iterator[Block]:
    root = _xml(_member(_zip(data, "OpenDocument"), "content.xml"), "OpenDocument")
    body = next(root.iter(f"{{{_ODF_OFFICE}}}text"), root)
    path: list[str] = []

    def walk(element: ET.Element, listed: bool) -> Iterator[Block]:
        nonlocal path
        for child in element:
            tag = child.tag
            if tag == f"{{{_ODF_TEXT}}}h":
                title = _odf_text(child).strip()
                level = int(child.get(f"{{{_ODF_TEXT}}}outline-level", "1"))
                if title:
                    path = [*path[: level - 1], *([""] * max(0, level - 1 - len(path))), title]
                    yield Block(title, heading=join_heading(path))
            elif tag == f"{{{_ODF_TEXT}}}p":
                text = _odf_text(child).strip()
                if text:
                    yield Block(f"- {text}" if listed else text, heading=join_heading(path))
            elif tag == f"{{{_ODF_TEXT}}}list":
                yield from walk(child, True)
            elif tag == f"{{{_ODF_TABLE}}}table":
                rows = [
                    [_odf_text(cell).strip() for cell in row if cell.tag.endswith("}table-cell")]
                    for row in child.iter(f"{{{_ODF_TABLE}}}table-row")
                ]
                lines = table_lines(rows)
                if lines:
                    yield Block("\n".join(lines), heading=join_heading(path))
            else:
                yield from walk(child, listed)

    yield from walk(body, False)


def parse_rtf(data: bytes) -> Iterator[Block]:
    from striprtf.striprtf import rtf_to_text

    text = decode_text(data)
    if not text.lstrip().startswith("{\\rtf"):
        raise SkipFile("not an RTF file")
    return _paragraphs(rtf_to_text(text, errors="ignore"), "")


def _paragraphs(text: str, heading: str) -> Iterator[Block]:
    """Paragraphs between blank lines, without line numbers (they would not be the file's lines)."""
    for block in line_blocks(split_lines(text)):
        yield Block(block.text, heading=heading)


def parse_eml(data: bytes) -> Iterator[Block]:
    message = email.message_from_bytes(data, policy=email.policy.default)
    fields = [f"{name}: {message[name]}" for name in ("Subject", "From", "To", "Date") if message[name]]
    if not fields:
        raise SkipFile("not an e-mail message (no Subject, From, To or Date header)")
    subject = str(message["Subject"] or "")
    yield Block("\n".join(fields), heading=subject)
    part = message.get_body(preferencelist=("plain", "html"))
    if part is None:
        return
    content = part.get_content()
    if part.get_content_type() == "text/html":
        for block in parse_html(content.encode("utf-8")):
            yield Block(block.text, heading=join_heading([subject, block.heading]))
    else:
        yield from _paragraphs(content, subject)
