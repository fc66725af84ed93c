"""The ``kimas`` command line. Each subcommand module adds its parser; errors become sentences here."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from kimas_desktop import __version__
from kimas_desktop.errors import KimasError


def build_parser() -> argparse.ArgumentParser:
    from cli import collections_cmd, doctor_cmd, query_cmd, serve_cmd

    parser = argparse.ArgumentParser(prog="kimas", description="KIMAs Desktop: private local knowledge QA.")
    parser.add_argument("--version", action="version", version=f"kimas {__version__}")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir", help="data directory (default: $KIMAS_HOME or ~/.kimas)")
    common.add_argument("--config", help="config file (default: <data dir>/config.toml)")
    sub = parser.add_subparsers(dest="command", required=True)
    for module in (serve_cmd, doctor_cmd, collections_cmd, query_cmd):
        module.add_parsers(sub, common)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        code: int = args.run(args)
        return code
    except KimasError as err:
        print(f"kimas: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("kimas: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
