"""``kimas mcp``: serve the knowledge tools over MCP on stdio, for an assistant or editor to start.

Only the protocol reaches stdout; warnings go to stderr. The tools themselves are ``app.tools``. Each answer
is kept as a chat of the data dir (``MCP · …``), so the app's Chat tab shows it with its trace."""

from __future__ import annotations

import argparse

from app.paths import read_config, resolve_paths
from app.runtime import Runtime
from kimas_desktop import __version__
from kimas_desktop.config import PRESETS


def add_parsers(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "mcp", parents=[common], help="serve search and answers over MCP on stdio (Claude Desktop, VS Code)"
    )
    p.add_argument("--preset", choices=PRESETS, help="override the config's preset")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from app.chat.history import ChatHistory
    from app.tools.client_chats import ClientChats
    from app.tools.knowledge import KnowledgeTools
    from app.tools.mcp_stdio import serve_stdio

    paths = resolve_paths(args.data_dir, args.config)
    runtime = Runtime(paths, read_config(paths, preset=args.preset))
    kept = ChatHistory(paths.data_dir).save if paths.data_dir.is_dir() else None  # nothing to show yet
    tools = KnowledgeTools(runtime, chats=ClientChats(kept))
    try:
        serve_stdio(tools, __version__)
    finally:
        tools.close()
        runtime.close()
    return 0
