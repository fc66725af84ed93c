"""An embedding model's identity: its name, its dimension, and its output on fixed probe texts.

The name alone misses a switch between two models of the same dimension (or a new version of one model
under the same name), after which every stored vector is meaningless to the new queries. So each
collection records what its embedder made of ``PROBES``; a configured embedder matches it when it has the
same name and its own probe vectors point the same way (cosine ≥ ``MIN_COSINE`` for each; numerical noise
between runs, threads or CPUs stays far above that, a different model far below). The probes alone cannot
tell two precisions of one model apart (the embedded model in int8 gives probe cosines of about 0.99 to
its fp32 vectors), so the name counts too: ``local/all-MiniLM-L6-v2`` and ``local/all-MiniLM-L6-v2-int8``
are different embedders and a switch re-embeds. A collection recorded before probes existed is compared by
name and dimension.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kimas_desktop.protocols import Embedder, Vector

PROBES = (
    "The quarterly report shows revenue grew by four percent.",
    "How do I reset the password of my account?",
    "Photosynthesis turns light, water and carbon dioxide into sugar.",
    "Der Zug nach Berlin fährt um acht Uhr ab.",
)
MIN_COSINE = 0.99


@dataclass(frozen=True, eq=False)
class EmbedderIdentity:
    model_id: str
    dim: int
    probe: Vector | None = None  # float32 [len(PROBES), dim], unit rows; None: compare by name

    def matches(self, model_id: str, dim: int, probe: Sequence[float] | None) -> bool:
        """Whether vectors recorded by (``model_id``, ``dim``, ``probe``) are comparable with ours."""
        if dim != self.dim or model_id != self.model_id:
            return False
        if self.probe is None or not probe or len(probe) != self.probe.size:
            return True
        theirs = np.asarray(probe, dtype=np.float32).reshape(self.probe.shape)
        norms = np.linalg.norm(theirs, axis=1) * np.linalg.norm(self.probe, axis=1) + 1e-12
        return bool(np.all(np.einsum("ij,ij->i", theirs, self.probe) / norms >= MIN_COSINE))

    def describe(self) -> str:
        return f"{self.model_id} ({self.dim}-d)"


def identity_of(embedder: Embedder) -> EmbedderIdentity:
    """One embedding call on the probe texts."""
    probe = np.asarray(embedder.embed_query(list(PROBES)), dtype=np.float32)
    probe = probe / (np.linalg.norm(probe, axis=1, keepdims=True) + 1e-12)
    return EmbedderIdentity(embedder.model_id, int(embedder.dim), probe)
