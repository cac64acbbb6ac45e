"""Which service a base URL names, whatever its spelling: the one name its caches, claims,
pace and ledger (and so its spending cap) go by."""

from __future__ import annotations

import hashlib
import ipaddress
import posixpath
from urllib.parse import urlsplit

DEFAULT_PORTS = {"http": 80, "https": 443}
# Names of this machine's loopback interface: one service on one port, however it is named.
LOOPBACK = "localhost"


def canonical_base_url(base_url: str) -> str:
    """`base_url` as one text per service: scheme and host in lower case, the host in IDNA
    (ASCII), no trailing dot, the default port dropped, `localhost` and the loopback addresses
    as `localhost`, the path without dot segments or trailing slashes (`HTTP://LocalHost:80/.`
    is `http://localhost`). The address connected to stays the one given."""
    parts = urlsplit(base_url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").rstrip(".").lower()
    if host and not _is_address(host):
        host = host.encode("idna").decode("ascii")
    if host == LOOPBACK or _is_loopback(host):
        host = LOOPBACK
    elif ":" in host:  # an IPv6 address, written in its one short form
        host = f"[{ipaddress.ip_address(host).compressed}]"
    port = parts.port
    netloc = host if port is None or port == DEFAULT_PORTS.get(scheme) else f"{host}:{port}"
    path = posixpath.normpath(parts.path) if parts.path else ""
    return f"{scheme}://{netloc}{path.rstrip('/.')}"


def service_name(base_url: str) -> str:
    """The name of the service at `base_url` in file names, cache keys and Redis keys."""
    return _named(canonical_base_url(base_url))


def former_service_name(base_url: str) -> str:
    """The name earlier versions gave the service: after `base_url` exactly as typed (its
    trailing slashes dropped), so that each spelling had a ledger of its own."""
    return _named(base_url.strip().rstrip("/"))


def _named(url: str) -> str:
    return "svc-" + hashlib.sha256(url.encode()).hexdigest()[:10]


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _is_loopback(host: str) -> bool:
    return _is_address(host) and ipaddress.ip_address(host).is_loopback
