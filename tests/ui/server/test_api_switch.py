"""The Settings switch for the API and MCP over HTTP holds at once (issue 44): ``ApiSwitch`` stops the real
server (its port closes), starts it again, and moves it to a new port, as the app's config says."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.paths import Paths, read_config, resolve_paths
from app.runtime import Runtime
from app.settings.config_store import ConfigStore
from app.settings.tools_access import ApiStatus, ToolsAccess
from kimas_desktop.config import Config
from tests.app.tools.test_openai_api import free_port
from ui.server.api_server import RunningApi, start_api
from ui.server.api_switch import ApiSwitch


class Settings:
    """The app's config as the Settings tab changes it."""

    def __init__(self, config: Config) -> None:
        self.config = config

    def set(self, **server: object) -> None:
        self.config = self.config.updated(server={**self.config.server.model_dump(), **server})


@pytest.fixture
def paths(tmp_path: Path) -> Paths:
    return resolve_paths(str(tmp_path / "data"), None)


@pytest.fixture
def runtime(paths: Paths) -> Iterator[Runtime]:
    runtime = Runtime(paths, read_config(paths))
    yield runtime
    runtime.close()


def listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def serves(port: int) -> bool:
    """Whether this app's API answers on ``port`` (401 without the token: it is the API, and guarded)."""
    try:
        return httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=5).status_code == 401
    except httpx.TransportError:
        return False


def switch_for(settings: Settings, runtime: Runtime, paths: Paths, every_s: float = 1.0) -> ApiSwitch:
    def start() -> RunningApi | None:
        return start_api(runtime, lambda: settings.config, paths.config_file)

    return ApiSwitch(start, lambda: settings.config, every_s)


def test_off_on_and_a_new_port(paths: Paths, runtime: Runtime) -> None:
    first, second = free_port(), free_port()
    settings = Settings(runtime.config.updated(server={"api": False, "api_port": first}))
    switch = switch_for(settings, runtime, paths)
    try:
        assert switch.sync() is None and not listening(first)  # off: no port opened
        settings.set(api=True)
        running = switch.sync()
        assert running is not None and running.mcp_url == f"http://127.0.0.1:{first}/mcp" and serves(first)
        assert switch.sync() is running  # nothing changed: the same server
        settings.set(api=False)
        assert switch.sync() is None and not listening(first)  # off now: the port is closed
        settings.set(api=True, api_port=second)
        assert switch.sync() is not None and serves(second) and not listening(first)
    finally:
        switch.close()
    assert not listening(second)


def test_follow_keeps_up_with_the_settings(paths: Paths, runtime: Runtime) -> None:
    port = free_port()
    settings = Settings(runtime.config.updated(server={"api_port": port}))
    switch = switch_for(settings, runtime, paths, every_s=0.1)
    try:
        assert switch.sync() is not None and serves(port)
        switch.follow()
        settings.set(api=False)
        deadline = time.monotonic() + 20
        while listening(port) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not listening(port)
    finally:
        switch.close()


def test_a_taken_port_is_said_in_settings_until_another_is_set(paths: Paths, runtime: Runtime) -> None:
    """Another program holds ``api_port``: the Settings tab says the API is not served (not "on at …"),
    and once another port is set the switch serves there and the state says so."""
    taken, free = free_port(), free_port()
    store = ConfigStore(paths.config_file, runtime.config.updated(server={"api_port": taken}))
    status = ApiStatus()
    access = ToolsAccess(store, status)

    def start() -> RunningApi | None:
        return start_api(runtime, lambda: store.current, paths.config_file)

    switch = ApiSwitch(start, lambda: store.current, status=status)
    try:
        with socket.socket() as holder:
            holder.bind(("127.0.0.1", taken))
            holder.listen()
            assert switch.sync() is None and status.refused_port == taken
            said = access.said_state()
            assert said.code == "api_port_taken" and f"port {taken} on 127.0.0.1 is in use" in said.english
        store.update(lambda cur: cur.updated(server={**cur.server.model_dump(), "api_port": free}))
        assert switch.sync() is not None and serves(free) and status.refused_port is None
        assert access.said_state().code == "api_on" and f"127.0.0.1:{free}" in access.state()
    finally:
        switch.close()


def test_switching_on_in_settings_says_a_taken_port_at_once(paths: Paths, runtime: Runtime) -> None:
    """Switched on in Settings while another program holds ``api_port``: the sentence the switch returns
    already says the API is not served (it waits for the running app to try the port), not "on at …"."""
    taken = free_port()
    store = ConfigStore(paths.config_file, runtime.config.updated(server={"api": False, "api_port": taken}))
    status = ApiStatus()
    access = ToolsAccess(store, status)

    def start() -> RunningApi | None:
        return start_api(runtime, lambda: store.current, paths.config_file)

    switch = ApiSwitch(start, lambda: store.current, every_s=0.3, status=status)
    try:
        with socket.socket() as holder:
            holder.bind(("127.0.0.1", taken))
            holder.listen()
            assert switch.sync() is None
            switch.follow()
            assert f"port {taken} on 127.0.0.1 is in use" in access.switch(True)
            assert "**off**" in access.switch(False)
    finally:
        switch.close()
    assert "**on** at" in ToolsAccess(store).switch(True)  # no running app follows: said at once
