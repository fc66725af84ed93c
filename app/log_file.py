"""``kimas.log``: the app's one log file, for details (tracebacks) the page does not show.

``open_log_file(path)`` sends every logger's records at INFO and above into ``path``, rotated at
``max_bytes`` (``kimas.log.1`` … ``kimas.log.<backups>`` keep the older lines; the oldest is dropped), so
the file never grows without limit. Third-party loggers reach it through the root logger; libraries that log
through ``loguru`` instead of ``logging`` (fastembed) are routed into ``logging`` too. Each line's message
has its control characters escaped (a file name holding ESC or NUL cannot forge a line or drive a terminal
that shows the log); a traceback keeps its line breaks. The terminal keeps warnings and errors only.
"""

from __future__ import annotations

import logging
import re
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import Any

__all__ = ["LogFile", "escape_controls", "open_log_file"]

MAX_BYTES = 5 * 1024 * 1024
BACKUPS = 3
_NOISY = ("httpx", "httpcore", "uvicorn.access", "watchdog", "urllib3", "filelock")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CONTROLS_AND_NEWLINES = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(char, f"\\x{ord(char):02x}")


def escape_controls(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` with control characters written as escapes (``\\x1b``, ``\\n``)."""
    return (_CONTROLS if keep_newlines else _CONTROLS_AND_NEWLINES).sub(_escape, text)


class _EscapingFormatter(logging.Formatter):
    """One record, one line: the message's control characters (newlines too) are escaped; a traceback's
    line breaks stay, its other control characters are escaped."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        record.message = escape_controls(record.message)
        return super().formatMessage(record)

    def format(self, record: logging.LogRecord) -> str:
        return escape_controls(super().format(record), keep_newlines=True)  # the traceback's part


class LogFile:
    """The handlers ``open_log_file`` installed; ``close()`` takes them out again."""

    def __init__(self, handler: RotatingFileHandler, loguru_sink: int | None) -> None:
        self.handler = handler
        self._loguru_sink = loguru_sink

    def close(self) -> None:
        logging.getLogger().removeHandler(self.handler)
        self.handler.close()
        if self._loguru_sink is not None:
            from loguru import logger

            logger.remove(self._loguru_sink)


def _route_loguru() -> int | None:
    """Forward loguru's records (fastembed's) to ``logging`` under the emitting module's name, in place of
    loguru's own stderr output. None when loguru is not installed."""
    try:
        from loguru import logger
    except ImportError:
        return None

    def forward(message: Any) -> None:
        record = message.record
        level = logging.getLevelName(record["level"].name)
        logging.getLogger(record["name"] or "loguru").log(
            level if isinstance(level, int) else logging.INFO, "%s", record["message"]
        )

    logger.remove()  # loguru's default sink writes everything to stderr
    return int(logger.add(forward, level="INFO", format="{message}"))


def open_log_file(path: Path, *, max_bytes: int = MAX_BYTES, backups: int = BACKUPS) -> LogFile:
    """Log INFO and above from every library into ``path`` (rotated; see the module docstring)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = RotatingFileHandler(path, maxBytes=max_bytes, backupCount=backups, encoding="utf-8")
    handler.setFormatter(_EscapingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.setLevel(logging.INFO)
    root = logging.getLogger()
    for console in root.handlers:  # the terminal keeps showing warnings and errors only
        if console.level == logging.NOTSET:
            console.setLevel(logging.WARNING)
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    for noisy in _NOISY:
        logging.getLogger(noisy).setLevel(logging.WARNING)
    return LogFile(handler, _route_loguru())
