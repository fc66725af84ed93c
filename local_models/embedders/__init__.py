"""Embedding models run in-process: ``FastEmbedEmbedder`` (fastembed, ONNX Runtime), the embedded default
models shipped in PyPI packages (``embedded``: all-MiniLM-L6-v2, exported to ONNX by ``bert_onnx``, and
the SmolLM2 chat GGUF's location), and ``QueryMemo``, which embeds each recent query text once.
"""
