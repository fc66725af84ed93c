"""``kimas mcp``'s server: the knowledge tools (``KnowledgeTools``) published over MCP with the official SDK.

Each tool's input schema comes from its signature and its output schema from its result dataclass; the
descriptions are written for an assistant deciding which tool to call. Tool functions are plain (sync)
callables: the SDK runs them on worker threads, so a long answer does not stall the protocol. Each
collection's document cards are a resource, ``kimas://collections/{name}``. Served on stdio by
``mcp_stdio``, over HTTP by ``mcp_http``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from app.tools.api_access import client_of
from app.tools.knowledge import KnowledgeTools
from app.tools.results import AskResult, CollectionSummary, PassageLookup, SearchResult
from kimas_desktop.errors import KimasError

__all__ = ["build_server"]

log = logging.getLogger(__name__)

INSTRUCTIONS = (
    "KIMAs Desktop answers from the user's own indexed documents, privately, on this computer. "
    "Call list_collections to see what is indexed; search for the passages about a question; ask for a "
    "grounded answer with numbered citations (its decision says whether the documents answer at all); "
    "read_passage to read a passage by its id, or a document's summary by its file."
)

Question = Annotated[str, Field(description="the question, in the user's words")]
Collections = Annotated[
    list[str] | None,
    Field(description="search only these collections (names from list_collections); omit for all"),
]


@contextmanager
def _said() -> Iterator[None]:
    """A ``KimasError`` reaches the assistant as the tool's error, in its sentence (the SDK hides the text
    of any other exception, a crash, from the client and logs it)."""
    try:
        yield
    except KimasError as err:
        raise ToolError(str(err)) from err


def client(ctx: Context) -> str:
    """Who called: the HTTP client's address and program (MCP over HTTP), or ``stdio``."""
    request = ctx.request_context.request
    scope = getattr(request, "scope", None)
    if scope is None:
        return "stdio"
    agent = request.headers.get("user-agent", "")  # type: ignore[union-attr]
    return client_of(scope) + (f" ({agent[:80]})" if agent else "")


def build_server(tools: KnowledgeTools, version: str = "") -> MCPServer[Any]:
    """An ``MCPServer`` with the four tools and the collection cards (not started). Each tool call is
    logged with its client; an answer is asked as ``MCP`` (the app keeps it as a chat, with its trace)."""
    server = MCPServer("kimas", instructions=INSTRUCTIONS, version=version, log_level="WARNING")

    @server.tool(description="The passages of the user's documents that best match a question, best first: "
                 "text, file, page or lines, score, collection and the passage id.")  # fmt: skip
    def search(ctx: Context, question: Question, collections: Collections = None) -> SearchResult:
        log.info("mcp: search from %s: %r", client(ctx), question[:200])
        with _said():
            return tools.search(question, collections or ())

    @server.tool(description="Answer a question from the user's documents. Returns the decision (answered, "
                 "declined: the documents do not say; nothing found), the answer, the "
                 "verbatim quote and the cited passages. With quote_only, only the quote and whether it "
                 "answers (faster; write the answer yourself).")  # fmt: skip
    def ask(
        ctx: Context,
        question: Question,
        collections: Collections = None,
        quote_only: Annotated[bool, Field(description="return the verbatim quote without an answer")] = False,
    ) -> AskResult:
        log.info("mcp: ask%s from %s: %r", " (quote only)" if quote_only else "", client(ctx), question[:200])
        with _said():
            return tools.ask(question, collections or (), quote_only)

    @server.tool(description="The user's collections: name, number of files and passages, last update, "
                 "and whether indexing is under way (then answers come from what is indexed so far).")  # fmt: skip
    def list_collections() -> list[CollectionSummary]:
        with _said():
            return tools.list_collections()

    @server.tool(description="Read one passage by its id (from search or ask), or a document's summary "
                 "card by its file path or file name.")  # fmt: skip
    def read_passage(
        id: Annotated[str, Field(description="a passage id (collection/chunk id) or a file path or name")],
    ) -> PassageLookup:
        with _said():
            return tools.read_passage(id)

    @server.resource(
        "kimas://collections/{name}",
        description="A collection's documents: each one's title, summary and chapters.",
        mime_type="application/json",
    )
    def collection_card(name: str) -> str:
        with _said():
            return json.dumps([asdict(d) for d in tools.documents(name)], ensure_ascii=False)

    return server
