"""``kimas token``: the bearer token of the OpenAI-compatible API (made on first use, kept with the config)."""

from __future__ import annotations

import argparse

from app.paths import resolve_paths
from app.tools.api_token import ApiToken
from cli.terminal import say


def add_parsers(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser("token", parents=[common], help="print the API's bearer token (made on first use)")
    p.add_argument("--renew", action="store_true", help="replace it: clients with the old token are refused")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    token = ApiToken(resolve_paths(args.data_dir, args.config).config_file)
    say(token.renew() if args.renew else token.read())
    return 0
