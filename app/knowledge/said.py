"""What the Knowledge tab's actions say (issue 60): each sentence as an ``app.outcomes.Said``, a code and its
values, which the UI words in the page's language (``ui.knowledge.words``); ``english`` is the sentence the
log, the CLI and an English page show."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from app.knowledge.uploads import CopiedFile
from app.outcomes import Said

__all__ = [
    "cancelled",
    "created",
    "dismissed",
    "paused",
    "reading",
    "reembedding",
    "reindexing",
    "removed",
    "removed_file",
    "renamed",
    "resumed",
    "saved",
    "unwatched",
    "uploaded",
    "watching",
]


def created(name: str) -> Said:
    english = f"Collection '{name}' created. Now drop files or a folder onto it, or add a folder to watch."
    return Said(english, "created", {"name": name})


def renamed(old: str, name: str) -> Said:
    english = f"Collection '{old}' is now named '{name}' (nothing is indexed again)."
    return Said(english, "renamed", {"old": old, "name": name})


def unwatched(path: Path, name: str) -> Said:
    english = f"No longer watching {path} for '{name}'; its files leave the index in the background (they stay on disk)."
    return Said(english, "unwatched", {"path": path, "name": name})


def removed(name: str) -> Said:
    english = f"Collection '{name}' removed (folders you added stay where they are on disk)."
    return Said(english, "removed", {"name": name})


def watching(path: Path, name: str, model: str | None) -> Said:
    """Watching ``path``; ``model``: the multilingual embedding model the new library was given, if any."""
    english = f"Watching {path} for '{name}'; indexing in the background."
    if model is None:
        return Said(english, "watching", {"path": path, "name": name})
    english += f" Its documents are not all in English: it is indexed with the multilingual embedding model ({model})."
    return Said(english, "watching_multilingual", {"path": path, "name": name, "model": model})


def reindexing(name: str) -> Said:
    return Said(f"Re-indexing '{name}' in the background.", "reindexing", {"name": name})


def reembedding(name: str) -> Said:
    english = f"Re-embedding '{name}' in the background; it keeps answering from its old index meanwhile."
    return Said(english, "reembedding", {"name": name})


def saved(name: str) -> Said:
    return Said(f"Settings of '{name}' saved.", "settings_saved", {"name": name})


def removed_file(file: str, name: str, watched_in: Path | None) -> Said:
    """``file`` out of collection ``name``: its uploaded copy deleted, or (``watched_in``) still on disk."""
    if watched_in is None:
        english = f"'{file}' removed from '{name}' (its uploaded copy is deleted)."
        return Said(english, "doc_removed", {"file": file, "name": name})
    english = (
        f"'{file}' removed from the index of '{name}'. It is still in the watched folder "
        f"{watched_in}: the next change there brings it back unless you delete or move it."
    )
    return Said(english, "doc_unindexed", {"file": file, "name": name, "folder": watched_in})


def reading(file: str) -> Said:
    return Said(f"Reading '{file}' again in the background.", "doc_reading", {"file": file})


def dismissed(file: str) -> Said:
    english = f"The problem with '{file}' is dismissed; it warns again only if it fails differently."
    return Said(english, "doc_dismissed", {"file": file})


def paused() -> Said:
    return Said("Indexing paused; it goes on where it stopped when you resume.", "indexing_paused")


def resumed() -> Said:
    return Said("Indexing resumed.", "resumed")


def cancelled() -> Said:
    english = "Indexing cancelled; what was indexed is kept, and Re-index goes on from it."
    return Said(english, "indexing_cancelled")


def uploaded(copied: Sequence[CopiedFile], title: str) -> Said:
    """Files dropped onto collection ``title``: how many are new, already there, or renamed (a name taken)."""
    unchanged = sum(c.status == "unchanged" for c in copied)
    renamed = ", ".join([f"{c.source_name} → {c.path.name}" for c in copied if c.status == "renamed"][:5])
    msg = f"{len(copied) - unchanged} new file(s) copied into '{title}'"
    msg += (f" ({unchanged} already there)" if unchanged else "") + "; indexing in the background."
    msg += f" Renamed because the name was taken: {renamed}" if renamed else ""
    values = {"n": len(copied) - unchanged, "unchanged": unchanged, "name": title, "renamed": renamed}
    return Said(msg, "uploaded", values)
