"""A collection's two names: the name the user gives it (any text: "My docs", "研究资料 2026") and its id.

The id is what the store, the config's table (``[collections.<id>]``), the uploads folder and the routing
know a collection by; it never changes, so a rename re-indexes nothing. A collection made before names
were free text has its old name as its id and no separate title (``CollectionConfig.title`` is empty), and
keeps working as it was. A new collection whose name is a plain id already (``docs``, ``team-notes``) takes
it as its id too; any other name gets an ASCII id made from its letters and digits (``my-docs``;
``collection-2026`` for "研究资料 2026"), so the id stays a safe folder name on every file system.

Two collections never share a name, compared without regard to case, Unicode form or extra spaces; nor
may a name be another collection's id (the CLI takes either).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping

from kimas_desktop.errors import ConfigError

__all__ = ["MAX_NAME_CHARS", "check_display_name", "name_key", "new_collection_id", "owner_of"]

MAX_NAME_CHARS = 80
_PLAIN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
_ID_CHARS = 40


def check_display_name(name: str) -> str:
    """The name as kept (NFC, spaces collapsed and stripped), or a ``ConfigError`` that says why not."""
    text = unicodedata.normalize("NFC", name)
    if any(unicodedata.category(ch)[0] == "C" for ch in text if ch not in " \t"):
        raise ConfigError(
            "A collection name cannot hold control or invisible formatting characters; type it again.",
            code="name_invisible",
        )
    clean = re.sub(r"\s+", " ", text).strip()
    if not clean:
        raise ConfigError("Type a name for the collection (any words, in any language).", code="name_empty")
    if len(clean) > MAX_NAME_CHARS:
        raise ConfigError(
            f"That name has {len(clean)} characters; a collection name has at most {MAX_NAME_CHARS}.",
            code="name_long",
            values={"n": len(clean), "most": MAX_NAME_CHARS},
        )
    return clean


def name_key(name: str) -> str:
    """What two names must differ in: case, Unicode form and spacing do not count."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", name)).strip().casefold()


def _slug(name: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    slug = "-".join(re.findall(r"[a-z0-9]+", ascii_text.lower()))[:_ID_CHARS].strip("-")
    return slug if re.search(r"[a-z]", slug) else "-".join(p for p in ("collection", slug) if p)


def new_collection_id(name: str, taken: Iterable[str]) -> str:
    """The id of a new collection named ``name`` (checked already): the name itself when it is a plain
    id, else an ASCII slug of it; ``-2``, ``-3``… when another collection has it (ids of any case)."""
    used = {t.casefold() for t in taken}
    base = name if _PLAIN_ID.match(name) else _slug(name)
    out, n = base, 1
    while out.casefold() in used:
        n += 1
        out = f"{base}-{n}"
    return out


def owner_of(name: str, titles: Mapping[str, str]) -> str | None:
    """The id of the collection ``name`` names in ``titles`` (id → shown name): its id exactly, else its
    shown name or its id compared by ``name_key``; None when none does."""
    if name in titles:
        return name
    key = name_key(name)
    for cid, title in titles.items():
        if name_key(title) == key:
            return cid
    for cid in titles:
        if name_key(cid) == key:
            return cid
    return None
