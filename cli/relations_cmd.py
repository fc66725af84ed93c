"""``kimas relations NAME``: the optional pass that reads relations between the entities of a collection's
passages with the configured chat model (issue 25), and ``--show ENTITY`` to list what it found.

The entity index is built at index time without a model; relations need one that reads well (a 7B-class
model or a server: the small offline models write noise, bench/RESULTS.md). The pass is resumable: Ctrl+C
stops it after writing what was read, and the same command goes on where it stopped; after files change,
it reads only their new passages.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from app.paths import read_config, resolve_paths
from app.runtime import Runtime
from cli.terminal import say
from kimas_desktop.control import IndexControl
from kimas_desktop.errors import Cancelled, CollectionNotFoundError
from kimas_desktop.text.entities import entity_key


def add_parsers(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "relations",
        parents=[common],
        help="read relations between a collection's entities with the chat model (optional, resumable)",
    )
    p.add_argument("name")
    p.add_argument("--limit", type=int, default=None, help="read at most this many passages this time")
    p.add_argument("--show", metavar="ENTITY", help="list the relations found for ENTITY instead")
    p.set_defaults(run=run_relations)


def _progress(p: Any) -> None:
    say(
        f"read {p.done} of {p.total} passages ({p.failed} without a valid reply; {p.unread} unread before "
        f"this pass), {p.relations} relations, {p.chunks_per_s:.2f} passages/s",
        file=sys.stderr,
        flush=True,
    )


def run_relations(args: argparse.Namespace) -> int:
    paths = resolve_paths(args.data_dir, args.config)
    runtime = Runtime(paths, read_config(paths))
    control = IndexControl()
    try:
        if not runtime.store().has_collection(args.name):
            raise CollectionNotFoundError(f"there is no collection named '{args.name}'")
        if args.show:
            found = runtime.store().relations(args.name, entity_key(args.show))
            for r in found:
                say(f"{r.subject.name} | {r.predicate} | {r.object.name}")
            if not found:
                say(f"no relations of '{args.show}' yet (run: kimas relations {args.name})", file=sys.stderr)
            return 0
        done = runtime.relation_pass().run(args.name, _progress, control, limit=args.limit)
    except KeyboardInterrupt:
        control.cancel()
        say(f"kimas: stopped; run 'kimas relations {args.name}' again to go on.", file=sys.stderr)
        return 130
    except Cancelled:
        return 130
    finally:
        runtime.close()
    say(f"{done.done} passages read this time, {done.relations} relations found.")
    return 0
