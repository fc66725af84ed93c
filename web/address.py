"""Which addresses a source may reach: http(s) only, and no loopback, link-local, private or reserved
address unless it is the origin (scheme, host and port) the user configured the source on: an internal
wiki's search API reaches its own service, never another port or scheme of the same machine.

The host name is resolved here and every address it resolves to is checked, so a public name that points
into the local network is refused too. An IPv6 address that carries an IPv4 one (IPv4-mapped or
-compatible, NAT64, 6to4, Teredo) is judged by the IPv4 address it carries. (A name that resolves
differently a moment later, DNS rebinding, is not caught: the connection resolves it again.)
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from kimas_desktop.errors import SourceError, UnsafeAddressError

__all__ = ["Origin", "check_url", "embedded_ipv4", "host_of", "origin_of"]

IP = ipaddress.IPv4Address | ipaddress.IPv6Address

NAT64 = ipaddress.ip_network(
    "64:ff9b::/96"
)  # RFC 6052's well-known prefix: the IPv4 address in its last 32 bits
LOCAL_NAT64 = ipaddress.ip_network("64:ff9b:1::/48")  # RFC 8215: an operator's own translator, never public
DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class Origin:
    """What a browser calls an origin: a token or a cookie for one is never sent to another."""

    scheme: str
    host: str
    port: int


def host_of(url: str) -> str:
    """The URL's host name, lower-cased, without brackets ('' when it has none or cannot be read)."""
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:  # "http://[::1/": an unclosed bracket
        return ""


def origin_of(url: str) -> Origin | None:
    """The URL's origin, the scheme's port filled in; None for an address that has none (or a bad port)."""
    try:
        parts = urlsplit(url)
        scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
        port = parts.port or DEFAULT_PORTS.get(scheme, 0)
    except ValueError:
        return None
    return Origin(scheme, host, port) if scheme and host and port else None


def embedded_ipv4(ip: IP) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries (mapped, compatible, NAT64, 6to4, Teredo's client), if any."""
    if isinstance(ip, ipaddress.IPv4Address):
        return None
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if ip in NAT64 or int(ip) >> 32 == 0:  # NAT64, and the deprecated IPv4-compatible ::a.b.c.d
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def is_public(ip: IP) -> bool:
    if isinstance(ip, ipaddress.IPv6Address) and ip in LOCAL_NAT64:
        return False
    inner = embedded_ipv4(ip)
    if inner is not None and not is_public(inner):
        return False
    return ip.is_global and not ip.is_multicast


def check_url(url: str, *, allowed: frozenset[Origin] = frozenset()) -> None:
    """Raise ``UnsafeAddressError`` unless ``url`` is http(s) and its host is public or its origin is
    one of ``allowed``."""
    try:
        scheme = urlsplit(url).scheme
    except ValueError:
        scheme = ""
    if scheme not in ("http", "https"):
        raise UnsafeAddressError(f"not an http(s) address: {url[:200]}")
    if not host_of(url):
        raise UnsafeAddressError(f"no host in {url[:200]}")
    origin = origin_of(url)
    if origin is None:
        raise UnsafeAddressError(f"bad port in {url[:200]}")
    if origin in allowed:
        return
    try:
        infos = socket.getaddrinfo(origin.host, origin.port, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError) as err:
        raise SourceError(
            f"cannot resolve {origin.host}: {err}", code="source_unresolved", values={"host": origin.host}
        ) from None
    for info in infos:
        ip = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if not is_public(ip):
            inner = embedded_ipv4(ip)
            address = f"{ip}, which carries {inner}" if inner is not None else str(ip)
            raise UnsafeAddressError(f"{origin.host} is on a private or local address ({address}); refused")
