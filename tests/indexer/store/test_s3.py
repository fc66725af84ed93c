"""Collections on an S3-compatible object store: moto's server on 127.0.0.1, credentials and endpoint
through storage_options, exactly as a team's shared storage would be configured."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from indexer import Indexer, LanceStore
from local_models.fake import HashEmbedder
from tests.indexer.files import small_config, write

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def s3_options() -> Iterator[dict[str, str]]:
    boto3 = pytest.importorskip("boto3")
    pytest.importorskip("moto")
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "moto server did not start"
                time.sleep(0.1)
        endpoint = f"http://127.0.0.1:{port}"
        boto3.client(
            "s3",
            endpoint_url=endpoint,
            aws_access_key_id="test",
            aws_secret_access_key="test",
            region_name="us-east-1",
        ).create_bucket(Bucket="team-knowledge")
        yield {
            "aws_access_key_id": "test",
            "aws_secret_access_key": "test",
            "region": "us-east-1",
            "endpoint": endpoint,
            "allow_http": "true",
        }
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_a_collection_on_s3_is_shared_and_stays_incremental(
    tmp_path: Path, s3_options: dict[str, str]
) -> None:
    embedder = HashEmbedder(dim=64)
    uri = "s3://team-knowledge/kimas"
    folder = tmp_path / "docs"
    write(folder / "ops.md", "# Runbook\n\nRestart the queue worker when the backlog grows.")
    write(folder / "db.md", "# Database\n\nVacuum the tables every Sunday night.")
    mine = LanceStore(uri, s3_options)
    report = Indexer(mine, embedder, small_config()).index("team", [folder])
    assert report.indexed == 2

    theirs = LanceStore(uri, dict(s3_options))  # another desktop pointing at the same bucket
    [info] = theirs.collections()
    assert (info.name, info.files, info.chunks) == ("team", 2, 2)
    assert theirs.synopsis("team") is not None
    q = "when to vacuum the tables"
    hits = theirs.search("team", text=q, vector=embedder.embed_query([q])[0], k=2)
    assert hits[0].chunk.source.endswith("db.md")

    (folder / "db.md").write_text("# Database\n\nVacuum the tables every Saturday morning.")
    again = Indexer(mine, embedder, small_config()).index("team", [folder])
    assert (again.indexed, again.unchanged) == (1, 1)
    time.sleep(1.1)  # the other desktop re-reads table versions at most once a second
    hits = theirs.search(
        "team", text="saturday", vector=embedder.embed_query(["saturday"])[0], k=1, mode="fts"
    )
    assert "Saturday" in hits[0].chunk.text

    theirs.remove_collection("team")
    assert LanceStore(uri, s3_options).collections() == []
