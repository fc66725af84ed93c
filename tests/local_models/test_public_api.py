from __future__ import annotations

import local_models


def test_public_surface_is_explicit() -> None:
    assert sorted(local_models.__all__) == [
        "CrossEncoderReranker",
        "EmbeddingReranker",
        "FastEmbedEmbedder",
        "LlamaChatModel",
        "ModelOrigin",
        "OpenAIChatModel",
        "RemoteEmbedder",
        "RemoteReranker",
        "build_chat_model",
        "build_embedder",
        "build_reader",
        "build_reranker",
        "resolve_chat",
        "resolve_embedding",
        "resolve_reader",
        "resolve_reranker",
        "sentence_meaning",
    ]
    assert all(hasattr(local_models, name) for name in local_models.__all__)


def test_importing_loads_no_model_library() -> None:
    import subprocess
    import sys

    code = "import sys, local_models; print(sorted(m for m in ('fastembed', 'llama_cpp', 'onnxruntime') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
