"""What a formula says when something goes wrong: one short line, and what to do about it."""

from __future__ import annotations

import logging

from profnet_sheets.client.normalize import NormalizationError
from profnet_sheets.errors import (
    BudgetExceeded,
    ConfigurationError,
    InsufficientCredits,
    InvalidParameter,
    NotFound,
    OfflineMiss,
    ProfnetError,
    SearchError,
    Unauthorized,
)
from profnet_sheets.excel.cells import error_text
from profnet_sheets.excel.session import BUDGET_KEY, OFFLINE_KEY

log = logging.getLogger("profnet_sheets.excel")

RESTART = "then restart the UDF server (xlwings tab)"
BUDGET_SPENT = (
    f"the budget of this Excel session is spent: nothing was sent. Raise {BUDGET_KEY} "
    f"(xlwings.conf sheet or environment), {RESTART}; what was fetched stays free"
)
OFFLINE = (
    f"offline: not in the cache yet. Set {OFFLINE_KEY} to FALSE to fetch it (it costs credits)"
)
NOT_FOUND = "not found"


class ArgumentError(ValueError):
    """A formula argument that cannot work; the message says what to give instead."""


def message_for(error: BaseException) -> str:
    """The `#PROFNET! ...` text for an error raised while a formula ran."""
    return error_text(_explain(error))


def _explain(error: BaseException) -> str:
    if isinstance(error, BudgetExceeded):
        return f"{BUDGET_SPENT} ({error.needed} needed, {error.left} left)"
    if isinstance(error, OfflineMiss):
        return OFFLINE
    if isinstance(error, ArgumentError | SearchError | ConfigurationError):
        return str(error)
    if isinstance(error, InvalidParameter | NormalizationError):
        return f"invalid input: {error}"
    if isinstance(error, NotFound):
        return NOT_FOUND
    if isinstance(error, Unauthorized):
        return (
            "the service refused the API key: set PROFNET_API_KEY (or run profnet-sheets "
            f"config --api-key ...), {RESTART}"
        )
    if isinstance(error, InsufficientCredits):
        return f"out of credits at the service: {error}"
    if isinstance(error, ProfnetError):  # the service or the network failed
        return f"the service failed: {error} Recalculate later (nothing fetched is paid again)"
    log.error("unexpected error in a PROFNET formula", exc_info=error)
    return f"unexpected {type(error).__name__}: {error}. Please report it"


def row_message(engine_error: str) -> str:
    """The `#PROFNET! ...` text for a row's error as the batch engine words it."""
    from profnet_sheets.batch.engine import (  # polars: ranges only
        INTERRUPTED,
        NOT_FETCHED,
        OFFLINE_MISS,
    )

    if engine_error == NOT_FETCHED:
        return error_text(BUDGET_SPENT)
    if engine_error == INTERRUPTED:
        return error_text("interrupted before it was fetched: recalculate")
    if engine_error == OFFLINE_MISS:
        return error_text(OFFLINE)
    return error_text(engine_error)
