"""The wire error bodies of section 7, and the ones the spec leaves "not shown" (as decided)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from profnet_sheets.spec.endpoints import Endpoint
from profnet_sheets.spec.schema import INTEGER, STRING, Field, ObjectOf, obj


@dataclass(frozen=True)
class WireError:
    """One kind of error response: its status, its `message` and the shape of its body."""

    status: int
    message: str
    shape: ObjectOf
    documented: bool  # False: the spec does not show it; the choice is in docs/decisions.md


INVALID_PARAMETER = WireError(
    400,
    "invalid_parameter",
    obj(
        "InvalidParameter",
        Field("message", STRING),
        Field("parameter", STRING, required=False, description="Absent on search-jobs"),
        Field("details", STRING),
    ),
    documented=True,
)
UNAUTHORIZED = WireError(
    401,
    "unauthorized",
    obj("Unauthorized", Field("message", STRING), Field("details", STRING)),
    True,
)
NOT_FOUND = WireError(
    404, "not_found", obj("NotFound", Field("message", STRING), Field("details", STRING)), True
)
SERVER_ERROR = WireError(
    500, "error", obj("ServerError", Field("message", STRING), Field("error", STRING)), True
)
INSUFFICIENT_CREDITS = WireError(
    402,
    "insufficient_credits",
    obj(
        "InsufficientCredits",
        Field("message", STRING),
        Field("details", STRING),
        Field("required", INTEGER, required=False),
        Field("balance", INTEGER, required=False),
    ),
    documented=False,
)
SEARCH_NOT_COMPLETED = WireError(
    409,
    "search_not_completed",
    obj(
        "SearchNotCompleted",
        Field("message", STRING),
        Field("details", STRING),
        Field("status", STRING, required=False),
    ),
    documented=False,
)
RATE_LIMITED = WireError(
    429,
    "rate_limited",
    obj("RateLimited", Field("message", STRING), Field("details", STRING)),
    False,
)
SERVICE_UNAVAILABLE = WireError(
    503,
    "service_unavailable",
    obj("ServiceUnavailable", Field("message", STRING), Field("details", STRING)),
    documented=False,
)

WIRE_ERRORS: tuple[WireError, ...] = (
    INVALID_PARAMETER,
    UNAUTHORIZED,
    INSUFFICIENT_CREDITS,
    NOT_FOUND,
    SEARCH_NOT_COMPLETED,
    RATE_LIMITED,
    SERVER_ERROR,
    SERVICE_UNAVAILABLE,
)
BY_STATUS: dict[int, WireError] = {error.status: error for error in WIRE_ERRORS}

GEOCODE_TIMEOUT = "Timeout while waiting for geocode results"
# Statuses whose answer is read whatever its body: a refused key, a balance or quota, a rate
# limit (often told in plain text by a gateway), a search not finished.
READ_IN_ANY_FORM = frozenset({401, 402, 409, 429})


def is_foreign(status: int, body: Any) -> bool:
    """Whether a 4xx answer is not the service's own: its body is not the JSON error body of
    section 7 (the documented `message` of a 400 or a 404; a string `message` for the others).
    An HTML 404 page of a web server at a wrong path is foreign; `{"message": "not_found"}` is
    the service saying so."""
    if not 400 <= status < 500 or status in READ_IN_ANY_FORM:
        return False
    message = body.get("message") if isinstance(body, dict) else None
    known = BY_STATUS.get(status)
    if known is not None and known.documented:
        return message != known.message
    return not isinstance(message, str)


def invalid_parameter(parameter: str | None, details: str) -> dict[str, Any]:
    """400: a parameter is missing or wrong; `parameter` None leaves the field out (search-jobs)."""
    body: dict[str, Any] = {"message": INVALID_PARAMETER.message}
    if parameter is not None:
        body["parameter"] = parameter
    body["details"] = details
    return body


def as_answered_by(endpoint: Endpoint, body: dict[str, Any]) -> dict[str, Any]:
    """An error `body` as `endpoint` answers it: section 7 leaves `parameter` out on search-jobs,
    whatever the cause of the 400."""
    if endpoint.names_parameter or "parameter" not in body:
        return body
    return {name: value for name, value in body.items() if name != "parameter"}


def unauthorized(header: str, *, sent: bool) -> dict[str, Any]:
    """401: no key came in the key header `header`, or one that is not known (`sent`): the
    details say which (decisions.md, "The service profile"), so that a setup check tells them
    apart."""
    details = (
        f"Invalid API key: the key sent in the {header} header is not known."
        if sent
        else f"Missing API key: send it in the {header} header."
    )
    return {"message": UNAUTHORIZED.message, "details": details}


def missing_header(header: str) -> dict[str, Any]:
    """401: a header the service requires besides the key (a gateway's own) is missing or
    not the one it expects (decisions.md, "The service profile")."""
    details = f"Missing or wrong {header} header: this service requires it with every request."
    return {"message": UNAUTHORIZED.message, "details": details}


def not_found(details: str) -> dict[str, Any]:
    """404: unknown search request, job posting or post."""
    return {"message": NOT_FOUND.message, "details": details}


def server_error(error: str) -> dict[str, Any]:
    """500: the service failed (for instance a geocode timeout)."""
    return {"message": SERVER_ERROR.message, "error": error}


def insufficient_credits(required: int, balance: int) -> dict[str, Any]:
    """402 (decided): the balance cannot cover the call; nothing was charged."""
    return {
        "message": INSUFFICIENT_CREDITS.message,
        "details": (
            f"This call costs {required} credit{'' if required == 1 else 's'} "
            f"and the balance is {balance}."
        ),
        "required": required,
        "balance": balance,
    }


def search_not_completed(status: str) -> dict[str, Any]:
    """409 (decided): results were asked for before the search completed."""
    return {
        "message": SEARCH_NOT_COMPLETED.message,
        "details": f"The search is {status}; read results only once its status is completed.",
        "status": status,
    }


def rate_limited(retry_after: float | None) -> dict[str, Any]:
    """429 (decided): too many requests; retry after the Retry-After header's seconds (when
    the plan sends one)."""
    later = "slow down" if retry_after is None else f"retry after {retry_after:g} seconds"
    return {"message": RATE_LIMITED.message, "details": f"Too many requests; {later}."}


def service_unavailable(details: str = "The service is temporarily unavailable.") -> dict[str, Any]:
    """503 (decided): a transient outage."""
    return {"message": SERVICE_UNAVAILABLE.message, "details": details}


def statuses(endpoint: Endpoint) -> tuple[int, ...]:
    """Every status the sandbox may answer on `endpoint`: documented ones and decided ones."""
    found = {200, 400, 401, 429, 500, 503, *endpoint.statuses}
    if endpoint.price.kind != "free":
        found.add(402)
    if endpoint.not_found is not None:
        found.add(404)
    if endpoint.search_role == "results":
        found.add(409)
    return tuple(sorted(found))
