"""The Excel session: one client per Excel process, its budget and offline mode, and where from."""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal
from urllib.parse import urlsplit

from profnet_sheets.client import cell_values
from profnet_sheets.errors import ConfigurationError, NormalizationError
from profnet_sheets.redact import shown
from profnet_sheets.words import command, looks_like

if TYPE_CHECKING:
    from profnet_sheets.client.client import Client
    from profnet_sheets.client.jobs import SearchStatus
    from profnet_sheets.client.recorder import Recorder
    from profnet_sheets.config import Settings

BUDGET_KEY: Final = "PROFNET_EXCEL_BUDGET"
OFFLINE_KEY: Final = "PROFNET_EXCEL_OFFLINE"
REFRESH_KEY: Final = "PROFNET_EXCEL_REFRESH"
SANDBOX_NOTICE: Final = (
    f"SANDBOX: synthetic data, nothing paid (no API key set: {command('config --api-key ...')})"
)
DEFAULT_BUDGET: Final = 1_000  # credits one Excel session may spend unless told otherwise
# Seconds a stop met by formulas (no credits, the service unreachable) holds before the next
# formula asks the service again: the rest of one recalculation (decision 214).
STOP_HOLD: Final = 10.0
_UNLIMITED: Final = frozenset({"none", "unlimited", "no limit"})
CONF_SHEET: Final = "xlwings.conf"
CONF_ROWS: Final = 100  # rows of the xlwings.conf sheet read
# The service profile's settings, also read from the xlwings.conf sheet and file (after the
# environment, before the config file). Never the key: a workbook is shared, the key is yours.
PROFILE_KEYS: Final = (
    "PROFNET_BASE_URL",
    "PROFNET_KEY_HEADER",
    "PROFNET_HEADERS",
    "PROFNET_NETWORK_HOSTS",
    "PROFNET_PRICES",
)
# ...and the limits a workbook may well set, read from the same places.
SHEET_KEYS: Final = (*PROFILE_KEYS, "PROFNET_SPENDING_CAP", "PROFNET_BUDGET")

# Which Excel runs the formulas: xlwings' UDF server (or LibreOffice), or xlwings Lite; the
# messages name that host's remedies (where settings are changed, how Python restarts).
Host = Literal["desktop", "lite"]
Source = tuple[str, Mapping[str, Any]]  # (where, its settings), e.g. the xlwings.conf sheet
WorkbookConfig = Callable[[], Mapping[str, Any]]


@dataclass(frozen=True)
class SessionConfig:
    """What an Excel session may spend, whether it only reads the cache, where that came from
    (said in messages, so that users know what to change), and whether answers past their
    freshness are fetched again (`refresh`) or kept (the default: recalculation never pays)."""

    budget: int | None = DEFAULT_BUDGET
    offline: bool = False
    budget_from: str = "the default"
    refresh: bool = False


def _find(sources: Sequence[Source], name: str) -> tuple[Any, str] | None:
    """The first non-blank value of `name` (any case) in the sources, and its source."""
    for where, values in sources:
        for found, value in values.items():
            blank = value is None or not str(value).strip()
            if not blank and str(found).strip().upper() == name:
                return value, where
    return None


def _budget(value: Any, where: str) -> int | None:
    text = str(value).strip().lower()
    if text in _UNLIMITED:
        return None
    try:
        number = float(text)
    except ValueError:
        number = math.nan
    if not math.isfinite(number) or number < 0 or not number.is_integer():
        raise ConfigurationError(
            f"{BUDGET_KEY} = {shown(value)} in {where} is not a number of credits: give a whole "
            "number such as 1000, or none for no limit"
        )
    return int(number)


def load_settings(found: Sequence[Source]) -> Settings:
    """The client's settings, the service profile's and the limits (SHEET_KEYS) also read
    from the sources after the environment (the workbook's xlwings.conf sheet, your
    xlwings.conf file), before the config file; a PROFNET_ name not read there is refused. A
    value that cannot be used says where it was read."""
    from profnet_sheets.config import Settings

    _refuse_unread(found)
    environ = dict(os.environ)
    read: dict[str, None] = {}
    for name in SHEET_KEYS:
        hit = _find(found, name)
        if hit is not None and hit[1] != "the environment":
            environ[name] = str(hit[0]).strip()
            read[hit[1]] = None
    try:
        return Settings.load(environ=environ)
    except ConfigurationError as error:
        if not read:
            raise
        raise ConfigurationError(f"Also read from {' and '.join(read)}: {error}") from None


def _refuse_unread(found: Sequence[Source]) -> None:
    """ConfigurationError for a PROFNET_ name on the xlwings.conf sheet or file that is not
    read there, or a PROFNET_EXCEL_ name in the environment that is none of Excel's (a
    misspelt budget or cap would leave it unset, unsaid; the key is never read from a
    workbook)."""
    known = [*SHEET_KEYS, BUDGET_KEY, OFFLINE_KEY, REFRESH_KEY]
    for where, values in found:
        # The environment holds every setting of profnet-sheets (a name it does not know is
        # said in the log, which Excel does not show): only Excel's own names are refused
        # there, a misspelt PROFNET_EXCEL_BUDGET leaving the session's budget unset.
        own = "PROFNET_EXCEL_" if where == "the environment" else "PROFNET_"
        for name in values:
            upper = str(name).strip().upper()
            if not upper.startswith(own) or upper in known:
                continue
            if upper == "PROFNET_API_KEY":
                shared = " (a workbook is shared)" if "workbook" in where else ""
                raise ConfigurationError(
                    f"PROFNET_API_KEY is in {where}: the key is never read from there{shared}; "
                    f"take it out, and keep it with `{command('config --api-key')}` or in the "
                    "environment"
                )
            names = [it for it in known if it.startswith(own)]
            like = looks_like(upper, names)
            meant = f"did you mean {like}? " if like else ""
            raise ConfigurationError(
                f"{name} in {where} is not a setting read there: {meant}(read there: "
                f"{', '.join(names)})"
            )


def session_config(sources: Sequence[Source], settings: Settings | None = None) -> SessionConfig:
    """The session's settings: the first source naming a key wins; then the client's own
    settings (PROFNET_BUDGET, PROFNET_OFFLINE); then a budget of DEFAULT_BUDGET credits."""
    budget: int | None = DEFAULT_BUDGET
    budget_from = "the default"
    found = _find(sources, BUDGET_KEY)
    if found is not None:
        budget, budget_from = _budget(*found), f"{BUDGET_KEY} in {found[1]}"
    elif settings is not None and settings.budget is not None:
        budget, budget_from = settings.budget, "PROFNET_BUDGET"
    offline = _switch(sources, OFFLINE_KEY, settings is not None and settings.offline)
    return SessionConfig(budget, offline, budget_from, _switch(sources, REFRESH_KEY, False))


def _switch(sources: Sequence[Source], name: str, default: bool) -> bool:
    """A TRUE/FALSE setting: the first source naming it, else `default`."""
    switch = _find(sources, name)
    if switch is None:
        return default
    try:
        return cell_values.flag(switch[0], name) == "true"
    except NormalizationError as error:
        raise ConfigurationError(f"{name} in {switch[1]}: {error}") from None


@dataclass
class ExcelSession:
    """The client every formula of this Excel process uses, with the session's budget.

    Formulas have no run of their own: a stop for no credits left or a service unreachable
    holds for STOP_HOLD seconds from the first formula that meets it stopped (the rest of
    that recalculation), then the next formula starts a new run, which asks the service again
    (free: a 402 is not charged; nothing reaches a service that is down)."""

    run: Client
    config: SessionConfig
    completed: dict[str, SearchStatus] = field(default_factory=dict)  # searches seen completed
    clock: Callable[[], float] = time.monotonic
    stopped_since: float | None = None  # when a formula first met this run stopped
    # Set while a formula runs in xlwings Lite's recording round: calls are noted, not sent.
    recorder: Recorder | None = None
    # Ranges looked up row by row, not through the batch engine (polars, threads): Lite.
    one_by_one: bool = False
    host: Host = "desktop"

    @classmethod
    def start(
        cls, client: Client, config: SessionConfig, clock: Callable[[], float] = time.monotonic
    ) -> ExcelSession:
        view = client.with_budget(config.budget)
        return cls(view.with_options(offline=True) if config.offline else view, config, clock=clock)

    @property
    def client(self) -> Client:
        """The session's client, in a new run once a stop has held for STOP_HOLD seconds."""
        if self.run.stopped is None:
            self.stopped_since = None
        elif self.stopped_since is None:
            self.stopped_since = self.clock()
        elif self.clock() - self.stopped_since >= STOP_HOLD:
            self.run, self.stopped_since = self.run.new_run(), None
        return self.run if self.recorder is None else self.run.recording(self.recorder)


def data_source(client: Client) -> str:
    """Where the session's answers come from, said where Excel users see it (Excel never shows
    the sandbox notice the client writes to stderr)."""
    if client.settings.uses_sandbox:
        if current_host() == "lite":  # no command line there: where Lite takes the key
            return (
                "SANDBOX: synthetic data, nothing paid (no API key set: PROFNET_API_KEY and "
                "PROFNET_BASE_URL under xlwings Lite > Environment Variables)"
            )
        return SANDBOX_NOTICE
    return f"the service at {urlsplit(client.base_url).hostname or client.base_url}"


def read_cells(sheet: Any, address: str) -> Any:
    """The values of a block of cells, an Excel error as its text (`#N/A`, `#NAME?`): xlwings
    reads errors as empty cells unless told otherwise, and an error is not an empty value."""
    return sheet.range(address).options(err_to_str=True).value


def book_config(book: Any) -> Mapping[str, Any]:
    """A workbook's xlwings.conf sheet (names in column A, values in B), or nothing."""
    try:
        rows = read_cells(book.sheets[CONF_SHEET], f"A1:B{CONF_ROWS}")
    except Exception:  # no such sheet, or Excel refused
        return {}
    return {str(row[0]).strip(): row[1] for row in rows or [] if row and row[0] is not None}


def active_workbook_config() -> Mapping[str, Any]:
    """The xlwings.conf sheet of the active workbook, or nothing (no Excel, no workbook)."""
    try:
        import xlwings as xw

        book = xw.books.active
    except Exception:  # no Excel here (Linux, a test), or no workbook open
        return {}
    return book_config(book)


def user_xlwings_config() -> Mapping[str, Any]:
    """The user's xlwings.conf file (the one the xlwings ribbon writes), or nothing."""
    try:
        from xlwings import utils

        read: Callable[[], Any] = utils.read_user_config
        return dict(read())
    except Exception:  # xlwings not installed, or an unreadable file
        return {}


def sources(workbook: WorkbookConfig = active_workbook_config) -> list[Source]:
    """Where the session's settings are looked for, first wins."""
    return [
        ("the environment", os.environ),
        ("the workbook's xlwings.conf sheet", workbook()),
        ("your xlwings.conf file", user_xlwings_config()),
    ]


_lock = threading.Lock()
_state: dict[str, ExcelSession] = {}


def current(workbook: WorkbookConfig = active_workbook_config) -> ExcelSession:
    """This process's session, started on first use (the client, then the settings, once)."""
    session = _state.get("session")
    if session is not None:
        return session
    with _lock:
        if "session" not in _state:
            found = sources(workbook)
            _state["session"] = open_session(load_settings(found), found)
        return _state["session"]


def open_session(settings: Settings, found: Sequence[Source]) -> ExcelSession:
    """A session on a new client of `settings`: an answer once stored is served whatever its
    age (`stale_ok`: recalculating, reopening the workbook or restarting Excel never pays
    again), unless the session is set to refresh (REFRESH_KEY), or offline."""
    from profnet_sheets.client.client import Client

    config = session_config(found, settings)
    client = Client(settings=settings.with_changes(stale_ok=not config.refresh))
    return ExcelSession.start(client, config)


def install(
    client: Client, config: SessionConfig | None = None, clock: Callable[[], float] = time.monotonic
) -> ExcelSession:
    """Use this client (and settings) for the formulas of this process: tests, benchmarks,
    or a host application that builds its own client (`clock`: the session's, in seconds)."""
    with _lock:
        _state["session"] = ExcelSession.start(client, config or SessionConfig(), clock)
        return _state["session"]


def current_host() -> Host:
    """The host of this process's session, if one has started; else the desktop."""
    session = _state.get("session")
    return "desktop" if session is None else session.host


def reset() -> None:
    """Forget the session: the next formula starts a new one (and reads the settings again)."""
    with _lock:
        _state.pop("session", None)
