"""Rerankers: score every candidate against one query with one scorer, so the scores compare.

``CrossEncoderReranker`` runs a fastembed cross-encoder (``rerank.model``). No ONNX cross-encoder ships
on PyPI, so offline the rerank stage uses ``EmbeddingReranker``, a documented fallback; see
``build_reranker`` for how the choice is made.
"""

from __future__ import annotations

import logging
import math
import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from kimas_desktop.config import RerankConfig
from kimas_desktop.errors import ModelError, ModelUnavailableError
from kimas_desktop.protocols import Embedder, Reranker
from kimas_desktop.retrieval.word_weights import TermStatistics
from kimas_desktop.text.language import LanguageDetector, main_script
from kimas_desktop.text.scripts import has_marks, has_unspaced
from kimas_desktop.text.words import spaced
from local_models.catalog.hub import hub_unreachable_reason
from local_models.resolve import resolve_reranker

__all__ = ["CrossEncoderReranker", "EmbeddingReranker", "build_reranker", "term_overlap_scores"]

log = logging.getLogger(__name__)

_WORD = re.compile(r"\w+", re.UNICODE)
_K1 = 1.2
_B = 0.75


def _terms(text: str) -> list[str]:
    """Lower-case words; the project's tokenizer for text with combining marks or an unspaced script
    (``\\w+`` cuts a Hindi word at its vowel signs and keeps a Chinese sentence whole)."""
    found = spaced(text).split() if has_unspaced(text) or has_marks(text) else _WORD.findall(text)
    return [w.lower() for w in found]


def term_overlap_scores(
    query: str, texts: Sequence[str], statistics: TermStatistics | None = None
) -> list[float]:
    """BM25 of each text for ``query``, with the candidates as the corpus, scaled to [0, 1).

    IDF is Lucene's ``ln(1 + (N - df + 0.5) / (df + 0.5))`` over the N candidates (k1 = 1.2, b = 0.75),
    or with ``statistics``, over the index's chunks (``kimas_desktop.retrieval.word_weights``).
    Each score is divided by the query's ceiling, ``sum(idf * (k1 + 1))`` over all its distinct terms,
    the same for every candidate: the score is the (IDF-weighted, saturating) share of the query a text
    covers. 0 means no query term appears; a text holding every query term, many times, approaches 1.
    Query terms found in no candidate stay in the ceiling on purpose, so one shared word out of many
    stays a small share (``rerank.min_score`` is an absolute floor on this scale).
    """
    docs = [Counter(_terms(t)) for t in texts]
    query_terms = set(_terms(query))
    if not docs or not query_terms:
        return [0.0] * len(docs)
    n, df = len(docs), {t: sum(1 for d in docs if t in d) for t in query_terms}
    rows, found = statistics.document_frequencies(sorted(query_terms)) if statistics else (0, {})
    if rows:  # none before the index has the full-text terms
        n, df = rows, {t: min(found.get(t, 0), rows) for t in query_terms}
    avg_len = sum(sum(d.values()) for d in docs) / len(docs) or 1.0
    idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in query_terms}
    ceiling = sum(idf[t] * (_K1 + 1) for t in query_terms)
    scores = []
    for doc in docs:
        length_norm = _K1 * (1 - _B + _B * sum(doc.values()) / avg_len)
        bm25 = sum(idf[t] * doc[t] * (_K1 + 1) / (doc[t] + length_norm) for t in query_terms if doc[t])
        scores.append(bm25 / ceiling)
    return scores


_SHARES_A_WORD = 0.1  # rerank.min_score's default: "nothing related at all"
_CHINESE_PROBE = "中文"  # an embedder that reads it is taken to read every language it is given
_UNKNOWN = "und"
_TOLD_WORDS = 6  # words a question needs before its language is told apart from its passages'


def _words_alone(overlap: float) -> float:
    """The score of a question in a script the embedder never learned (a Chinese one, an English-only
    model): its cosine ranks at random, so the words alone score it. On the mixed scale a related
    passage's cosine carries it over ``rerank.min_score`` (0.1); a share of the question's words alone
    rarely reaches it (on the Hindi dev kit 41 of 200 questions kept no passage, and answer-in-top-5 fell
    from 0.72 to 0.635). So a passage sharing any of the question's words starts at the floor, and its
    share ranks it above: the order is the words' order, and only a passage with no word of the question
    is dropped as unrelated."""
    return _SHARES_A_WORD + (1.0 - _SHARES_A_WORD) * overlap if overlap > 0 else 0.0


class EmbeddingReranker:
    """The fallback reranker: one scorer for all candidates against one query.

    ``score = 0.3 * cosine(query embedding, passage embedding) + 0.7 * term overlap``, where term
    overlap is ``term_overlap_scores`` (BM25 over the candidate set, in [0, 1)). The embedding carries
    meaning (paraphrases); the overlap rewards exact names, numbers and rare words that small embedding
    models blur. Both parts are computed the same way for every candidate, so the scores compare.
    The weights were measured on the dev kit's SQuAD-Shifts questions (bench/quality.py, full path,
    recall@5): 0.7/0.3 gave 0.517, 0.5/0.5 0.592, 0.4/0.6 0.608 with the earlier MiniLM-L3; with the
    embedded all-MiniLM-L6-v2 0.4/0.6 gave 0.653 and 0.3/0.7 0.658 (``rerank.semantic_weight``).
    A question the embedder cannot read is scored by its words alone (``_words_alone``), weighed by the
    index's ``statistics`` when the pipeline gave them (``weighed_by``), else by the candidates.
    """

    def __init__(
        self,
        embedder: Embedder,
        *,
        semantic_weight: float = 0.3,
        cache_size: int = 4096,
        statistics: TermStatistics | None = None,
        languages: LanguageDetector | None = None,
    ) -> None:
        self._embedder = embedder
        self._statistics = statistics
        self._languages = languages or LanguageDetector()
        self._semantic = semantic_weight
        self._lexical = 1.0 - semantic_weight
        # Passage vectors by text: a second round (agentic, regenerate) rescoring the same chunks is free.
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._cache_lock = threading.Lock()

    def _passage_vectors(self, texts: Sequence[str]) -> np.ndarray:
        with self._cache_lock:
            known = {t: self._cache[t] for t in texts if t in self._cache}
            for t in known:
                self._cache.move_to_end(t)
        missing = list(dict.fromkeys(t for t in texts if t not in known))
        if missing:
            fresh = self._embedder.embed_passages(missing)
            known.update(zip(missing, fresh, strict=True))
            with self._cache_lock:
                self._cache.update(zip(missing, fresh, strict=True))
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        return np.stack([known[t] for t in texts])

    @property
    def model_id(self) -> str:
        return f"fallback/{self._embedder.model_id}+bm25"

    def weighed_by(self, statistics: TermStatistics) -> EmbeddingReranker:
        """This scorer, weighing the words of a question the embedder cannot read by the index
        (``kimas_desktop.retrieval.word_weights``); it shares the embedder, and its own cache."""
        return EmbeddingReranker(
            self._embedder,
            semantic_weight=self._semantic,
            cache_size=self._cache_size,
            statistics=statistics,
            languages=self._languages,
        )

    def warm_up(self) -> None:
        self._embedder.warm_up()

    def close(self) -> None:
        """Forget the cached passage vectors. The embedder is not closed: it is the app's, shared."""
        with self._cache_lock:
            self._cache.clear()

    def score(
        self, query: str, texts: Sequence[str], vectors: Sequence[Sequence[float] | None] = ()
    ) -> list[float]:
        """``vectors``: stored embeddings of the texts by the same model (the store's), used as they are;
        the others are embedded (and cached)."""
        if not texts:
            return []
        if not self._embedder.reads(query):  # its vector ranks at random: the words alone
            return [_words_alone(s) for s in term_overlap_scores(query, texts, self._statistics)]
        query_vector = self._embedder.embed_query([query])[0]
        stored = list(vectors) or [None] * len(texts)
        missing = [t for t, v in zip(texts, stored, strict=True) if v is None]
        embedded = iter(self._passage_vectors(missing)) if missing else iter(())
        passages = np.stack(
            [np.asarray(v, dtype=np.float32) if v is not None else next(embedded) for v in stored]
        )
        cosine = passages @ query_vector
        overlap = np.asarray(term_overlap_scores(query, texts), dtype=np.float32)
        mixed = self._semantic * cosine + self._lexical * overlap
        across = self._across(query, texts)
        return [float(c if a else m) for c, m, a in zip(cosine, mixed, across, strict=True)]

    def _across(self, query: str, texts: Sequence[str]) -> list[bool]:
        """Which passages a model that reads both (multilingual-e5) scores by meaning alone: one in another
        script than the question shares none of its words, whatever it says (issue 56); one in another
        language of the same script (an English sentence, a German page) shares only its names and
        commands, which outweighed the page it was about. A question of a few words is too short to tell
        its language by (``_TOLD_WORDS``), and a script that tells the language (kana, Devanagari) is
        compared by script alone."""
        script = main_script(query)
        if not script or not self._embedder.reads(_CHINESE_PROBE):  # an English-only model: words count
            return [False] * len(texts)
        asked = self._languages.identify(query)
        told = not asked.by_script and len(query.split()) >= _TOLD_WORDS
        return [
            self._embedder.reads(t)
            and (main_script(t) not in ("", script) or (told and self._other_language(asked.code, t)))
            for t in texts
        ]

    def _other_language(self, code: str, text: str) -> bool:
        found = self._languages.identify(text)
        return not found.by_script and _UNKNOWN not in (code, found.code) and code != found.code


class CrossEncoderReranker:
    """A fastembed ``TextCrossEncoder``, loaded on first use (offline when cached).

    With a ``fallback``, a model that cannot be loaded (not cached and the hub unreachable) is reported
    once as a warning and the fallback scores from then on; without one, the ``ModelError`` propagates.
    """

    def __init__(
        self, cfg: RerankConfig, cache_dir: Path, *, fallback: Reranker | None = None, batch_size: int = 16
    ) -> None:
        self._cfg = cfg
        self._cache_dir = Path(cache_dir)
        self._fallback = fallback
        self._batch_size = batch_size
        self._lock = threading.Lock()
        self._model: Any = None
        self._failed = False

    @property
    def model_id(self) -> str:
        if self._failed and self._fallback is not None:
            return self._fallback.model_id
        return self._cfg.model

    def warm_up(self) -> None:
        with self._lock:
            self._loaded()

    def close(self) -> None:
        """Drop the loaded cross-encoder (a scoring in flight finishes first); a later call loads it
        again. The fallback is closed too (it closes no embedder)."""
        with self._lock:
            self._model = None
        if self._fallback is not None:
            self._fallback.close()

    def _loaded(self) -> Any:
        if self._model is None:
            self._model = self._load()
        return self._model

    def _load(self) -> Any:
        from fastembed.rerank.cross_encoder import TextCrossEncoder

        origin = resolve_reranker(self._cfg, self._cache_dir)
        fix = (
            "connect to the internet once so it can be downloaded, or clear rerank.model to use the fallback"
        )
        if origin.network and (reason := hub_unreachable_reason()) is not None:
            raise ModelUnavailableError(
                f"The cross-encoder {origin.name} is not in the model cache ({self._cache_dir}) and the "
                f"Hugging Face hub cannot be reached ({reason}): {fix}."
            )
        try:
            return TextCrossEncoder(
                origin.name, cache_dir=str(self._cache_dir), local_files_only=not origin.network
            )
        except Exception as err:  # fastembed raises ValueError, the hub its own errors
            raise ModelUnavailableError(
                f"Could not load the cross-encoder {origin.name}: {err}. Or {fix}."
            ) from err

    def _usable(self) -> Any:
        """The loaded cross-encoder, or None once loading failed and the fallback scores instead."""
        if self._failed:
            return None
        try:
            return self._loaded()
        except ModelError as err:
            if self._fallback is None:
                raise
            log.warning("%s Reranking with %s instead.", err, self._fallback.model_id)
            self._failed = True
            return None

    def score(
        self, query: str, texts: Sequence[str], vectors: Sequence[Sequence[float] | None] = ()
    ) -> list[float]:
        if not texts:
            return []
        with self._lock:
            model = self._usable()
            if model is not None:
                try:
                    scores = model.rerank(query, list(texts), batch_size=self._batch_size)
                    return [float(s) for s in scores]
                except Exception as err:  # onnxruntime and tokenizer errors have no common base
                    raise ModelError(f"The cross-encoder {self._cfg.model} failed: {err}") from err
        fallback = self._fallback
        if fallback is None:  # cannot happen: _usable raised instead
            raise ModelError(f"The cross-encoder {self._cfg.model} is not available.")
        return fallback.score(query, texts, vectors)


def build_reranker(cfg: RerankConfig, embedder: Embedder, cache_dir: Path) -> Reranker:
    """The configured cross-encoder, a rerank server (``backend = "http"``), or the fallback scorer.

    Empty ``rerank.model`` → ``EmbeddingReranker``. A name fastembed does not know → a warning and the
    fallback. A known cross-encoder → ``CrossEncoderReranker``, offline when its files are in
    ``cache_dir``; when they are not, a warning now, a download attempt on first use, and the fallback
    if that fails.
    """
    if cfg.backend == "http":
        from local_models.remote.embed_rerank import RemoteReranker

        return RemoteReranker(cfg)
    fallback = EmbeddingReranker(embedder, semantic_weight=cfg.semantic_weight)
    if not cfg.model:
        return fallback
    try:
        origin = resolve_reranker(cfg, cache_dir)
    except ModelError as err:
        log.warning("%s Reranking with %s instead.", err, fallback.model_id)
        return fallback
    if origin.network:
        log.warning(
            "The cross-encoder %s is not in the model cache (%s): it will be downloaded on first use if the "
            "Hugging Face hub can be reached; otherwise reranking uses %s.",
            origin.name,
            cache_dir,
            fallback.model_id,
        )
    return CrossEncoderReranker(cfg, cache_dir, fallback=fallback)
