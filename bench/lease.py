"""The cost of the writer lease per sync: acquiring and releasing a collection's lease (what every sync
adds), on a local directory and on an S3-compatible store (moto's server on 127.0.0.1), next to a sync
that finds nothing to do (the cheapest sync there is).

    .venv/bin/python -m bench.lease [--rounds 50]
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from indexer import Indexer, LanceStore
from kimas_desktop.config import IndexerConfig
from local_models.fake import HashEmbedder


def _ms(fn: Callable[[], object], rounds: int) -> tuple[float, float]:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), max(times)


def _moto() -> tuple[subprocess.Popen[bytes], dict[str, str]]:
    import boto3

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(300):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    endpoint = f"http://127.0.0.1:{port}"
    boto3.client(
        "s3", endpoint_url=endpoint, aws_access_key_id="t", aws_secret_access_key="t", region_name="us-east-1"
    ).create_bucket(Bucket="bench-lease")
    options = {
        "aws_access_key_id": "t",
        "aws_secret_access_key": "t",
        "region": "us-east-1",
        "endpoint": endpoint,
        "allow_http": "true",
    }
    return server, options


def measure(name: str, uri: str, options: dict[str, str], folder: Path, rounds: int) -> None:
    store = LanceStore(uri, options)
    indexer = Indexer(store, HashEmbedder(dim=64), IndexerConfig())
    indexer.index("c", [folder])

    def lease() -> None:
        store.lease("c").release()

    lease_med, lease_max = _ms(lease, rounds)
    sync_med, _ = _ms(lambda: indexer.index("c", [folder]), max(rounds // 5, 3))
    print(
        f"| {name} | {lease_med:.1f} | {lease_max:.1f} | {sync_med:.0f} | {100 * lease_med / sync_med:.0f}% |",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "docs"
        folder.mkdir()
        for i in range(20):
            (folder / f"f{i}.md").write_text(f"# Note {i}\n\nThe river stone lamp number {i}.\n")
        print(
            "| store | lease acquire+release, median ms | max ms | no-change sync, median ms | lease share |"
        )
        print("|---|---|---|---|---|")
        measure("local directory", str(Path(tmp) / "db"), {}, folder, args.rounds)
        server, options = _moto()
        try:
            measure("S3 (moto on 127.0.0.1)", "s3://bench-lease/kimas", options, folder, args.rounds)
        finally:
            server.terminate()
            server.wait(timeout=10)


if __name__ == "__main__":
    main()
