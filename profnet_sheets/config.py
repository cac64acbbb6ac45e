"""Settings: explicit arguments > environment (PROFNET_*) > config file > defaults; key masked."""

from __future__ import annotations

import contextlib
import hashlib
import ipaddress
import json
import logging
import math
import os
import re
import shutil
import socket
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import platformdirs

from profnet_sheets.cache_file import foreign_parts, holds_other_data
from profnet_sheets.errors import ConfigurationError
from profnet_sheets.redact import clipped, listed, masked_url, shown  # masked_url: the one masking
from profnet_sheets.spec.profile import (
    API_KEY_HEADER,
    DEFAULT_NETWORK_HOSTS,
    DEFAULT_PROFILE,
    PriceTable,
    ServiceProfile,
    free_on_plan,
    header_name,
    header_table,
    network_hosts,
)
from profnet_sheets.words import command, looks_like

DEFAULT_CONCURRENCY = 128  # the most calls in flight unless the user says otherwise

APP_NAME = "profnet-sheets"
ENV_PREFIX = "PROFNET_"
# PROFNET_ variables read elsewhere than here: the config file's place, the Excel session's.
OTHER_VARIABLES = frozenset({"CONFIG", "EXCEL_BUDGET", "EXCEL_OFFLINE", "EXCEL_REFRESH"})
LOG = logging.getLogger("profnet_sheets")
_WARNED: set[str] = set()  # each unknown name said once a process

# Seconds a cached answer stays fresh, per endpoint (docs/client.md). Search creations are
# cached for the reuse window (an identical search within it costs nothing); status never.
DEFAULT_EXPIRY: dict[str, float] = {
    "get-company-details": 30 * 86400,
    "get-profile-details": 7 * 86400,
    "get-job-details": 3 * 86400,
    "get-post-details": 1 * 86400,
    "search-posts": 6 * 3600,
    "get-company-posts": 6 * 3600,
    "get-profile-posts": 6 * 3600,
    "search-jobs": 12 * 3600,
    "google-full-profiles": 7 * 86400,
    "google-schools": 30 * 86400,
    "find-geocode-by-location": 90 * 86400,
    "get-recommendations-received": 14 * 86400,
    "get-recommendations-given": 14 * 86400,
    "find-custom-headcount": 7 * 86400,
    "get-lead-results": 30 * 86400,
    "get-company-results": 30 * 86400,
    "get-lead-search-status": 0,
    "get-company-search-status": 0,
}
NOT_FOUND_EXPIRY = 86400.0  # a 404 is cached, but for less time than an answer
NEVER_CACHED = frozenset(name for name, seconds in DEFAULT_EXPIRY.items() if not seconds)


class ApiKey:
    """An API key that never shows itself: not in repr, str, logs or tracebacks."""

    __slots__ = ("_fingerprint", "_value")

    def __init__(self, value: str) -> None:
        value = value.strip()
        if not value:
            raise ConfigurationError("The API key is empty: set PROFNET_API_KEY or pass api_key.")
        if not (value.isascii() and value.isprintable()):
            # Sent as it is, http.client would refuse it in an error that quotes it in full.
            del value
            raise ConfigurationError(
                "The API key holds a character that cannot be sent in a request header (a line "
                "break, a control character, or a non-ASCII one such as a typographic quote): "
                "copy it again from your account page, as plain text."
            )
        self._value = value
        self._fingerprint = hashlib.sha256(value.encode()).hexdigest()[:12]

    def reveal(self) -> str:
        """The key itself, for the request header only (and to mask it where a server quoted
        it back: redact.masked)."""
        return self._value

    @property
    def fingerprint(self) -> str:
        """A short one-way digest that tells keys apart in the ledger without holding them."""
        return self._fingerprint

    @property
    def placeholder(self) -> str | None:
        """The key itself when it is an example's placeholder (`...`, `YOUR_API_KEY`: not
        secret, said so), else None."""
        return self._value if is_placeholder_key(self._value) else None

    def described(self) -> str:
        """What a user is shown of the key: that it is set, and its fingerprint."""
        return f"set (fingerprint {self.fingerprint}; the key itself is never shown)"

    def __repr__(self) -> str:
        if not hasattr(self, "_value"):  # refused in __init__ (a traceback shows `self`)
            return "ApiKey(refused)"
        return f"ApiKey(fingerprint={self.fingerprint})"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ApiKey) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __reduce__(self) -> Any:
        raise TypeError("an ApiKey cannot be serialised, so that it is never written anywhere")


def default_cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir(APP_NAME))


def default_config_path() -> Path:
    return Path(platformdirs.user_config_dir(APP_NAME)) / "config.toml"


CAP_PERIODS = ("day", "month", "total")


@dataclass(frozen=True)
class SpendingCap:
    """Credits every run sharing a ledger may spend per period (a UTC day, a UTC month, or in
    all): unlike a budget, which is one run's, it holds across runs and processes."""

    credits: int
    period: str = "total"

    @classmethod
    def parse(cls, value: Any) -> SpendingCap | None:
        """`500/day`, `5000/month`, `20000` (in total; also `20000 in all`, as it is said),
        or none."""
        if value is None or isinstance(value, SpendingCap):
            return value
        text = str(value).strip().lower()
        if text in ("", "none"):
            return None
        text = text.removesuffix("in all").strip() if "/" not in text else text
        amount, _, period = text.partition("/")
        period = period.strip() or "total"
        wanted = "it must be a whole number of credits a day, a month or in all: 500/day, "
        wanted += "5000/month or 20000"
        if period not in CAP_PERIODS:
            raise ValueError(wanted)
        try:
            credits = _count("budget", amount)
        except ValueError:
            raise ValueError(wanted) from None
        if credits is None:
            raise ValueError(wanted)
        return cls(credits, period)

    def since(self, now: float) -> float:
        """When the current period began (unix time)."""
        moment = datetime.fromtimestamp(now, UTC)
        if self.period == "day":
            return moment.replace(hour=0, minute=0, second=0, microsecond=0).timestamp()
        if self.period == "month":
            start = moment.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
            return start.timestamp()
        return 0.0

    def __str__(self) -> str:
        return f"{self.credits}" + ("" if self.period == "total" else f"/{self.period}")

    @property
    def said(self) -> str:
        """`500/day`, `20000 in all`: as a person reads it (str() is as it is written)."""
        return f"{self.credits} in all" if self.period == "total" else str(self)

    @property
    def renews(self) -> bool:
        """Whether it counts from zero again (a new day or month); a cap in all never does."""
        return self.period != "total"


@dataclass(frozen=True)
class Settings:
    """Everything the request layer is configured with (see `Settings.load`)."""

    api_key: ApiKey | None = None
    base_url: str | None = None
    cache: str | None = None  # a directory or SQLite file, redis://..., "memory" or "off"
    cache_dir: Path = field(default_factory=default_cache_dir)
    budget: int | None = None  # credits this client may spend; None: no limit
    # Credits all runs sharing the ledger may spend per period ("500/day", "5000/month",
    # "20000" in all): held across processes; None: no cap.
    spending_cap: SpendingCap | None = None
    # This computer's name in the team's spend (a Redis cache): `credits` shows each machine's.
    machine: str = field(default_factory=socket.gethostname)
    offline: bool = False
    refresh: bool = False
    # Answers stay in use after their freshness ran out: only calls never answered are paid
    # for (Excel's recalculation must never spend again); refresh=True fetches anew.
    stale_ok: bool = False
    timeout: float = 60.0  # seconds to wait for an answer (the real service takes 3-5 s)
    connect_timeout: float = 10.0
    # The most seconds one attempt of a call may take, from connecting to the answer's last
    # byte (a server that drips its answer, or never ends it): then it is a timeout.
    deadline: float = 120.0
    retries: int = 4
    backoff: float = 0.5  # seconds before the first retry; doubles, with jitter
    max_backoff: float = 30.0
    retry_after_cap: float = 60.0  # never wait longer than this on a Retry-After
    # The service's rate limit when the user knows it (calls per second; "20/s", "600/min"):
    # the pace stays under it. None: the pace finds it from the service's 429s.
    rate_limit: float | None = None
    # The most calls in flight at once, for every front end; the pace finds how many the
    # service takes, up to this (the real service's 3-5 s calls need many at a time).
    concurrency: int = DEFAULT_CONCURRENCY
    search_reuse_hours: float = 24.0
    expiry: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_EXPIRY))
    quiet: bool = False  # no notice on stderr when the embedded sandbox is used
    # The service profile (docs/real-service.md): what the service names or prices otherwise
    # than the spec. The header that carries the key (the cache redacts it by this name).
    key_header: str = API_KEY_HEADER
    # Headers sent with every request besides the key (a gateway's own); redacted too.
    headers: Mapping[str, str] = field(default_factory=dict)
    # The hosts of the network's pages (profnet.com: the sandbox's); the first makes the URLs
    # of bare profile names.
    network_hosts: tuple[str, ...] = DEFAULT_NETWORK_HOSTS
    prices: PriceTable = DEFAULT_PROFILE.prices  # credits per endpoint, where not the spec's
    # Endpoints the plan includes at no charge (priced 0 in `prices`, which is refused otherwise).
    free_on_plan: tuple[str, ...] = ()

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{f.name}={masked_url(getattr(self, f.name))!r}"
            for f in fields(self)
            if f.name not in ("expiry", "headers")
        )
        return f"Settings({shown}, headers={sorted(self.headers)!r})"  # names: values hidden

    def __post_init__(self) -> None:
        try:
            self.profile  # noqa: B018 - its parts must fit together
        except ValueError as error:
            raise ConfigurationError(
                f"The service profile is not usable: {error}. Fix key_header or headers "
                f"({ENV_PREFIX}KEY_HEADER, {ENV_PREFIX}HEADERS, or the config file)."
            ) from None
        try:
            self.profile.check_free_prices()
        except ValueError as error:
            raise ConfigurationError(f"Setting prices is not usable: {error}.") from None

    @property
    def profile(self) -> ServiceProfile:
        """The service profile these settings name (the spec's names and prices by default)."""
        return ServiceProfile(
            self.key_header,
            tuple(self.headers.items()),
            self.network_hosts,
            self.prices,
            tuple(self.free_on_plan),
        )

    @property
    def serves_stale(self) -> bool:
        """Answers past their freshness are used: with stale_ok, and offline (where the only
        alternative is no answer at all)."""
        return self.stale_ok or self.offline

    @property
    def uses_sandbox(self) -> bool:
        """No key and no base URL: the embedded sandbox serves (synthetic data)."""
        return self.api_key is None and self.base_url is None

    def with_changes(self, **changes: Any) -> Settings:
        return replace(self, **changes)

    @classmethod
    def load(
        cls,
        *,
        config_path: Path | str | None = None,
        environ: Mapping[str, str] | None = None,
        **explicit: Any,
    ) -> Settings:
        """Resolve settings: explicit arguments, then PROFNET_* variables, then the config file."""
        known = [f.name for f in fields(cls)]
        unknown = set(explicit) - set(known)
        if unknown:
            said = []
            for name in sorted(unknown):
                like = looks_like(name.lower(), known)
                said.append(f"{name} (did you mean {like}?)" if like else name)
            raise TypeError(f"unknown settings: {', '.join(said)}")
        # The key is wrapped in an ApiKey as it is read, and the raw sources are dropped before
        # anything can fail, so that a traceback showing local variables (rich, Sentry,
        # capture_locals) never shows it: only PROFNET_ variables are kept from the environment.
        if "api_key" in explicit:
            explicit["api_key"] = _wrapped_key(explicit.pop("api_key"))
        source = [os.environ if environ is None else environ]
        del environ  # while the variables are read, only _variables holds them
        variables = _variables(source.pop())
        names = {variable_of(name) for name in known}
        names |= {f"{ENV_PREFIX}{name}" for name in OTHER_VARIABLES}
        _warn_of_unknown(variables, names, "is not a setting of profnet-sheets")
        values = _gather(known, explicit, variables, config_path)
        del explicit
        return cls(**{name: _coerce(name, value) for name, value in values.items()})


# Free space below which a cache that cannot be written is said to be on a full disk (SQLite
# says "disk I/O error" as often as "database or disk is full" when a write finds no room).
FULL_DISK_BYTES = 1 << 20


def unusable_cache(error: Exception, settings: Settings) -> ConfigurationError:
    """The error for a cache or ledger place that cannot be used (no such folder, no right to
    write, a name too long, a full disk): it names the place and the settings that choose
    it."""
    where = getattr(error, "filename", None) or settings.cache or settings.cache_dir
    reason = getattr(error, "strerror", None) or error
    named = settings.cache is not None and str(where) == str(settings.cache)
    folder = str(where) == str(settings.cache_dir)  # PROFNET_CACHE_DIR: a folder, whatever its name
    kind = isinstance(error, FileExistsError | NotADirectoryError | IsADirectoryError)
    if (named or folder) and (kind or Path(str(where)).expanduser().is_dir()):
        with contextlib.suppress(OSError):  # `File exists` said as what it is
            reason = unwritable_place(str(where), folder=folder) or reason
    on_disk = getattr(error, "filename", None) or settings.cache_dir
    free = None if on_disk is None else free_bytes(Path(str(on_disk)))
    if free is not None and free < FULL_DISK_BYTES:
        return ConfigurationError(
            f"Cannot keep the cache at {clipped(str(where))}: the disk is full ({free:,} bytes "
            f"free; {clipped(str(reason))}). Free some space, or set {ENV_PREFIX}CACHE_DIR "
            f"(or {ENV_PREFIX}CACHE) to a folder on another disk."
        )
    return ConfigurationError(
        f"Cannot keep the cache at {clipped(str(where))}: {clipped(str(reason))}. "
        f"{_place_fix(str(where), settings)}."
    )


def not_a_cache(path: Path, parts: list[str], settings: Settings) -> ConfigurationError:
    """The error of a SQLite database of the user's (`parts`: what no cache makes) where the
    settings name the cache file: nothing is written in it, nor ever cleared."""
    fix = (
        f"Change it with `{command('config --cache NEW.sqlite')}`, or `"
        f"{command('config --unset cache')}`"
        if _from_config_file(settings.cache or "", settings)
        else f"Set {ENV_PREFIX}CACHE to another place (a new file ending in .sqlite or .db, "
        "or a folder)"
    )
    return ConfigurationError(
        f"{clipped(str(path))} is a SQLite database of its own ({_parts(parts)}), not a "
        f"cache of profnet-sheets: nothing was written in it, and it is kept as it is. {fix}."
    )


def _parts(parts: list[str], most: int = 4) -> str:
    """What a database holds, as a message lists it: the first `most`, then how many."""
    shown_parts = ", ".join(parts[:most])
    return shown_parts if len(parts) <= most else f"{shown_parts}, ... ({len(parts):,} in all)"


def _from_config_file(where: str, settings: Settings) -> bool:
    """Whether the cache place `where` is the config file's setting (not PROFNET_CACHE's, nor
    one given to the library)."""
    if settings.cache is None or where != str(settings.cache) or set_in_environment("cache"):
        return False
    try:
        return _cache(_read_config(config_file()).get("cache", "")) == settings.cache
    except Exception:
        return False


def _place_fix(where: str, settings: Settings) -> str:
    """What to change when the cache cannot be kept at `where`: the config file's setting,
    PROFNET_CACHE or PROFNET_CACHE_DIR, whichever named it."""
    named = settings.cache is not None and where == str(settings.cache)
    return (
        f"Change it with `{command('config --cache FOLDER')}` (it is set in the config file), "
        f"or `{command('config --unset cache')}`"
        if _from_config_file(where, settings)
        else f"Set {ENV_PREFIX}CACHE to a folder or a file ending in .sqlite or .db that you "
        "can write to"
        if named
        else f"Set {ENV_PREFIX}CACHE_DIR (or {ENV_PREFIX}CACHE) to a folder you can write to"
    )


def unwritable_place(place: str, folder: bool = False) -> str | None:
    """Why a folder or file named for the cache cannot be made or written (its nearest
    existing folder is a file, or this user may not write there), or None: nothing is made
    to tell it. A word (`memory`, `off`) or a Redis URL is no place on disk. `folder`: the
    place is a folder whatever its name (`PROFNET_CACHE_DIR`)."""
    try:
        path = disk_place(place)
    except RuntimeError:  # `~nobody/x`: no such user's home
        return f"{place} names the home of no user here"
    if path is None:
        return None
    file = not folder and names_a_cache_file(path)  # else a folder, its file made inside
    if path.is_symlink() and not path.exists():
        return f"{path} is a link to {os.readlink(path)}, which does not exist"
    if path.is_dir() and file:
        return f"{path} is a folder, not a SQLite file"
    if path.exists() and not path.is_dir() and not file:
        return f"{path} is a file, not a folder" + (
            "" if folder else " (a cache file's name ends in .sqlite or .db)"
        )
    if file and holds_other_data(path):
        return f"{path} is a file that is not a SQLite database"
    if file and path.exists() and not os.access(path, os.R_OK | os.W_OK):
        return f"this user may not read and write {path} (`chmod u+rw` it, if it is yours)"
    if file and path.is_file() and path.stat().st_size == 0:
        return f"{path} is an empty file (0 bytes)"
    parts = foreign_parts(path) if file else []
    if parts is None:
        return (
            f"{path} cannot be read as a SQLite database (damaged, locked by another program, "
            "or made by a newer SQLite)"
        )
    if parts:
        return f"{path} is a SQLite database of its own ({_parts(parts)})"
    existing = next((it for it in (path, *path.parents) if it.exists()), path.anchor)
    existing = Path(existing)
    if existing != path and not existing.is_dir():
        return f"{existing} is not a folder"
    written_in = existing if existing.is_dir() else existing.parent
    if not os.access(written_in, os.W_OK | os.X_OK):
        return f"this user may not write in {written_in}"
    return None


def free_bytes(where: Path) -> int | None:
    """The free space of the disk holding `where` (its nearest folder that exists); None
    when it cannot be told."""
    for folder in (where, *where.parents):
        with contextlib.suppress(OSError):
            if folder.is_dir():
                return shutil.disk_usage(folder).free
    return None


def _wrapped_key(raw: Any) -> ApiKey | None:
    """`raw` as an ApiKey. When it cannot be one, the error is raised from a frame that no
    longer holds it (callers pass it straight from a container: no local of theirs holds it)."""
    if raw is None or isinstance(raw, ApiKey):
        return raw
    try:
        return ApiKey(str(raw))
    except ConfigurationError as error:
        problem = str(error)  # ApiKey's messages never quote the key
    del raw
    raise ConfigurationError(problem)


def _variables(environ: Mapping[str, str]) -> dict[str, Any]:
    """The PROFNET_ variables of `environ`, the key wrapped in an ApiKey."""
    found: dict[str, Any] = {k: v for k, v in environ.items() if k.startswith(ENV_PREFIX)}
    del environ
    found = {name: value for name, value in found.items() if not _blank(value)}
    if f"{ENV_PREFIX}API_KEY" in found:
        found[f"{ENV_PREFIX}API_KEY"] = _wrapped_key(found.pop(f"{ENV_PREFIX}API_KEY"))
    return found


def _gather(
    known: list[str],
    explicit: Mapping[str, Any],
    environ: Mapping[str, Any],
    config_path: Path | str | None,
) -> dict[str, Any]:
    """Each known setting's value as given, from the arguments, the PROFNET_ variables or the
    file (the key already an ApiKey in each)."""
    path = Path(config_path or environ.get(f"{ENV_PREFIX}CONFIG") or default_config_path())
    from_file = _read_config(path, wrap_key=True)
    _warn_of_unknown(from_file, set(known), f"in {clipped(str(path))} is not a setting")
    values: dict[str, Any] = {}
    for name in known:
        variable = variable_of(name)
        if explicit.get(name) is not None:
            values[name] = explicit[name]
        elif variable in environ:  # blank variables are dropped already
            values[name] = environ[variable]
        elif name in from_file and not _blank(from_file[name]):
            values[name] = from_file[name]
    return values


def _warn_of_unknown(given: Mapping[str, Any], known: set[str], said: str) -> None:
    """Say once, as a warning, each name of `given` that names no setting, with the one it
    looks like: a misspelt `PROFNET_SPENDINGCAP` would otherwise leave the cap unset unsaid."""
    for name in sorted(set(given) - known - _WARNED):
        _WARNED.add(name)
        like = looks_like(name, known)
        meant = f": did you mean {like}?" if like else ""
        LOG.warning("%s %s, so it is ignored%s", name, said, meant)


def variable_of(setting: str) -> str:
    """The environment variable of a setting: `PROFNET_BUDGET` for `budget`."""
    return f"{ENV_PREFIX}{setting.upper()}"


def set_in_environment(setting: str) -> bool:
    """Whether the environment sets `setting` (a variable set to blanks does not: `_blank`)."""
    value = os.environ.get(variable_of(setting))
    return value is not None and not _blank(value)


def _blank(value: Any) -> bool:
    """A variable set to nothing (`PROFNET_RETRIES=` in a compose file): as if it were unset."""
    return isinstance(value, str) and not value.strip()


def _read_config(path: Path, *, wrap_key: bool = False) -> dict[str, Any]:
    """The settings in the config file (`wrap_key`: its key as an ApiKey)."""
    if not path.exists():
        return {}
    problem = None
    try:
        content = tomllib.loads(path.read_bytes().decode("utf-8-sig"))  # Notepad writes a BOM
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        problem = str(error)
    if problem is not None:  # raised here, not in the except: the parser's frames (and the
        # file's text, the key included) must not ride along as a hidden __context__
        raise ConfigurationError(
            f"Cannot read the config file {clipped(str(path))}: {clipped(problem)}. Correct it, "
            f"or move it aside and run `{command('config')}` again."
        )
    section = content.get("profnet", content)
    found = dict(section) if isinstance(section, dict) else {}
    del content, section
    if wrap_key and "api_key" in found and not _blank(found["api_key"]):
        found["api_key"] = _wrapped_key(found.pop("api_key"))
    return found


def _coerce(name: str, value: Any) -> Any:
    """Turn a setting from the environment or a file into its type, or say what is wrong."""
    try:
        if name == "api_key":
            return _wrapped_key(value)
        if name == "base_url":
            return _base_url(value)
        if name == "cache":
            return _cache(value)
        if name in ("budget", "retries", "concurrency"):
            return _count(name, value)
        if name == "spending_cap":
            return SpendingCap.parse(value)
        if name == "machine":
            return _machine(value)
        if name in _PROFILE:
            return _PROFILE[name](value)
        if name in ("offline", "refresh", "stale_ok", "quiet"):
            return _truthy(value)
        if name == "cache_dir":
            return Path(_path(value)).expanduser()
        if name == "expiry":
            return _expiry_table(value)
        if name == "rate_limit":
            rate = parse_rate(value)
            if rate is not None and not 1 / MOST_SECONDS <= rate <= MOST_SECONDS:
                raise ValueError(
                    f"it must be 0 (no limit) or at least {1 / MOST_SECONDS:g} calls a second "
                    f"(and at most {MOST_SECONDS:,}): 20/s, 600/min"
                )
            return rate
        if name in ("timeout", "connect_timeout", "deadline"):
            seconds = _seconds(value)
            if seconds <= 0:
                raise ValueError("it must be more than 0 seconds (a wait of 0 can never succeed)")
            return seconds
        if name in ("backoff", "max_backoff", "retry_after_cap", "search_reuse_hours"):
            return _seconds(value, "hours" if name == "search_reuse_hours" else "seconds")
        return None if value is None else str(value)
    except (TypeError, ValueError) as error:
        problem = clipped(str(error).rstrip("."))  # a parser's message may quote the value
        given = "<hidden>" if name in ("api_key", "headers") else shown(value)
        raise ConfigurationError(
            f"Setting {name} = {given} is not usable: {problem}. "
            f"Fix it in the arguments, {variable_of(name)} or the config file."
        ) from None


def _machine(value: Any) -> str:
    """A machine's name as the team's spend shows it: a word of printable characters."""
    text = str(value).strip()
    if not text or len(text) > MACHINE_NAME_MAX or not text.isprintable():
        raise ValueError(
            f"it must be a name of 1 to {MACHINE_NAME_MAX} printable characters, such as laptop-ana"
        )
    return text


def _seconds(value: Any, unit: str = "seconds") -> float:
    """A number from 0 to MOST_SECONDS (of seconds or hours): more than the operating system
    can wait (`time.sleep(1e300)`) is refused here, not met there."""
    wanted = f"it must be a number of {unit} from 0 to {MOST_SECONDS:,}, such as 30 or 2.5"
    try:
        number = math.nan if isinstance(value, bool) else float(value)
    except (TypeError, ValueError):  # `abc`: said in words, not as Python's float() says it
        raise ValueError(wanted) from None
    if not 0 <= number <= MOST_SECONDS:  # NaN and infinities included
        raise ValueError(wanted)
    return number


def _path(value: Any) -> str:
    """A file or folder path as given; one the operating system could never open refused."""
    text = str(value).strip()
    if "\x00" in text:
        raise ValueError("a path cannot hold a NUL character")
    if any(len(part.encode()) > NAME_MAX for part in Path(text).parts):
        raise ValueError(f"a file or folder name is at most {NAME_MAX} bytes long")
    return text


_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]+)://")  # two letters at least: `C:/` is a drive
CACHE_WORDS = ("memory", "off")
CACHE_FILE_SUFFIXES = (".sqlite", ".db")  # a cache place so named is a SQLite file, else a folder
MACHINE_NAME_MAX = 64  # characters of a machine's name in the team's spend
NAME_MAX = 255  # bytes of one file or folder name (most file systems)
MOST_SECONDS = 10_000_000  # ~115 days: the longest wait, timeout or backoff a setting may ask
REDIS_SCHEMES = ("redis", "rediss", "unix")


def names_a_cache_file(place: Path) -> bool:
    """Whether a cache place (`PROFNET_CACHE`, `config --cache`) names the SQLite file itself
    (`answers.sqlite`, `Team.DB`), rather than a folder its file is made in."""
    return place.suffix.lower() in CACHE_FILE_SUFFIXES


def disk_place(place: str) -> Path | None:
    """The absolute path a cache place names on disk (`~` expanded), or None for a word
    (`memory`, `off`) or a Redis URL. RuntimeError: `~nobody/x`, the home of no user."""
    if place.lower() in CACHE_WORDS or _SCHEME.match(place):
        return None
    return Path(place).expanduser().absolute()


def _cache(value: Any) -> str:
    """Where answers are kept: a folder or `.sqlite` file, `memory`, `off`, or a Redis URL
    (`redis://`, `rediss://`, `unix://`). Any other URL is refused: `ftp://what` once made a
    folder `./ftp:/what`."""
    text = _path(value)
    if text.lower() in CACHE_WORDS:
        return text.lower()
    scheme = _SCHEME.match(text)
    if scheme is None:
        return text
    if scheme[1].lower() not in REDIS_SCHEMES:
        raise ValueError(
            f"{scheme[1]}:// is not a place for a cache: give a folder or a .sqlite file, "
            "memory, off, or a redis://, rediss:// or unix:// URL"
        )
    parts = urlsplit(text)  # ValueError: a bad IPv6 host
    parts.port  # noqa: B018 - ValueError: a port that is not one
    database = parts.path.strip("/")
    if scheme[1].lower() != "unix" and database and not database.isdigit():
        raise ValueError(
            f"the database number after the host must be digits, not {shown(database)}"
        )
    if scheme[1].lower() == "unix" and not parts.path:
        raise ValueError("a unix:// URL names the server's socket file: unix:///path/to/redis.sock")
    return text


def _base_url(value: Any) -> str:
    """The service's address: http(s), a host urllib3 will connect to, no query or fragment
    (the path of each endpoint is added to it)."""
    url = str(value).strip().rstrip("/")
    if not url.lower().startswith(("http://", "https://")):
        raise ValueError("it must start with http:// or https://")
    if "@" in url.split("://", 1)[1]:  # as redact.masked reads it: up to the last @
        raise ValueError(
            "it holds a user name or password (user:pw@host), which is never sent: give the "
            "address alone, the key as api_key, and a gateway's own credentials as headers "
            "(PROFNET_HEADERS)"
        )
    parts = urlsplit(url)  # ValueError: a bad IPv6 host
    parts.port  # noqa: B018 - ValueError: a port that is not one
    if not parts.hostname:
        raise ValueError("it names no host: give it as https://host.example/path")
    if parts.query or parts.fragment:
        raise ValueError(
            "it holds a ?query or #fragment, which the endpoints' paths cannot follow: give the "
            "address alone (and the key as api_key)"
        )
    _check_host(parts.hostname)
    from urllib3.util import parse_url  # refuses what urllib3 would refuse when connecting

    parse_url(url)
    return url


_LABEL = re.compile(r"[A-Za-z0-9_-]{1,63}")


def _check_host(host: str) -> None:
    """Raise ValueError unless `host` is an IP address or a DNS name (`...` is neither)."""
    with contextlib.suppress(ValueError):
        ipaddress.ip_address(host)
        return
    try:
        ascii_host = host.removesuffix(".").encode("idna").decode("ascii")
    except UnicodeError:
        ascii_host = ""
    if not all(_LABEL.fullmatch(label) for label in ascii_host.split(".")):
        raise ValueError(f"{shown(host)} is not a host name")


# The service profile's settings, read with its own checks (spec.profile): one line each.
_PROFILE: dict[str, Any] = {
    "key_header": header_name,
    "headers": header_table,
    "network_hosts": network_hosts,
    "prices": PriceTable.parse,
    "free_on_plan": free_on_plan,
}


def _expiry_table(value: Any) -> dict[str, float]:
    """The default expiry table with `value`'s (JSON text or a mapping) seconds per endpoint."""
    table = json.loads(value) if isinstance(value, str) else dict(value)
    unknown = sorted(str(name) for name in table if name not in DEFAULT_EXPIRY)
    if unknown:
        raise ValueError(
            f"it names no endpoint of the table: {listed(unknown)} (it has "
            f"{', '.join(sorted(set(DEFAULT_EXPIRY) - NEVER_CACHED))})"
        )
    seconds = {str(name): float(given) for name, given in table.items()}
    if any(not math.isfinite(given) or given < 0 for given in seconds.values()):
        raise ValueError("its seconds must be finite, 0 (never kept) or more")
    kept = sorted(name for name in NEVER_CACHED if seconds.get(name))
    if kept:
        raise ValueError(f"{', '.join(kept)} is never cached: a search's status changes")
    return {**DEFAULT_EXPIRY, **seconds}


_PER = {"": 1.0, "s": 1.0, "sec": 1.0, "second": 1.0, "m": 60.0, "min": 60.0, "minute": 60.0}
_PER |= {"h": 3600.0, "hour": 3600.0}


def parse_rate(value: Any) -> float | None:
    """Calls per second from `20`, `20/s`, `1200/min` or `50000/h` (None, blank, `none` or 0:
    no limit); ValueError for anything else."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValueError("give calls per second or minute, such as 20/s or 600/min")
    if isinstance(value, int | float):
        number, per = float(value), 1.0
    else:
        text = str(value).strip().lower().replace(" ", "")
        if text in ("", "none"):
            return None
        count, _, unit = text.partition("/")
        if unit not in _PER or not re.fullmatch(r"[0-9]*\.?[0-9]+(e[+-]?[0-9]+)?", count):
            raise ValueError("give calls per second or minute, such as 20/s or 600/min")
        number, per = float(count), _PER[unit]
    if not math.isfinite(number) or number < 0:
        raise ValueError("give calls per second or minute, such as 20/s or 600/min")
    return number / per if number > 0 else None


_LEAST = {"budget": 0, "retries": 0, "concurrency": 1}


def _count(name: str, value: Any) -> int | None:
    """A whole number of at least _LEAST[name] (Excel's 1000.0 included); only a budget may be
    none (no limit)."""
    if name == "budget" and (value is None or str(value).strip().lower() in ("", "none")):
        return None
    try:
        number = math.nan if isinstance(value, bool) else float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not number.is_integer():
        raise ValueError("it must be a whole number")
    if number < _LEAST[name]:
        raise ValueError(f"it must be {_LEAST[name]} or more")
    return int(number)


def _truthy(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on", "y"):
        return True
    if text in ("0", "false", "no", "off", "n", ""):
        return False
    raise ValueError("it must be true or false")


_TOML_ESCAPED = re.compile(r'[\\"\x00-\x08\x0a-\x1f\x7f]')


def _toml_string(value: str) -> str:
    """`value` as a TOML basic string: what TOML forbids raw escaped, everything else as is.
    (JSON's escapes are not TOML's: it writes an emoji as a surrogate pair TOML refuses.)"""
    return '"' + _TOML_ESCAPED.sub(lambda found: f"\\u{ord(found[0]):04x}", value) + '"'


# What examples put where the key goes, letters and digits only, lower case ("YOUR_API_KEY").
_PLACEHOLDERS = frozenset(
    {
        *("key", "apikey", "yourapikey", "yourkey", "yourtoken", "changeme", "placeholder"),
        *("yourkeyhere", "yourapikeyhere", "apikeyhere", "keyhere", "insertkeyhere"),
        *("insertyourkeyhere", "pasteyourkey", "pasteyourkeyhere", "replaceme", "enteryourkey"),
    }
)


def is_placeholder_key(value: str) -> bool:
    """Whether `value` is an example's placeholder for a key (`...`, `sk-...`, `<your key>`,
    `YOUR_API_KEY`, `$PROFNET_API_KEY` left unexpanded, `xxxx-xxxx`): nothing but punctuation
    or x's, an ellipsis, a name in angle brackets or braces, a shell variable, or a
    placeholder's word."""
    value = value.strip()
    letters = "".join(it for it in value.lower() if it.isalnum())
    marked = value.startswith(("<", "{", "$")) or "..." in value
    return not letters.strip("x") or marked or letters in _PLACEHOLDERS


def config_file(path: Path | str | None = None) -> Path:
    """The config file: `path`, else PROFNET_CONFIG, else the user's."""
    return Path(path or os.environ.get(f"{ENV_PREFIX}CONFIG") or default_config_path())


def save_config(
    values: Mapping[str, Any], path: Path | str | None = None, *, remove: Iterable[str] = ()
) -> Path:
    """Write settings to the config file, readable by its owner only (0600); the settings
    named in `remove` are taken out of it."""
    target = config_file(path)
    try:
        _write_config(target, values, set(remove))
    except OSError as error:  # /proc/x.toml, a read-only folder, a name too long, a folder
        reason = error.strerror or type(error).__name__
        raise ConfigurationError(
            f"Cannot write the config file {clipped(str(target))}: {reason}. Choose a file in a "
            f"folder you can write to (--path, or {ENV_PREFIX}CONFIG); nothing was saved."
        ) from None
    return target


def _write_config(target: Path, values: Mapping[str, Any], remove: set[str]) -> None:
    """Merge `values` into the config file at `target` less the settings `remove`, written
    0600 (see `save_config`)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    current = {name: value for name, value in _read_config(target).items() if name not in remove}
    current.update(
        {
            k: (v.reveal() if isinstance(v, ApiKey) else v)
            for k, v in values.items()
            if v is not None
        }
    )
    lines = ["[profnet]"]
    for name, value in sorted(current.items()):
        if isinstance(value, bool):
            lines.append(f"{name} = {'true' if value else 'false'}")
        elif isinstance(value, int | float):
            lines.append(f"{name} = {value}")
        elif isinstance(value, Mapping):
            lines.append(f"{name} = {_toml_string(json.dumps(dict(value)))}")
        elif isinstance(value, list | tuple):  # network_hosts
            lines.append(f"{name} = [{', '.join(_toml_string(str(item)) for item in value)}]")
        else:
            lines.append(f"{name} = {_toml_string(str(value))}")
    descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    # An existing file keeps its mode through os.open: make it private before the key is in it
    # (POSIX; on Windows, mode bits do not restrict reading).
    if hasattr(os, "fchmod"):
        os.fchmod(descriptor, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    os.chmod(target, 0o600)
