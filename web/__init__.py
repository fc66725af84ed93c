"""Online knowledge sources (KIMAs §3.3.1): web search engines and HTTP search APIs.

    WebSource      the core's ``OnlineSource``: search, then read the result pages it needs
    SafeClient     every request a source makes: http(s) only, private addresses refused, redirects
                   checked the same way, size and time limits
    PageReader     a page's main text (trafilatura), cached for a while
    SearxngEngine, DdgsEngine, HttpApiEngine
                   the search engines behind a source

Nothing here runs unless the user enables a source; building a source opens no connection.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from web.client import SafeClient
    from web.engines import DdgsEngine, HttpApiEngine, SearxngEngine
    from web.pages import PageReader
    from web.source import WebSource, build_source

__all__ = [
    "DdgsEngine",
    "HttpApiEngine",
    "PageReader",
    "SafeClient",
    "SearxngEngine",
    "WebSource",
    "build_source",
]

_HOMES = {
    "SafeClient": "web.client",
    "DdgsEngine": "web.engines",
    "HttpApiEngine": "web.engines",
    "SearxngEngine": "web.engines",
    "PageReader": "web.pages",
    "WebSource": "web.source",
    "build_source": "web.source",
}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(name)
    import importlib

    return getattr(importlib.import_module(_HOMES[name]), name)
