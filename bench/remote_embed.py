"""Ingest throughput with the embedding model in-process, next to the same model behind an HTTP server.

    .venv/bin/python -m bench.remote_embed [--docs 400] [--batch 16]

Writes ``--docs`` passages of the dev kit's SQuAD-Shifts new_wiki corpus as Markdown files, then indexes
them into a fresh LanceDB twice with the real ``Indexer``: once with the embedded all-MiniLM-L6-v2 in
this process (``FastEmbedEmbedder``), once with ``RemoteEmbedder`` talking OpenAI's ``/v1/embeddings``
to a server in another process on 127.0.0.1 that runs the very same model
(``python -m tests.local_models.embed_server``). Same model, same machine: the difference is what the
HTTP hop (JSON of float vectors, one request per batch) and the remote embedder's approximate token
count (3 characters a token, so more, smaller chunks) cost. Model loading is done before timing.
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from indexer import Indexer, LanceStore
from kimas_desktop.config import EmbeddingModelConfig, IndexerConfig
from kimas_desktop.protocols import Embedder
from local_models import FastEmbedEmbedder, RemoteEmbedder

ROOT = Path(__file__).resolve().parents[1]

CORPUS = Path("/work/shared/eval/devkit/squadshifts_new_wiki/corpus.jsonl")
CACHE = ROOT / "bench" / ".cache" / "models"


def write_docs(folder: Path, count: int) -> int:
    words = 0
    with CORPUS.open() as f:
        for i, line in zip(range(count), f, strict=False):
            row = json.loads(line)
            text = f"# {row['title']}\n\n{row['text']}\n"
            words += len(text.split())
            (folder / f"doc{i:04d}.md").write_text(text, "utf-8")
    return words


def run(embedder: Embedder, folder: Path, work: Path, label: str) -> dict[str, float]:
    embedder.warm_up()
    indexer = Indexer(LanceStore(str(work / label)), embedder, IndexerConfig())
    start = time.perf_counter()
    report = indexer.index("bench", [folder])
    wall = time.perf_counter() - start
    return {"files": report.indexed, "chunks": report.chunks_added, "wall_s": wall}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=400)
    parser.add_argument("--batch", type=int, default=16)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        folder = work / "docs"
        folder.mkdir()
        words = write_docs(folder, args.docs)
        cfg = EmbeddingModelConfig(batch_size=args.batch)
        local = run(FastEmbedEmbedder(cfg, CACHE), folder, work, "local")

        port = free_port()
        cmd = [
            sys.executable,
            "-m",
            "tests.local_models.embed_server",
            "--port",
            str(port),
            "--cache",
            str(CACHE),
        ]
        server = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True)
        try:
            assert server.stdout is not None and server.stdout.readline().strip() == "ready"
            remote_cfg = EmbeddingModelConfig(
                backend="openai", base_url=f"http://127.0.0.1:{port}/v1", batch_size=args.batch
            )
            remote = run(RemoteEmbedder(remote_cfg), folder, work, "remote")
        finally:
            server.terminate()
            server.wait(10)
    print(f"{args.docs} Markdown files, {words:,} words, batch {args.batch}")
    for label, r in (("in-process", local), ("HTTP server", remote)):
        rate = f"{r['chunks'] / r['wall_s']:.1f} chunks/s, " if r["chunks"] else ""
        print(
            f"{label:<12} {r['wall_s']:6.1f} s  {rate}{words / r['wall_s']:,.0f} words/s  ({r['chunks']:.0f} chunks)"
        )


if __name__ == "__main__":
    main()
