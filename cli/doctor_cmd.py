"""``kimas doctor``: which models were resolved, from where, the data dir, and whether the network is used."""

from __future__ import annotations

import argparse

from app.doctor import doctor_report
from app.paths import Paths, read_config, resolve_paths
from cli.render import dumps
from cli.terminal import say


def add_parsers(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser("doctor", parents=[common], help="show resolved models, data dir and network use")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    paths = resolve_paths(args.data_dir, args.config)
    report = doctor_report(paths, read_config(paths))
    report["model cache"] = _catalog_line(paths)
    if args.json:
        say(dumps(report, indent=2))
        return 0
    for key, value in report.items():
        if isinstance(value, dict):
            say(f"{key}:")
            for k, v in value.items():
                say(f"  {k}: {v}")
        else:
            say(f"{key}: {value}")
    return 0


def _catalog_line(paths: Paths) -> str:
    """Which catalog models are installed (``kimas models`` lists them all); no network."""
    from app.models.catalog import status

    names = [r.entry.name for r in status(paths) if r.installed]
    return f"{paths.models_cache}; catalog models installed: {', '.join(names) or 'none'} (see kimas models)"
