"""The ``kimas`` command line. Each subcommand module adds its parser; errors become sentences here."""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import logging
import sys
from collections.abc import Sequence

from ipc.privacy import forget_queued_telemetry, switch_off_telemetry
from kimas_desktop import __version__
from kimas_desktop.errors import KimasError


def build_parser() -> argparse.ArgumentParser:
    from cli import (
        collections_cmd,
        doctor_cmd,
        eval_cmd,
        mcp_cmd,
        models_cmd,
        query_cmd,
        reindex_cmd,
        relations_cmd,
        serve_cmd,
        sources_cmd,
        token_cmd,
    )

    parser = argparse.ArgumentParser(prog="kimas", description="KIMAs Desktop: private local knowledge QA.")
    parser.add_argument("--version", action="version", version=f"kimas {__version__}")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir", help="data directory (default: $KIMAS_HOME or ~/.kimas)")
    common.add_argument("--config", help="config file (default: <data dir>/config.toml)")
    sub = parser.add_subparsers(dest="command", required=True)
    for module in (
        serve_cmd,
        doctor_cmd,
        collections_cmd,
        reindex_cmd,
        relations_cmd,
        query_cmd,
        eval_cmd,
        models_cmd,
        sources_cmd,
        mcp_cmd,
        token_cmd,
    ):
        module.add_parsers(sub, common)
    return parser


def fix_malloc_thresholds(limit: int = 1 << 20) -> None:
    """Give large freed buffers back to the system (glibc only; elsewhere a no-op).

    glibc raises its mmap threshold after each large free, so later multi-MB buffers (query results,
    embedding batches) come from the heap and stay there as fragments: the app's RSS crept up by ~70 MB
    over 20 questions. Fixed thresholds stop that (bench/RESULTS.md, "The chat model runtime")."""
    name = ctypes.util.find_library("c")
    if not name or not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(name)
        libc.mallopt(-3, limit)  # M_MMAP_THRESHOLD
        libc.mallopt(-1, limit)  # M_TRIM_THRESHOLD
    except (OSError, AttributeError):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    # Nothing phones home: every library's telemetry switch is set before any of them loads, and this
    # process's children (the chat model, the parser worker) inherit them (ipc.privacy).
    switch_off_telemetry()
    forget_queued_telemetry()
    fix_malloc_thresholds()
    parser = build_parser()
    args = parser.parse_args(argv)
    from cli.terminal import SafeFormatter, say  # what reaches the terminal is shown, never obeyed

    handler = logging.StreamHandler()
    handler.setFormatter(SafeFormatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    try:
        code: int = args.run(args)
        return code
    except KimasError as err:
        say(f"kimas: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("kimas: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
