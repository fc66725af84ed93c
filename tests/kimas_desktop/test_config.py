from pathlib import Path

import pytest

from app.settings.config_store import save_config
from kimas_desktop.config import CollectionConfig, Config, load_config, parse_config
from kimas_desktop.errors import ConfigError


def test_defaults_load_without_a_file(tmp_path: Path) -> None:
    config = load_config(tmp_path / "missing.toml")
    assert config.preset == "full"
    assert config.agentic.enabled  # the full preset turns the agentic round on
    assert config.context.enabled


def test_unknown_key_is_named(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[routing]\ntop_k = 2\ntopk = 3\n")
    with pytest.raises(ConfigError, match=r"unknown key 'routing.topk'"):
        load_config(path)


def test_unknown_section_and_bad_value_are_named() -> None:
    with pytest.raises(ConfigError, match=r"unknown key 'routng'"):
        parse_config({"routng": {}})
    with pytest.raises(ConfigError, match=r"'retrieval.mode'"):
        parse_config({"retrieval": {"mode": "semantic"}})
    with pytest.raises(ConfigError, match=r"'routing.top_k'"):
        parse_config({"routing": {"top_k": 0}})


def test_unknown_preset_and_bad_toml(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown preset"):
        parse_config({"preset": "fastest"})
    path = tmp_path / "c.toml"
    path.write_text("[routing\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(path)


def test_presets_differ_as_the_paper_says() -> None:
    full, routed, turbo = (parse_config({"preset": p}) for p in ("full", "routed", "turbo"))
    assert full.context.enabled and full.agentic.enabled and full.routing.enabled
    assert routed.routing.enabled and not routed.agentic.enabled
    assert not turbo.context.enabled and not turbo.agentic.enabled
    assert turbo.retrieval.default_strategy == "keyword"


def test_user_values_override_the_preset() -> None:
    config = parse_config({"preset": "turbo", "agentic": {"enabled": True}})
    assert config.agentic.enabled and not config.context.enabled


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    config = parse_config({"preset": "routed", "routing": {"top_k": 3}}).updated(
        collections={
            "manuals": CollectionConfig(
                folders=["/home/u/My Docs"], description='R "manuals"', examples=["how to plot"], scale=1.5
            ).model_dump()
        }
    )
    path = tmp_path / "config.toml"
    save_config(config, path)
    again = load_config(path)
    assert again == config
    assert "top_k = 3" in path.read_text()
    assert isinstance(again, Config)
