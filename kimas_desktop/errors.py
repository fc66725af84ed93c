"""The exception tree of KIMAs Desktop.

    KimasError                      root: everything we raise on purpose
    ├── ConfigError                 invalid config file or value (names the key)
    ├── ModelError                  a model could not be resolved, loaded or run
    │   ├── ModelUnavailableError   needs the network or a file that is not there
    │   └── ModelCrashedError       the model's worker process died (it restarts on the next call)
    ├── Cancelled                   the user stopped the work (a ``CancelToken`` was cancelled)
    ├── IndexingError               indexing or storage failed
    │   ├── EmbedderMismatchError   collection built with another embedding model (needs re-embedding)
    │   ├── CollectionBusyError     another writer holds the collection's writer lease
    │   └── IndexDamagedError       a collection's table is missing or unreadable (a sync rebuilds it)
    ├── CollectionNotFoundError     no collection of that name
    ├── OverLimitError              a request over one of the [limits] (names the setting)
    ├── StructuredOutputError       an LLM answer did not match its JSON schema
    └── SourceError                 an online source failed (unreachable, time limit, bad response)
        └── UnsafeAddressError      an address the source may not reach (private range, not http(s))

Product code raises these; only the edges (CLI, UI) turn them into sentences for people.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = [
    "Cancelled",
    "CollectionBusyError",
    "CollectionNotFoundError",
    "ConfigError",
    "EmbedderMismatchError",
    "IndexDamagedError",
    "IndexingError",
    "KimasError",
    "ModelCrashedError",
    "ModelError",
    "ModelUnavailableError",
    "OverLimitError",
    "SourceError",
    "StructuredOutputError",
    "UnsafeAddressError",
]


class KimasError(Exception):
    """Root of every error KIMAs Desktop raises on purpose. ``code`` and ``values``, when given: the
    sentence as a code the UI says in the user's language (issue 60; "" : the sentence as it is)."""

    def __init__(self, *args: object, code: str = "", values: Mapping[str, object] | None = None) -> None:
        super().__init__(*args)
        self.code = code
        self.values: Mapping[str, object] = values or {}


class ConfigError(KimasError):
    """The config file or a value in it is invalid."""


class ModelError(KimasError):
    """A model could not be resolved, loaded or run."""


class ModelUnavailableError(ModelError):
    """The model needs the network or a file that is not there."""


class ModelCrashedError(ModelError):
    """The model's worker process died (a native crash, an out-of-memory kill); the next call restarts it."""


class Cancelled(KimasError):
    """The work was stopped on purpose; not a failure to report."""


class IndexingError(KimasError):
    """Indexing or the collection store failed."""


class EmbedderMismatchError(IndexingError):
    """A collection was built with a different embedding model than the one configured."""


class CollectionBusyError(IndexingError):
    """Another process writes the collection (it holds the writer lease); the message names it."""


class IndexDamagedError(IndexingError):
    """A collection's chunks or manifest table is missing or cannot be read (deleted or damaged on disk).
    The next sync of the collection rebuilds it from its files; ``collection`` names it, ``what`` says
    what is wrong ("its chunks table is missing")."""

    def __init__(self, message: str, collection: str = "", what: str = "") -> None:
        super().__init__(message)
        self.collection = collection
        self.what = what

    def __reduce__(self) -> tuple[type[IndexDamagedError], tuple[str, str, str]]:
        return type(self), (str(self), self.collection, self.what)


class CollectionNotFoundError(KimasError):
    """No collection has that name."""


class OverLimitError(KimasError):
    """A request asks more than one of the ``[limits]`` allow (``kimas_desktop.limits``): ``setting`` names
    it (``question_chars``), ``size`` is the request's, ``limit`` the setting's value."""

    def __init__(self, message: str, setting: str = "", size: int = 0, limit: int = 0) -> None:
        super().__init__(
            message, code="over_limit", values={"setting": setting, "size": size, "limit": limit}
        )
        self.setting = setting
        self.size = size
        self.limit = limit

    def __reduce__(self) -> tuple[type[OverLimitError], tuple[str, str, int, int]]:
        return type(self), (str(self), self.setting, self.size, self.limit)


class StructuredOutputError(KimasError):
    """An LLM's structured answer did not parse or validate against its schema."""


class SourceError(KimasError):
    """An online knowledge source failed: unreachable, over its time limit, or an answer we cannot read."""


class UnsafeAddressError(SourceError):
    """An address a source may not reach: not http(s), or on a loopback, link-local or private range."""
