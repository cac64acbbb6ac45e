"""What the sandbox's settings accept (control endpoints, start options): one table, one check.

Every field of every control endpoint (`/_sandbox/keys`, `faults`, `clock`, `hostile`) and every
start option of the same name is checked here, so that no value that cannot be meant (NaN, an
infinite latency, a negative balance, a boolean for a number) gets in: refused with the field's
name and the range it takes (docs/sandbox.md). So are the options that make it play another
service (its network's host, key header, required headers, prices), with the checks of a
service profile (spec.profile).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from profnet_sheets.sandbox.cors import allowed_origins
from profnet_sheets.sandbox.params import finite_number, shown
from profnet_sheets.spec.profile import (
    LITE_ORIGIN,
    MAX_PRICE,
    PriceTable,
    header_name,
    header_table,
    network_host,
)


class SettingError(ValueError):
    """A setting refused: `name` is the field, the message says what it takes."""

    def __init__(self, name: str, details: str) -> None:
        super().__init__(details)
        self.name = name


class Setting(Protocol):
    def describe(self) -> str: ...

    def accepts(self, value: object) -> bool: ...

    def convert(self, value: Any) -> Any: ...


def _plain(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else str(number)


@dataclass(frozen=True)
class Number:
    """A finite JSON number from `low` to `high` (a boolean is no number); a whole one if
    `integer`; or null where `nullable` (null meaning "none")."""

    low: float
    high: float
    unit: str = ""
    integer: bool = False
    nullable: bool = False

    def describe(self) -> str:
        kind = "an integer" if self.integer else "a number"
        text = f"{kind} from {_plain(self.low)} to {_plain(self.high)}"
        text += f" ({self.unit})" if self.unit else ""
        return f"null (none) or {text}" if self.nullable else text

    def accepts(self, value: object) -> bool:
        if value is None:
            return self.nullable
        if not finite_number(value):
            return False
        whole = isinstance(value, int) or value.is_integer()
        return self.low <= value <= self.high and (whole or not self.integer)

    def convert(self, value: Any) -> Any:
        if value is None:
            return None
        return int(value) if self.integer else float(value)


@dataclass(frozen=True)
class Key:
    """An API key: printable ASCII (what a header carries as sent), no blanks at either end."""

    longest: int = 256

    def describe(self) -> str:
        return f"a string of 1 to {self.longest} printable ASCII characters, not blank at its ends"

    def accepts(self, value: object) -> bool:
        return (
            isinstance(value, str)
            and 0 < len(value) <= self.longest
            and value.isascii()
            and value.isprintable()
            and value == value.strip()
        )

    def convert(self, value: Any) -> Any:
        return value


@dataclass(frozen=True)
class Profiled:
    """A part of the service the sandbox plays, as a service profile's check takes it
    (`convert` raises ValueError for what it refuses)."""

    description: str
    convert: Callable[[Any], Any]

    def describe(self) -> str:
        return self.description

    def accepts(self, value: object) -> bool:
        try:
            self.convert(value)
        except ValueError:
            return False
        return True


class Flag:
    """A JSON boolean (true or false): never a number or a string."""

    def describe(self) -> str:
        return "true or false"

    def accepts(self, value: object) -> bool:
        return isinstance(value, bool)

    def convert(self, value: Any) -> Any:
        return value


SHARE = Number(0, 1)
MILLISECONDS = Number(0, 60_000, "ms")

SETTINGS: dict[str, Setting] = {
    # PUT /_sandbox/keys, and --api-key / --credits
    "key": Key(),
    "credits": Number(0, 10**12, integer=True),
    # POST /_sandbox/clock
    "advance": Number(0, 366 * 86_400, "seconds"),
    # PUT /_sandbox/hostile, and --hostile-rate
    "rate": SHARE,
    "hostile_rate": SHARE,
    # PUT /_sandbox/faults, and the options of the same names (backend.Faults)
    "latency_ms": MILLISECONDS,
    "latency_jitter_ms": MILLISECONDS,
    "spike_rate": SHARE,
    "spike_ms": MILLISECONDS,
    "fail_rate": SHARE,
    "throttle_rate": SHARE,
    "drop_rate": SHARE,
    "geocode_timeout_rate": SHARE,
    "job_fail_rate": SHARE,
    "rate_limit": Number(1, 100_000, "requests per second per key", nullable=True),
    "rate_limit_per_minute": Number(1, 6_000_000, "requests per minute per key", nullable=True),
    "limit_retry_after": Flag(),
    "faults_counted": Flag(),
    "retry_after": Number(0, 3_600, "seconds", integer=True),
    # start options: the service it plays (docs/sandbox.md, "Playing another service")
    "network_host": Profiled("a host name such as linkedin.com", network_host),
    "key_header": Profiled("a header name such as X-API-Key", header_name),
    "required_headers": Profiled(
        "a table of header names and values of printable ASCII (none the sandbox sets)",
        header_table,
    ),
    "cors_origins": Profiled(
        f"origins (scheme://host[:port]) such as {LITE_ORIGIN}, or * for any", allowed_origins
    ),
    "prices": Profiled(
        f"a table of endpoints that are not free and whole numbers of credits (0 to {MAX_PRICE})",
        PriceTable.parse,
    ),
}


def check(name: str, value: object) -> Any:
    """`value` for the setting `name`, as the sandbox keeps it (an int, a float, a key or None).

    Raises SettingError naming the field and what it takes."""
    setting = SETTINGS[name]
    if not setting.accepts(value):
        raise SettingError(name, f"{name} must be {setting.describe()}; got {shown(value)}.")
    return setting.convert(value)


def check_all(payload: Mapping[str, object], names: Iterable[str]) -> dict[str, Any]:
    """Every field of a control's body checked; a field that is not one of `names` is refused."""
    known = tuple(names)
    for name in payload:
        if name not in known:
            details = f"Unknown setting {shown(name)}; known: {', '.join(known)}."
            raise SettingError("payload", details)
    return {name: check(name, value) for name, value in payload.items()}
