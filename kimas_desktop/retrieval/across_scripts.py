"""The reader's order of evidence that mixes scripts (issue 68).

The fallback reranker scores a passage in the question's script by its words and its similarity, and one
in another script by similarity alone (``EmbeddingReranker._across``): two scales, and multilingual-e5-small
rates a question's own language higher on both. So when a collection mixes English and Chinese files, an
English question's Chinese answer rarely reaches the eight passages the answer reads, even once it is among
the candidates. The reader (``local_models/reader``) was trained on aligned pairs across languages and
judges both on one scale: the candidates are ordered by its probability. On the Debian Reference's mixed
collection (bench/mixed_languages.py, held-out chapters) the answering Chinese chunk was in the top 8 for
0.216 of English questions and 0.486 read.

Only evidence holding both the question's script and another is read, for a question in Latin letters: a
collection of one language, a Chinese question over English papers alone, and a Chinese question over a
mixed collection keep the reranker's order (``mixes_scripts``). Each hit keeps its reranker score
(the scale ``rerank.min_score`` and the answer policy read).
"""

from __future__ import annotations

from collections.abc import Sequence

from kimas_desktop.optional import optional
from kimas_desktop.protocols import Reader
from kimas_desktop.text.language import main_script
from kimas_desktop.types import Hit

__all__ = ["AcrossScripts", "mixes_scripts"]


def mixes_scripts(question: str, texts: Sequence[str]) -> bool:
    """Whether the reader reads ``texts`` for ``question``: they hold the question's main script and another
    one too, and the question is written in Latin letters. The reader learned from questions in English
    above all (32,000 of its 45,000 training pairs); a Chinese question over the seed papers, answered in
    Chinese, lost its quote with it (bench.answer_loops' questions generated over the papers: gold in the
    quote 0.971 without, 0.771 with), so a question in another script keeps the reranker's order."""
    script = main_script(question)
    found = {main_script(t) for t in texts} - {""}
    return script == "LATIN" and script in found and len(found) > 1


class AcrossScripts:
    def __init__(self, reader: Reader) -> None:
        self._reader = reader

    def order(self, question: str, hits: Sequence[Hit]) -> list[Hit] | None:
        """``hits`` by the reader's probability, best first; None when they do not mix scripts, or the reader
        failed (its worker crashed: they keep the reranker's order, as without a reader)."""
        texts = [h.chunk.text for h in hits]
        if not mixes_scripts(question, texts):
            return None
        read: list[float] | None = optional(
            "the reader's order", lambda: self._reader.read(question, texts), lambda _: None
        )
        if read is None:
            return None
        order = sorted(range(len(hits)), key=lambda i: -read[i])
        return [hits[i] for i in order]
