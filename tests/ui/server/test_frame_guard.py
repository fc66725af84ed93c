"""No page of another site can show the app (clickjacking, issue 40 item 9), and every response says so.

Over plain HTTP, against the real outer app (``ui.server.server.serve``: guards, the cited-file route,
Gradio) on 127.0.0.1 with a small Blocks: every kind of response (page, config, API info, assets, the queue,
uploads, files, the guards' own 403 and 413, a 404) carries ``X-Frame-Options: DENY``,
``frame-ancestors 'none'`` and ``nosniff``; the app's page carries the page policy. In Chromium, against
``launch.py``: a page served on another 127.0.0.1 port frames the app, and the frame stays empty; the app's
own page loads with no content-policy complaint.
"""

from __future__ import annotations

import http.client
import http.server
import json
import re
import socket
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.ui.patience import HANG_MS
from tests.ui.test_browser import CHROMIUM, ROOT, _pdf, running_app

ARTIFACTS = ROOT / "test-artifacts" / "frame-guard"
REQUEST_LIMIT_MB = 1


class FolderSources:
    """The cited-file registry, reduced to a folder: the token is the file's name."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def file(self, token: str) -> Path | None:
        path = self.folder / token
        return path if path.is_file() else None


@dataclass
class Reply:
    status: int
    headers: dict[str, list[str]]
    body: bytes

    def header(self, name: str) -> str:
        return ", ".join(self.headers.get(name, []))


@dataclass
class Outer:
    """The real outer app, served on 127.0.0.1:``port`` in this process."""

    port: int

    @property
    def own(self) -> str:
        return f"127.0.0.1:{self.port}"

    def request(
        self,
        method: str,
        path: str,
        headers: dict[str, str] | None = None,
        body: bytes = b"",
        read: bool = True,
    ) -> Reply:
        """One request; ``read=False`` stops after the headers (a stream that stays open)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            sent = {"Host": self.own, "Content-Length": str(len(body)), **(headers or {})}
            for key, value in sent.items():
                conn.putheader(key, value)
            conn.endheaders(body)
            r = conn.getresponse()
            seen: dict[str, list[str]] = {}
            for key, value in r.getheaders():
                seen.setdefault(key.lower(), []).append(value)
            return Reply(r.status, seen, r.read() if read else b"")
        finally:
            conn.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def outer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Outer]:
    import gradio as gr

    from cli.serve_cmd import add_source_route
    from ui.markup import SOURCE_ROUTE
    from ui.server.server import ServeLimits, serve

    folder = tmp_path_factory.mktemp("cited")
    write_cited_files(folder)
    with gr.Blocks(analytics_enabled=False) as demo:
        box = gr.Textbox(elem_id="box")
        out = gr.Textbox()
        box.submit(lambda s: s.upper(), box, out)
    port = _free_port()
    running = serve(
        demo,
        port,
        ServeLimits(max_upload_request_mb=REQUEST_LIMIT_MB),
        routes=[lambda app: add_source_route(app, FolderSources(folder), SOURCE_ROUTE)],
        launch={"ssr_mode": False, "mcp_server": False},
    )
    try:
        yield Outer(port)
    finally:
        running.close()


SCRIPT = "<script>document.title = 'PWNED'; fetch('/config');</script>"
CITED = {
    "page.html": f"<html><body><p>The harbour master is Odalys Crane.</p>{SCRIPT}</body></html>",
    "page.htm": f"<p>Odalys Crane</p>{SCRIPT}",
    "page.xhtml": f'<html xmlns="http://www.w3.org/1999/xhtml"><body>{SCRIPT}</body></html>',
    "drawing.svg": f'<svg xmlns="http://www.w3.org/2000/svg">{SCRIPT}</svg>',
    "data.xml": '<?xml-stylesheet type="text/xsl" href="x.xsl"?><root/>',
    "notes.md": "# Notes\n\n<script>alert(1)</script>\n",
    "notes.txt": "plain words\n",
    "photo.png": "\x89PNG not really",
    "letter.docx": "PK not really",
    "no-suffix": "<script>alert(1)</script>",
}


def write_cited_files(folder: Path) -> None:
    for name, text in CITED.items():
        (folder / name).write_text(text, "utf-8")
    _pdf(folder / "report.pdf", ["The harbour master is Odalys Crane."])


def _upload_body() -> tuple[str, bytes]:
    boundary = uuid.uuid4().hex
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="a.txt"\r\n'
        f"Content-Type: text/plain\r\n\r\nhello\r\n--{boundary}--\r\n"
    ).encode()
    return f"multipart/form-data; boundary={boundary}", body


def _every_kind_of_response(outer: Outer) -> dict[str, Reply]:
    own = {"Origin": f"http://{outer.own}"}
    page = outer.request("GET", "/")
    asset = re.search(rb'src="\.?/?(assets/index-[^"]+\.js)"', page.body)
    assert asset is not None, page.body[:2000]
    join = json.dumps({"data": ["hi"], "fn_index": 0, "session_hash": "probe", "event_data": None})
    content_type, upload = _upload_body()
    return {
        "page": page,
        "config": outer.request("GET", "/config"),
        "api info": outer.request("GET", "/gradio_api/info"),
        "script asset": outer.request("GET", "/" + asset.group(1).decode()),
        "theme": outer.request("GET", "/theme.css"),
        "queue join": outer.request(
            "POST",
            "/gradio_api/queue/join",
            {**own, "Content-Type": "application/json"},
            join.encode(),
        ),
        "queue stream": outer.request("GET", "/gradio_api/queue/data?session_hash=probe", read=False),
        "upload": outer.request("POST", "/gradio_api/upload", {**own, "Content-Type": content_type}, upload),
        "preflight": outer.request("OPTIONS", "/gradio_api/upload", own),
        "head": outer.request("HEAD", "/"),
        "cited file": outer.request("GET", "/kimas/source/notes.txt/notes.txt"),
        "no such file": outer.request("GET", "/kimas/source/nothing/nothing"),
        "gradio file route": outer.request("GET", "/gradio_api/file=/etc/passwd"),
        "not found": outer.request("GET", "/no/such/page"),
        "guard 403": outer.request("GET", "/", {"Host": f"evil.example:{outer.port}"}),
        "limit 413": outer.request(
            "POST",
            "/gradio_api/upload",
            {**own, "Content-Length": str(REQUEST_LIMIT_MB * 1_000_000 + 1)},
        ),
    }


def test_every_response_forbids_framing_and_sniffing(outer: Outer) -> None:
    replies = _every_kind_of_response(outer)
    assert replies["page"].status == 200 and replies["queue join"].status == 200
    assert replies["upload"].status == 200 and replies["cited file"].status == 200
    assert replies["guard 403"].status == 403 and replies["limit 413"].status == 413
    assert replies["no such file"].status == 404 and replies["not found"].status == 404
    assert replies["queue stream"].header("content-type").startswith("text/event-stream")
    for kind, reply in replies.items():
        assert reply.header("x-frame-options") == "DENY", kind
        assert reply.header("x-content-type-options") == "nosniff", kind
        policies = reply.headers.get("content-security-policy", [])
        assert policies and all("frame-ancestors 'none'" in p for p in policies), (kind, policies)


def test_the_apps_page_allows_only_itself(outer: Outer) -> None:
    from ui.server.security_headers import PAGE_POLICY

    page = outer.request("GET", "/")
    assert page.headers["content-security-policy"] == [PAGE_POLICY]
    rules = dict(rule.split(" ", 1) for rule in PAGE_POLICY.split("; "))
    assert rules["default-src"] == "'self'" and rules["connect-src"] == "'self'"
    assert rules["object-src"] == "'none'" and rules["frame-ancestors"] == "'none'"
    assert all("http" not in sources and "*" not in sources for sources in rules.values())


# -- in Chromium ---------------------------------------------------------------------------------------

FRAMER = """<!doctype html><title>win a prize</title>
<p>Click the big button twice!</p>
<iframe id="app" src="{url}" width="1200" height="800" onload="window.appFrameLoaded = true"></iframe>"""


def _framing_page(app_url: str) -> http.server.ThreadingHTTPServer:
    """Another web server on 127.0.0.1 whose page frames the app."""
    body = FRAMER.format(url=app_url).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.mark.browser
@pytest.mark.slow
def test_a_page_on_another_port_cannot_frame_the_app(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test.sh installs Debian's chromium)")
    with running_app(tmp_path / "data", ARTIFACTS) as url, sync_api.sync_playwright() as pw:
        framer = _framing_page(url)
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        try:
            page = browser.new_page()
            console: list[str] = []
            page.on("console", lambda m: console.append(m.text))
            page.goto(f"http://127.0.0.1:{framer.server_address[1]}/", timeout=HANG_MS)
            page.wait_for_function("window.appFrameLoaded === true", timeout=HANG_MS)
            frame = page.frame_locator("#app")
            page.screenshot(path=str(ARTIFACTS / "01-framed.png"))
            shown = page.frames[1].evaluate("document.documentElement.outerHTML")
            assert "gradio" not in shown.lower(), shown[:500]
            assert frame.locator("#question").count() == 0
            assert any("frame" in line and "'none'" in line for line in console), console

            own = browser.new_page()  # the app's own page still loads under its content policy
            complaints: list[str] = []
            own.on("console", lambda m: complaints.append(m.text))
            own.goto(url, timeout=HANG_MS)
            sync_api.expect(own.locator("#question")).to_be_visible(timeout=HANG_MS)
            sync_api.expect(own.locator("#model-status")).to_contain_text("Ready", timeout=HANG_MS)
            assert not [c for c in complaints if "Content Security Policy" in c], complaints
        finally:
            browser.close()
            framer.shutdown()
            framer.server_close()
