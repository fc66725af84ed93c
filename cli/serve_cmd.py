"""``kimas serve`` (and ``python launch.py``): the desktop app in a browser tab at http://127.0.0.1:PORT.

Wires the real backends (``launch.Services``: LanceDB store, indexer, folder watcher, local models) into a
``DesktopSession``, starts loading the models in the background, and serves ``ui.app`` on this computer
only. Cited files are opened through one extra route that serves only files the session has cited.
"""

from __future__ import annotations

import argparse
import errno
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import launch
from kimas_desktop.config import PRESETS, Config
from kimas_desktop.index_jobs import IndexService
from kimas_desktop.pipeline import Pipeline
from kimas_desktop.protocols import ChatModel, Embedder, Reranker
from kimas_desktop.session import Backends, DesktopSession, Watcher
from kimas_desktop.types import IndexReport

log = logging.getLogger(__name__)


def add_parsers(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser("serve", parents=[common], help="start the app on http://127.0.0.1:PORT")
    p.add_argument("--port", type=int, default=7860, help="port on 127.0.0.1 (default 7860)")
    p.add_argument("--preset", choices=PRESETS, help="override the config's preset")
    p.set_defaults(run=run)


class Models:
    """The models for whatever config the settings hold now; each is rebuilt only when its own section
    changes (another chat model keeps the loaded embedder). Built lazily, loaded by ``warm_up``."""

    def __init__(self, services: launch.Services) -> None:
        self._services = services
        self._lock = threading.RLock()  # building the indexer builds the embedder
        self._memo: dict[str, tuple[object, Any]] = {}

    def _get(self, role: str, key: object, build: Callable[[], Any]) -> Any:
        with self._lock:
            held = self._memo.get(role)
            if held is None or held[0] != key:
                evicted = held[1] if held is not None else None
                held = (key, build())
                self._memo[role] = held
                close = getattr(evicted, "close", None)
                if role == "chat" and close is not None and evicted is not held[1]:
                    # Frees the old model's worker process; waits (off this thread) for an answer in flight.
                    threading.Thread(target=close, name="kimas-close-model", daemon=True).start()
            return held[1]

    def chat(self, config: Config) -> ChatModel:
        from local_models import build_chat_model

        first = self._services.config.chat
        return cast(
            ChatModel,
            self._get(
                "chat",
                config.chat,
                lambda: self._services.chat if config.chat == first else build_chat_model(config.chat),
            ),
        )

    def embedder(self, config: Config) -> Embedder:
        from local_models import build_embedder

        first = self._services.config.embedding
        cache = self._services.paths.models_cache
        return cast(
            Embedder,
            self._get(
                "embedding",
                config.embedding,
                lambda: (
                    self._services.embedder
                    if config.embedding == first
                    else build_embedder(config.embedding, cache)
                ),
            ),
        )

    def reranker(self, config: Config) -> Reranker:
        from local_models import build_reranker

        cache = self._services.paths.models_cache
        key = (config.rerank, config.embedding)
        return cast(
            Reranker,
            self._get("rerank", key, lambda: build_reranker(config.rerank, self.embedder(config), cache)),
        )

    def indexer(self, config: Config) -> IndexService:
        from indexer import Indexer

        key = (config.embedding, config.indexer)
        return cast(
            IndexService,
            self._get(
                "indexer", key, lambda: Indexer(self._services.store, self.embedder(config), config.indexer)
            ),
        )

    def pipeline(self, config: Config) -> Pipeline:
        return Pipeline(
            config=config,
            chat=self.chat(config),
            embedder=self.embedder(config),
            reranker=self.reranker(config),
            searcher=self._services.store,
            small_model=launch.chat_is_embedded(config),
        )

    def warm_up(self, config: Config) -> None:
        self.embedder(config).warm_up()
        self.chat(config).warm_up()

    def watcher(
        self,
        config: Config,
        service: IndexService,
        folders: Mapping[str, Sequence[Path]],
        on_report: Callable[[IndexReport], None],
    ) -> Watcher:
        from indexer import FolderWatcher

        # The session runs the start-up catch-up itself (with progress); the watcher only reacts to edits.
        return cast(
            Watcher,
            FolderWatcher(cast(Any, service), folders, config.indexer.debounce_s, on_report, catch_up=False),
        )


def build_session(paths: launch.Paths, config: Config) -> DesktopSession:
    services = launch.Services(paths, config)
    models = Models(services)
    backends = Backends(
        searcher=services.store,
        index_service=models.indexer,
        watcher=models.watcher,
        pipeline=models.pipeline,
        warm_up=models.warm_up,
    )
    return DesktopSession(
        config=config, config_path=paths.config_file, data_dir=paths.data_dir, backends=backends
    )


def _log_to_file(path: Path) -> None:
    """Details (tracebacks) for the curious go to ``<data dir>/kimas.log``; the page shows sentences."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.setLevel(logging.INFO)
    root = logging.getLogger()
    for console in root.handlers:  # the terminal keeps showing warnings and errors only
        if console.level == logging.NOTSET:
            console.setLevel(logging.WARNING)
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    for noisy in ("httpx", "httpcore", "uvicorn.access", "watchdog", "urllib3"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def port_in_use(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        # As the server will (uvicorn sets SO_REUSEADDR): connections of a just-stopped app lingering in
        # TIME_WAIT must not block a relaunch; only a socket still listening does.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError as err:
            return err.errno in (errno.EADDRINUSE, errno.EACCES)
    return False


def _port_message(port: int) -> str:
    return (
        f"kimas: port {port} is already in use on 127.0.0.1. Is KIMAs already running? Open "
        f"http://127.0.0.1:{port} in your browser, or start another copy with --port {port + 1}."
    )


def add_source_route(app: Any, session: DesktopSession, route: str) -> None:
    """``GET {route}/{token}/{name}``: a file the session has cited, if it is still in a collection."""
    from starlette.responses import FileResponse, PlainTextResponse, Response

    def source(token: str, name: str) -> Response:
        path = session.source_file(token)
        if path is None:
            return PlainTextResponse("This file is not a source KIMAs has cited, or it is gone.", 404)
        return FileResponse(path, filename=path.name, content_disposition_type="inline")

    app.add_api_route(route + "/{token}/{name:path}", source, methods=["GET"])


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def run(args: argparse.Namespace) -> int:
    paths = launch.resolve_paths(args.data_dir, args.config)
    config = launch.read_config(paths, preset=args.preset)
    if port_in_use(args.port):
        print(_port_message(args.port), file=sys.stderr)
        return 2
    paths.data_dir.mkdir(parents=True, exist_ok=True)
    _log_to_file(paths.log_file)
    # Uploads pass through Gradio's cache: keep them inside the data dir, not in the system's temp dir.
    os.environ.setdefault("GRADIO_TEMP_DIR", str(paths.data_dir / "cache" / "gradio"))
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"

    from ui import app as ui_app
    from ui.render import SOURCE_ROUTE

    session = build_session(paths, config)
    session.start()
    demo = ui_app.build_app(session)
    try:
        fastapi_app, url, _ = demo.launch(**ui_app.launch_kwargs(args.port))
    except OSError as err:
        session.close()
        log.warning("could not start the web server: %s", err)
        print(_port_message(args.port), file=sys.stderr)
        return 2
    add_source_route(fastapi_app, session, SOURCE_ROUTE)
    log.info("serving on %s (data dir %s)", url, paths.data_dir)
    print(f"KIMAs Desktop is running at {url}  (data: {paths.data_dir}; press Ctrl+C to stop)", flush=True)
    signal.signal(signal.SIGTERM, _interrupt)  # a service manager's stop: shut down like Ctrl+C
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        print("kimas: stopping…", file=sys.stderr)
    finally:
        session.close()
        demo.close()
    return 0
