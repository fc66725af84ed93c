"""End to end, as a user: the real app with the real embedded models, driven in Debian's Chromium.

Start ``launch.py`` on a free port with a fresh data dir, upload a folder (a Markdown file and a PDF),
wait for indexing, ask a question answered on page 2 of the PDF, check that the answer streams in and
cites the PDF's page 2, then edit the Markdown file on disk and watch the collection's status change
without a restart. Screenshots of every step go to ``test-artifacts/browser/``.
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
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.ui.outside import outside_requests
from tests.ui.patience import HANG_MS, open_until_visible, wait_for_page

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
# Modules on several pytest-xdist workers share this fixture: each worker keeps its own screenshots and logs.
ARTIFACTS = (
    ROOT / "test-artifacts" / "-".join(filter(None, ("browser", os.environ.get("PYTEST_XDIST_WORKER"))))
)
CHROMIUM = os.environ.get("KIMAS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"

FACT_PAGE_1 = "Project Heliotrope overview\nThis report describes the schedule of Project Heliotrope."
FACT_PAGE_2 = (
    "Launch details\nThe launch code of Project Heliotrope is PURPLE-OTTER-42.\n"
    "The launch code of Project Heliotrope is PURPLE-OTTER-42 and nothing else."
)
QUESTION = "What is the launch code of Project Heliotrope?"
NOTES = "# Team notes\n\nThe office plants are watered on Mondays by Dana.\n"
EDIT = "\n## Garden\n\n" + " ".join(
    f"The greenhouse tomatoes in bed {i} are picked on Thursdays by Robin." for i in range(1, 25)
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pdf(path: Path, pages: list[str]) -> None:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    for page in pages:
        y = 800
        for line in page.split("\n"):
            pdf.drawString(50, y, line)
            y -= 16
        pdf.showPage()
    pdf.save()


@dataclass
class App:
    url: str
    data_dir: Path
    log: Path
    started_s: float


@contextlib.contextmanager
def running_app(
    data: Path, artifacts: Path, env: dict[str, str] | None = None, port: int | None = None
) -> Iterator[str]:
    """``launch.py`` on ``port`` (default: a free one) with ``data`` as its data dir; yields its URL once it
    answers.

    The server's output goes to ``artifacts/server.log``; its ``kimas.log`` is copied there at the end.
    """
    port = port or _free_port()
    log = artifacts / "server.log"
    artifacts.mkdir(parents=True, exist_ok=True)
    full_env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "PYTHONUNBUFFERED": "1", **(env or {})}
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "launch.py", "--port", str(port), "--data-dir", str(data)],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=full_env,
        )
    url = f"http://127.0.0.1:{port}/"
    try:
        wait_for_page(proc, url, log)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        with contextlib.suppress(OSError):
            shutil.copy(data / "kimas.log", artifacts / "kimas.log")


@pytest.fixture
def app(tmp_path: Path) -> Iterator[App]:
    data = tmp_path / "data"
    t0 = time.monotonic()
    with running_app(data, ARTIFACTS) as url:
        yield App(url, data, ARTIFACTS / "server.log", time.monotonic() - t0)


def test_upload_ask_cite_and_live_update(app: App, tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test.sh installs Debian's chromium)")
    docs = tmp_path / "handbook"
    docs.mkdir()
    (docs / "notes.md").write_text(NOTES, "utf-8")
    _pdf(docs / "heliotrope.pdf", [FACT_PAGE_1, FACT_PAGE_2])
    timings: dict[str, float] = {"app start": app.started_s}

    def shot(page: object, name: str) -> None:
        page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)  # type: ignore[attr-defined]

    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.set_default_timeout(HANG_MS)
        external = outside_requests(page)  # fonts, CDNs, analytics: none may be fetched
        expect = sync_api.expect
        expect.set_options(timeout=HANG_MS)
        try:
            # 1. The app is up before the model has finished loading, and says how to add knowledge.
            page.goto(app.url)
            expect(page.locator("#chat-hint")).to_contain_text("No knowledge yet")
            expect(page.locator("#model-status")).to_contain_text("Ready")
            shot(page, "01-empty-chat")

            # 2. Create a collection and drop the folder onto it.
            page.get_by_role("tab", name="Knowledge").click()
            page.locator("#new-collection textarea, #new-collection input").first.fill("handbook")
            page.locator("#create-collection").click()
            expect(page.locator("#collections")).to_contain_text("handbook")
            t = time.monotonic()
            page.locator("#upload-folder input[type=file]").set_input_files(str(docs))
            expect(page.locator("#knowledge-message")).to_contain_text("copied into 'handbook'")
            shot(page, "02-uploading")

            # 3. Indexing finishes in the background; the collection shows its files and chunks.
            expect(page.locator("#collections")).to_contain_text("2 files")
            expect(page.locator("#index-progress [data-state=idle]")).to_be_visible()
            timings["upload + indexing"] = time.monotonic() - t
            shot(page, "03-indexed")

            # 4. Ask; the answer streams in and cites the PDF's page 2.
            page.get_by_role("tab", name="Chat").click()
            expect(page.locator("#chat-hint")).not_to_contain_text("No knowledge yet")
            page.evaluate(
                """() => {
                  window.__kimasLens = [];
                  const box = document.querySelector('#chatbot');
                  window.__kimasQuoteWhileWriting = false;
                  new MutationObserver(() => {
                    const bots = box.querySelectorAll('.message.bot, [data-testid=bot]');
                    const last = bots[bots.length - 1];
                    if (last) window.__kimasLens.push(last.innerText.length);
                    // The quote is on screen while the model has not written a word yet.
                    if (last && last.querySelector('.kimas-quotes') && /Writing the answer/.test(last.innerText))
                      window.__kimasQuoteWhileWriting = true;
                  }).observe(box, {subtree: true, childList: true, characterData: true});
                }"""
            )
            t = time.monotonic()
            question = page.locator("#question textarea, #question input").first
            question.fill(QUESTION)
            question.press("Enter")
            expect(page.locator("#chatbot")).to_contain_text(QUESTION)
            citation = page.locator("#chatbot details.kimas-citation summary", has_text="heliotrope.pdf")
            expect(citation.first).to_be_visible()
            timings["question → cited answer"] = time.monotonic() - t
            lens = page.evaluate("window.__kimasLens")
            assert len(set(lens)) >= 3, f"the answer did not arrive in pieces: {lens}"
            summaries = page.locator("#chatbot details.kimas-citation summary").all_inner_texts()
            assert any("heliotrope.pdf" in s and "p. 2" in s for s in summaries), summaries
            shot(page, "04-answer")

            # The citation expands to the whole chunk and opens the PDF at its page.
            cited = page.locator("#chatbot details.kimas-citation", has_text="p. 2").first
            cited.locator("summary").click()
            expect(cited.locator(".kimas-chunk")).to_contain_text("PURPLE-OTTER-42")
            link = cited.locator(".kimas-open a")
            href = link.get_attribute("href") or ""
            assert href.startswith("/kimas/source/") and href.endswith("#page=2"), href
            served = page.request.get(app.url.rstrip("/") + href.split("#")[0])
            assert served.status == 200 and served.headers["content-type"] == "application/pdf"
            assert page.request.get(app.url.rstrip("/") + "/kimas/source/0000/etc-passwd").status == 404
            title = page.locator("#chatbot").get_by_text("How this answer was made").first
            # no model was asked: the trace names the evidence the quote was chosen from (issue 69)
            evidence = page.locator("#chatbot").get_by_text("Evidence the quote was chosen from")
            open_until_visible(title, evidence)
            expect(page.locator("#chatbot")).to_contain_text("Timings")
            shot(page, "05-citation-and-trace")

            # 4b. The embedded model writes no answer of its own (issue 69): the answer is the quote, its
            # answering phrase marked, and the chat says so once. Regenerate lets the model write; the
            # grounded quote comes first, before its answer, and its source opens with the quoted words
            # highlighted.
            quote = page.locator("#chatbot .kimas-quotes").first
            expect(quote.locator("mark.kimas-answering").first).to_contain_text("PURPLE-OTTER-42")
            expect(page.locator("#chatbot")).to_contain_text("choose a bigger model in Settings")
            page.locator("#regenerate").click()
            expect(page.locator("#chatbot .kimas-earlier").first).to_be_visible()
            expect(page.locator("#chatbot").get_by_text("How this answer was made").first).to_be_visible()
            assert page.evaluate("window.__kimasQuoteWhileWriting"), "no quote before the model's answer"
            expect(quote).to_contain_text("PURPLE-OTTER-42")
            quote.locator("details.kimas-citation summary").first.click()
            expect(quote.locator("mark.kimas-cited").first).to_contain_text("PURPLE-OTTER-42")
            shot(page, "05b-quote-highlighted")

            # 4c. An on-topic question the documents cannot answer: the decline, not an invention.
            question.fill("Who designed the Project Heliotrope launch pad?")
            question.press("Enter")
            expect(page.locator("#chatbot")).to_contain_text("Your documents don't say")
            answer = page.locator("#chatbot").inner_text()
            shot(page, "05c-declined")

            # 5. Edit the Markdown file on disk: the collection updates without a restart.
            page.get_by_role("tab", name="Knowledge").click()
            before = page.locator("#collections").inner_text()
            notes = app.data_dir / "uploads" / "handbook" / docs.name / "notes.md"  # the folder is kept
            assert notes.is_file(), list((app.data_dir / "uploads").rglob("*"))
            t = time.monotonic()
            with notes.open("a", encoding="utf-8") as f:
                f.write(EDIT)
            expect(page.locator("#activity")).to_contain_text("Files changed on disk")
            expect(page.locator("#collections")).not_to_have_text(before)
            timings["edit on disk → status updated"] = time.monotonic() - t
            shot(page, "06-after-edit")
            assert not external, f"the page made requests beyond 127.0.0.1: {external}"
        finally:
            with contextlib.suppress(Exception):
                shot(page, "99-last")
            browser.close()
    report = "\n".join(f"{k}: {v:.1f} s" for k, v in timings.items())
    (ARTIFACTS / "timings.txt").write_text(report + f"\n\nchat:\n{answer}\n", "utf-8")
    print(report)
