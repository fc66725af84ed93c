"""Any text in any string setting survives a save and a restart (issue 21: a control character typed into a
description, or found in a folder's name, used to leave config.toml unreadable and the app unable to start)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from app.settings.config_store import ConfigStore, save_config
from kimas_desktop.config import CollectionConfig, Config, load_config, parse_config
from tests.rigs import make_rig

ROOT = Path(__file__).resolve().parents[3]
CONTROLS = "".join(chr(c) for c in [*range(0, 32), 127, 0x85, 0x2028])
text = st.text(st.characters(exclude_categories=["Cs"]) | st.sampled_from(CONTROLS), max_size=40)


def _fill(model: type[BaseModel], draw: Any) -> dict[str, Any]:
    """A value for every string field of ``model``: ``str``, ``list[str]`` and ``dict[str, str]``."""
    values: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        kind = field.annotation
        if kind is str:
            values[name] = draw(text)
        elif kind == list[str]:
            values[name] = draw(st.lists(text, max_size=3))
        elif kind == dict[str, str]:
            values[name] = draw(st.dictionaries(text, text, max_size=3))
    return values


@st.composite
def configs(draw: Any) -> Config:
    data: dict[str, Any] = {"preset": draw(st.sampled_from(["full", "routed", "turbo", "custom"]))}
    for name, field in Config.model_fields.items():
        kind = field.annotation
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            data[name] = _fill(kind, draw)
    names = draw(st.lists(text, max_size=3, unique=True))
    data["collections"] = {n: _fill(CollectionConfig, draw) for n in names}
    return parse_config(data)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(config=configs())
def test_every_string_setting_survives_a_save_and_a_load(tmp_path: Path, config: Config) -> None:
    path = tmp_path / "config.toml"
    save_config(config, path)
    assert load_config(path) == config
    save_config(config, path)  # writing over its own file changes nothing
    assert load_config(path) == config


def test_a_users_comments_and_spelled_out_settings_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('# my notes\npreset = "routed"\n\n[indexer]\nchunk_tokens = 120  # as the preset\n')
    store = ConfigStore(path, load_config(path))
    store.update(lambda c: c.updated(routing={**c.routing.model_dump(), "top_k": 3}))
    written = path.read_text("utf-8")
    assert written.startswith("# my notes\n") and "chunk_tokens = 120  # as the preset" in written
    assert load_config(path).routing.top_k == 3


def test_control_characters_in_a_description_and_a_folder_name_and_the_app_restarts(tmp_path: Path) -> None:
    rig = make_rig(tmp_path)
    s = rig.session
    s.start()
    folder = tmp_path / "docs\x0b\x1b\x7f\r name"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nThe otters sleep.\n", "utf-8")
    assert s.add_folder("notes", str(folder)).ok
    s.knowledge.save_settings("notes", {"description": "form\x0cfeed \x00 nul \x1b[31m esc \x7f del \r cr"})
    s.close()
    config_file = s.config_path
    config = load_config(config_file)  # what every start reads first
    assert config.collections["notes"].folders == [str(folder)]
    assert config.collections["notes"].description.startswith("form\x0cfeed \x00 nul")
    out = subprocess.run(
        [sys.executable, "-m", "cli.main", "collections", "--config", str(config_file),
         "--data-dir", str(tmp_path / "data")],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "not valid TOML" not in out.stderr and "notes" in out.stdout
