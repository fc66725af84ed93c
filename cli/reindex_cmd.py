"""``kimas reindex NAME``: re-embed a collection from its source files with the configured embedding model.

After a switch of the embedding model a collection "needs re-embedding" (``kimas collections`` says so).
The new index is built beside the old one, which keeps answering for the old model until the new one is
complete; an interrupted run (Ctrl-C, a crash) is resumed by running the command again.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.paths import read_config, resolve_paths
from app.runtime import Runtime
from cli.collections_cmd import ProgressBar, summary
from cli.terminal import say
from kimas_desktop.control import IndexControl
from kimas_desktop.errors import Cancelled, CollectionNotFoundError, IndexingError


def add_parsers(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "reindex", parents=[common], help="re-embed a collection with the configured embedding model"
    )
    p.add_argument("name")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=run_reindex)


def run_reindex(args: argparse.Namespace) -> int:
    paths = resolve_paths(args.data_dir, args.config)
    runtime = Runtime(paths, read_config(paths))
    control = IndexControl()
    try:
        indexer = runtime.indexer()
        reembed = getattr(indexer, "reembed", None)
        if reembed is None:
            raise IndexingError("this indexer cannot re-embed collections")
        if not runtime.store().has_collection(args.name):
            raise CollectionNotFoundError(f"there is no collection named '{args.name}'")
        bar = None if args.quiet or not sys.stderr.isatty() else ProgressBar()
        folders = [Path(f) for f in runtime.config.collection(args.name).folders] or None
        report = reembed(args.name, folders, on_progress=bar, control=control)
    except KeyboardInterrupt:
        control.cancel()
        say(
            f"kimas: re-embedding of '{args.name}' stopped; run the same command again to go on.",
            file=sys.stderr,
        )
        return 130
    except Cancelled:
        return 130
    finally:
        runtime.close()
    say(summary(report))
    return 0
