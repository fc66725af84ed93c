"""End to end, as a user: the Settings tab's "Use it from other tools" on the real app (``launch.py``) in
Chromium (issue 44). It shows the MCP command line and the API and MCP addresses with copy buttons, the
token only when asked (the one ``kimas token`` prints), and its switch turns the real API off (its port
closes) and on again. Screenshots go to ``test-artifacts/browser-tools/``."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from tests.cli.test_serve_api import kimas_token
from tests.ui.patience import HANG_MS
from tests.ui.test_browser import CHROMIUM, ROOT, _free_port, running_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = ROOT / "test-artifacts" / "browser-tools"


def listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def wait_until(check: object, wait_s: float = 20) -> bool:
    deadline = time.monotonic() + wait_s
    while not check():  # type: ignore[operator]
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def test_settings_shows_the_addresses_the_token_and_switches_the_api(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test.sh installs Debian's chromium)")
    data, port = tmp_path / "data", _free_port()
    data.mkdir()
    (data / "config.toml").write_text(f"[server]\napi_port = {port}\n")
    with running_app(data, ARTIFACTS) as url, sync_api.sync_playwright() as pw:
        assert wait_until(lambda: listening(port)), "the API did not start with the app"
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        page = browser.new_page(viewport={"width": 1280, "height": 1400})
        expect = sync_api.expect
        expect.set_options(timeout=HANG_MS)
        try:
            page.goto(url, timeout=HANG_MS)
            page.get_by_role("tab", name="Settings").click()
            command = page.locator("#mcp-command textarea, #mcp-command input").first
            assert command.input_value().endswith(" mcp")
            api_url = page.locator("#api-url textarea, #api-url input").first
            expect(api_url).to_have_value(f"http://127.0.0.1:{port}/v1")
            expect(page.locator("#mcp-url textarea, #mcp-url input").first).to_have_value(
                f"http://127.0.0.1:{port}/mcp"
            )
            for box in ("#mcp-command", "#api-url", "#mcp-url"):
                expect(page.locator(f"{box} button[aria-label*='opy'], {box} button[title*='opy']").first).to_be_visible()  # fmt: skip
            expect(page.locator("#api-state")).to_contain_text("on")
            expect(page.locator("#api-token")).to_be_hidden()  # hidden until asked
            page.locator("#show-token").click()
            token = page.locator("#api-token textarea, #api-token input").first
            expect(token).to_have_value(kimas_token(data))
            page.screenshot(path=str(ARTIFACTS / "01-other-tools.png"), full_page=True)

            page.locator("#api-on input").uncheck()
            expect(page.locator("#api-state")).to_contain_text("off")
            assert wait_until(lambda: not listening(port)), "switched off, the API's port stayed open"
            assert "api = false" in (data / "config.toml").read_text()
            page.locator("#api-on input").check()
            expect(page.locator("#api-state")).to_contain_text("on")
            assert wait_until(lambda: listening(port)), "switched on again, the API did not start"
            page.screenshot(path=str(ARTIFACTS / "02-switched.png"), full_page=True)
        finally:
            browser.close()
