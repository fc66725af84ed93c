"""Nothing leaves the machine: ``kimas index``, ``ask``, ``doctor`` and ``serve`` (online sources off, the
embedded models) run under strace, which follows every process and every thread, native ones too
(onnxruntime's telemetry uploader is C++, out of reach of a Python socket guard).

A DNS query (anything to port 53, loopback resolvers included), a connect or datagram to an address that is
not loopback, or a connect to the system's resolver sockets (nscd, systemd-resolved) fails the test. The
processes get a fresh HOME, so the user's home is never touched; what onnxruntime would queue there (a
device id, unsent events) must be gone afterwards. The environment is the user's minus the telemetry
switches (kimas must set them itself), or with them turned on (off must win), and minus CI markers, which
onnxruntime takes as "do not send".

The guard is checked twice: a lookup and a connect from a thread are caught, and the real ``kimas serve``
with its switches emptied is caught phoning home (onnxruntime resolving mobile.events.data.microsoft.com).
"""

from __future__ import annotations

import codecs
import contextlib
import ipaddress
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

from ipc.privacy import TELEMETRY_OFF, onnxruntime_queue
from tests.indexer.files import write_pdf

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
STRACE = shutil.which("strace") or "/usr/bin/strace"
SYSCALLS = "trace=connect,sendto,sendmsg,sendmmsg"
RESOLVER_SOCKETS = ("/var/run/nscd/", "/run/nscd/", "/run/systemd/resolve/", "/var/run/systemd/resolve/")
# Environment variables by which onnxruntime recognizes a CI machine and sends nothing (read from its binary).
CI_MARKERS = (
    "CI",
    "GITHUB_ACTIONS",
    "TF_BUILD",
    "GITLAB_CI",
    "CIRCLECI",
    "TRAVIS",
    "JENKINS_URL",
    "CODEBUILD_BUILD_ID",
    "BUILDKITE",
    "TEAMCITY_VERSION",
    "ORT_RUNNING_UNIT_TESTS",
)
# onnxruntime's uploader first sends about 11 s after a model loads (measured with onnxruntime 1.32, the
# switch off); the app keeps running this long after its embedder loaded, so such an upload would be seen.
UPLOAD_WINDOW_S = 25.0
SOCKADDR = re.compile(r"\{sa_family=(AF_INET6|AF_INET|AF_UNIX),(?P<rest>[^{}]*)\}")
KIMAS_CLI = "import sys; from cli.main import main; sys.exit(main(sys.argv[1:]))"
# The same, with every switch emptied: what kimas did before issue 40 (the guard's known positive).
NO_SWITCHES = "import ipc.privacy as p; p.TELEMETRY_OFF = {}; " + KIMAS_CLI


def _why(family: str, rest: str) -> str | None:
    """Why one socket address in the trace leaves the machine (None: it does not)."""
    if family == "AF_UNIX":
        path = re.search(r'sun_path=@?"([^"]*)"', rest)
        return "resolver socket" if path and path.group(1).startswith(RESOLVER_SOCKETS) else None
    port = re.search(r"sin6?_port=htons\((\d+)\)", rest)
    if port and int(port.group(1)) == 53:
        return "DNS query"
    addr = re.search(r'inet_addr\("([^"]+)"\)|inet_pton\(AF_INET6, "([^"]+)"', rest)
    if addr is None:
        return None
    ip = ipaddress.ip_address(addr.group(1) or addr.group(2))
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return None if ip.is_loopback else f"connection to {ip}"


def outside_attempts(trace: str) -> list[str]:
    """Every line of an strace log that looks something up or reaches beyond this machine, with why."""
    found = []
    for line in trace.splitlines():
        for m in SOCKADDR.finditer(line):
            why = _why(m.group(1), m.group("rest"))
            if why:
                found.append(f"{why}: {line.strip()}")
    return found


DNS_CONNECT = re.compile(r"^(\d+) +connect\((\d+), \{sa_family=AF_INET6?, sin6?_port=htons\(53\)")
SEND = re.compile(r'^(\d+) +send(?:to|msg|mmsg)\((\d+), .*?"((?:[^"\\]|\\.)*)"')


def _question(payload: bytes) -> str | None:
    """The name a DNS query packet asks for (one question, header of 12 bytes), or None."""
    if len(payload) < 13 or payload[4:6] != b"\0\1":
        return None
    labels, i = [], 12
    while i < len(payload) and payload[i]:
        labels.append(payload[i + 1 : i + 1 + payload[i]].decode("ascii", "replace"))
        i += 1 + payload[i]
    return ".".join(labels) or None


def looked_up(trace: str) -> set[str]:
    """The names asked of a DNS server in an strace log (sends on sockets connected to port 53)."""
    dns_sockets: set[tuple[str, str]] = set()
    names = set()
    for line in trace.splitlines():
        if m := DNS_CONNECT.match(line):
            dns_sockets.add((m.group(1), m.group(2)))
        elif (m := SEND.match(line)) and (m.group(1), m.group(2)) in dns_sockets:
            payload = codecs.escape_decode(m.group(3).encode("latin-1"))[0]
            if name := _question(payload):
                names.add(name)
    return names


def report(trace: str) -> str:
    attempts = outside_attempts(trace)
    names = ", ".join(sorted(looked_up(trace))) or "none seen"
    return f"{len(attempts)} attempts; names looked up: {names}\n" + "\n".join(attempts[:10])


def _guard_usable() -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("the network guard uses strace, which exists on Linux only")
    if not Path(STRACE).exists():
        pytest.fail(f"no strace at {STRACE}: scripts/test.sh installs Debian's strace")


def _env(home: Path) -> dict[str, str]:
    drop = {*TELEMETRY_OFF, *CI_MARKERS, "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "KIMAS_HOME"}
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("HF_")}
    return {**env, "HOME": str(home), "PYTHONUNBUFFERED": "1"}


def _traced(log: Path, code: str, *args: str) -> list[str]:
    strace = [STRACE, "-f", "-qq", "--seccomp-bpf", "-s", "200", "-e", SYSCALLS, "-o", str(log)]
    return [*strace, sys.executable, "-c", code, *args]


def run_guarded(log: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    cmd = _traced(log, KIMAS_CLI, *args)
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _onnxruntime_loaded(apps: list[psutil.Process]) -> bool:
    for app in apps:
        with contextlib.suppress(psutil.Error):
            if any("libonnxruntime" in m.path for m in app.memory_maps()):
                return True
    return False


def _wait(
    condition: Callable[[], object], what: str, proc: subprocess.Popen[bytes], timeout: float = 240
) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if proc.poll() is not None:
            pytest.fail(f"the app exited ({proc.returncode}) before {what}")
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting until {what}")
        time.sleep(0.3)


def _answers(url: str) -> bool:
    with contextlib.suppress(OSError), urllib.request.urlopen(url, timeout=2) as r:
        return bool(r.status == 200)
    return False


@dataclass(frozen=True)
class Served:
    strace: subprocess.Popen[bytes]

    def apps(self, recursive: bool = True) -> list[psutil.Process]:
        """strace's tracees now. Read afresh each time: the first child CI saw was once a short-lived one,
        gone a moment later, and a wait on its pid never ended."""
        with contextlib.suppress(psutil.Error):
            return list(psutil.Process(self.strace.pid).children(recursive=recursive))
        return []

    def wait(self, condition: Callable[[], object], what: str, timeout: float = 240) -> None:
        _wait(condition, what, self.strace, timeout)


@contextlib.contextmanager
def serving(log: Path, home: Path, data: Path, code: str = KIMAS_CLI) -> Iterator[Served]:
    """``kimas serve`` under strace, once its page answers. Stopped with SIGTERM (as a service manager
    would); strace ends with its last tracee."""
    port = _free_port()
    args = ["serve", "--port", str(port), "--data-dir", str(data)]
    with (log.parent / "serve.out").open("wb") as out:
        proc = subprocess.Popen(_traced(log, code, *args), cwd=ROOT, env=_env(home), stdout=out, stderr=out)
    served = Served(proc)
    try:
        _wait(lambda: served.apps(), "strace started the app", proc, 60)
        _wait(lambda: _answers(f"http://127.0.0.1:{port}/"), "the app answered", proc)
        yield served
    finally:
        for app in served.apps(recursive=False):  # the app stops its own workers
            with contextlib.suppress(psutil.Error):
                app.terminate()
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def _documents(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "kettle.md").write_text(
        "# Kettle\n\nDescale the kettle with citric acid once a month.\n", "utf-8"
    )
    write_pdf(docs / "boiler.pdf", ["Boiler service\nThe boiler is serviced every October by Ada."])
    return docs


def _plant_old_queue(home: Path) -> Path:
    """What onnxruntime left in a home before kimas switched it off: a device id and unsent events."""
    queue = onnxruntime_queue({"HOME": str(home)})
    assert queue is not None
    queue.mkdir(parents=True)
    (queue / "deviceid").write_text("00000000-0000-0000-0000-000000000000")
    (queue / "onnxruntime.db").write_bytes(b"SQLite format 3\0")
    return queue


def test_the_guard_sees_lookups_and_connects_from_any_thread(tmp_path: Path) -> None:
    _guard_usable()
    code = (
        "import socket, threading\n"
        "def go():\n"
        "    try: socket.getaddrinfo('kimas-guard-check.example.org', 443)\n"
        "    except OSError: pass\n"
        "    s = socket.socket(); s.setblocking(False)\n"
        "    try: s.connect(('192.0.2.7', 9))\n"
        "    except OSError: pass\n"
        "t = threading.Thread(target=go); t.start(); t.join()\n"
    )
    log = tmp_path / "trace.log"
    subprocess.run(_traced(log, code), env=_env(tmp_path), capture_output=True, timeout=60, check=True)
    trace = log.read_text()
    assert "connection to 192.0.2.7" in report(trace)
    assert "kimas-guard-check.example.org" in looked_up(trace) or "resolver socket" in report(trace), report(
        trace
    )


def test_the_trace_reader_keeps_loopback_and_flags_the_rest() -> None:
    trace = "\n".join(
        [
            '1 connect(3, {sa_family=AF_INET, sin_port=htons(7860), sin_addr=inet_addr("127.0.0.1")}, 16) = 0',
            '1 connect(3, {sa_family=AF_INET6, sin6_port=htons(80), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "::ffff:127.0.0.1", &sin6_addr), sin6_scope_id=0}, 28) = 0',
            '1 connect(4, {sa_family=AF_UNIX, sun_path="/tmp/kimas.sock"}, 110) = 0',
            '2 connect(5, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("127.0.0.53")}, 16) = 0',
            '2 connect(6, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "2001:db8::1", &sin6_addr), sin6_scope_id=0}, 28) = -1',
            '2 connect(7, {sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}, 110) = -1 ENOENT',
            '2 sendto(8, "x", 1, 0, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("10.1.2.3")}, 16) = 1',
        ]
    )
    found = outside_attempts(trace)
    assert [f.split(":")[0] for f in found] == [
        "DNS query",
        "connection to 2001",
        "resolver socket",
        "connection to 10.1.2.3",
    ]


def test_index_ask_and_doctor_send_nothing(tmp_path: Path) -> None:
    _guard_usable()
    home, data, docs = tmp_path / "home", tmp_path / "data", _documents(tmp_path)
    home.mkdir()
    queue = _plant_old_queue(home)
    runs = {
        "index": ["index", str(docs), "--collection", "home", "--data-dir", str(data)],
        "ask": [
            "ask",
            "How often is the kettle descaled?",
            "--preset",
            "turbo",
            "--json",
            "--data-dir",
            str(data),
        ],
        "doctor": ["doctor", "--json", "--data-dir", str(data)],
    }
    # The user's environment asks for telemetry: off wins.
    said_on = {name: "True" if value == "False" else "0" for name, value in TELEMETRY_OFF.items()}
    outputs = {}
    for name, args in runs.items():
        log = tmp_path / f"{name}.trace"
        done = run_guarded(log, {**_env(home), **said_on}, *args)
        assert done.returncode == 0, f"kimas {name} failed:\n{done.stderr[-3000:]}"
        trace = log.read_text()
        assert outside_attempts(trace) == [], f"kimas {name} reached outside this machine: {report(trace)}"
        outputs[name] = done.stdout
    assert json.loads(outputs["ask"])["answer"]
    assert json.loads(outputs["doctor"])["telemetry"].startswith("off"), outputs["doctor"]
    assert not queue.exists(), "onnxruntime's device id and queued events are still in the home folder"


def test_serve_sends_nothing_while_its_models_run(tmp_path: Path) -> None:
    _guard_usable()
    home, data, log = tmp_path / "home", tmp_path / "data", tmp_path / "serve.trace"
    home.mkdir()
    with serving(log, home, data) as served:
        # A fresh data dir quantizes the embedded model first (about a minute on 2 cores, several under
        # strace on a busy machine: CI once took more than 240 s).
        served.wait(lambda: _onnxruntime_loaded(served.apps()), "the embedder loaded", timeout=900)
        loaded = time.monotonic()
        # Watch the window in which onnxruntime would upload; leave as soon as anything shows.
        while time.monotonic() - loaded < UPLOAD_WINDOW_S and not outside_attempts(log.read_text()):
            time.sleep(1)
    trace = log.read_text()
    assert outside_attempts(trace) == [], f"kimas serve reached outside this machine: {report(trace)}"
    queue = onnxruntime_queue({"HOME": str(home)})
    assert queue is not None and not queue.exists(), "onnxruntime queued telemetry in the home folder"


def test_the_guard_catches_onnxruntime_when_the_switches_are_emptied(tmp_path: Path) -> None:
    _guard_usable()
    home, data, log = tmp_path / "home", tmp_path / "data", tmp_path / "serve.trace"
    home.mkdir()
    with serving(log, home, data, code=NO_SWITCHES) as served:
        # As above: a fresh data dir quantizes the embedded model before onnxruntime loads it.
        served.wait(lambda: looked_up(log.read_text()), "onnxruntime looked up where to send", timeout=900)
    assert "mobile.events.data.microsoft.com" in looked_up(log.read_text()), report(log.read_text())
    queue = onnxruntime_queue({"HOME": str(home)})
    assert queue is not None and (queue / "deviceid").exists()
