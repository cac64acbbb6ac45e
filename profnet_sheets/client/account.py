"""Which service a base URL names, whatever its spelling: the one name its caches, claims,
pace and ledger (and so its spending cap) go by."""

from __future__ import annotations

import contextlib
import hashlib
import ipaddress
import posixpath
import re
import socket
import string
from urllib.parse import urlsplit

DEFAULT_PORTS = {"http": 80, "https": 443}
# Names of this machine's loopback interface: one service on one port, however it is named.
LOOPBACK = "localhost"


def canonical_base_url(base_url: str) -> str:
    """`base_url` as one text per service: scheme and host in lower case, the host in IDNA
    (ASCII), no trailing dot, an IPv4 address in its dotted form (`127.1`, `::ffff:127.0.0.1`),
    the default port dropped, `localhost` and the loopback (and unspecified) addresses as
    `localhost`, the path's escapes of unreserved characters read (`%2e` is `.`) and without
    dot segments or trailing slashes (`HTTP://LocalHost:80/.` is `http://localhost`). The
    address connected to stays the one given."""
    parts = urlsplit(base_url.strip())
    scheme = parts.scheme.lower()
    host = _address_of(parts.hostname or "")
    if host and not _is_address(host):
        host = _ascii(host)
    if host == LOOPBACK or _is_loopback(host):
        host = LOOPBACK
    elif ":" in host:  # an IPv6 address, written in its one short form
        host = f"[{ipaddress.ip_address(host).compressed}]"
    port = parts.port
    netloc = host if port is None or port == DEFAULT_PORTS.get(scheme) else f"{host}:{port}"
    path = _UNRESERVED_ESCAPE.sub(_unescaped, parts.path)
    path = posixpath.normpath(path) if path else ""
    return f"{scheme}://{netloc}{path.rstrip('/.')}"


# An escape in a path: of a letter, a digit, `-._~` it is the character itself (`%2e` is `.`),
# of anything else the same escape in capitals (RFC 3986, 6.2.2).
_UNRESERVED_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED = frozenset(string.ascii_letters + string.digits + "-._~")


def _unescaped(escape: re.Match[str]) -> str:
    character = chr(int(escape[1], 16))
    return character if character in _UNRESERVED else escape[0].upper()


def _ascii(host: str) -> str:
    """`host` in ASCII as requests connects to it: IDNA 2008 with UTS #46 (`faß.de` is
    `xn--fa-hia.de`, not `fass.de`, which Python's own `idna` codec, IDNA 2003, makes it)."""
    import idna

    try:
        return idna.encode(host, uts46=True).decode("ascii")
    except idna.IDNAError:  # requests would refuse it: a name of its own
        return host


def _address_of(host: str) -> str:
    """`host` in lower case without its trailing dot, an IPv4 address in its dotted form
    however the system's resolver would read it (`127.1`, `2130706433`, `0x7f.1`: all
    127.0.0.1) and an IPv4 address mapped into IPv6 (`::ffff:127.0.0.1`) as that address."""
    host = host.rstrip(".").lower()
    if host and _IPV4_NUMBERS.fullmatch(host):
        with contextlib.suppress(OSError):
            return socket.inet_ntoa(socket.inet_aton(host))
    if ":" in host:
        with contextlib.suppress(ValueError):
            mapped = ipaddress.IPv6Address(host).ipv4_mapped
            if mapped is not None:
                return str(mapped)
    return host


_IPV4_NUMBERS = re.compile(r"[0-9a-fx.]+")  # what inet_aton may read as numbers


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
    """A loopback address, or the unspecified one (`0.0.0.0`, `::`), which connects to this
    machine too."""
    if not _is_address(host):
        return False
    address = ipaddress.ip_address(host)
    return address.is_loopback or address.is_unspecified
