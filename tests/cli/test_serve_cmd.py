"""``kimas serve`` wiring that needs no browser: the port message and the cited-file route."""

from __future__ import annotations

import socket
import warnings
from pathlib import Path

import pytest
from fastapi import FastAPI

from cli.main import main
from cli.serve_cmd import add_source_route, port_in_use


def test_a_taken_port_gets_a_clear_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert port_in_use(port)
        code = main(["serve", "--port", str(port), "--data-dir", str(tmp_path / "data")])
    err = capsys.readouterr().err
    assert code == 2
    assert f"port {port} is already in use" in err and f"--port {port + 1}" in err
    assert "Traceback" not in err


def test_a_port_left_in_time_wait_by_a_stopped_app_is_free() -> None:
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn's listening socket
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    client = socket.create_connection(("127.0.0.1", port))
    conn, _ = server.accept()
    conn.close()  # the server side closes first: its end of the connection stays in TIME_WAIT
    server.close()
    client.close()
    # What the old probe saw: a bind without SO_REUSEADDR fails.
    with socket.socket() as plain, pytest.raises(OSError):
        plain.bind(("127.0.0.1", port))
    assert not port_in_use(port)


class _Sources:
    def __init__(self, allowed: Path) -> None:
        self.allowed = allowed

    def file(self, token: str) -> Path | None:
        return self.allowed if token == "good" else None


def test_the_source_route_serves_only_cited_files(tmp_path: Path) -> None:
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(b"%PDF-1.4 fake")
    app = FastAPI()
    add_source_route(app, _Sources(pdf), "/kimas/source")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # starlette deprecates its TestClient on httpx
        from fastapi.testclient import TestClient
    client = TestClient(app)
    ok = client.get("/kimas/source/good/report.pdf")
    assert ok.status_code == 200 and ok.content == b"%PDF-1.4 fake"
    assert ok.headers["content-type"] == "application/pdf"
    assert ok.headers["content-disposition"].startswith("inline")
    assert client.get("/kimas/source/bad/..%2F..%2Fetc%2Fpasswd").status_code == 404


def test_a_second_app_on_the_same_data_dir_is_refused_and_a_killed_one_does_not_block(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import subprocess
    import sys
    import time

    data = tmp_path / "data"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from app.instance_lock import InstanceLock; "
            "lock = InstanceLock(Path(sys.argv[1])); lock.acquire('http://127.0.0.1:7999'); print('held', flush=True); "
            "time.sleep(60)",
            str(data),
        ],
        cwd=Path(__file__).resolve().parents[2],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        code = main(["serve", "--port", str(port), "--data-dir", str(data)])
        err = capsys.readouterr().err
        assert code == 2
        assert "already running on this data directory at http://127.0.0.1:7999" in err
        assert f"(process {holder.pid})" in err and "Traceback" not in err
    finally:
        holder.kill()  # as a crash would: the lock goes with the process
        holder.wait()
    from app.instance_lock import InstanceLock

    lock = InstanceLock(data)
    deadline = time.monotonic() + 5
    while True:
        try:
            lock.acquire("http://127.0.0.1:7860")
            break
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    lock.release()
