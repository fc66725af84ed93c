"""Model folders as LM Studio and Ollama lay them out, holding the embedded SmolLM2 GGUF (a symlink, so
"loaded in place" can be checked against the original path)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from local_models.embedders.embedded import smollm2_path

LM_STUDIO_FILE = "lmstudio-community/SmolLM2-135M-Instruct-GGUF/SmolLM2-135M-Instruct-Q4_1.gguf"
OLLAMA_DIGEST = "sha256:" + "5e" * 32


def put_model(at: Path) -> Path:
    """The embedded GGUF at ``at``: a symlink (a copy where the OS refuses one: Windows without the
    privilege)."""
    at.parent.mkdir(parents=True, exist_ok=True)
    try:
        at.symlink_to(smollm2_path())
    except OSError:
        shutil.copyfile(smollm2_path(), at)
    return at


def lm_studio_folder(home: Path) -> Path:
    """``~/.lmstudio/models`` with SmolLM2, a vision projector, a file cut short and a readme; returns the
    model file."""
    root = home / ".lmstudio" / "models"
    model = root / LM_STUDIO_FILE
    put_model(model)
    put_model(model.parent / "mmproj-SmolLM2-f16.gguf")
    with smollm2_path().open("rb") as f:
        (model.parent / "broken-Q4_K_M.gguf").write_bytes(f.read(100))
    (model.parent / "README.md").write_text("# SmolLM2\n")
    return model


def _manifest(root: Path, name: str, digest: str) -> None:
    path = root / "manifests" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    layers = [
        {"mediaType": "application/vnd.ollama.image.model", "digest": digest, "size": 98362432},
        {"mediaType": "application/vnd.ollama.image.template", "digest": "sha256:" + "7a" * 32, "size": 99},
    ]
    config = {"mediaType": "application/vnd.docker.container.image.v1+json", "digest": "sha256:" + "0c" * 32}
    path.write_text(json.dumps({"schemaVersion": 2, "config": config, "layers": layers}))


def ollama_folder(home: Path) -> Path:
    """``~/.ollama/models``: SmolLM2 under two names (the library's and a Hugging Face one) sharing one
    blob, and a manifest whose blob is gone; returns the blob."""
    root = home / ".ollama" / "models"
    blob = root / "blobs" / OLLAMA_DIGEST.replace(":", "-")
    put_model(blob)
    _manifest(root, "registry.ollama.ai/library/smollm2/135m", OLLAMA_DIGEST)
    _manifest(root, "hf.co/bartowski/SmolLM2-135M-Instruct-GGUF/Q4_1", OLLAMA_DIGEST)
    _manifest(root, "registry.ollama.ai/library/gone/latest", "sha256:" + "ff" * 32)
    return blob
