"""What a key without an answer says: one wording for the batch engine's error column and the
`lookup` command's JSON (no polars: the command line's lookups do not load it)."""

from __future__ import annotations

from profnet_sheets.client.spend import CAP_SETTING, NO_ANSWER
from profnet_sheets.errors import (
    BudgetExceeded,
    InsufficientCredits,
    InvalidParameter,
    NotFound,
    OfflineMiss,
    ProfnetError,
    ServiceUnreachable,
    StoppedBuying,
    TransportError,
    Unauthorized,
)
from profnet_sheets.words import command

NOT_FETCHED = "budget reached: not fetched (raise the budget and run again; those done are free)"
CAP_NOT_FETCHED = (
    "spending cap reached: not fetched (raise the cap, or wait for its next period, and run "
    "again; those done are free)"
)
TEAM_CAP_NOT_FETCHED = (
    "team cap reached: not fetched (the spending cap every machine on the team's Redis shares; "
    "raise it, or wait for its next period, and run again; those done are free)"
)
# A cap in all (`PROFNET_SPENDING_CAP=500`) has no next period to wait for.
CAP_IN_ALL_NOT_FETCHED = (
    "spending cap reached: not fetched (raise the cap and run again; those done are free)"
)
TEAM_CAP_IN_ALL_NOT_FETCHED = (
    "team cap reached: not fetched (the spending cap every machine on the team's Redis shares; "
    "raise it and run again; those done are free)"
)
CAP_UNKNOWN = "spending cap cannot be kept"  # a ledger of its period set aside unreadable
_CAP_UNKNOWN_HEAD = (
    f"{CAP_UNKNOWN}: not fetched (this period's spend is unknown: check it with the service, "
    "then delete the ledger set aside unreadable and run again; those done are free): "
)
INTERRUPTED = "interrupted: not fetched (run again; those done are free)"
# The starts of the errors of keys a limit left not fetched (the budget, the spending cap).
LIMIT_REACHED = ("budget reached", "spending cap reached", "team cap reached", CAP_UNKNOWN)
# The starts of the errors of keys not done (not failed): a budget, credits, a stop, Ctrl-C.
NOT_DONE = (
    *LIMIT_REACHED,
    "interrupted",
    "not fetched",
    "out of credits",
)
SERVICE_ERROR = "service error"  # the start of a key's error when its call failed
OFFLINE_MISS = "offline: not in the cache (run online to fetch it)"
KEY_REFUSED = (
    "not fetched: the service refused the API key (check it: "
    f"{command('check')}; those done are free)"
)
UNREACHABLE = (
    "not fetched: the service could not be reached (check the network and the base URL: "
    f"{command('check')}; those done are free)"
)


def not_fetched(
    limit: str, team: bool = False, unknown: str | None = None, renews: bool = True
) -> str:
    """What a key not fetched because of a limit says (`limit`: the limit's setting; `team`:
    a cap the team's Redis holds; `unknown`: the unreadable ledger a cap cannot count past;
    `renews`: the cap has a next period, not a cap in all)."""
    if limit != CAP_SETTING:
        return NOT_FETCHED
    if unknown:
        return _CAP_UNKNOWN_HEAD + unknown  # the file last: a cell's text is cut at its end
    if team:
        return TEAM_CAP_NOT_FETCHED if renews else TEAM_CAP_IN_ALL_NOT_FETCHED
    return CAP_NOT_FETCHED if renews else CAP_IN_ALL_NOT_FETCHED


def unknown_ledger(error: str) -> str | None:
    """The unreadable ledger a key's error says the spending cap cannot count past, or None."""
    return error.removeprefix(_CAP_UNKNOWN_HEAD) if error.startswith(_CAP_UNKNOWN_HEAD) else None


def is_not_done(error: str | None) -> bool:
    """Whether a key's error says it was not done (never fetched: a limit, a stop, Ctrl-C),
    rather than done with an error (not found, invalid, the service failed)."""
    return error is not None and error.startswith(NOT_DONE)


def error_text(error: ProfnetError) -> str:
    """What a key whose call raised `error` says (`not found`, `budget reached: ...`)."""
    if isinstance(error, InvalidParameter):
        return f"invalid input: {error}"
    if isinstance(error, NotFound):
        return "not found"
    if isinstance(error, BudgetExceeded):
        return not_fetched(error.limit, error.team, error.unknown, error.renews)
    if isinstance(error, StoppedBuying) and error.possibly_charged:
        return f"{SERVICE_ERROR}: {error}"  # its retry refused: an attempt went out before
    if isinstance(error, ServiceUnreachable) and error.reason.startswith(NO_ANSWER):
        return f"not fetched: {error.reason} (run again; those done are free)"
    if isinstance(error, ServiceUnreachable) or (
        isinstance(error, TransportError)
        and error.details == "connect"
        and not error.may_have_been_charged
    ):
        return UNREACHABLE  # nothing was sent
    if isinstance(error, Unauthorized):
        return KEY_REFUSED
    if isinstance(error, StoppedBuying):
        # whether those done are free (a failed cache may not keep them): the summary says
        return f"not fetched: {error.reason} (run again once fixed)"
    if isinstance(error, OfflineMiss):
        return OFFLINE_MISS
    if isinstance(error, InsufficientCredits):
        return f"out of credits: {error}"
    return f"{SERVICE_ERROR}: {error}"
