"""The models' loading state: the newest load decides what the UI shows, whichever ends last."""

from __future__ import annotations

import threading

from app.models.loading import ModelLoading
from app.outcomes import ModelState


def test_a_load_that_ends_after_a_newer_one_does_not_overwrite_it() -> None:
    loading = ModelLoading()
    assert loading.state().phase == "loading"
    release_old, old_done, new_done = threading.Event(), threading.Event(), threading.Event()

    def old() -> ModelState:
        release_old.wait(10)
        return ModelState("failed", "the old model")

    loading.start("Loading old…", old, thread_name="test-old", then=old_done.set)
    loading.start(
        "Loading new…", lambda: ModelState("ready", "Ready: new."), thread_name="test-new", then=new_done.set
    )
    assert new_done.wait(10) and loading.state() == ModelState("ready", "Ready: new.")
    release_old.set()
    assert old_done.wait(10)  # ``then`` runs however the load ended
    assert loading.state() == ModelState("ready", "Ready: new.")


def test_the_message_shows_while_loading_and_the_result_once_loaded() -> None:
    loading = ModelLoading()
    release, done = threading.Event(), threading.Event()

    def load() -> ModelState:
        release.wait(10)
        return ModelState("ready", "Ready: m.")

    loading.start("Loading m…", load, thread_name="test-load", then=done.set)
    assert loading.state() == ModelState("loading", "Loading m…")
    release.set()
    assert done.wait(10) and loading.state() == ModelState("ready", "Ready: m.")
