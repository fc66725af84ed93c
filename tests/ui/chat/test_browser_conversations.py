"""Conversations as a user keeps them, end to end: the real app (``launch.py``) with the real embedded
models on a collection indexed by ``kimas index``, driven in Debian's Chromium.

Ask, reload the page (the chat is back), start a new chat and ask again (both in the sidebar), open the
older chat from the sidebar, ask twice in quick succession while the model writes (on Regenerate: the
embedded model's answer is the quote, issue 69), follow an answer's [n] marker to its source, then stop the app and start it
again at once on the same port: the chat open last is back. Screenshots of every step go to ``test-artifacts/browser-conversations/``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.ui.patience import HANG_MS, wait_for_page

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[3]
ARTIFACTS = ROOT / "test-artifacts" / "browser-conversations"
CHROMIUM = os.environ.get("KIMAS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"

HANDBOOK = (
    "# Project Heliotrope\n\nThe launch code of Project Heliotrope is PURPLE-OTTER-42.\n\n"
    "## Office\n\nThe office plants are watered on Mondays by Dana.\n"
)
Q1 = "What is the launch code of Project Heliotrope?"
DRAFT = "A follow-up typed while the answer is written"
Q2 = "Who waters the office plants?"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``launch.py`` on a fixed port and data dir; ``restart()`` stops it and starts it again at once."""

    def __init__(self, data: Path, port: int, preset: str = "turbo", artifacts: Path = ARTIFACTS) -> None:
        self.data, self.port, self.preset, self.artifacts = data, port, preset, artifacts
        self.url = f"http://127.0.0.1:{port}/"
        self.proc: subprocess.Popen[bytes] | None = None
        self.runs = 0

    def start(self) -> None:
        self.runs += 1
        log = self.artifacts / f"server-{self.runs}.log"
        env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "PYTHONUNBUFFERED": "1"}
        with log.open("w") as out:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "launch.py",
                    "--port",
                    str(self.port),
                    "--data-dir",
                    str(self.data),
                    "--preset",
                    self.preset,
                ],
                cwd=ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
            )
        wait_for_page(self.proc, self.url, log)

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    docs = tmp_path / "handbook"
    docs.mkdir()
    (docs / "handbook.md").write_text(HANDBOOK, "utf-8")
    data = tmp_path / "data"
    indexed = subprocess.run(
        [
            sys.executable,
            "-m",
            "cli.main",
            "index",
            str(docs),
            "--collection",
            "handbook",
            "--data-dir",
            str(data),
            "--quiet",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert indexed.returncode == 0, indexed.stderr
    srv = Server(data, _free_port())
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()
        with contextlib.suppress(OSError):
            shutil.copy(data / "kimas.log", ARTIFACTS / "kimas.log")


def test_conversations_survive_reload_and_restart_and_the_sidebar_opens_them(server: Server) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test.sh installs Debian's chromium)")
    expect = sync_api.expect
    expect.set_options(timeout=HANG_MS)

    def shot(page: Any, name: str) -> None:
        page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)

    def ask(page: Any, text: str) -> None:
        box = page.locator("#question textarea, #question input").first
        expect(box).to_have_value(
            ""
        )  # the last submit's clearing of the box has arrived (else it wipes this)
        box.fill(text)
        box.press("Enter")
        expect(page.locator("#chatbot")).to_contain_text(text)

    def answered(page: Any, n: int = 1) -> None:
        """``n`` answers of the chat have their sources listed."""
        sources = page.locator("#chatbot details.kimas-citation summary", has_text="handbook.md")
        expect(sources.nth(n - 1)).to_be_visible()

    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.set_default_timeout(HANG_MS)
        try:
            page.goto(server.url)
            expect(page.locator("#model-status")).to_contain_text("Ready")
            expect(page.locator("#chat-list-note")).to_contain_text("will be listed here")
            shot(page, "01-empty")

            # 1. Ask: the chat appears in the sidebar, titled by its question.
            ask(page, Q1)
            answered(page)
            chats = page.locator("#conversation-list label")
            expect(chats).to_have_count(1)
            expect(chats.first).to_contain_text(Q1)
            shot(page, "02-answered")

            # 2. A reload shows the same chat, answer and sources included.
            page.reload()
            expect(page.locator("#chatbot")).to_contain_text(Q1)
            answered(page)
            expect(page.locator("#conversation-list label")).to_have_count(1)
            shot(page, "03-after-reload")

            # 3. New chat: an empty chat; the first stays in the sidebar. Ask there too.
            page.locator("#new-chat").click()
            expect(page.locator("#chatbot")).not_to_contain_text(Q1)
            ask(page, Q2)
            answered(page)
            expect(page.locator("#chatbot")).not_to_contain_text("Writing the answer")
            expect(chats).to_have_count(2)
            expect(chats.first).to_contain_text(Q2)  # newest first
            # The answer's stream has ended (its trace is the last part drawn) before another chat is
            # opened: an update still in flight from the server can land after the switch and redraw this
            # chat (a known race, see the closing note of 2026-11-23; the handler-level test covers a
            # switch mid-answer).
            expect(page.locator("#chatbot")).to_contain_text("How this answer was made")
            page.wait_for_timeout(1_000)
            shot(page, "04-second-chat")

            # 4. The sidebar opens the older chat.
            chats.filter(has_text=Q1).click()
            expect(page.locator("#chatbot")).to_contain_text(Q1)
            expect(page.locator("#chatbot")).not_to_contain_text(Q2)
            expect(page.locator("#chatbot")).to_contain_text("PURPLE-OTTER-42")
            shot(page, "05-older-chat-opened")

            # 5. Search finds a chat by its words, then clear the search.
            search = page.locator("#chat-search textarea, #chat-search input").first
            search.fill("office plants")
            expect(chats).to_have_count(1)
            expect(chats.first).to_contain_text(Q2)
            shot(page, "06-search")
            search.fill("")
            expect(chats).to_have_count(2)

            # 6. Two questions in quick succession: the first answer stops visibly, the second is answered.
            page.locator("#new-chat").click()
            expect(page.locator("#chatbot")).not_to_contain_text(Q1)
            ask(page, Q1)
            expect(page.locator("#chatbot .kimas-quotes").first).to_be_visible()
            # The embedded model answers with the quote (issue 69): Regenerate lets it write this one.
            expect(page.locator("#chatbot").get_by_text("How this answer was made").first).to_be_visible()
            page.locator("#regenerate").click()
            expect(page.locator("#chatbot")).to_contain_text("Writing the answer")
            ask(page, Q2)
            # A draft typed while the second answer is written: the stream's updates leave the box alone.
            box = page.locator("#question textarea, #question input").first
            box.fill(DRAFT)
            expect(page.locator("#chatbot")).to_contain_text("Stopped (you asked a new question)")
            answered(page, 2)  # the stopped one lists its sources too
            expect(page.locator("#chatbot")).not_to_contain_text("Writing the answer")
            expect(box).to_have_value(DRAFT)
            box.fill("")
            expect(page.locator("#chatbot")).to_contain_text("Dana")
            shot(page, "07-quick-succession")

            # 7. The answer's [n] marker links to its source in the list below it: the model's answer,
            # written on Regenerate (the embedded model's first answer is the quote, which has none).
            page.locator("#regenerate").click()
            expect(page.locator("#chatbot .kimas-earlier").first).to_be_visible()
            marker = page.locator("#chatbot .kimas-marker a").last
            expect(marker).to_be_visible()
            target = marker.get_attribute("href") or ""
            assert target.startswith("#kimas-src-2-"), target  # the second answer's own sources
            source = page.locator(f"#chatbot details{target}")
            expect(source).to_contain_text("handbook.md")
            expect(source.locator("summary")).to_contain_text(f"[{target.rsplit('-', 1)[1]}]")
            marker.click()
            expect(source).to_be_in_viewport()
            expect(source).to_have_attribute("open", "")  # and opens it: the whole passage shows
            shot(page, "07b-marker-followed")
            chats.filter(has_text=Q1).last.click()  # back to the older chat, restored after the restart

            # 8. Stop the app and start it again at once, on the same port: the chat open last is back.
            # The tab leaves the app first: a Gradio page that loses its server reconnects and may reload
            # itself, which raced the navigation below (CI: page.goto failed after the restart, 1 run).
            page.goto("about:blank")
            t = time.monotonic()
            server.restart()
            restart_s = time.monotonic() - t
            page.goto(server.url)
            expect(page.locator("#chatbot")).to_contain_text(Q1)
            expect(page.locator("#chatbot")).to_contain_text("PURPLE-OTTER-42")
            expect(chats).to_have_count(3)
            shot(page, "08-after-restart")
        finally:
            with contextlib.suppress(Exception):
                shot(page, "99-last")
            browser.close()
    (ARTIFACTS / "timings.txt").write_text(f"stop + start on the same port: {restart_s:.1f} s\n", "utf-8")
