"""``FirstEmbedder``: the embedding model of a new library, chosen when its first files are read (issue 56).

The embedded all-MiniLM-L6-v2 reads English only; the embedded multilingual-e5-small reads about a hundred
languages, at about 0.4x its indexing speed (``bench/RESULTS.md``). So a library whose first folder is not
all English starts on the multilingual model, before a chunk is embedded, and an English one keeps MiniLM.
Only a new library is chosen for (no collection holds a chunk yet) and only while ``[embedding]`` is the
untouched default with ``auto = true``: a library with collections is offered the switch instead
(``MultilingualSwitch``), and nothing is re-embedded behind the user's back.

A sample of the folder's documents and spreadsheets is read with the indexer's own parsers (PDFs in its
worker process, no OCR), each file's language told by ``LanguageDetector``. "Not all English": a quarter
or more of the sampled files with a language are in another one (one stray German file in an English
folder is not). A spreadsheet or CSV is told by its headers and text cells (``indexer.tables.words``): by
its script alone ("物品", "位置": Chinese), else when its headers and its words are told the same language
(its cells are mostly names and codes, which mislead a language model: fertility.csv's country codes
read as Nigerian Pidgin, its headers as English).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from itertools import islice
from pathlib import Path
from typing import Protocol

from indexer.parse.registry import FileParser, file_kind
from indexer.tables.words import table_words
from kimas_desktop.config import Config, EmbeddingModelConfig
from kimas_desktop.text.language import LanguageDetector
from local_models.catalog.catalog import MULTILINGUAL_EMBEDDER, english_only

__all__ = ["FirstEmbedder", "is_default_embedder", "with_embedder"]

_MIXED = 0.25  # the share of other-language documents that makes a library "not all English"
_MAX_BYTES = 20 * 1024 * 1024  # a sample never reads a file bigger than this
_TABLE_WORDS = 4  # the fewest distinct words a table in the Latin script is told by


def is_default_embedder(cfg: EmbeddingModelConfig) -> bool:
    """The embedded default with automatic choice on: what a new library may be moved off."""
    return cfg.auto and cfg.backend == "local" and not cfg.name and not cfg.path and english_only(cfg)


class _Library(Protocol):
    def has_knowledge(self) -> bool: ...


class _Loader(Protocol):
    def load(self, config: Config, commit: Callable[[], object] = ...) -> None: ...


class _Store(Protocol):
    @property
    def current(self) -> Config: ...

    def update(self, change: Callable[[Config], Config]) -> Config: ...


def with_embedder(config: Config, name: str) -> Config:
    """``config`` with ``embedding.name`` set to ``name`` (the rest of the section kept)."""
    return config.updated(embedding={**config.embedding.model_dump(), "name": name})


class FirstEmbedder:
    def __init__(self, files: int = 12, chars: int = 3000) -> None:
        self._files = files
        self._chars = chars
        self._detector = LanguageDetector()

    def choose(self, folders: Sequence[Path], embedding: EmbeddingModelConfig) -> str | None:
        """``MULTILINGUAL_EMBEDDER`` when the sampled documents are not all English, else None."""
        if not is_default_embedder(embedding):
            return None
        languages = self.languages(folders)
        total = sum(languages.values())
        other = total - languages.get("en", 0)
        return MULTILINGUAL_EMBEDDER if total and other >= _MIXED * total else None

    def adopt(
        self,
        folder: Path,
        library: _Library,
        runtime: _Loader,
        store: _Store,
    ) -> str | None:
        """For the app: choose for the first ``folder`` of a new ``library`` (none of its collections holds a
        chunk); when the multilingual model is
        chosen, the runtime loads it, and the store saves the config once it loads, before the folder is indexed.
        The model chosen, or None."""
        choice = None if library.has_knowledge() else self.choose([folder], store.current.embedding)
        if choice is None:
            return None
        runtime.load(
            with_embedder(store.current, choice), lambda: store.update(lambda c: with_embedder(c, choice))
        )
        return choice

    def languages(self, folders: Sequence[Path]) -> Counter[str]:
        """Sampled documents per language code."""
        found: Counter[str] = Counter()
        parser = FileParser(ocr=False, pdf_page_timeout_s=20.0)
        try:
            for path in islice(_documents(folders), self._files):
                code = self._table(path) if file_kind(path) == "table" else self._document(parser, path)
                if code:
                    found[code] += 1
        finally:
            parser.close()
        return found

    def _document(self, parser: FileParser, path: Path) -> str:
        text = self._text(parser, path)
        hit = self._detector.identify(text) if text.strip() else None
        return hit.code if hit is not None and (hit.by_script or len(text.split()) >= 20) else ""

    def _table(self, path: Path) -> str:
        """A spreadsheet's language: by its script, else its headers' when its words agree; "" unknown."""
        try:
            if path.stat().st_size > _MAX_BYTES:
                return ""
            words = table_words(path, path.read_bytes(), self._chars)
        except Exception:  # a file the indexer will report itself: the sample just skips it
            return ""
        hit = self._detector.identify(words.text) if words.text.strip() else None
        if hit is None or hit.by_script:
            return hit.code if hit is not None else ""
        if len(words.text.split()) < _TABLE_WORDS or not words.header.strip():
            return ""
        return hit.code if self._detector.identify(words.header).code == hit.code else ""

    def _text(self, parser: FileParser, path: Path) -> str:
        try:
            if path.stat().st_size > _MAX_BYTES:
                return ""
            parts: list[str] = []
            size = 0
            for block in parser.parse(path, path.read_bytes()).blocks:
                parts.append(block.text)
                size += len(block.text)
                if size >= self._chars:
                    break
            return " ".join(parts)[: self._chars]
        except Exception:  # a file the indexer will report itself: the sample just skips it
            return ""


def _documents(folders: Sequence[Path]) -> Iterator[Path]:
    """Files the indexer reads as documents or tables (not images), in a stable order."""
    for folder in folders:
        for root, dirs, files in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(files):
                path = Path(root) / name
                if not name.startswith(".") and file_kind(path) not in (None, "image"):
                    yield path
