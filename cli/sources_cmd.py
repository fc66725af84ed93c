"""``kimas sources``: the online knowledge sources (web search, HTTP APIs) and trying one."""

from __future__ import annotations

import argparse
from typing import Any

from app.knowledge.online_sources import OnlineSourcesAdmin
from app.paths import read_config, resolve_paths
from app.runtime import Runtime
from app.settings.config_store import ConfigStore
from cli.render import dumps
from cli.terminal import say


def add_parsers(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "sources",
        parents=[common],
        help="list the online sources ([sources.NAME] in the config), or try one with a query",
    )
    p.add_argument("--json", action="store_true")
    actions = p.add_subparsers(dest="action")
    t = actions.add_parser(
        "try", parents=[common], help="ask a source once (enabled or not) and show what it finds"
    )
    t.add_argument("name")
    t.add_argument("query")
    t.add_argument("--json", action="store_true")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    paths = resolve_paths(args.data_dir, args.config)
    config = read_config(paths)
    runtime = Runtime(paths, config)
    admin = OnlineSourcesAdmin(ConfigStore(paths.config_file, config), runtime.online_source)
    if args.action == "try":
        docs = admin.try_query(args.query, name=args.name)
        if args.json:
            out: Any = [
                {"url": d.url, "title": d.title, "page_read": d.page_read, "date": d.date, "text": d.text}
                for d in docs
            ]
            say(dumps(out))
            return 0
        for i, d in enumerate(docs, 1):
            kind = "page" if d.page_read else "snippet"
            say(f"[{i}] {d.title or '(no title)'}\n    {d.url}\n    {kind}: {' '.join(d.text.split())[:200]}")
        if not docs:
            say("no results")
        return 0
    rows = admin.rows()
    if args.json:
        say(dumps([{"name": r.name, **r.spec.model_dump(), "address": r.address} for r in rows]))
        return 0
    for r in rows:
        state = f"on, asked {r.spec.use}" if r.spec.enabled else "off"
        say(f"{r.name}  ({r.spec.kind}, {state})  {r.address}")
    if not rows:
        say("no online sources (add one under [sources.NAME] in the config, or in the Knowledge tab)")
    return 0
