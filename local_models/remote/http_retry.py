"""One JSON POST to a model server, with timeouts and retries with backoff, failures as our errors.

Used by the remote embedder and reranker. Retried: a connection that cannot be opened or breaks, a
timeout, HTTP 429 and 5xx (a server starting up or overloaded). Not retried: other 4xx (the request is
wrong; repeating it cannot help). After the last attempt:

    ModelUnavailableError   the server cannot be reached (down, wrong URL)
    ModelError              it timed out, answered an error status, or sent something that is not JSON
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx

from kimas_desktop.errors import ModelError, ModelUnavailableError

__all__ = ["JsonClient"]

_RETRY_STATUS = {429, 500, 502, 503, 504}


class JsonClient:
    """``post(path, body)`` against ``base_url``; the client is built on first use (cheap constructor).

    ``what`` names the server in messages ("the embedding server"); ``setting`` names the config key of
    its URL so the message says what to fix. ``transport`` is the test seam; ``sleep`` is the backoff's.
    """

    def __init__(
        self,
        base_url: str,
        *,
        what: str,
        setting: str,
        api_key_env: str = "",
        timeout_s: float = 60.0,
        retries: int = 3,
        backoff_s: float = 0.5,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._base = base_url.rstrip("/")
        self._what = what
        self._setting = setting
        self._key_env = api_key_env
        self._timeout = timeout_s
        self._retries = retries
        self._backoff = backoff_s
        self._transport = transport
        self._sleep = sleep
        self._lock = threading.Lock()
        self._client: httpx.Client | None = None

    @property
    def base_url(self) -> str:
        if not self._base:
            raise ModelUnavailableError(
                f"{self._setting} is empty: set it to the URL of {self._what}, for example "
                "http://127.0.0.1:8080/v1."
            )
        return self._base

    def _http(self) -> httpx.Client:
        with self._lock:
            if self._client is None:
                headers = {}
                if self._key_env:
                    key = os.environ.get(self._key_env)
                    if not key:
                        raise ModelUnavailableError(
                            f"The environment variable {self._key_env} is not set: set it to the key of "
                            f"{self._what}, or clear the api_key_env setting."
                        )
                    headers["Authorization"] = f"Bearer {key}"
                timeout = httpx.Timeout(self._timeout, connect=min(self._timeout, 5.0))
                self._client = httpx.Client(timeout=timeout, headers=headers, transport=self._transport)
            return self._client

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    def post(self, path: str, body: dict[str, Any]) -> Any:
        """The decoded JSON reply of ``POST base_url + path``."""
        url = self.base_url + path
        client = self._http()
        failure: ModelError | None = None
        for attempt in range(self._retries + 1):
            if attempt:
                self._sleep(self._backoff * 2 ** (attempt - 1))
            try:
                response = client.post(url, json=body)
            except httpx.TransportError as err:
                unreachable = isinstance(err, httpx.ConnectError)
                kind = ModelUnavailableError if unreachable else ModelError
                failure = kind(
                    f"Cannot reach {self._what} at {self._base} ({type(err).__name__}: {err}): start it, "
                    f"or fix {self._setting}."
                    if unreachable
                    else f"{self._what.capitalize()} at {self._base} did not answer ({type(err).__name__}: "
                    f"{err}; timeout {self._timeout} s)."
                )
                continue
            if response.status_code in _RETRY_STATUS:
                failure = ModelError(self._status_message(response))
                continue
            if response.status_code >= 400:
                raise ModelError(self._status_message(response))
            try:
                return response.json()
            except ValueError as err:
                raise ModelError(f"{self._what.capitalize()} at {self._base} sent no JSON: {err}") from err
        assert failure is not None
        raise failure

    def _status_message(self, response: httpx.Response) -> str:
        text = response.text[:300]
        hint = " Check its API key (api_key_env)." if response.status_code in (401, 403) else ""
        return f"{self._what.capitalize()} at {self._base} answered HTTP {response.status_code}: {text}{hint}"
