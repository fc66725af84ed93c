"""``SynopsisUpkeep``: keeps a collection's routing synopsis (``indexer.upkeep.synopsis``) in step with its
chunks after a sync.

The word counts follow the centroids: updated by the changes of a sync while its vectors are tracked,
counted from every chunk text whenever the centroids are refitted (so also after a crash), and counted
once for a collection indexed by a version without them, on its next sync.
"""

from __future__ import annotations

import logging
from dataclasses import replace

import numpy as np

from indexer.store.collection_tables import CollectionTables
from indexer.store.lance_store import LanceStore
from indexer.sync.ingest import WriteStats
from indexer.upkeep.synopsis import (
    SynopsisState,
    count_terms,
    fit,
    sample_of,
    settle,
    update,
    update_terms,
)

__all__ = ["SynopsisUpkeep"]

log = logging.getLogger(__name__)


class SynopsisUpkeep:
    """``centroids``: how many the synopsis has (``indexer.centroids`` in the config); ``sample``: the
    most vectors k-means is fitted on."""

    def __init__(self, store: LanceStore, centroids: int, *, sample: int = 20_000) -> None:
        self._store = store
        self._k = centroids
        self._sample = sample

    def refit(self, tables: CollectionTables) -> SynopsisState:
        """The synopsis from scratch: k-means fitted on at most ``sample`` stored vectors spread over the
        collection, then every vector assigned to its nearest centroid in one pass (the means and
        counts of all members); word counts over every text. Read in parts: at 500,000 chunks, loading
        every vector and text at once took the sync's memory past 1.5 GB (bench.scale, issue 59)."""
        total = tables.count_chunks()
        sample = sample_of(tables.vector_parts(), total, self._sample)
        if not len(sample):
            return replace(fit(np.zeros((0, tables.dim), np.float32), self._k), terms=count_terms(()))
        state = settle(fit(sample, self._k).centroids, tables.vector_parts())
        return replace(state, terms=count_terms(tables.texts()))

    def repair(self, tables: CollectionTables) -> None:
        """On a sync with no changes: a config with another ``indexer.centroids`` takes effect, a
        collection indexed without word counts gets them, and one with chunks but no synopsis (every sync
        that wrote them was killed before its end) gets one."""
        state = self._store.synopsis_state(tables.collection)
        if state is None:
            if tables.count_chunks():
                self._store.put_synopsis(tables.collection, self.refit(tables))
            return
        if len(state.centroids) != min(self._k, state.total):
            self._store.put_synopsis(tables.collection, self.refit(tables))
        elif state.terms is None:
            terms = count_terms(tables.texts())
            self._store.put_synopsis(tables.collection, replace(state, terms=terms))

    def refresh(self, tables: CollectionTables, stats: WriteStats, *, state_known: bool) -> None:
        """Indexes and the synopsis after a sync's writes: an incremental update of the centroids and word
        counts while the changes are small, else a refit from every stored chunk."""
        store, collection = self._store, tables.collection
        tables.refresh_indexes()
        state = store.synopsis_state(collection) if state_known else None
        if state is not None and len(state.centroids) != min(self._k, state.total):
            state = None  # indexer.centroids changed in the config: refit with the new k
        if state is not None and stats.track_vectors:
            empty = np.zeros((0, tables.dim), np.float32)
            added = np.concatenate(stats.added_vectors) if stats.added_vectors else empty
            removed = np.concatenate(stats.removed_vectors) if stats.removed_vectors else empty
            if not len(added) and not len(removed) and state.terms is not None:
                return
            new = update(state, added, removed)
            if int((new.counts > 0).sum()) >= min(self._k, new.total):  # no cluster emptied
                terms = None if state.terms is None else update_terms(state.terms, stats.term_delta)
                if terms is None:  # indexed by a version without word counts, or they do not add up
                    log.info("counting the words of collection '%s' from scratch", collection)
                    terms = count_terms(tables.texts())
                store.put_synopsis(collection, replace(new, terms=terms))
                return
        store.put_synopsis(collection, self.refit(tables))
