"""``ApiToken``: the bearer token of the OpenAI-compatible API, made on first use and kept with the config.

The token lives in ``api_token`` beside ``config.toml`` (readable by the user alone where the system
allows it: on Windows the file keeps the folder's permissions). ``kimas token`` prints it; a client sends
it as ``Authorization: Bearer <token>``."""

from __future__ import annotations

import hmac
import os
import secrets
from pathlib import Path

__all__ = ["TOKEN_FILE", "ApiToken"]

TOKEN_FILE = "api_token"


class ApiToken:
    """The token file next to the config file ``config_file``."""

    def __init__(self, config_file: Path) -> None:
        self.path = config_file.parent / TOKEN_FILE

    def read(self) -> str:
        """The token, made and stored first if there is none yet (or the file holds none)."""
        try:
            token = self.path.read_text("utf-8").strip()
        except FileNotFoundError:
            token = ""
        return token or self.renew()

    def renew(self) -> str:
        """A new token in place of the old one (clients with the old one get 401 from now on)."""
        token = secrets.token_urlsafe(32)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fresh = self.path.with_name(f".{TOKEN_FILE}.{secrets.token_hex(4)}")
        fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(token + "\n")
        os.replace(fresh, self.path)
        return token


def token_matches(expected: str, header: str | None) -> bool:
    """Whether an ``Authorization`` header carries ``expected`` as its bearer token (in constant time)."""
    scheme, _, given = (header or "").partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(given.strip().encode(), expected.encode())
