"""E-books (.epub), OpenDocument text (.odt), RTF and e-mail (.eml): formats the standard library (and
``striprtf`` for RTF) reads well enough that no heavier dependency is worth it.

.epub: the XHTML files in the order of the book's spine, each read like HTML (headings, tables).
.odt: ``content.xml``: headings (``text:h`` with their outline level), paragraphs, list items, tables.
Both come as a ``GuardedZip`` (indexer/parse/zip_guard.py: zip bombs are refused) and their XML is streamed.
.rtf: plain text with paragraphs. .eml: the headers that identify a message (subject, from, to, date),
then its plain-text body (or its HTML body when it has no plain one); attachments are left out.
"""

from __future__ import annotations

import email
import email.policy
import posixpath
import xml.etree.ElementTree as ET
from collections.abc import Iterator

from indexer.parse.blocks import Block, SkipFile, join_heading
from indexer.parse.html import parse_html
from indexer.parse.tables import table_lines
from indexer.parse.text import decode_text, line_blocks, split_lines
from indexer.parse.zip_guard import GuardedZip

_ODF_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
_ODF_TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
_ODF_OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
_H, _P, _LIST = f"{{{_ODF_TEXT}}}h", f"{{{_ODF_TEXT}}}p", f"{{{_ODF_TEXT}}}list"
_TABLE, _BODY = f"{{{_ODF_TABLE}}}table", f"{{{_ODF_OFFICE}}}text"


def _events(archive: GuardedZip, name: str) -> Iterator[tuple[str, ET.Element]]:
    """``(event, element)`` of one XML member, streamed (``iterparse``) through the archive's counting
    reader: a large part is never held whole."""
    if not archive.has(name):
        raise SkipFile(f"not a readable {archive.what} file (a required part is missing)")
    with archive.open(name) as stream:
        try:
            yield from ET.iterparse(stream, events=("start", "end"))
        except ET.ParseError as err:
            raise SkipFile(f"not a readable {archive.what} file ({err})") from None


def _ends(archive: GuardedZip, name: str) -> Iterator[ET.Element]:
    """Each element of a member once it is complete; cleared when the caller moves on."""
    for event, element in _events(archive, name):
        if event == "end":
            yield element
            element.clear()


def parse_epub(archive: GuardedZip) -> Iterator[Block]:
    rootfile = next(
        (e.get("full-path") for e in _ends(archive, "META-INF/container.xml") if e.tag.endswith("rootfile")),
        None,
    )
    if not rootfile:
        raise SkipFile("not a readable EPUB file (no package document)")
    base = posixpath.dirname(rootfile)
    items: dict[str | None, str] = {}
    spine: list[str | None] = []
    for e in _ends(archive, rootfile):
        if e.tag.endswith("}item") and "html" in (e.get("media-type") or ""):
            items[e.get("id")] = e.get("href", "")
        elif e.tag.endswith("}itemref"):
            spine.append(e.get("idref"))
    for idref in spine:
        href = items.get(idref)
        if not href:
            continue
        name = posixpath.normpath(posixpath.join(base, href))
        if archive.has(name):
            yield from parse_html(archive.read(name))


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


class _OdtBody:
    """Blocks of ``content.xml``'s body from its parse events: each heading, paragraph and table once it is
    complete (paragraphs inside a table, a frame or a note belong to the element around them)."""

    def __init__(self) -> None:
        self.path: list[str] = []
        self.body = self.lists = self.open = 0  # depths: office:text, text:list, the h/p/table being read

    def feed(self, event: str, element: ET.Element) -> Block | None:
        tag = element.tag
        if tag == _BODY:
            self.body += 1 if event == "start" else -1
        elif tag == _LIST and self.open == 0:
            self.lists += 1 if event == "start" else -1
        if not self.body or tag not in (_H, _P, _TABLE):
            return None
        if event == "start":
            self.open += 1
            return None
        self.open -= 1
        if self.open:
            return None
        block = self._block(element)
        element.clear()
        return block

    def _block(self, element: ET.Element) -> Block | None:
        if element.tag == _TABLE:
            rows = [
                [_odf_text(cell).strip() for cell in row if cell.tag.endswith("}table-cell")]
                for row in element.iter(f"{{{_ODF_TABLE}}}table-row")
            ]
            lines = table_lines(rows)
            return Block("\n".join(lines), heading=join_heading(self.path)) if lines else None
        text = _odf_text(element).strip()
        if not text:
            return None
        if element.tag == _H:
            level = int(element.get(f"{{{_ODF_TEXT}}}outline-level", "1"))
            self.path = [*self.path[: level - 1], *([""] * max(0, level - 1 - len(self.path))), text]
            return Block(text, heading=join_heading(self.path))
        return Block(f"- {text}" if self.lists else text, heading=join_heading(self.path))


def parse_odt(archive: GuardedZip) -> Iterator[Block]:
    body = _OdtBody()
    for event, element in _events(archive, "content.xml"):
        block = body.feed(event, element)
        if block is not None:
            yield block


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
