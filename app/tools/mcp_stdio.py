"""``kimas mcp``'s transport: the MCP server (``mcp_server``) on this process's stdin and stdout.

One JSON-RPC message a line, as the SDK's stdio transport reads them, with two things it lacks:
- a line longer than ``MESSAGE_BYTES`` (the same bound as an HTTP request body to the API) is read to its
  end in pieces and dropped, never held whole, and answered with a JSON-RPC error naming the limit (a 20 MB
  question once took 126 s and 3.55 GB before it failed);
- a line that is no message gets its JSON-RPC error: ``-32700`` for a line that is not JSON (or over the
  limit), ``-32600`` for JSON that is not a message (the SDK only logs them: the client would wait for ever).
The SDK writes the replies (and points fd 1 at stderr meanwhile, so nothing else reaches stdout). Children
the app starts (the parsers' and the chat model's workers) get stdin pipes of their own, so fd 0 stays the
protocol's.
"""

from __future__ import annotations

import io
import logging
import sys
from collections.abc import AsyncIterator
from typing import Any, cast

import anyio
import mcp_types
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import ValidationError

from app.tools.knowledge import KnowledgeTools
from app.tools.mcp_server import build_server
from kimas_desktop.limits import MESSAGE_BYTES

__all__ = ["read_lines", "serve_stdio"]

log = logging.getLogger(__name__)

_PIECE = 65_536  # bytes read at a time


def serve_stdio(tools: KnowledgeTools, version: str = "", limit: int = MESSAGE_BYTES) -> None:
    """Serve MCP on this process's stdin and stdout until the client closes them; a line over ``limit``
    bytes is refused unread."""
    server = build_server(tools, version)
    log.info("kimas mcp: serving on stdio")
    wire = cast(io.BufferedIOBase, sys.stdin.buffer)  # a BufferedReader: read1 returns what has come
    anyio.run(_serve_stdio, server, wire, limit)


async def read_lines(wire: io.BufferedIOBase, limit: int) -> AsyncIterator[bytes | None]:
    """The lines of ``wire`` (without their newline; the last one also without), each ``None`` when it
    is longer than ``limit`` bytes: such a line is read on in pieces and dropped, so no more than
    ``limit`` bytes and one piece are ever held."""
    held: bytearray | None = bytearray()  # None: the line is over the limit
    while piece := await anyio.to_thread.run_sync(wire.read1, _PIECE, abandon_on_cancel=True):
        start = 0
        while (end := piece.find(b"\n", start)) >= 0:
            held = _grown(held, piece[start:end], limit)
            yield None if held is None else bytes(held)
            held, start = bytearray(), end + 1
        held = _grown(held, piece[start:], limit)
    if held is None or held:
        yield None if held is None else bytes(held)


def _grown(held: bytearray | None, part: bytes, limit: int) -> bytearray | None:
    if held is None or len(held) + len(part) > limit:
        return None
    held += part
    return held


async def _serve_stdio(server: MCPServer[Any], wire: io.BufferedIOBase, limit: int) -> None:
    """The SDK's lowlevel server on our reading of ``wire`` (``read_lines``) and the SDK's stdout."""
    lowlevel = server._lowlevel_server  # what the SDK's own run_stdio_async serves
    async with stdio_server(stdin=anyio.wrap_file(io.StringIO())) as (_, write):  # its stdin: no line
        send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)

        async def relay() -> None:
            async with send:
                async for line in read_lines(wire, limit):
                    message = _message(line, limit)
                    if isinstance(message, JSONRPCError):
                        await write.send(SessionMessage(message))
                    else:
                        await send.send(message)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(relay)
            await lowlevel.run(receive, write, lowlevel.create_initialization_options())


def _message(line: bytes | None, limit: int) -> SessionMessage | JSONRPCError:
    """The line's message, or the error to answer it with (its id is unknown: null)."""
    if line is None:
        said = f"Parse error: the line is over {limit:,} bytes, the limit of one message"
        return _error(PARSE_ERROR, said)
    try:
        text = line.decode("utf-8", "replace")  # as the SDK's transport reads it
        return SessionMessage(mcp_types.jsonrpc_message_adapter.validate_json(text, by_name=False))
    except ValidationError as err:
        if any(e["type"] == "json_invalid" for e in err.errors()):
            return _error(PARSE_ERROR, "Parse error: the line is not JSON")
        return _error(INVALID_REQUEST, "Invalid Request: the line is not a JSON-RPC message")


def _error(code: int, message: str) -> JSONRPCError:
    log.warning("mcp on stdio: %s", message)
    return JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(code=code, message=message))
