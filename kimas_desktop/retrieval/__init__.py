"""Stage 3 — the **retrieval agents** (KIMAs §3.3.1, "knowledge retrieval mechanisms").

A question travels: context → routing → **retrieval** → answer.

``agents.RetrievalAgent``: one per selected collection, each with its own query rewrite
(``strategies``: the paper's prompt rewrite and keyword rewrite) and hybrid dense + full-text search;
``fusion`` merges ranked lists (reciprocal rank fusion); ``agentic.SufficiencyJudge`` is the optional
second round that searches again for what the first evidence misses.
"""
