"""``OpenAIChatModel``: a chat model behind an OpenAI-compatible HTTP server (``/chat/completions``).

Works with llama.cpp's ``llama-server``, ``python -m llama_cpp.server``, Ollama, vLLM and OpenAI itself.
``chat.base_url`` includes the API prefix (``http://127.0.0.1:8080/v1``); the key, if any, is read from
the environment variable named by ``chat.api_key_env`` when the first request is made.

Structured output first asks for OpenAI's ``{"type": "json_schema", ...}``; a server that rejects it
(llama-cpp-python's server accepts only ``json_object``) is asked again with
``{"type": "json_object", "schema": ...}``, and the working form is remembered.

``count_tokens`` asks the server when it offers a tokenizer endpoint (llama-cpp-python's
``/extras/tokenize/count``, llama.cpp's ``/tokenize``); otherwise it approximates one token per
3 characters, which over-counts English (about 4 characters a token) so budgets err on the safe side.
"""

from __future__ import annotations

import json
import math
import os
import threading
from collections.abc import Callable, Generator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import httpx

from kimas_desktop.config import ChatModelConfig
from kimas_desktop.errors import Cancelled, ModelError, ModelUnavailableError
from kimas_desktop.types import ChatModelDescription, Message

if TYPE_CHECKING:
    from kimas_desktop.control import CancelToken
from local_models.llama.chat import chat_messages

__all__ = ["CHARS_PER_TOKEN", "OpenAIChatModel"]

CHARS_PER_TOKEN = 3.0
_APPROXIMATE = "approximate"
_TOKEN_ROUTES = ("/extras/tokenize/count", "/tokenize")


class _StatusError(ModelError):
    def __init__(self, message: str, status: int, body: str) -> None:
        super().__init__(message)
        self.status = status
        self.body = body


class OpenAIChatModel:
    """A ``ChatModel`` that talks HTTP. ``transport`` is the test seam (e.g. ``httpx.MockTransport``)."""

    def __init__(self, cfg: ChatModelConfig, *, transport: httpx.BaseTransport | None = None) -> None:
        self._cfg = cfg
        self._transport = transport
        self._lock = threading.Lock()
        self._client: httpx.Client | None = None
        self._schema_format = "json_schema"
        self._token_route: str | None = None

    @property
    def model_id(self) -> str:
        return f"openai/{self._cfg.model or 'default'}"

    @property
    def context_size(self) -> int:
        return self._cfg.n_ctx

    @property
    def _base(self) -> str:
        if not self._cfg.base_url:
            raise ModelUnavailableError(
                "chat.kind is 'openai' but chat.base_url is empty: set it to the server's "
                "OpenAI-compatible URL, for example http://127.0.0.1:8080/v1."
            )
        return self._cfg.base_url.rstrip("/")

    @property
    def _root(self) -> str:
        base = self._base
        return base[: -len("/v1")] if base.endswith("/v1") else base

    def _http(self) -> httpx.Client:
        with self._lock:
            if self._client is None:
                headers = {}
                if self._cfg.api_key_env:
                    key = os.environ.get(self._cfg.api_key_env)
                    if not key:
                        raise ModelUnavailableError(
                            f"The environment variable {self._cfg.api_key_env} (named by chat.api_key_env) "
                            "is not set: set it to the chat server's API key, or clear chat.api_key_env."
                        )
                    headers["Authorization"] = f"Bearer {key}"
                self._client = httpx.Client(
                    timeout=self._cfg.timeout_s, headers=headers, transport=self._transport
                )
            return self._client

    def close(self) -> None:
        """Close the connections to the server; a later call opens new ones."""
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()

    def _request(self, send: Callable[[httpx.Client], httpx.Response]) -> httpx.Response:
        """One HTTP exchange, its failures turned into our errors."""
        try:
            response = send(self._http())
        except httpx.ConnectError as err:
            raise ModelUnavailableError(
                f"Cannot connect to the chat server at {self._base} ({err}): start it, or fix chat.base_url."
            ) from err
        except httpx.TimeoutException as err:
            raise ModelError(
                f"The chat server at {self._base} did not answer within {self._cfg.timeout_s} s "
                "(chat.timeout_s)."
            ) from err
        except httpx.HTTPError as err:
            raise ModelError(f"The chat server at {self._base} failed: {err}") from err
        if response.status_code >= 400:
            body = response.read().decode("utf-8", "replace")[:500]
            hint = ""
            if response.status_code in (401, 403):
                hint = f" Check the key in {self._cfg.api_key_env or 'chat.api_key_env'}."
            raise _StatusError(
                f"The chat server at {self._base} answered HTTP {response.status_code}: {body}{hint}",
                response.status_code,
                body,
            )
        return response

    def describe(self) -> ChatModelDescription:
        """A model behind an OpenAI-compatible server is one the user chose to run: trusted to judge
        (``grounding.llm_check = "off"`` says otherwise). The server does not say its size or speed."""
        return ChatModelDescription(self.model_id, self.context_size, judges=True, chat_template="server")

    def warm_up(self) -> None:
        self._request(lambda c: c.get(f"{self._base}/models"))

    def _payload(self, messages: Sequence[Message], max_tokens: int, temperature: float) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "messages": chat_messages(messages),
            "max_tokens": max_tokens,
            "temperature": temperature,
            "seed": self._cfg.seed,
        }
        if self._cfg.model:
            payload["model"] = self._cfg.model
        return payload

    def _response_format(self, schema: Mapping[str, Any]) -> dict[str, Any]:
        if self._schema_format == "json_schema":
            return {"type": "json_schema", "json_schema": {"name": "answer", "schema": dict(schema)}}
        return {"type": "json_object", "schema": dict(schema)}

    def _post_chat(self, payload: dict[str, Any]) -> str:
        url = f"{self._base}/chat/completions"
        data = self._request(lambda c: c.post(url, json=payload)).json()
        try:
            return str(data["choices"][0]["message"].get("content") or "")
        except (KeyError, IndexError, TypeError) as err:
            raise ModelError(
                f"The chat server at {self._base} sent an unexpected reply: {data!r:.300}"
            ) from err

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        json_schema: Mapping[str, Any] | None = None,
        cancel: CancelToken | None = None,
    ) -> str:
        if cancel is not None:  # a request in flight runs to its end; its reply is small
            cancel.raise_if_cancelled()
        payload = self._payload(messages, max_tokens, temperature)
        if json_schema is None:
            return self._post_chat(payload)
        try:
            return self._post_chat({**payload, "response_format": self._response_format(json_schema)})
        except _StatusError as err:
            rejected = "json_schema" in err.body or "response_format" in err.body
            if self._schema_format != "json_schema" or err.status not in (400, 422, 500) or not rejected:
                raise
        self._schema_format = "json_object"
        return self._post_chat({**payload, "response_format": self._response_format(json_schema)})

    def stream(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        cancel: CancelToken | None = None,
    ) -> Generator[str, None, None]:
        """Text deltas from the server's server-sent events; closing the iterator, or cancelling, closes
        the response (the server then stops generating)."""
        if cancel is not None:
            cancel.raise_if_cancelled()
        payload = {**self._payload(messages, max_tokens, temperature), "stream": True}
        url = f"{self._base}/chat/completions"
        request = self._http().build_request("POST", url, json=payload)
        response = self._request(lambda c: c.send(request, stream=True))
        forget = cancel.on_cancel(response.close) if cancel is not None else (lambda: None)
        try:
            for line in response.iter_lines():
                if not line.startswith("data:"):
                    continue
                data = line[len("data:") :].strip()
                if data == "[DONE]":
                    break
                event = json.loads(data)
                if "error" in event:
                    raise ModelError(f"The chat server at {self._base} failed: {event['error']}")
                choices = event.get("choices") or [{}]
                delta = (choices[0].get("delta") or {}).get("content")
                if delta:
                    yield str(delta)
        except (httpx.HTTPError, httpx.StreamError) as err:
            if cancel is not None and cancel.cancelled:
                raise Cancelled("stopped") from err
            raise ModelError(f"The chat server at {self._base} broke off the answer: {err}") from err
        finally:
            forget()
            response.close()
        if cancel is not None:
            cancel.raise_if_cancelled()

    def count_tokens(self, text: str) -> int:
        if self._token_route != _APPROXIMATE:
            routes = [self._token_route] if self._token_route else list(_TOKEN_ROUTES)
            try:
                for route in routes:
                    count = self._server_count(route, text)
                    if count is not None:
                        self._token_route = route
                        return count
                self._token_route = _APPROXIMATE
            except ModelError:
                pass  # server down or slow: approximate this time, ask again next time
        return math.ceil(len(text) / CHARS_PER_TOKEN)

    def _server_count(self, route: str, text: str) -> int | None:
        """The server's count, or None when it has no such endpoint."""
        body = {"input": text} if route == "/extras/tokenize/count" else {"content": text}
        try:
            data = self._request(lambda c: c.post(f"{self._root}{route}", json=body)).json()
        except (_StatusError, ValueError):
            return None
        if isinstance(data, dict) and isinstance(data.get("count"), int):
            return int(data["count"])
        if isinstance(data, dict) and isinstance(data.get("tokens"), list):
            return len(data["tokens"])
        return None
