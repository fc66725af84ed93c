"""The OpenAI-compatible API: ``/v1/models``, ``/v1/chat/completions`` and ``/v1/embeddings``.

``build_api`` makes the ASGI app (routes behind ``RateLimit`` and ``BearerAuth``); ``ui.server.api_server``
serves it on its own port behind the UI's Host/Origin guard, size limit and security headers, and
``kimas serve`` starts it with the app. A chat completion is an answer of the app's own pipeline: the
``messages`` before the last are the conversation the context manager sees, the last is the question; see
``openai_wire`` for where the citations go. Each request is logged with its client.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable, Generator, Iterator
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

import anyio
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from app.tools.api_access import BearerAuth, RateLimit, client_of
from app.tools.api_models import ApiModels, UnknownModel
from app.tools.endpoints import MCP_PATH
from app.tools.openai_wire import (
    BadRequest,
    ChatRequest,
    EmbeddingRequest,
    Reply,
    chunk,
    completion,
    conversation,
    embeddings,
)
from kimas_desktop.control import CancelToken
from kimas_desktop.errors import KimasError, OverLimitError
from kimas_desktop.events import Event
from kimas_desktop.limits import check_embedding_inputs
from kimas_desktop.pipeline import AskOptions

if TYPE_CHECKING:
    from app.tools.mcp_http import McpHttp

__all__ = ["build_api"]

log = logging.getLogger(__name__)


def _error(
    status: int, message: str, kind: str, param: str | None = None, code: str | None = None
) -> JSONResponse:
    """OpenAI's error shape, whatever went wrong."""
    error = {"message": message, "type": kind, "param": param, "code": code or kind}
    return JSONResponse({"error": error}, status)


async def _refused(request: Request, err: Exception) -> Response:
    if isinstance(err, UnknownModel):
        return _error(404, str(err), "model_not_found", "model")
    if isinstance(err, OverLimitError):
        param = "input" if request.url.path.endswith("/embeddings") else "messages"
        return _error(400, str(err), "invalid_request_error", param, "over_limit")
    if isinstance(err, BadRequest | RequestValidationError):
        text = str(err) if isinstance(err, BadRequest) else _invalid(err)
        return _error(400, text, "invalid_request_error")
    if isinstance(err, HTTPException):  # the web framework's own: a body it could not parse, no such route
        kind = "invalid_request_error" if err.status_code < 500 else "server_error"
        response = _error(err.status_code, str(err.detail), kind)
        response.headers.update(err.headers or {})  # a 405's Allow
        return response
    log.warning("api: %s failed: %s", request.url.path, err)
    return _error(500, str(err), "kimas_error")


def _invalid(err: RequestValidationError) -> str:
    first = err.errors()[0] if err.errors() else {}
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
    return f"invalid request: {where or 'body'}: {first.get('msg', 'not understood')}"


def _guarded_app(token: Callable[[], str], per_minute: int, mcp: McpHttp | None) -> FastAPI:
    """The bare app: no API pages, the rate limit and the token before every route, every error in
    OpenAI's shape, and MCP at ``/mcp`` when given."""
    api = FastAPI(
        title="KIMAs Desktop",
        openapi_url=None,
        docs_url=None,
        redoc_url=None,
        middleware=[Middleware(RateLimit, per_minute=per_minute), Middleware(BearerAuth, token=token)],
        lifespan=(lambda _: mcp.running()) if mcp is not None else None,
    )
    if mcp is not None:
        api.router.routes.append(Route(MCP_PATH, mcp.endpoint, methods=["GET", "POST", "DELETE"]))
    api.add_exception_handler(KimasError, _refused)
    api.add_exception_handler(RequestValidationError, _refused)
    api.add_exception_handler(HTTPException, _refused)
    return api


def build_api(
    models: ApiModels, token: Callable[[], str], per_minute: int = 120, mcp: McpHttp | None = None
) -> FastAPI:
    """The API's ASGI app on ``models``; ``token()`` is the bearer token each request must carry. With
    ``mcp``, MCP over streamable HTTP is served at ``/mcp`` behind the same token and rate limit."""
    api = _guarded_app(token, per_minute, mcp)
    created = int(time.time())

    @api.get("/v1/models")
    def list_models() -> dict[str, Any]:
        data = [
            {"id": m, "object": "model", "created": created, "owned_by": "kimas"}
            for m in models.chat_models()
        ]
        return {"object": "list", "data": data}

    @api.post("/v1/chat/completions", response_model=None)
    def chat_completions(body: ChatRequest, request: Request) -> Response | dict[str, Any]:
        question, history = conversation(body.messages)
        pipeline = models.pipeline(body.model)
        pipeline.admit(question, history)  # before anything is done or kept
        log.info("api: chat completion (%s%s) from %s: %r", body.model, ", streamed" if body.stream else "",
                 _client(request), question[:200])  # fmt: skip
        options = AskOptions(temperature=body.temperature)
        token = CancelToken()
        asked = pipeline.ask(question, history, cancel=token, options=options)
        events = models.chats.follow(asked, question, "API")
        if body.stream:
            streamed = _stream(events, token, body.model, models.answering())
            return StreamingResponse(streamed, media_type="text/event-stream")
        reply = Reply()
        with models.answering():
            for event in events:
                reply.take(event)
        answer_id, content = f"chatcmpl-{uuid.uuid4().hex}", reply.content()  # numbers reply.sources
        return completion(answer_id, body.model, int(time.time()), content, reply.sources, reply.decision)

    @api.post("/v1/embeddings", response_model=None)
    def embed(body: EmbeddingRequest, request: Request) -> Response:
        texts = [body.input] if isinstance(body.input, str) else body.input
        if not texts or not all(t.strip() for t in texts):
            raise BadRequest("input must be a text or a list of texts, none of them empty")
        embedder = models.embedder(body.model)
        limits = models.limits()
        tokens = check_embedding_inputs(texts, limits, embedder.count_tokens)
        log.info("api: %d embedding(s), %d tokens, from %s", len(texts), tokens, _client(request))
        size = limits.embedding_batch
        batches = (embedder.embed_passages(texts[i : i + size]) for i in range(0, len(texts), size))
        body_json = embeddings(batches, embedder.model_id, body.encoding_format, tokens)
        return Response(body_json, media_type="application/json")

    return api


def _client(request: Request) -> str:
    agent = request.headers.get("user-agent", "")
    return client_of(request.scope) + (f" ({agent[:80]})" if agent else "")


def _sse(data: dict[str, Any] | str) -> bytes:
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    return f"data: {text}\n\n".encode()


async def _stream(
    events: Iterator[Event], token: CancelToken, model: str, answering: AbstractContextManager[None]
) -> AsyncIterator[bytes]:
    """The answer as server-sent ``chat.completion.chunk`` events, then ``[DONE]``. The pipeline runs on a
    worker thread, one event at a time, inside ``answering``; a client that goes away stops the answer (its
    ``CancelToken``)."""
    answer_id, created = f"chatcmpl-{uuid.uuid4().hex}", int(time.time())
    reply = Reply()
    with answering:
        try:
            yield _sse(chunk(answer_id, model, created, {"role": "assistant", "content": ""}))
            while (event := await anyio.to_thread.run_sync(next, events, None)) is not None:
                text = reply.take(event)
                if text:
                    yield _sse(chunk(answer_id, model, created, {"content": text}))
            rest = reply.tail()  # numbers reply.sources
            end = (reply.sources, reply.decision)
            yield _sse(chunk(answer_id, model, created, {"content": rest}, end))
            yield _sse("[DONE]")
        except KimasError as err:
            log.warning("api: streamed answer failed: %s", err)
            yield _sse({"error": {"message": str(err), "type": "kimas_error", "code": "kimas_error"}})
        finally:
            token.cancel()
            if isinstance(events, Generator):
                events.close()
