"""Models behind a server: ``OpenAIChatModel`` (an OpenAI-compatible ``/chat/completions``),
``RemoteEmbedder`` and ``RemoteReranker`` (``/embeddings``, ``/rerank``; in ``embed_rerank``), and the
one JSON POST with timeouts and retries they share (``http_retry``).
"""
