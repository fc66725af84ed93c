"""A real HTTP server on 127.0.0.1 for the online sources' tests (``tests/web``, the pipeline's, the
browser's): a SearXNG-style JSON search, a domain
API with its own response shape, and pages, some of them hostile (scripts, 10 MB of text, endless
redirects, a redirect to a private address, slow answers, 500s, charsets that are none, a JSON bomb,
a cookie)."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

ARTICLE = """<html><head><title>Rhine shipping</title>
<script>document.write('EVIL-SCRIPT-TEXT'); fetch('http://10.0.0.1/steal')</script>
<style>body {{ color: red }}</style></head>
<body><nav>Home | About | Contact</nav>
<article><h1>Rhine shipping</h1>
<p>The Rhine carries more freight than any other river in Europe. {extra}</p>
<p>Barges on the Rhine moved about 300 million tonnes of goods in 2019, most of them between Rotterdam
and the Ruhr. The river is navigable from Basel to the North Sea, a distance of about 880 kilometres.</p>
<p>Low water in dry summers limits how much a barge can load, which raises the cost of transport.</p>
</article><footer>Copyright the Rhine Society</footer></body></html>"""


class Site:
    """What the handler serves; ``hits`` counts requests per path."""

    def __init__(self) -> None:
        self.port = 0
        self.hits: Counter[str] = Counter()
        self.requests: list[dict[str, Any]] = []
        self.extra: list[dict[str, str]] = []  # more results for /search (title, url, content)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def _handler(site: Site) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _send(
            self, status: int, body: bytes, kind: str = "text/html; charset=utf-8", **headers: str
        ) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            for k, v in headers.items():
                self.send_header(k.replace("_", "-"), v)
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            self._route(body)

        def do_GET(self) -> None:
            self._route(None)

        def _route(self, body: Any) -> None:
            parts = urlsplit(self.path)
            query = {k: v[0] for k, v in parse_qs(parts.query).items()}
            site.hits[parts.path] += 1
            site.requests.append(
                {"path": parts.path, "query": query, "body": body, "headers": dict(self.headers)}
            )
            p = parts.path
            if p == "/search":  # SearXNG's JSON format
                results = [
                    {
                        "title": "Rhine shipping",
                        "url": f"{site.base}/article",
                        "content": "Freight on the Rhine.",
                    },
                    {
                        "title": "Slow page",
                        "url": f"{site.base}/slow",
                        "content": "A page that answers late.",
                    },
                    {"title": "Elsewhere", "url": "https://other.example.net/x", "content": "Off site."},
                    *site.extra,
                ]
                self._send(
                    200,
                    json.dumps({"query": query.get("q"), "results": results}).encode(),
                    "application/json",
                )
            elif p == "/api/search":  # JSON, but not SearXNG's
                self._send(200, b'{"items": []}', "application/json")
            elif p == "/api/find":  # a domain API with its own shape
                hits = [
                    {
                        "name": "Rhine barges",
                        "link": {"href": "/article"},
                        "summary": "Barge freight.",
                        "when": "2020-01-02",
                    },
                    {"name": "No address", "summary": "dropped: nothing to cite"},
                ]
                self._send(200, json.dumps({"data": {"hits": hits, "total": 2}}).encode(), "application/json")
            elif p == "/article":
                self._send(200, ARTICLE.format(extra="").encode())
            elif p == "/plain":
                self._send(200, b"Plain notes about the Rhine delta.", "text/plain; charset=utf-8")
            elif p == "/file.pdf":
                self._send(200, b"%PDF-1.4 binary", "application/pdf")
            elif p == "/huge":  # 10 MB of text
                self._send(200, ARTICLE.format(extra="river " * 1_700_000).encode())
            elif p == "/slow":
                time.sleep(float(query.get("s", "5")))
                self._send(200, ARTICLE.format(extra="").encode())
            elif p == "/slow-search":
                time.sleep(float(query.get("s", "5")))
                self._send(200, b'{"results": []}', "application/json")
            elif p == "/loop":
                self._send(302, b"", Location="/loop")
            elif p == "/to-private":
                self._send(302, b"", Location="http://169.254.169.254/latest/meta-data/")
            elif p == "/redirect":
                self._send(302, b"", Location=query["to"])
            elif p == "/charset":  # a page naming a charset that is none (idna, rot13) or unknown
                kind = f"{query.get('type', 'text/html')}; charset={query['cs']}"
                self._send(200, ARTICLE.format(extra="").encode(), kind)
            elif p == "/deep-json":  # a JSON bomb: lists in lists, deeper than Python's stack
                n = int(query.get("n", "100000"))
                self._send(200, b'{"results": ' + b"[" * n + b"]" * n + b"}", "application/json")
            elif p == "/cookie-redirect":
                self._send(302, b"", Location=query["to"], Set_Cookie="session=s3cret; Path=/")
            elif p == "/to-article":
                self._send(301, b"", Location="/article")
            elif p == "/broken":
                self._send(500, b"internal error")
            elif p == "/not-json":
                self._send(200, b"<html>oops</html>")
            else:
                self._send(404, b"not found")

    return Handler


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that stopped waiting (a time limit) is what some tests are about


@contextlib.contextmanager
def serve_site() -> Iterator[Site]:
    s = Site()
    server = _Server(("127.0.0.1", 0), _handler(s))
    server.daemon_threads = True
    s.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield s
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def site() -> Iterator[Site]:
    with serve_site() as s:
        yield s
