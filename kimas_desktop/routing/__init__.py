"""Stage 2 — **knowledge routing** (KIMAs §3.3.2, "embedding clustering routing").

A question travels: context → **routing** → retrieval → answer.

``router.CentroidRouter`` scores every collection against the question: k-means centroids of its
embeddings and a word-frequency synopsis, mixed with the hand-written description and the per-collection
scale (the paper's "preference adjust"); no LLM. Only the collections it selects are searched.
"""
