"""End to end, as a user: the Evaluation tab in the real app (real embedded models) in headless Chromium.

Two collections are indexed from folders named in the data dir's config (answers are kept short there, so
the sampled answers take seconds). Make a test set of 20 questions, run it under ``turbo`` with 4 of them
also answered, see the charts and the failed questions; run it again under ``routed`` and see both runs
side by side in the runs table and the charts; run it a third time and cancel it: its partial figures
are listed. Before a run the charts say "No data yet"; the progress line says the time left.

Every wait is on the page's state (a text, a count), never a budget of seconds for a step: on a busy
machine a step takes what it takes. ``HANG_MS`` only ends a test that would otherwise wait forever.
Screenshots go to ``test-artifacts/browser-eval/`` (the last one also to /tmp/eval-tab.png).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ui.evaluation.test_handlers import write_corpus
from tests.ui.outside import outside_requests
from tests.ui.patience import HANG_MS
from tests.ui.test_browser import CHROMIUM, ROOT, running_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = ROOT / "test-artifacts" / "browser-eval"
# The progress line's time left: at the measured speed, not known yet, or past the estimate.
LEFT = r"about \d+ (s|min)[^·]* left|measuring the speed…|taking longer than measured so far…"


@pytest.fixture
def app_url(tmp_path: Path) -> Iterator[str]:
    data = tmp_path / "data"
    data.mkdir()
    folders = write_corpus(tmp_path / "docs")
    config = "[summarizer]\nmax_answer_tokens = 16\n" + "".join(
        f'\n[collections.{name}]\nfolders = ["{folder.as_posix()}"]\n' for name, folder in folders.items()
    )
    (data / "config.toml").write_text(config, "utf-8")
    with running_app(data, ARTIFACTS) as url:
        yield url


def _choose(page: object, elem_id: str, option: str) -> None:
    page.locator(f"#{elem_id} input").click()  # type: ignore[attr-defined]
    page.get_by_role("option", name=option, exact=True).click()  # type: ignore[attr-defined]


def _fill(page: object, elem_id: str, value: str) -> None:
    box = page.locator(f"#{elem_id} input")  # type: ignore[attr-defined]
    box.fill(value)
    box.press("Tab")


def test_make_a_test_set_run_it_twice_and_compare(app_url: str) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test.sh installs Debian's chromium)")
    timings: dict[str, float] = {}

    def shot(page: object, name: str) -> None:
        page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)  # type: ignore[attr-defined]

    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(HANG_MS)
        external = outside_requests(page)  # the charts must not fetch anything from beyond this computer
        expect = sync_api.expect
        expect.set_options(timeout=HANG_MS)
        try:
            page.goto(app_url)
            expect(page.locator("#model-status")).to_contain_text("Ready")
            page.get_by_role("tab", name="Knowledge").click()
            both = re.compile(r"(orchard|railway)\s+3 files.*(orchard|railway)\s+3 files", re.S)
            expect(page.locator("#collections")).to_contain_text(both)
            expect(page.locator("#index-progress [data-state=idle]")).to_be_visible()

            # 1. A test set of 20 questions from the two collections.
            page.get_by_role("tab", name="Evaluation").click()
            expect(page.locator("#eval-set")).to_contain_text("No test set yet")
            _fill(page, "eval-size", "20")
            page.locator("#eval-make-set").click()
            expect(page.locator("#eval-set")).to_contain_text(
                "20 questions (16 answerable, 4 unanswerable controls) from 2 collections"
            )
            expect(page.locator("#eval-easiness")).to_contain_text("easier than real questions")
            expect(page.locator("#eval-chart-3-note")).to_contain_text("Controls declined · No data yet")
            expect(page.locator("#eval-over-time-note")).to_contain_text("No data yet")
            expect(page.locator("#eval-chart-0")).to_be_hidden()  # no empty axes drawn
            shot(page, "01-test-set")

            # 2. Run it under turbo with 4 questions also answered.
            _choose(page, "eval-preset", "turbo")
            _fill(page, "eval-answers", "4")
            t = time.monotonic()
            page.locator("#eval-run").click()
            progress = page.locator("#eval-progress")
            expect(progress).to_contain_text("is complete")
            timings["turbo run"] = time.monotonic() - t
            runs = page.locator("#eval-runs")
            expect(runs).to_contain_text("turbo · SmolLM2")
            expect(runs).to_contain_text("20 of 20")
            bars = page.locator("#eval-chart-0 svg g.mark-rect path")  # Vega draws SVG
            expect(bars).to_have_count(1)
            expect(page.locator("#eval-chart-0 svg")).to_contain_text("#1 turbo")
            expect(page.locator("#eval-collections svg g.mark-rect path")).to_have_count(2)  # two collections
            expect(page.locator("#eval-collections svg")).to_contain_text("orchard")
            failed = page.locator("#eval-failed")
            expect(failed).to_contain_text("Failed questions of run #1 turbo")
            expect(failed).to_contain_text("What do the documents say about")
            expect(page.locator("#eval-over-time-note")).to_contain_text("One run so far (#1 turbo: recall@5")
            shot(page, "02-first-run")

            # 3. Again under routed: both runs side by side.
            _choose(page, "eval-preset", "routed")
            t = time.monotonic()
            page.locator("#eval-run").click()
            # (a run of 4 answers can end within the timer's second on a quiet machine: the line during a
            # run is checked on the longer run below, which is stopped while it runs)
            expect(progress).to_contain_text("Run 'routed · SmolLM2")
            expect(progress).to_contain_text("is complete")
            timings["routed run"] = time.monotonic() - t
            expect(runs).to_contain_text("routed · SmolLM2")
            expect(runs).to_contain_text("turbo · SmolLM2")
            expect(failed).to_contain_text("Failed questions of run #2 routed")
            for i in range(4):  # every figure: a bar per run, side by side in run order
                chart = page.locator(f"#eval-chart-{i} svg")
                expect(chart.locator("g.mark-rect path")).to_have_count(2)
                expect(chart).to_contain_text(re.compile("#1 turbo.*#2 routed", re.S))
            expect(page.locator("#eval-over-time svg g.mark-line path")).to_have_count(1)
            shot(page, "04-two-runs")

            # 3b. A third run, every question answered, cancelled once a question is done: its partial
            # figures are listed and plotted as partial.
            _fill(page, "eval-answers", "20")
            page.locator("#eval-run").click()
            expect(progress.locator(".kimas-bar")).to_be_visible()
            # The line follows the run (the app's timer polls it): questions done, the time left at the
            # measured speed, the last one asked.
            expect(progress).to_contain_text(
                re.compile(rf"Running the test set: [1-9]\d* / 20 questions · ({LEFT}) · last: ")
            )
            shot(page, "03-running")
            page.locator("#eval-cancel").click()
            expect(progress).to_contain_text("its partial figures are shown")
            expect(runs).to_contain_text("cancelled · partial")
            expect(page.locator("#eval-chart-0 svg")).to_contain_text("#3 routed (partial)")
            shot(page, "04b-cancelled")

            # 4. Retrieval testing: each passage's place in every stage.
            page.get_by_text("Retrieval testing: why a passage ranks where it does").click()
            page.locator("#eval-query textarea").fill("Which signal box was rebuilt by a cooper?")
            page.locator("#eval-inspect").click()
            expect(page.locator("#eval-inspect-summary")).to_contain_text("searched as asked")
            inspected = page.locator("#eval-inspected")
            expect(inspected).to_contain_text("railway-")
            expect(inspected).to_contain_text(re.compile(r"1\. \d\.\d{3}"))
            shot(page, "05-retrieval-testing")
            page.screenshot(path="/tmp/eval-tab.png", full_page=True)
            assert not external, f"the page made requests beyond 127.0.0.1: {external}"
        except Exception:
            shot(page, "9x-eval-failure")
            raise
        finally:
            browser.close()
    print("\n".join(f"{k}: {v:.1f} s" for k, v in timings.items()))
