"""The Knowledge tab's online sources and the chat's 'Also ask online', without a browser: the real app
layer on fakes for the models, a real source against a real server on 127.0.0.1."""

from __future__ import annotations

import time
import tomllib
from dataclasses import replace
from pathlib import Path

from tests.rigs import Rig, make_rig, write_docs
from tests.web_site import Site
from ui.chat import handlers as chat_handlers
from ui.knowledge import handlers
from ui.knowledge import sources_handlers as sh


def fields(site: Site, **over: object) -> sh.SourceFields:
    base = replace(sh.load_source_defaults(), name="rhine-wiki", base_url=site.base, timeout_s=2)
    return replace(base, **over)  # type: ignore[arg-type]


def indexed(tmp_path: Path) -> Rig:
    rig = make_rig(tmp_path)
    rig.session.start()
    docs = write_docs(tmp_path / "upload-temp")
    handlers.upload(rig.session, None, [str(docs / "notes.md")])
    rig.wait_idle()
    while rig.session.model_state().phase == "loading":
        time.sleep(0.01)
    return rig


def test_a_source_is_added_tried_enabled_and_removed(site: Site, tmp_path: Path) -> None:
    rig = indexed(tmp_path)
    desk = rig.session
    saved = sh.save_source(desk, sh.NEW, fields(site))
    assert (
        "Saved **rhine-wiki** (off)" in saved.message and "no question leaves this computer" in saved.message
    )
    assert ("rhine-wiki (off)", "rhine-wiki") in saved.choices and saved.selected == "rhine-wiki"
    written = tomllib.loads((rig.data_dir / "config.toml").read_text("utf-8"))
    assert written["sources"]["rhine-wiki"]["base_url"] == site.base
    assert sh.also_ask_choices(desk) == [] and not site.requests  # off: nothing asked

    # A time limit far above the slow page's 5 s: on a busy machine even the fast page can take seconds.
    patient = replace(sh.load_source(desk, "rhine-wiki"), timeout_s=60)
    tried = sh.try_source(desk, patient, "rhine freight")
    assert "**3 results**" in tried and f"`{site.base}/article`" in tried and "page read" in tried

    on = sh.save_source(desk, "rhine-wiki", fields(site, enabled=True, use="ask"))
    assert "on: asked only when I ask for it in the chat" in on.message
    assert sh.also_ask_choices(desk) == [("rhine-wiki", "rhine-wiki")]

    gone = sh.remove_source(desk, "rhine-wiki")
    assert gone.choices == [("(new source)", sh.NEW)]
    assert "rhine-wiki" not in tomllib.loads((rig.data_dir / "config.toml").read_text("utf-8")).get(
        "sources", {}
    )


def test_bad_settings_say_what_is_wrong_and_keep_the_config(site: Site, tmp_path: Path) -> None:
    rig = indexed(tmp_path)
    desk = rig.session
    clash = sh.save_source(desk, sh.NEW, fields(site, name="documents"))
    assert "already a collection's name" in clash.message
    body = sh.save_source(desk, sh.NEW, fields(site, kind="http", json_body="{not json"))
    assert "**Not saved.**" in body.message and "JSON body is not valid JSON" in body.message
    no_address = sh.save_source(desk, sh.NEW, fields(site, base_url=""))
    assert "needs an address" in no_address.message
    assert desk.online.rows() == []
    failed = sh.try_source(desk, fields(site, base_url=f"{site.base}/broken-base"), "x")
    assert failed.startswith("**The source failed:**") and "HTTP 404" in failed


def test_a_question_asks_the_source_the_user_ticked(site: Site, tmp_path: Path) -> None:
    rig = indexed(tmp_path)
    desk = rig.session
    sh.save_source(desk, sh.NEW, fields(site, enabled=True, use="ask"))
    q = "How many tonnes of goods did barges on the Rhine move in 2019?"
    first = list(chat_handlers.submit(desk, None, q))[-1]
    assert not site.requests  # not ticked: not asked
    last = list(chat_handlers.submit(desk, first[1], q, sources=["rhine-wiki"]))[-1]
    assert site.hits["/search"] == 1
    assert f"{site.base}/article" in last[0][-1]["content"]  # the web page is cited with its address
