"""Files in other scripts (issue 68): a collection that mixes English and Chinese papers answers an English
question from a Chinese one only if its passages are searched at all.

multilingual-e5-small scores a question's own language above any other, and full-text search finds no
English word in a Chinese passage, so the same-language passages fill the agent's list. A second dense
search, kept to the files whose main script is not the question's, is fused with it by rank
(``reciprocal_rank_fusion``): on the Debian Reference's mixed collection (bench/mixed_languages.py, held
out) the answering Chinese chunk came among the candidates for 0.135 of English questions and 0.500 with
it. A collection of one script has no such file and is searched exactly as before, and so is a question in
another script than Latin letters: bench.answer_loops' Chinese questions over the seed papers kept their
quote less often with the search (0.971 -> 0.829).

Each file's script is told from its card (``indexer.upkeep.cards``: title and central sentences). The cards
(the collection's manifest) are read once per question, however many searches its agent makes (the question,
its rewrites, the hops): ``TurnSearch`` makes one ``OtherScripts`` per question. The scripts are told again
only when the collection's cards change (``FileScripts``, kept across questions).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from kimas_desktop.protocols import ChunkSearcher
from kimas_desktop.text.language import main_script
from kimas_desktop.types import DocumentCard

__all__ = ["FileScripts", "OtherScripts"]


class FileScripts:
    """Each file's main script by collection, told again only when the collection's cards change
    (thread-safe; kept across questions)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._known: dict[str, tuple[tuple[str, ...], dict[str, str]]] = {}

    def scripts(self, collection: str, cards: Sequence[DocumentCard]) -> dict[str, str]:
        key = tuple(sorted(f"{c.source}\0{c.title}\0{c.language}" for c in cards))
        with self._lock:
            held = self._known.get(collection)
            if held is not None and held[0] == key:
                return held[1]
        scripts = {c.source: main_script(c.text()) for c in cards}
        with self._lock:
            self._known[collection] = (key, scripts)
        return scripts


class OtherScripts:
    """Which files of a collection are written in another script than a question, for one question
    (thread-safe): each collection's cards are read at most once."""

    def __init__(self, searcher: ChunkSearcher, known: FileScripts | None = None) -> None:
        self._searcher = searcher
        self._known = known or FileScripts()
        self._lock = threading.Lock()
        self._read: dict[str, dict[str, str]] = {}

    def files(self, collection: str, question: str) -> list[str]:
        """The files of ``collection`` whose main script is neither the question's nor unknown, for a question
        in Latin letters (none for another: a Chinese question over the seed papers lost its quote with
        them, as with the reader: ``across_scripts.mixes_scripts``)."""
        script = main_script(question)
        if script != "LATIN":
            return []
        return [f for f, s in self._scripts(collection).items() if s not in ("", script)]

    def _scripts(self, collection: str) -> dict[str, str]:
        with self._lock:  # held while reading, so that the agents' parallel searches read the cards once
            if collection not in self._read:
                cards = self._searcher.cards(collection)
                self._read[collection] = self._known.scripts(collection, cards)
            return self._read[collection]
