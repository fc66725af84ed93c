"""Stage 1 — the **context manager** (KIMAs §3.2, "context-based query enhancing").

A question travels: **context** → routing → retrieval → answer.

``dependence.TurnDependence`` first decides whether the question needs the conversation and which earlier
turns (TREC CAsT's labels: self-contained, needs the topic, needs the previous turn); then
``manager.QueryContextualizer`` rewrites a follow-up into a self-contained query for the retrieval agents
(the paper's "conversation-contextual query rewrite for retrieval agents"); ``manager.ContextAnalyzer``
picks the earlier messages the summarizer needs (the paper's "context analysis" with
``indices_of_related_messages``).
"""
