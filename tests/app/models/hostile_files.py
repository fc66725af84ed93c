"""Hostile files where model discovery looks, written byte by byte: a GGUF header of 5,000 nested arrays,
GGUF headers claiming absurd counts, an Ollama manifest of nested brackets, manifests whose digest climbs
out of ``blobs/``, FIFOs and a link to a device named like models, a link loop; beside them the good
models of ``model_folders``."""

from __future__ import annotations

import contextlib
import json
import os
import struct
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from tests.app.models.model_folders import lm_studio_folder, ollama_folder, put_model

T = TypeVar("T")
NESTED_LEVELS = 5_000  # 12 bytes a level: a 60 KB header
ESCAPE_NAME = "nested\x1b]0;owned\x07\nQ4_K_M.gguf"  # a terminal title sequence and a line break


def gguf_string(text: str) -> bytes:
    data = text.encode()
    return struct.pack("<Q", len(data)) + data


def gguf_header(pairs: list[tuple[str, int, bytes]]) -> bytes:
    """GGUF v3 (ggml's docs/gguf.md): magic, version, tensor count, key count, then key, value type, value."""
    out = b"GGUF" + struct.pack("<IQQ", 3, 0, len(pairs))
    return out + b"".join(gguf_string(k) + struct.pack("<I", t) + v for k, t, v in pairs)


def nested_arrays_gguf(levels: int = NESTED_LEVELS) -> bytes:
    """A header whose one value is an array of an array of … (``levels`` deep) of no bytes."""
    nested = struct.pack("<IQ", 9, 1) * (levels - 1) + struct.pack("<IQ", 0, 0)
    return gguf_header([("general.architecture", 8, gguf_string("llama")), ("tokenizer.evil", 9, nested)])


def nested_brackets_manifest(size: int = 400_000) -> bytes:
    """A 400 KB Ollama manifest: ``{"layers": [[[[…]]]]}``."""
    depth = (size - 20) // 2
    return b'{"layers": ' + b"[" * depth + b"]" * depth + b"}"


def manifest(root: Path, name: str, body: object) -> Path:
    """An Ollama manifest at ``manifests/<name>``: ``body`` as it is (bytes) or as JSON."""
    path = root / "manifests" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(body if isinstance(body, bytes) else json.dumps(body).encode())
    return path


def model_layer(digest: object) -> dict[str, object]:
    return {"layers": [{"mediaType": "application/vnd.ollama.image.model", "digest": digest, "size": 1}]}


def hostile_home(home: Path) -> dict[str, Path]:
    """The good models of ``model_folders`` and, beside them, one hostile file of each kind (FIFOs where the
    OS has them); returns the hostile files by what they are."""
    lm_studio_folder(home)
    ollama = home / ".ollama" / "models"
    ollama_folder(home)
    folder = home / ".lmstudio" / "models" / "evil" / "repo"
    folder.mkdir(parents=True)
    files = {"nested-gguf": folder / ESCAPE_NAME}
    files["nested-gguf"].write_bytes(nested_arrays_gguf())
    outside = put_model(home / "Documents" / "other.gguf")  # a real model, but not Ollama's
    files["traversal"] = manifest(
        ollama, "registry.ollama.ai/library/escape/latest", model_layer("../../../Documents/other.gguf")
    )
    files["absolute"] = manifest(
        ollama, "registry.ollama.ai/library/absolute/latest", model_layer(str(outside))
    )
    files["brackets"] = manifest(
        ollama, "registry.ollama.ai/library/brackets/latest", nested_brackets_manifest()
    )
    if hasattr(os, "mkfifo"):  # POSIX: FIFOs, and links that the OS always allows
        files["loop"] = folder / "loop-a.gguf"
        os.symlink(folder / "loop-b.gguf", files["loop"])
        os.symlink(files["loop"], folder / "loop-b.gguf")
        files["fifo"] = folder / "fifo-Q4_K_M.gguf"
        os.mkfifo(files["fifo"])
        files["link-to-fifo"] = folder / "link-Q4_K_M.gguf"
        os.symlink(files["fifo"], files["link-to-fifo"])
        files["link-to-device"] = folder / "device-Q4_K_M.gguf"
        os.symlink(os.devnull, files["link-to-device"])
        files["fifo-blob"] = ollama / "blobs" / ("sha256-" + "f1" * 32)
        os.mkfifo(files["fifo-blob"])
        manifest(ollama, "registry.ollama.ai/library/fifo/latest", model_layer("sha256:" + "f1" * 32))
    return files


def release(fifos: list[Path]) -> None:
    """Opens each FIFO's writing end without blocking, so a reader stuck opening it goes on."""
    for fifo in fifos:
        with contextlib.suppress(OSError):  # no reader waits on it
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


def finished_within(seconds: float, fifos: list[Path], work: Callable[[], T]) -> T:
    """``work()``'s result, run in a thread that must finish within ``seconds`` (a reader stuck opening a
    FIFO is let go afterwards, so the test fails instead of hanging); its exception is raised here."""
    outcome: list[T] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(work())
        except BaseException as err:  # handed to the test's thread
            errors.append(err)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    stuck = worker.is_alive()
    release(fifos)
    worker.join(5)
    assert not stuck, f"still reading after {seconds} s"
    if errors:
        raise errors[0]
    return outcome[0]
