"""The Settings tab's buttons in a Chinese page (issue 60): what Save, Restore defaults, Use, Cancel download,
the language choice and a model no longer listed say is Chinese (paths and model names kept); English is
what the app wrote, word for word. The embedding field names both built-in embedding models. The downloads
panel, the models on this computer and the model status line after a switch are Chinese too."""

from __future__ import annotations

import re
import threading
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from app.desktop import DesktopApp
from app.models.downloads import DownloadState
from app.models.local_model import LocalModel
from app.settings.local_models import LocalModelChoices
from local_models.catalog.download import DownloadProgress, Phase
from local_models.catalog.install import InstallResult
from tests.rigs import make_rig
from tests.ui.english import english_runs
from tests.ui.settings.test_handlers import Chat, _rig, wait_for
from ui.i18n import column, word
from ui.markup import esc, model_markdown
from ui.settings import handlers as sh
from ui.settings import language_view, local_layout
from ui.settings import local_handlers as lh

_HAN = re.compile(r"[\u4e00-\u9fff]")


def test_every_settings_message_speaks_chinese_in_a_chinese_page(tmp_path: Path) -> None:
    s = make_rig(tmp_path).session
    form = sh.load_settings(s)
    said = [
        sh.use_model(s, None, "zh"),
        sh.download(s, None, "zh")[0],
        sh.cancel_download(s, "nothing-running", "zh"),
        sh.save_settings(s, form, "zh")[0],
        sh.restore_defaults(s, "zh")[0],
        lh.use(LocalModelChoices(s.settings, find=list), "gone", "zh"),
        language_view.choose(s, "zh-CN", "zh"),
    ]
    for message in said:
        assert _HAN.search(message), message
        assert english_runs(message, allowed=[str(s.config_path), "full"]) == [], message
    assert said[0] == "⚠ 请先选择一个模型。"


def test_the_english_settings_messages_are_unchanged(tmp_path: Path) -> None:
    s = make_rig(tmp_path).session
    assert sh.use_model(s, None) == "⚠ Choose a model first."
    assert sh.cancel_download(s, "x") == "No download of that model is running."
    assert sh.save_settings(s, sh.load_settings(s))[0] == esc(f"Settings saved to {s.config_path}.")
    assert lh.use(LocalModelChoices(s.settings, find=list), "gone") == (
        "⚠ That model is no longer listed: press Look again."
    )
    assert language_view.choose(s, "en") == "Language saved; the page reloads in it."


def test_the_embedding_field_names_both_built_in_models() -> None:
    for language in ("en", "zh"):
        label = column("set_embedding", language)
        assert "all-MiniLM-L6-v2" in label and "multilingual-e5-small" in label
    assert english_runs(word("set_embedding", "zh")) == []


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", " ", html)


def test_the_downloads_panel_speaks_chinese(tmp_path: Path) -> None:
    def progress(phase: Phase, done: int = 0, total: int | None = None) -> DownloadProgress:
        return DownloadProgress("m.gguf", phase, done, total, 1e6 if total else 0.0, 15.0 if total else None)

    result = cast(InstallResult, SimpleNamespace(path=Path("/models/m.gguf"), verified=True))
    failure = "Cannot connect to huggingface.co."
    states = {
        "a": DownloadState("a", "downloading", progress("connecting")),
        "b": DownloadState("b", "downloading", progress("downloading", 5_000_000, 20_000_000)),
        "c": DownloadState("c", "downloading"),
        "d": DownloadState("d", "downloading", progress("verifying")),
        "e": DownloadState("e", "done", message="", result=result),
        "f": DownloadState("f", "failed", message=failure),
        "g": DownloadState("g", "cancelled", progress("downloading", 3_000_000, 20_000_000)),
    }
    desk = cast(DesktopApp, SimpleNamespace(models=SimpleNamespace(states=lambda: states)))
    chinese = _text(sh.downloads_html(desk, "zh"))
    assert len(_HAN.findall(chinese)) > 40 and english_runs(chinese, allowed=[failure]) == [], chinese
    assert "正在下载  b ：5.0 MB / 20.0 MB (25%) · 1.0 MB/s · 约剩 15 秒" in chinese
    english = sh.downloads_html(desk)
    for line in (
        "Downloading <b>a</b>: connecting…",
        "Downloading <b>b</b>: 5.0 MB of 20.0 MB (25%) · 1.0 MB/s · about 15 s left",
        "Downloading <b>c</b>: starting… (you can keep working meanwhile)",
        "Downloading <b>d</b>: checking the SHA-256…",
        "✓ <b>e</b> downloaded. Installed at /models/m.gguf (checked against its published SHA-256). Press "
        "<i>Use this model</i> to switch to it.",
        f"⚠ <b>f</b>: {failure}",
        "<b>g</b>: cancelled at 3.0 MB; Download goes on from there.",
    ):
        assert line in english, english


def test_the_models_on_this_computer_speak_chinese(tmp_path: Path) -> None:
    config = make_rig(tmp_path).session.config
    base = "http://127.0.0.1:11434/v1"
    models = (
        LocalModel(
            "llama3:8b", "ollama", "chat", base_url=base, model_id="llama3:8b", context=8192, fits=True
        ),
        LocalModel("big", "lm-studio", "chat", path=Path("/m/big.gguf"), size_bytes=9 * 10**9, fits=False),
        LocalModel("odd", "jan", "chat", path=Path("/m/odd.gguf"), quantization="Q4_0"),
    )
    rows = lh.rows_of(config, models, "zh")
    shown = "\n".join(_text(local_layout._row_markup(replace(r, in_use=True))) for r in rows)
    assert "8,192 个词元的上下文" in shown and "这台电脑的内存够用" in shown and "使用中" in shown
    assert english_runs(shown, allowed=[base, "/m/big.gguf", "/m/odd.gguf"]) == [], shown
    english = [r.facts for r in lh.rows_of(config, models)]
    assert english[0] == (
        f"chat model · Ollama: {base} · size unknown · quantization unknown · 8,192 tokens of context · "
        "fits this computer&#x27;s RAM"
    )
    assert (
        "LM Studio folder: /m/big.gguf · 9.0 GB" in english[1]
        and "too big for this computer&#x27;s RAM" in english[1]
    )
    assert english[2].endswith("Q4_0 · context unknown · RAM need unknown")


def test_the_model_status_after_save_speaks_chinese(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rig, _ = _rig(tmp_path)
    desk = rig.session
    gate = threading.Event()
    warm_up = Chat.warm_up
    monkeypatch.setattr(Chat, "warm_up", lambda self: (gate.wait(10), warm_up(self)))
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"not a model")
    sh.save_settings(desk, replace(desk.settings.form(), chat_model_path=str(broken)), "zh")
    loading = model_markdown(desk.model_state(), desk.config, "zh")
    gate.set()
    assert wait_for(lambda: desk.model_state().phase == "failed"), desk.model_state()
    failed = model_markdown(desk.model_state(), desk.config, "zh")
    why = "llama.cpp cannot read broken.gguf: it is not a GGUF model."
    assert failed.startswith("⚠ 无法切换模型：") and "仍在使用对话模型" in failed, failed
    assert loading.startswith("◌ 正在加载对话模型 broken.gguf"), loading
    good = tmp_path / "good.gguf"
    good.write_bytes(b"a model")
    sh.save_settings(desk, replace(desk.settings.form(), chat_model_path=str(good)), "zh")
    assert wait_for(lambda: desk.model_state().phase == "ready"), desk.model_state()
    ready = model_markdown(desk.model_state(), desk.config, "zh")
    assert ready.startswith("✓ 就绪：对话模型 good.gguf"), ready
    for line in (loading, failed, ready):
        assert english_runs(line.replace("\\", ""), allowed=[why]) == [], line
    english = desk.model_state()
    assert model_markdown(english) == f"✓ {esc(english.message)}" and english.message.startswith("Ready: ")
