"""DNS rebinding and cross-site pages in a real Chromium: they can do nothing to the app.

Chromium maps ``evil.example`` to 127.0.0.1 (``--host-resolver-rules``), as a rebinding attacker's DNS
would. The rebinding itself, in time: the attacker's page is loaded from ``http://evil.example:PORT/``
while the attacker's server holds PORT; then that server goes and the app comes up on PORT, so for the
browser the page is now same-origin with the app. It tries what the attack of issue 21 did: read the
app's API, upload a file, join the queue. So does a page of another local web server
(``http://localhost:OTHER/``). And the app itself opened as ``http://evil.example:PORT/`` shows nothing.
"""

from __future__ import annotations

import http.server
import threading
from pathlib import Path

import pytest

from tests.ui.patience import HANG_MS
from tests.ui.test_browser import CHROMIUM, ROOT, running_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = ROOT / "test-artifacts" / "browser-private"

ATTACK = """<!doctype html><title>cat pictures</title><script>
async function attack(base) {
  const out = {};
  try { const r = await fetch(base + '/gradio_api/info'); out.info = r.status + ':' + (await r.text()).length; }
  catch (e) { out.info = 'blocked'; }
  const form = new FormData();
  form.append('files', new Blob(['stolen by evil'], {type: 'text/plain'}), 'evil-upload.txt');
  try { const r = await fetch(base + '/gradio_api/upload', {method: 'POST', body: form}); out.upload = r.status; }
  catch (e) { out.upload = 'blocked'; }
  try { await fetch(base + '/gradio_api/upload', {method: 'POST', body: form, mode: 'no-cors'}); out.blind = 'sent'; }
  catch (e) { out.blind = 'blocked'; }
  try {
    const r = await fetch(base + '/gradio_api/queue/join', {method: 'POST', body: JSON.stringify(
      {data: ['evil'], fn_index: 0, session_hash: 'evil', event_data: null, trigger_id: null}),
      headers: {'Content-Type': 'text/plain'}});
    out.join = r.status;
  } catch (e) { out.join = 'blocked'; }
  return out;
}
</script>"""


def _page_server(port: int = 0) -> http.server.ThreadingHTTPServer:
    """A web server on 127.0.0.1:``port`` that serves the attacker's page, running in a thread."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = ATTACK.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _stop(server: http.server.ThreadingHTTPServer) -> None:
    server.shutdown()
    server.server_close()


def test_a_page_on_a_mapped_foreign_name_can_do_nothing(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test.sh installs Debian's chromium)")
    data = tmp_path / "data"
    rebinder = _page_server()
    port = int(rebinder.server_address[1])
    local_page = _page_server()
    other = int(local_page.server_address[1])
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--host-resolver-rules=MAP evil.example 127.0.0.1"],
        )
        try:
            attack_page = browser.new_page()
            attack_page.goto(
                f"http://evil.example:{port}/cats.html", timeout=HANG_MS
            )  # the attacker's server holds PORT
            _stop(rebinder)
            with running_app(data, ARTIFACTS, port=port):  # ... and now the app does
                app_page = browser.new_page()
                response = app_page.goto(f"http://evil.example:{port}/", timeout=HANG_MS)
                assert response is not None and response.status == 403
                assert "Forbidden" in app_page.content() and app_page.locator("#question").count() == 0
                app_page.screenshot(path=str(ARTIFACTS / "01-rebound-app.png"))
                rebound = attack_page.evaluate(f"attack('http://evil.example:{port}')")
                direct = attack_page.evaluate(f"attack('http://127.0.0.1:{port}')")
                local = browser.new_page()
                local.goto(f"http://localhost:{other}/", timeout=HANG_MS)
                from_local = local.evaluate(f"attack('http://127.0.0.1:{port}')")
                own = browser.new_page()
                own.goto(f"http://127.0.0.1:{port}/", timeout=HANG_MS)  # the app's own page still works
                sync_api.expect(own.locator("#question")).to_be_visible(timeout=HANG_MS)
        finally:
            browser.close()
            _stop(local_page)
    # Same-origin under the rebound name, the page reads the replies: all 403. Elsewhere CORS blocks
    # reading, and what is sent blind (no-cors) is refused or blocked by Chromium itself.
    assert rebound == {"info": "403:81", "upload": 403, "blind": "sent", "join": 403}, rebound
    for result in (direct, from_local):
        assert result.pop("blind") in ("sent", "blocked")
        assert result == {"info": "blocked", "upload": "blocked", "join": "blocked"}, result
    assert list((data / "cache").rglob("evil-upload.txt")) == []
    log = (data / "kimas.log").read_text("utf-8")
    assert f"Host 'evil.example:{port}' is not this app's address" in log
    assert f"Origin 'http://localhost:{other}' is not this app's page" in log
