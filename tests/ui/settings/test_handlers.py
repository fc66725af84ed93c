"""Settings tab handlers without a browser: the catalog, downloads from a real hub-layout server on
127.0.0.1 (the real SmolLM2 GGUF), switching models (loaded beside the old one, saved only once it
loads), the preset radio's "custom" state and Restore defaults."""

from __future__ import annotations

import hashlib
import logging
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from app.models.downloads import ModelDownloads
from app.settings.form import SettingsForm
from kimas_desktop.config import ChatModelConfig, load_config
from kimas_desktop.errors import ModelError
from local_models.fake import ScriptedChatModel
from tests.local_models.catalog.test_download import FILE, REPO, _gguf, served_catalog
from tests.local_models.hub_server import HubState, hub_server, throttle
from tests.rigs import Rig, make_rig, scripted
from tests.ui.english import english_runs
from ui.settings import handlers as sh


def wait_for(condition: Callable[[], bool], timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


class Chat(ScriptedChatModel):
    """A chat model per config; one whose file is named broken.gguf fails to load."""

    def __init__(self, cfg: ChatModelConfig) -> None:
        super().__init__(scripted())
        self.cfg = cfg
        self.closed = False

    def warm_up(self) -> None:
        if self.cfg.path.endswith("broken.gguf"):
            raise ModelError("llama.cpp cannot read broken.gguf: it is not a GGUF model.")

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, HubState]]:
    throttle(monkeypatch, 0.002)  # a few seconds a download: progress and a cancel have time to show
    with hub_server({f"{REPO}/{FILE}": _gguf()}) as server:
        yield server


def _rig(tmp_path: Path, hub_url: str = "http://127.0.0.1:9") -> tuple[Rig, list[Chat]]:
    built: list[Chat] = []

    def build(cfg: ChatModelConfig) -> Chat:
        built.append(Chat(cfg))
        return built[-1]

    rig = make_rig(tmp_path, chat_builder=build)  # type: ignore[arg-type]
    desk = rig.session
    sha = hashlib.sha256(_gguf().read_bytes()).hexdigest()
    catalog = served_catalog(tmp_path / "catalog.toml", sha)
    desk.models = ModelDownloads(
        desk.runtime.paths, explain=desk.explain_said, base_url=hub_url, catalog_file=catalog
    )
    desk.start(sync=False)
    assert wait_for(lambda: desk.model_state().phase == "ready"), desk.model_state()
    return rig, built


def test_the_real_catalog_lists_every_role_with_size_ram_and_what_fits(tmp_path: Path) -> None:
    desk = make_rig(tmp_path).session
    html = sh.catalog_html(desk)
    for title in ("Chat models", "Embedding models", "Rerankers", "Readers"):
        assert f"<h4>{title}</h4>" in html
    assert "Qwen2.5 0.5B Instruct" in html and "491 MB" in html and "1.0 GB" in html  # size and RAM
    assert "GB of RAM" in html and "not installed" in html
    # The embedded chat model is installed and selected by the default config.
    row = html.split("data-model='smollm2-135m-instruct'>")[1].split("</tr>")[0]
    assert "built in" in row and "<b>in use</b>" in row
    # The embedded reader is in use; the bigger one is a download (issue 68).
    reader = html.split("data-model='kimas-reader-e5-small'>")[1].split("</tr>")[0]
    assert "built in" in reader and "<b>in use</b>" in reader
    qwen = html.split("data-model='qwen3-reranker-0.6b'>")[1].split("</tr>")[0]
    assert "639 MB" in qwen and "not installed" in qwen
    labels = dict((n, label) for label, n in sh.model_choices(desk))
    assert labels["qwen2.5-0.5b-instruct"] == "Chat model: Qwen2.5 0.5B Instruct"
    assert labels["qwen3-reranker-0.6b"] == "Reader: Qwen3-Reranker 0.6B (100+ languages)"


def test_download_from_the_hub_server_then_switch_to_it(tmp_path: Path, hub: tuple[str, HubState]) -> None:
    url, state = hub
    rig, built = _rig(tmp_path, url)
    desk = rig.session
    html = sh.catalog_html(desk)
    assert "too big for this RAM" in html.split("data-model='giant'>")[1]
    assert "not installed" in html.split("data-model='smollm2-served'>")[1]
    seen: list[str] = []
    desk.models._on_change = lambda: seen.append(sh.downloads_html(desk))

    started = time.monotonic()
    message, panel, _ = sh.download(desk, "smollm2-served")
    assert time.monotonic() - started < 1.0  # the handler returns at once
    assert message == "" and "data-phase='downloading'" in panel
    assert wait_for(lambda: desk.models.states()["smollm2-served"].phase == "done", 60)
    progress = [s for s in seen if "data-phase='downloading'" in s and " of " in s]
    assert progress, seen
    assert any("MB/s" in s and "left" in s and "%" in s for s in progress), progress[-1]
    done = sh.downloads_html(desk)
    assert "downloaded" in done and "published SHA-256" in done
    assert state.requests and state.requests[0][0] == f"/{REPO}/resolve/main/{FILE}"
    assert "installed" in sh.catalog_html(desk).split("data-model='smollm2-served'>")[1]

    before = desk.config.chat
    out = sh.use_model(desk, "smollm2-served")
    assert out.startswith("Loading smollm2-served"), out
    assert wait_for(lambda: desk.model_state().phase == "ready"), desk.model_state()
    installed = desk.runtime.paths.models_cache / "gguf" / FILE
    assert desk.config.chat.path == str(installed) != before.path
    assert load_config(desk.config_path).chat.path == str(installed)  # saved once it loaded
    assert desk.runtime.chat(desk.config) is built[-1] and wait_for(lambda: built[0].closed)
    assert "<b>in use</b>" in sh.catalog_html(desk).split("data-model='smollm2-served'>")[1]
    assert sh.use_model(desk, "smollm2-served") == "smollm2-served is already in use."
    assert sh.use_model(desk, "giant").startswith("⚠ A model too big for any laptop is not installed yet")


def test_cancel_stops_the_download_and_download_again_resumes(
    tmp_path: Path, hub: tuple[str, HubState]
) -> None:
    url, state = hub
    rig, _ = _rig(tmp_path, url)
    desk = rig.session

    def cancel_once_running() -> None:
        d = desk.models.states().get("smollm2-served")
        if d is not None and d.progress is not None and d.progress.done > 0:
            desk.models.cancel("smollm2-served")

    desk.models._on_change = cancel_once_running
    sh.download(desk, "smollm2-served")
    assert wait_for(lambda: desk.models.states()["smollm2-served"].phase == "cancelled")
    assert "cancelled at" in sh.downloads_html(desk) and "goes on from there" in sh.downloads_html(desk)
    assert "not installed" in sh.catalog_html(desk).split("data-model='smollm2-served'>")[1]
    desk.models._on_change = lambda: None
    sh.download(desk, "smollm2-served")
    assert wait_for(lambda: desk.models.states()["smollm2-served"].phase == "done", 60)
    assert state.requests[-1][1].startswith("bytes=")  # resumed, not started over


def test_offline_the_download_fails_at_once_with_a_sentence(tmp_path: Path) -> None:
    rig, _ = _rig(tmp_path)  # nothing listens on port 9
    desk = rig.session
    started = time.monotonic()
    sh.download(desk, "smollm2-served")
    assert wait_for(lambda: desk.models.states()["smollm2-served"].phase == "failed", 10)
    assert time.monotonic() - started < 5
    html = sh.downloads_html(desk)
    assert "data-phase='failed'" in html and "Check the internet connection" in html, html
    assert not list((desk.runtime.paths.models_cache / "gguf").glob("*.gguf"))


def test_offline_the_page_shows_one_download_state_not_downloading_and_failed_at_once(tmp_path: Path) -> None:
    """Issue 46: the message said "Downloading … in the background" beside the panel's "cannot connect"."""
    rig, _ = _rig(tmp_path)  # nothing listens on port 9
    desk = rig.session
    out = sh.download(desk, "smollm2-served")
    message = out if isinstance(out, str) else out[0]  # what the message area keeps showing
    assert wait_for(lambda: desk.models.states()["smollm2-served"].phase == "failed", 10)
    shown = message + sh.downloads_html(desk)
    assert "Check the internet connection" in shown, shown
    assert "Downloading" not in shown and "in the background" not in shown, shown


@dataclass
class Page:
    """What the browser holds of the models part: the downloads panel and the poll's ``seen``. Each
    answer writes the outputs it carries (``layout._bind_models``: the click's message, panel and
    ``seen``; a poll's version and views, or nothing when it is None)."""

    panel: str = ""
    seen: tuple[int, int] | None = None

    def clicked(self, answer: tuple[str, str, None]) -> None:
        _, self.panel, self.seen = answer

    def polled(self, answer: sh.SettingsPoll | None) -> None:
        if answer is not None:
            self.seen, self.panel = answer.version, answer.downloads_html


def test_offline_the_panel_says_why_the_download_failed_whichever_answer_reaches_the_page_last(
    tmp_path: Path,
) -> None:
    """Issue 69: offline, Download stayed on "starting…" until a reload, though the failure was in the log
    after 6 s. The click's answer comes through Gradio's queue, the polls' do not: the polls drew the
    failure, then the click's late answer drew "starting…" over it, and the version the polls had
    stored said nothing was left to draw. Within 10 s of the click the panel says it failed, and why."""
    rig, _ = _rig(tmp_path)  # nothing listens on port 9
    desk = rig.session
    page = Page()
    page.polled(sh.poll(desk, page.seen))
    started = time.monotonic()
    late = sh.download(desk, "smollm2-served")  # held back in the queue
    assert "data-phase='downloading'" in late[1]

    def poll_shows_the_failure() -> bool:
        page.polled(sh.poll(desk, page.seen))
        return "data-phase='failed'" in page.panel

    assert wait_for(poll_shows_the_failure, 10)
    sent = sh.poll(desk, page.seen)  # a poll asked while the page shows the failure ...
    page.clicked(late)  # ... the click's answer arrives ...
    page.polled(sent)  # ... and then that poll's
    assert "data-phase='downloading'" in page.panel
    assert wait_for(poll_shows_the_failure, 1)  # the next poll draws it again
    assert time.monotonic() - started < 10
    assert "cannot connect to 127.0.0.1" in page.panel and "Check the internet connection" in page.panel


def test_offline_a_chinese_page_says_why_the_download_failed_in_chinese_and_the_log_keeps_the_error(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 69: on a zh-CN page the reason was the downloader's English ("cannot connect to 127.0.0.1
    ([Errno 111] Connection refused). Check the internet connection; …"). The real handlers and downloads
    against a refused port: the panel says it in Chinese, naming the host; the log has the error itself."""
    caplog.set_level(logging.INFO)
    rig, _ = _rig(tmp_path)  # nothing listens on port 9
    desk = rig.session
    sh.download(desk, "smollm2-served", "zh")
    assert wait_for(lambda: "data-phase='failed'" in sh.downloads_html(desk, "zh"), 10)
    panel = sh.downloads_html(desk, "zh")
    assert "无法连接到 127.0.0.1" in panel and "请检查网络连接" in panel, panel
    assert not english_runs(re.sub(r"<[^>]+>", " ", panel)), panel
    assert "Connection refused" not in panel and "Connection refused" in caplog.text
    assert "cannot connect to 127.0.0.1" in sh.downloads_html(desk, "en")  # English as it was


def test_a_chat_model_that_fails_to_load_leaves_the_old_one_and_is_not_saved(tmp_path: Path) -> None:
    rig, built = _rig(tmp_path)
    desk = rig.session
    old = desk.runtime.chat(desk.config)
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"not a model")
    saved_before = desk.config_path.read_text("utf-8") if desk.config_path.exists() else ""
    form = replace(desk.settings.form(), chat_model_path=str(broken), agentic_enabled=False)
    message, preset = sh.save_settings(desk, form)
    assert "Loading the model" in message
    assert wait_for(lambda: desk.model_state().phase == "failed"), desk.model_state()
    state = desk.model_state().message
    assert "cannot read broken.gguf" in state and "Still using" in state and "not saved" in state
    assert desk.config.chat.path == "" and "broken" not in desk.config_path.read_text("utf-8")
    assert desk.config_path.read_text("utf-8") != saved_before  # the switch itself was saved ...
    assert not desk.config.agentic.enabled and preset == "custom"  # ... and shows as custom
    assert desk.runtime.chat(desk.config) is old and not old.closed  # type: ignore[attr-defined]
    assert built[-1].cfg.path == str(broken) and built[-1].closed  # the failed one was closed


def test_the_preset_shows_custom_after_custom_changes_and_restore_defaults(tmp_path: Path) -> None:
    rig, _ = _rig(tmp_path)
    desk = rig.session
    form = desk.settings.form()
    assert form.preset == "full"
    assert sh.form_preset(desk, replace(form, agentic_enabled=False)) == "custom"
    assert sh.form_preset(desk, replace(form, preset="custom")) == "full"  # the switches are full's
    turbo = desk.settings.preset_form("turbo")
    assert sh.form_preset(desk, turbo) == "turbo"
    message, preset = sh.save_settings(desk, replace(form, preset="custom", routing_top_k=5))
    assert message.startswith("Settings saved") and preset == "custom"
    assert desk.settings.form().preset == "custom" and desk.config.routing.top_k == 5
    assert load_config(desk.config_path).routing.top_k == 5
    chat = desk.config.chat
    message, restored = sh.restore_defaults(desk)
    assert "Default settings restored" in message and "models and collections are kept" in message
    assert restored.preset == "full" and restored.agentic_enabled and restored.routing_top_k == 2
    assert load_config(desk.config_path).preset == "full" and desk.config.chat == chat


def test_settings_save_and_explain_a_missing_model(tmp_path: Path) -> None:
    s = make_rig(tmp_path).session
    form = sh.load_settings(s)
    assert form.preset == "full" and form.agentic_enabled
    turbo = sh.preset_changed(s, "turbo")
    assert not turbo.context_enabled
    assert sh.save_settings(s, turbo)[0].startswith("Settings saved to")
    bad = SettingsForm(**{**turbo.__dict__, "chat_model_path": "/nowhere/model.gguf"})
    assert sh.save_settings(s, bad)[0].startswith("⚠ There is no file at /nowhere/model.gguf")


def test_a_downloaded_reader_is_used_kept_across_presets_and_switched_back(tmp_path: Path) -> None:
    """Issue 68: a reader of the catalog is chosen as the other models are (saved once the switch is done),
    and a preset switch or Restore defaults keeps it, as they keep the chat model."""
    desk = make_rig(tmp_path).session
    desk.start(sync=False)
    assert wait_for(lambda: desk.model_state().phase == "ready"), desk.model_state()
    installed = desk.runtime.paths.models_cache / "gguf" / "qwen3-reranker-0.6b-q8_0.gguf"
    installed.parent.mkdir(parents=True)
    installed.write_bytes(b"GGUF")  # what the catalog finds installed (nothing loads it here)
    assert "Loading" in sh.use_model(desk, "qwen3-reranker-0.6b")
    assert wait_for(lambda: desk.config.reader.model == "qwen3-reranker-0.6b")
    assert load_config(desk.config_path).reader.model == "qwen3-reranker-0.6b"
    assert wait_for(lambda: desk.model_state().phase == "ready"), desk.model_state()
    row = sh.catalog_html(desk).split("data-model='qwen3-reranker-0.6b'>")[1].split("</tr>")[0]
    assert "<b>in use</b>" in row
    sh.save_settings(desk, desk.settings.preset_form("turbo"))
    assert desk.config.preset == "turbo" and desk.config.reader.model == "qwen3-reranker-0.6b"
    sh.restore_defaults(desk)
    assert desk.config.preset == "full" and desk.config.reader.model == "qwen3-reranker-0.6b"
    sh.use_model(desk, "kimas-reader-e5-small")
    assert wait_for(lambda: desk.config.reader.model == "")
