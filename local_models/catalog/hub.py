"""What the Hugging Face hub side of model loading needs, without loading anything.

``fastembed_snapshot`` finds a model fastembed downloaded earlier into a cache directory (the hub's
``models--org--name/snapshots/<rev>/`` layout). ``hub_unreachable_reason`` is a fast TCP probe made
just before a configured download: fastembed retries an unreachable hub with sleeps of 3, 9 and 27 s,
so without the probe an offline machine waits 40 s for an error.
"""

from __future__ import annotations

import os
import socket
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

__all__ = ["fastembed_description", "fastembed_snapshot", "hub_endpoint", "hub_unreachable_reason"]

_TRUTHY = {"1", "true", "yes", "on"}


def hub_endpoint() -> str:
    return os.environ.get("HF_ENDPOINT", "").rstrip("/") or "https://huggingface.co"


def hub_unreachable_reason(timeout_s: float = 3.0) -> str | None:
    """None when a TCP connection to the hub (or the HTTPS proxy) opens; otherwise why it did not."""
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in _TRUTHY:
        return "HF_HUB_OFFLINE is set"
    url = urlsplit(hub_endpoint())
    proxy = urllib.request.getproxies().get(url.scheme or "https")
    target = urlsplit(proxy) if proxy else url
    host = target.hostname or "huggingface.co"
    port = target.port or (443 if target.scheme == "https" else 80)
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return None
    except OSError as err:
        return f"{host}:{port}: {err}"


def fastembed_description(models: list[dict[str, Any]], name: str) -> dict[str, Any] | None:
    """The entry of fastembed's ``list_supported_models()`` for ``name`` (case-insensitive)."""
    for model in models:
        if str(model.get("model", "")).lower() == name.lower():
            return model
    return None


def fastembed_snapshot(description: dict[str, Any], cache_dir: Path) -> Path | None:
    """The cached snapshot directory holding the model's file, or None when it is not cached."""
    repo = (description.get("sources") or {}).get("hf")
    model_file = str(description.get("model_file", ""))
    if not repo or not model_file:
        return None
    snapshots = cache_dir / ("models--" + str(repo).replace("/", "--")) / "snapshots"
    if not snapshots.is_dir():
        return None
    for snapshot in sorted(snapshots.iterdir()):
        if (snapshot / model_file).is_file() and (snapshot / "tokenizer.json").is_file():
            return snapshot
    return None
