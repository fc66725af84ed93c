"""The reader's order of evidence that mixes scripts (issue 68).

The fallback reranker scores a passage in the question's script by its words and its similarity, and one
in another script by similarity alone (``EmbeddingReranker._across``): two scales, and multilingual-e5-small
rates a question's own language higher on both. So when a collection mixes English and Chinese files, an
English question's Chinese answer rarely reaches the eight passages the answer reads, even once it is among
the candidates. The reader (``local_models/reader``) was trained on aligned pairs across languages and
judges both on one scale: the candidates are ordered by its probability. On the Debian Reference's mixed
collection (bench/mixed_languages.py, held-out chapters) the answering Chinese chunk was in the top 8 for
0.216 of English questions and 0.486 read.

Only evidence holding both the question's script and another is read: a collection of one language, and a
Chinese question over English papers alone, keep the reranker's order. Each hit keeps its reranker score
(the scale ``rerank.min_score`` and the answer policy read).
"""

from __future__ import annotations

from collections.abc import Sequence

from kimas_desktop.protocols import Reader
from kimas_desktop.text.language import main_script
from kimas_desktop.types import Hit

__all__ = ["AcrossScripts", "mixes_scripts"]


def mixes_scripts(question: str, texts: Sequence[str]) -> bool:
    """Whether ``texts`` hold the question's main script and another one too."""
    script = main_script(question)
    found = {main_script(t) for t in texts} - {""}
    return bool(script) and script in found and len(found) > 1


class AcrossScripts:
    def __init__(self, reader: Reader) -> None:
        self._reader = reader

    def order(self, question: str, hits: Sequence[Hit]) -> list[Hit] | None:
        """``hits`` by the reader's probability, best first; None when they do not mix scripts."""
        texts = [h.chunk.text for h in hits]
        if not mixes_scripts(question, texts):
            return None
        read = self._reader.read(question, texts)
        order = sorted(range(len(hits)), key=lambda i: -read[i])
        return [hits[i] for i in order]
