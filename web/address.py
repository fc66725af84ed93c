"""Which addresses a source may reach: http(s) only, and no loopback, link-local, private or reserved
address unless it is the host the user configured the source on (an internal wiki's search API).

The host name is resolved here and every address it resolves to is checked, so a public name that points
into the local network is refused too. (A name that resolves differently a moment later, DNS rebinding,
is not caught: the connection resolves it again.)
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from kimas_desktop.errors import SourceError, UnsafeAddressError

__all__ = ["check_url", "host_of"]


def host_of(url: str) -> str:
    """The URL's host name, lower-cased, without brackets ('' when it has none)."""
    return (urlsplit(url).hostname or "").lower()


def _is_public(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def check_url(url: str, *, allowed_hosts: frozenset[str] = frozenset()) -> None:
    """Raise ``UnsafeAddressError`` unless ``url`` is http(s) and its host is public or allowed."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise UnsafeAddressError(f"not an http(s) address: {url[:200]}")
    host = host_of(url)
    if not host:
        raise UnsafeAddressError(f"no host in {url[:200]}")
    if host in allowed_hosts:
        return
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise UnsafeAddressError(f"bad port in {url[:200]}") from None
    try:
        infos = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError) as err:
        raise SourceError(f"cannot resolve {host}: {err}") from None
    for info in infos:
        address = str(info[4][0]).split("%")[0]
        if not _is_public(ipaddress.ip_address(address)):
            raise UnsafeAddressError(f"{host} is on a private or local address ({address}); refused")
