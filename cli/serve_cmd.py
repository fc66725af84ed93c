"""``kimas serve`` (and ``python launch.py``): the desktop app in a browser tab at http://127.0.0.1:PORT.

Builds the one ``Runtime`` (LanceDB store, indexer, folder watcher, local models) and the ``DesktopApp``
on it, starts loading the models in the background, and serves ``ui.app`` on this computer only. Cited
files are opened through one extra route that serves only files an answer has cited.
"""

from __future__ import annotations

import argparse
import errno
import logging
import os
import signal
import socket
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from app.desktop import DesktopApp
from app.instance_lock import AlreadyRunningError, InstanceLock
from app.log_file import open_log_file
from app.paths import Paths, read_config, resolve_paths
from app.runtime import Runtime
from app.settings.config_store import ConfigStore
from kimas_desktop.config import PRESETS, Config

if TYPE_CHECKING:
    from ui.server.api_server import RunningApi
    from ui.server.api_switch import ApiSwitch

log = logging.getLogger(__name__)


def add_parsers(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser("serve", parents=[common], help="start the app on http://127.0.0.1:PORT")
    p.add_argument("--port", type=int, default=7860, help="port on 127.0.0.1 (default 7860)")
    p.add_argument("--preset", choices=PRESETS, help="override the config's preset")
    p.set_defaults(run=run)


def build_app(paths: Paths, config: Config) -> DesktopApp:
    """The app, following llama.cpp's build in this Python's environment while ``run.sh`` compiles it
    (``scripts/llama_build.py`` writes its progress there; nothing is there once it was built)."""
    llama_build = Path(sys.prefix) / "kimas-llama-build.json"
    return DesktopApp(Runtime(paths, config), ConfigStore(paths.config_file, config), llama_build)


def probe_options(platform: str = sys.platform) -> list[tuple[int, int]]:
    """Socket options of the probe, as ``(option, value)`` at ``SOL_SOCKET``. On Linux and macOS as the
    server will (uvicorn sets SO_REUSEADDR): connections of a just-stopped app lingering in TIME_WAIT must
    not block a relaunch; only a socket still listening does. On Windows SO_REUSEADDR would let the probe
    bind over a listening socket (a busy port would look free), and TIME_WAIT never blocks a bind there:
    the probe asks for the port exclusively instead."""
    if platform == "win32":
        return [(getattr(socket, "SO_EXCLUSIVEADDRUSE", -5), 1)]  # -5: its value in Winsock
    return [(socket.SO_REUSEADDR, 1)]


def port_in_use(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        for option, value in probe_options():
            s.setsockopt(socket.SOL_SOCKET, option, value)
        try:
            s.bind(("127.0.0.1", port))
        except OSError as err:
            return err.errno in (errno.EADDRINUSE, errno.EACCES, getattr(errno, "WSAEACCES", errno.EACCES))
    return False


def _port_message(port: int) -> str:
    return (
        f"kimas: port {port} is already in use on 127.0.0.1. Is KIMAs already running? Open "
        f"http://127.0.0.1:{port} in your browser, or start another copy with --port {port + 1}."
    )


class Sources(Protocol):
    def file(self, token: str) -> Path | None: ...


def add_source_route(app: Any, sources: Sources, route: str) -> None:
    """``GET {route}/{token}/{name}``: a file an answer has cited, if it is still in a collection.

    Sent as data, never as code on the app's origin (``ui.server.security_headers``): sandboxed, never sniffed,
    and HTML, SVG and other markup or scripts as plain text."""
    from starlette.responses import FileResponse, PlainTextResponse, Response

    from ui.server.security_headers import FILE_POLICY, served_type

    def source(token: str, name: str) -> Response:
        path = sources.file(token)
        if path is None:
            return PlainTextResponse("This file is not a source KIMAs has cited, or it is gone.", 404)
        sent = served_type(path.name)
        return FileResponse(
            path,
            media_type=sent.media_type,
            filename=path.name,
            content_disposition_type=sent.disposition,
            headers={"Content-Security-Policy": FILE_POLICY, "X-Content-Type-Options": "nosniff"},
        )

    app.add_api_route(route + "/{token}/{name:path}", source, methods=["GET"])


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def run(args: argparse.Namespace) -> int:
    paths = resolve_paths(args.data_dir, args.config)
    config = read_config(paths, preset=args.preset)
    if port_in_use(args.port):
        print(_port_message(args.port), file=sys.stderr)
        return 2
    paths.data_dir.mkdir(parents=True, exist_ok=True)
    instance = InstanceLock(paths.data_dir)
    try:
        instance.acquire(f"http://127.0.0.1:{args.port}")
    except AlreadyRunningError as err:
        print(f"kimas: {err}", file=sys.stderr)
        return 2
    log_file = open_log_file(paths.log_file)  # details (tracebacks); the page shows sentences
    try:
        return _serve(args, paths, config)
    finally:
        log_file.close()
        instance.release()


def _start_api(desk: DesktopApp, paths: Paths) -> ApiSwitch:
    """The API and MCP over HTTP beside the app, on or off (and on which port) as its settings say."""
    from ui.server.api_server import start_api
    from ui.server.api_switch import ApiSwitch

    def start() -> RunningApi | None:
        return start_api(
            desk.runtime, lambda: desk.config, paths.config_file, desk.indexing.answering, desk.history.save
        )

    switch = ApiSwitch(start, lambda: desk.config, status=desk.api_status)
    api = switch.sync()
    if api is not None:
        print(f"OpenAI-compatible API at {api.url}  (its token: kimas token)", flush=True)
        print(f"MCP (streamable HTTP) at {api.mcp_url}  (the same token)", flush=True)
    elif (port := desk.api_status.refused_port) is not None:
        print(
            f"kimas: the API and MCP over HTTP are not served: port {port} on 127.0.0.1 is in use (another "
            f"KIMAs, or another program). Set another api_port under [server] in {paths.config_file}; the "
            "app runs without them meanwhile.",
            file=sys.stderr,
            flush=True,
        )
    switch.follow()
    return switch


def _serve(args: argparse.Namespace, paths: Paths, config: Config) -> int:
    # Uploads pass through Gradio's cache: keep them inside the data dir, not in the system's temp dir.
    os.environ.setdefault("GRADIO_TEMP_DIR", str(paths.data_dir / "cache" / "gradio"))
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"

    from ui import app as ui_app
    from ui.markup import SOURCE_ROUTE, VIEW_ROUTE
    from ui.server.server import ServeLimits, serve
    from ui.server.viewer_route import add_viewer_route

    desk = build_app(paths, config)
    desk.start()
    demo = ui_app.build_app(desk)
    limits = ServeLimits(
        allowed_hosts=tuple(config.server.allowed_hosts),
        max_upload_file_mb=config.server.max_upload_file_mb,
        max_upload_request_mb=config.server.max_upload_request_mb,
    )
    try:
        running = serve(
            demo,
            args.port,
            limits,
            routes=[
                lambda app: add_source_route(app, desk.sources, SOURCE_ROUTE),
                lambda app: add_viewer_route(app, desk.sources, VIEW_ROUTE, lambda: desk.config.ui.language),
            ],
            launch=ui_app.launch_kwargs(),
        )
    except OSError as err:
        desk.close()
        log.warning("could not start the web server: %s", err)
        print(_port_message(args.port), file=sys.stderr)
        return 2
    url = running.url
    log.info("serving on %s (data dir %s)", url, paths.data_dir)
    print(f"KIMAs Desktop is running at {url}  (data: {paths.data_dir}; press Ctrl+C to stop)", flush=True)
    api = _start_api(desk, paths)
    signal.signal(signal.SIGTERM, _interrupt)  # a service manager's stop: shut down like Ctrl+C
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        print("kimas: stopping…", file=sys.stderr)
    finally:
        api.close()
        desk.close()
        running.close()
    return 0
