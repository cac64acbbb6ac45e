"""What a formula says when something goes wrong: one short line, and what to do about it."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from profnet_sheets.errors import (
    ArgumentError,
    BudgetExceeded,
    ConfigurationError,
    InsufficientCredits,
    InvalidParameter,
    NormalizationError,
    NotFound,
    OfflineMiss,
    ProfnetError,
    SearchError,
    ServiceUnreachable,
    StoppedBuying,
    TransportError,
    Unauthorized,
)
from profnet_sheets.excel.cells import MAX_ERROR_TEXT, error_text
from profnet_sheets.excel.session import BUDGET_KEY, OFFLINE_KEY, STOP_HOLD, Host, current_host
from profnet_sheets.words import command, counted

log = logging.getLogger("profnet_sheets.excel")


@dataclass(frozen=True)
class Remedy:
    """A host's words for what to do: where its settings are changed (`settings`; said after
    a switch's name as `switch_where`), how its Python reads them again, how a refused key
    is replaced."""

    settings: str
    switch_where: str
    restart: str
    new_key: str


RESTART = "then restart the UDF server (xlwings tab; in LibreOffice, LibreOffice itself)"
LITE_SETTINGS = "xlwings Lite > Environment Variables, scope Local"
LITE_RESTART = "then restart xlwings Lite"
REMEDIES: dict[Host, Remedy] = {
    "desktop": Remedy(
        "the environment or your xlwings.conf file; in Excel, also the xlwings.conf sheet",
        "",
        RESTART,
        f"run {command('config --api-key')} (it asks for it), {RESTART} (a changed "
        "environment variable needs Excel itself restarted)",
    ),
    "lite": Remedy(
        LITE_SETTINGS,
        f" ({LITE_SETTINGS})",
        LITE_RESTART,
        f"set PROFNET_API_KEY under {LITE_SETTINGS}, {LITE_RESTART}",
    ),
}


def budget_spent(host: Host = "desktop") -> str:
    remedy = REMEDIES[host]
    return (
        f"the budget of this Excel session is spent: nothing was sent. Raise {BUDGET_KEY} "
        f"({remedy.settings}), {remedy.restart}; what was fetched stays free"
    )


def offline(host: Host = "desktop") -> str:
    remedy = REMEDIES[host]
    return (
        "offline: not in the cache yet. To fetch it (it costs credits), set "
        f"{OFFLINE_KEY} to FALSE{remedy.switch_where}, {remedy.restart}"
    )


def unauthorized(host: Host = "desktop") -> str:
    return f"the service refused the API key: {REMEDIES[host].new_key}"


BUDGET_SPENT = budget_spent()
CAP_WHOSE = "PROFNET_SPENDING_CAP, for every run on this service"
_WAIT = ", or wait for its next period"  # not said of a cap in all
CAP_SPENT = (
    f"the spending cap is reached ({CAP_WHOSE}): "
    f"nothing was sent. Raise it{_WAIT}; what was fetched stays free"
)
OFFLINE = offline()
NOT_FOUND = "not found: check the id, URL or name it was looked up by"
INTERRUPTED = "interrupted before it was fetched: recalculate"


def unreachable(host: Host = "desktop") -> str:
    """A service no attempt got through to; the base URL is checked where `host` keeps it."""
    check = f"PROFNET_BASE_URL ({LITE_SETTINGS})" if host == "lite" else f"({command('check')})"
    return (
        f"the service cannot be reached: check the network and the base URL {check}, then "
        f"recalculate (formulas ask again {STOP_HOLD:g} s after this)"
    )


UNREACHABLE = unreachable()
UNAUTHORIZED = unauthorized()
# How the batch engine words a row's error (batch/engine.py) -> the same words as one key's.
_ENGINE_SERVICE = "service error: "
_ENGINE_CREDITS = "out of credits: "
_ENGINE_NOT_FOUND = "not found"


def message_for(error: BaseException, host: Host | None = None) -> str:
    """The `#PROFNET! ...` text for an error raised while a formula ran, in the words of
    `host` (default: the session's, see `session.current_host`)."""
    return error_text(_explain(error, host or current_host()))


def _explain(error: BaseException, host: Host) -> str:
    if isinstance(error, BudgetExceeded):
        return _over_a_limit(error, host)
    if isinstance(error, OfflineMiss):
        return offline(host)
    if isinstance(error, ArgumentError | SearchError | ConfigurationError):
        return str(error)
    if isinstance(error, InvalidParameter | NormalizationError):
        return f"invalid input: {error}"
    if isinstance(error, NotFound):
        return NOT_FOUND
    if isinstance(error, Unauthorized):
        return unauthorized(host)
    if isinstance(error, InsufficientCredits):
        return out_of_credits(str(error))
    if isinstance(error, ServiceUnreachable) or (
        isinstance(error, TransportError)
        and error.details == "connect"
        and not error.may_have_been_charged
    ):  # nothing was sent: as a row's error says it (batch.marks.error_text)
        return unreachable(host)
    if isinstance(error, StoppedBuying):
        return stopped_buying(error, host)
    if isinstance(error, ProfnetError):  # the service or the network failed
        return service_failed(str(error))
    log.error("unexpected error in a PROFNET formula", exc_info=error)
    return f"unexpected {type(error).__name__}: {error}. Please report it"


def _over_a_limit(error: BudgetExceeded, host: Host) -> str:
    """A formula the budget or the spending cap refused: spent, or this call needing more
    than what is left (then nothing is spent yet: it says so)."""
    from profnet_sheets.client.spend import CAP_SETTING  # not at import: formulas stay light

    cap = error.limit == CAP_SETTING
    if cap and error.unknown:  # a ledger set aside unreadable: the cap cannot be kept
        return cap_unknown(error.unknown)
    whose = _cap_whose(error.team)
    if error.exhausted:
        if not cap:
            return f"{budget_spent(host)} ({error.needed} needed, 0 left)"
        return f"{cap_spent(error.team, error.renews)} ({error.needed} needed, 0 left)"
    needs = f"this needs {error.needed} credits and the"
    if cap:
        return (
            f"{needs} {whose[0]} leaves {error.left} ({whose[1]}): nothing was sent. Raise it"
            + (_WAIT if error.renews else "")
        )
    remedy = REMEDIES[host]
    return (
        f"{needs} budget of this Excel session leaves {error.left}: nothing was sent. Raise "
        f"{BUDGET_KEY} ({remedy.settings}), {remedy.restart}"
    )


def _cap_whose(team: bool) -> tuple[str, str]:
    """The cap's name, and where it is set and whom it holds for: a team's, or this one's."""
    if team:
        return "team cap", "PROFNET_SPENDING_CAP, for every machine on the team's Redis"
    return "spending cap", CAP_WHOSE


def cap_spent(team: bool = False, renews: bool = True) -> str:
    """A cap that leaves nothing in its period: the machine's own, or the team's; `renews`:
    it has a next period to wait for (not a cap in all)."""
    name, whose = _cap_whose(team)
    said = CAP_SPENT.replace("spending cap", name).replace(CAP_WHOSE, whose)
    return said if renews else said.replace(_WAIT, "")


def cap_unknown(file: str) -> str:
    """A cap that cannot be kept, a ledger of its period set aside unreadable (`file`): what
    to do first, the file last (a cell's text is cut short at its end: a long path loses its
    folders first, never the file's name)."""
    said = (
        "the spending cap cannot be kept: this period's spend is unknown, this machine's "
        "ledger set aside unreadable. Nothing was sent; check the spend with the service, then "
        "delete that file and recalculate: "
    )
    room = MAX_ERROR_TEXT - len(said)
    return said + (file if len(file) <= room else "…" + file[-(room - 1) :])


# What a stop that a later recalculation may lift says failed (StoppedBuying.lifted_by).
_FAILED = {"cache": "the cache", "ledger": "the spending ledger"}


def stopped_buying(error: StoppedBuying, host: Host) -> str:
    """A formula that buying stopped for: for a cache or a ledger that failed, that formulas
    try it again and buy once it works; otherwise what to fix before a restart. Whether it
    went out, and what it may have cost, first; the reason, which a long one may cut, last."""
    sent = "nothing was sent"
    if error.sent:
        sent = "it went out, and its answer was not kept"
    if error.possibly_charged:
        sent = (
            f"it went out and may have been charged ({counted(error.possibly_charged, 'credit')}"
            ", counted as possibly spent)"
        )
    failed = " and ".join(_FAILED.get(it, it) for it in error.lifted_by)
    if failed:
        return (
            f"{failed} failed: {sent}. Formulas try it again {STOP_HOLD:g} s after this, and "
            f"buy again once it works ({error.reason})"
        )
    return f"buying stopped: {sent}. Fix what stopped it, {REMEDIES[host].restart} ({error.reason})"


def out_of_credits(detail: str) -> str:
    return f"out of credits at the service: {detail} Recalculate once topped up"


# What the client's messages say of a call whose attempts may have been charged
# (client.call, SpendPolicy.charged_words): a row's error is text, so the text tells.
_MAYBE_CHARGED = ("may have charged", "may have been charged", "may have done, and charged")


def service_failed(detail: str) -> str:
    """A call that failed; when its message says its attempts may have been charged, a
    recalculation's may be too: said so, not that nothing is paid again (a row's error and
    one key's read alike: from the text)."""
    if any(words in detail for words in _MAYBE_CHARGED):
        return (
            f"the service failed: {detail} Recalculate later: it is asked again, and may be "
            "charged again"
        )
    return f"the service failed: {detail} Recalculate later (nothing fetched is paid again)"


def row_message(engine_error: str, host: Host | None = None) -> str:
    """The `#PROFNET! ...` text for a row's error as the batch engine words it: the same
    words as for one key's error (one wording, whether a cell holds one key or a range), in
    the words of `host` (default: the session's)."""
    from profnet_sheets.batch import marks

    fixed = {
        marks.KEY_REFUSED: unauthorized(host or current_host()),
        marks.NOT_FETCHED: BUDGET_SPENT,
        marks.CAP_NOT_FETCHED: CAP_SPENT,
        marks.TEAM_CAP_NOT_FETCHED: cap_spent(team=True),
        marks.CAP_IN_ALL_NOT_FETCHED: cap_spent(renews=False),
        marks.TEAM_CAP_IN_ALL_NOT_FETCHED: cap_spent(team=True, renews=False),
        marks.INTERRUPTED: INTERRUPTED,
        marks.OFFLINE_MISS: OFFLINE,
        marks.UNREACHABLE: unreachable(host or current_host()),
        _ENGINE_NOT_FOUND: NOT_FOUND,
    }
    if engine_error in fixed:
        return error_text(fixed[engine_error])
    unknown = marks.unknown_ledger(engine_error)
    if unknown is not None:
        return error_text(cap_unknown(unknown))
    if engine_error.startswith(_ENGINE_SERVICE):
        return error_text(service_failed(engine_error.removeprefix(_ENGINE_SERVICE)))
    if engine_error.startswith(_ENGINE_CREDITS):
        return error_text(out_of_credits(engine_error.removeprefix(_ENGINE_CREDITS)))
    return error_text(engine_error)
