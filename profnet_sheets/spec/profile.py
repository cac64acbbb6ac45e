"""A service profile: what a service may name or price otherwise than the spec, and its checks.

The spec writes the key header with the word SERVICE in place of the real name, never names the
network's host (`profnet.com` is the sandbox's), and fixes prices vendors change. A profile holds
what the service being called really uses: the key header's name, extra headers (a marketplace
gateway's own), the network's hosts, and prices over the spec's. The client is configured with
one (`Settings.profile`), the sandbox plays one; both check its parts with the functions here.
`PriceTable` is the one place prices are read.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from profnet_sheets.spec.endpoints import ENDPOINTS, NETWORK_HOST, Endpoint, Price

API_KEY_HEADER = "X-SERVICE-API-KEY"  # section 5, as the spec writes it
DEFAULT_NETWORK_HOSTS: tuple[str, ...] = (NETWORK_HOST,)
# The web origin of the xlwings Lite add-in (lite.xlwings.org, "Web API Requests"): a service
# must allow it (CORS) for the formulas to call it from Excel on the Mac and the web.
LITE_ORIGIN = "https://addin.xlwings.org"
MAX_PRICE = 1_000_000  # credits a call may be priced at, at most

# Headers the HTTP layer sets itself: neither the key nor an extra header may take their name.
RESERVED_HEADERS = frozenset(
    {
        "accept",
        "accept-encoding",
        "connection",
        "content-length",
        "content-type",
        "cookie",
        "host",
        "transfer-encoding",
        "user-agent",
    }
)
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # RFC 9110 field names
_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_HOSTNAME = re.compile(rf"(?:{_LABEL}\.)+(?:[a-z]{{2,63}}|xn--[a-z0-9-]{{1,59}})")
_SEPARATORS = re.compile(r"[,;\s]+")


def _table(value: object, wanted: str) -> Mapping[Any, Any]:
    """A mapping as given, or read from JSON text; empty for nothing; ValueError(`wanted`)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return {}
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise ValueError(f"{wanted} (JSON)") from None
    if not isinstance(value, Mapping):
        raise ValueError(wanted)
    return value


def header_name(value: object) -> str:
    """A request header's name, its case kept (the cache redacts it by the exact name); a
    ValueError that says why it cannot be one."""
    name = value.strip() if isinstance(value, str) else value
    if not isinstance(name, str) or not _TOKEN.fullmatch(name):
        raise ValueError(
            f"{value!r} is not a header name: give letters, digits and dashes, such as X-API-Key"
        )
    if name.lower() in RESERVED_HEADERS:
        raise ValueError(f"{name} is a header profnet-sheets sets itself: name another one")
    return name


def header_table(value: object) -> dict[str, str]:
    """Extra headers sent with every request (a gateway's own): a mapping, or JSON text of
    one (`{"X-Gateway-Host": "data.example.com"}`). Values are never quoted in errors: a
    gateway's header may hold a secret."""
    table = _table(value, 'give the headers as a table of names and values: {"X-Name": "value"}')
    found: dict[str, str] = {}
    for raw_name, raw_value in table.items():
        name = header_name(raw_name)
        if name.lower() in (known.lower() for known in found):
            raise ValueError(f"the header {name} is named twice")
        text = raw_value if isinstance(raw_value, str) else None
        if text is None or not text.strip() or not (text.isascii() and text.isprintable()):
            raise ValueError(
                f"the value of the header {name} must be text of printable ASCII on one line"
            )
        found[name] = text.strip()
    return found


def network_host(value: object) -> str:
    """A host of the network's pages (`linkedin.com`): lowercase, in punycode, without a
    scheme, `www.`, port or path (`https://www.Linkedin.com/` gives `linkedin.com`); its
    subdomains (`www.`, a country's) count as it. A ValueError that says why not."""
    text = value.strip().lower() if isinstance(value, str) else ""
    host = re.sub(r"^[a-z][a-z0-9+.-]*://", "", text).split("/", 1)[0].split(":", 1)[0]
    host = host.removeprefix("www.").rstrip(".")
    try:
        host = host.encode("idna").decode("ascii")
    except UnicodeError:
        host = ""
    with contextlib.suppress(ValueError):
        ipaddress.ip_address(host)
        host = ""  # an address, not a name
    if len(host) > 253 or not _HOSTNAME.fullmatch(host):
        raise ValueError(f"{value!r} is not a host name such as linkedin.com")
    return host


def network_hosts(value: object) -> tuple[str, ...]:
    """The network's hosts, the first one first (bare profile names are made into its URLs):
    a list, or text separated by commas or spaces. At least one."""
    items: Iterable[object]
    if isinstance(value, str):
        items = [item for item in _SEPARATORS.split(value) if item]
    elif isinstance(value, list | tuple):
        items = value
    else:
        raise ValueError("give host names such as linkedin.com, separated by commas")
    hosts = tuple(dict.fromkeys(network_host(item) for item in items))
    if not hosts:
        raise ValueError("give at least one host name, such as linkedin.com")
    return hosts


_BY_NAME = {endpoint.name: endpoint for endpoint in ENDPOINTS}
_PAID = tuple(endpoint.name for endpoint in ENDPOINTS if endpoint.price.kind != "free")


def free_on_plan(value: object) -> tuple[str, ...]:
    """Endpoints the account's plan includes at no charge (their price is then 0, said so):
    a list of endpoint names, or text separated by commas or spaces; none by default."""
    if value is None:
        return ()
    if isinstance(value, str):
        items: Iterable[object] = [item for item in _SEPARATORS.split(value) if item]
    elif isinstance(value, list | tuple):
        items = value
    else:
        raise ValueError("give endpoint names separated by commas: get-profile-details")
    names = []
    for item in items:
        name = str(item).strip().lstrip("/")
        if name not in _PAID:
            raise ValueError(f"{item!r} is no endpoint with a price (those: {', '.join(_PAID)})")
        names.append(name)
    return tuple(sorted(set(names)))


@dataclass(frozen=True)
class PriceTable:
    """What each call costs: the spec's prices (section 4.0), a service's own over them.

    The one place prices are read: the client's reservations and its ledger, the price
    ceilings, cost previews of batches, searches and forms, and the sandbox's charges all ask
    `price`. An override changes the credits, never the kind: a per-item price stays per item,
    and a free endpoint (a search's status) stays free.
    """

    overrides: tuple[tuple[str, int], ...] = ()
    _prices: dict[str, Price] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        changed = dict(self.overrides)
        prices = {
            name: Price(ep.price.kind, changed.get(name, ep.price.credits), ep.price.items_at)
            for name, ep in _BY_NAME.items()
        }
        object.__setattr__(self, "_prices", prices)

    @classmethod
    def parse(cls, value: object) -> PriceTable:
        """Overrides from a mapping of endpoint names to whole numbers of credits (or its JSON
        text); a ValueError naming what is wrong."""
        if isinstance(value, PriceTable):
            return value
        wanted = 'give prices as a table of endpoints and credits: {"get-profile-details": 2}'
        table = _table(value, wanted)
        overrides: dict[str, int] = {}
        for name, credits in table.items():
            ep = _BY_NAME.get(str(name).strip().lstrip("/"))
            if ep is None:
                raise ValueError(
                    f"{name!r} is no endpoint of the service (those with a price: "
                    f"{', '.join(_PAID)})"
                )
            if ep.price.kind == "free":
                raise ValueError(f"{ep.name} is free (a search's status): it has no price to set")
            overrides[ep.name] = _credits(ep.name, credits)
        return cls(tuple(sorted(overrides.items())))

    def price(self, endpoint: Endpoint) -> Price:
        """What a call of `endpoint` costs with this table."""
        return self._prices[endpoint.name]

    def changed(self) -> dict[str, int]:
        """The prices that differ from the spec's, by endpoint."""
        return {
            name: credits
            for name, credits in self.overrides
            if credits != _BY_NAME[name].price.credits
        }

    def describe(self, endpoint: Endpoint) -> str:
        """`1 credit`, `2 credits per result`, `free`; `(the spec: 1)` when overridden."""
        price = self.price(endpoint)
        if price.kind == "free":
            return "free"
        text = f"{price.credits} credit{'' if price.credits == 1 else 's'}"
        text += " per item" if price.kind == "per_item" else ""
        spec = endpoint.price.credits
        return text + (f" (the spec: {spec})" if price.credits != spec else "")

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={credits}" for name, credits in self.changed().items())
        return f"PriceTable({shown or 'the spec'})"


def _credits(name: str, value: Any) -> int:
    """A whole number of credits from 0 to MAX_PRICE (Excel's 2.0 included)."""
    number = math.nan
    if not isinstance(value, bool):
        with contextlib.suppress(TypeError, ValueError):
            number = float(value)
    if not (number.is_integer() and 0 <= number <= MAX_PRICE):
        raise ValueError(
            f"the price of {name} must be a whole number of credits from 0 to {MAX_PRICE}; "
            f"got {value!r}"
        )
    return int(number)


@dataclass(frozen=True)
class ServiceProfile:
    """What the service being called names or prices otherwise than the spec: the header that
    carries the key, extra headers sent with every request, the network's hosts (the first
    one makes the URLs of bare names), and the price table."""

    key_header: str = API_KEY_HEADER
    headers: tuple[tuple[str, str], ...] = ()
    network_hosts: tuple[str, ...] = DEFAULT_NETWORK_HOSTS
    prices: PriceTable = PriceTable()
    # Endpoints the plan includes at no charge: a price of 0 for them is meant, not a slip.
    free_on_plan: tuple[str, ...] = field(default=(), repr=False)

    def __post_init__(self) -> None:
        if any(name.lower() == self.key_header.lower() for name, _ in self.headers):
            raise ValueError(
                f"the key header {self.key_header} is among the extra headers too: the key "
                "goes in it, so leave it out of the headers"
            )
        if not self.network_hosts:
            raise ValueError("the network needs at least one host, such as linkedin.com")

    def check_free_prices(self) -> None:
        """Raise ValueError for a price of 0 the spec does not give and the plan does not
        make free: it would turn the budget and the spending cap off for that endpoint, and
        show paid calls as costing nothing. A plan's free endpoint must be priced 0."""
        for name, credits in self.prices.overrides:
            spec = _BY_NAME[name].price.credits
            if credits == 0 and spec > 0 and name not in self.free_on_plan:
                raise ValueError(
                    f"the price of {name} is set to 0, but the spec charges {spec}: a price of 0 "
                    "would turn the budget and the spending cap off for it. Give its real price "
                    "in PROFNET_PRICES, or, if your plan includes it at no charge, name it in "
                    "PROFNET_FREE_ON_PLAN too"
                )
        for name in self.free_on_plan:
            credits = self.prices.price(_BY_NAME[name]).credits
            if credits:
                raise ValueError(
                    f"{name} is named free on your plan (PROFNET_FREE_ON_PLAN), but its price is "
                    f"{credits}: set its price to 0 in PROFNET_PRICES too, or leave it out"
                )

    def describe(self, endpoint: Endpoint) -> str:
        """The price table's description of `endpoint`'s price, `free on your plan` when the
        plan makes it free."""
        if endpoint.name in self.free_on_plan:
            return f"free on your plan (the spec: {endpoint.price.credits})"
        return self.prices.describe(endpoint)

    @property
    def is_default(self) -> bool:
        """Everything as the spec (and the sandbox) names it."""
        return self == DEFAULT_PROFILE

    @property
    def redacted_headers(self) -> tuple[str, ...]:
        """The names of every header that may carry a secret: the key's, and the extra ones."""
        return (self.key_header, *(name for name, _ in self.headers))


DEFAULT_PROFILE = ServiceProfile()
