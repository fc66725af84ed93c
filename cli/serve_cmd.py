"""``kimas serve`` (and ``python launch.py``): the desktop app in a browser tab. Written by the UI work."""

from __future__ import annotations

import argparse


def add_parsers(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("serve", parents=[common], help="start the app on http://127.0.0.1:PORT")
    p.add_argument("--port", type=int, default=7860)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    raise SystemExit("the UI is not built yet")
