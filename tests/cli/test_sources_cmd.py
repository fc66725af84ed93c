"""`kimas sources`, `kimas ask --source` and `kimas doctor` with an online source served on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_query_cmd import kimas
from tests.web_site import Site


def configure(data: Path, site: Site, **extra: str) -> None:
    data.mkdir(parents=True, exist_ok=True)
    lines = [
        'preset = "turbo"',
        "[sources.rhine-wiki]",
        'kind = "searxng"',
        f'base_url = "{site.base}"',
        *(f"{k} = {v}" for k, v in extra.items()),
    ]
    (data / "config.toml").write_text("\n".join(lines) + "\n", "utf-8")


def test_sources_are_listed_and_tried(site: Site, tmp_path: Path) -> None:
    data = tmp_path / "data"
    configure(data, site)
    listed = kimas(data, "sources")
    assert listed.returncode == 0, listed.stderr
    assert f"rhine-wiki  (searxng, off)  {site.base}" in listed.stdout
    assert not site.requests  # listing asks nothing
    tried = kimas(data, "sources", "try", "rhine-wiki", "rhine freight", "--json")
    assert tried.returncode == 0, tried.stderr
    docs = json.loads(tried.stdout)
    article = next(d for d in docs if d["url"].endswith("/article"))
    assert article["page_read"] and "300 million tonnes" in article["text"]
    missing = kimas(data, "sources", "try", "nowhere", "x")
    assert missing.returncode == 2 and "no online source named 'nowhere'" in missing.stderr


def test_a_source_named_for_a_question_must_be_enabled(site: Site, tmp_path: Path) -> None:
    data = tmp_path / "data"
    configure(data, site)
    out = kimas(data, "ask", "What about the Rhine?", "--source", "rhine-wiki")
    assert out.returncode == 2 and "no enabled online source" in out.stderr
    assert not site.requests


@pytest.mark.slow
def test_ask_cites_the_web_page_when_the_documents_do_not_say(site: Site, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "kettle.md").write_text("# Kettle\n\nDescale the kettle with citric acid once a month.\n")
    data = tmp_path / "data"
    configure(data, site, enabled="true", use='"weak"', timeout_s="3")
    assert kimas(data, "index", str(docs), "--collection", "home").returncode == 0
    doctor = kimas(data, "doctor", "--json")
    assert f"source rhine-wiki: {site.base}, asked weak" in json.loads(doctor.stdout)["network"]
    local = kimas(data, "ask", "How often should the kettle be descaled?", "--json")
    assert local.returncode == 0, local.stderr
    assert not site.requests  # the documents answer: the question stayed on this computer
    out = kimas(data, "ask", "How many tonnes of goods did barges on the Rhine move in 2019?", "--json")
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    online = [s for s in answer["trace"]["stages"] if s["stage"] == "online"]
    assert online and online[0]["why"] == "local knowledge was weak" and online[0]["query"]
    assert "300 million tonnes" in answer["quote"]["text"]
    assert answer["quote"]["parts"][0]["source"] == f"{site.base}/article"
