"""The client's exceptions: one tree, each error carrying endpoint, status, code and details.

    ProfnetError                   anything this library raises on purpose
    ├── InvalidParameter           a parameter is missing or wrong (found before sending, or a 400)
    ├── NormalizationError         a value cannot be what its parameter wants (also a ValueError)
    │   └── NotAKeyError           well formed, but never right for its parameter: never sent
    ├── ArgumentError              a formula's argument cannot work (also a ValueError)
    ├── StoreError                 the cache (a SQLite file, a Redis server) failed
    ├── ConfigurationError         the settings cannot work (bad base URL, unreadable config file)
    │   └── DamagedFile            a cache file SQLite cannot read (`cache clear` starts it anew)
    ├── ApiError                   the service answered with an error
    │   ├── Unauthorized           401: the API key is missing or wrong
    │   ├── InsufficientCredits    402, or a 429 that says the quota is spent (never retried)
    │   ├── NotFound               404: no such company, job, post or search request
    │   ├── SearchNotReady         409: results asked for before the search completed
    │   ├── RateLimited            429 still, after the retries
    │   └── ServiceError           5xx still, after the retries (or an unreadable answer)
    ├── TransportError             no answer: connection refused or cut, timeout (after retries)
    ├── BudgetExceeded             the call would pass the budget; nothing was sent
    ├── StoppedBuying              the client stopped paying for calls: what it buys could not
    │   │                          be kept (the cache failed), or the service's answers cannot
    │   │                          be read; nothing was sent
    │   └── ServiceUnreachable     connections failed again and again: nothing more is sent
    ├── OfflineMiss                offline mode and the answer is not in the cache
    └── SearchError
        ├── SearchFailed           the search job ended `failed`
        └── SearchTimedOut         the search did not complete within the wait's timeout

Every error says what to do next in its message. None ever holds the API key.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


class ProfnetError(Exception):
    """Base of every error the library raises on purpose."""

    def __init__(
        self,
        message: str,
        *,
        endpoint: str | None = None,
        status: int | None = None,
        code: str | None = None,
        details: str | None = None,
        body: Any = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.endpoint = endpoint
        self.status = status
        self.code = code
        self.details = details
        self.body = body

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        fields = ", ".join(
            f"{name}={value!r}"
            for name, value in (
                ("endpoint", self.endpoint),
                ("status", self.status),
                ("code", self.code),
            )
            if value is not None
        )
        return f"{type(self).__name__}({self.message!r}{', ' + fields if fields else ''})"


class InvalidParameter(ProfnetError):  # noqa: N818 - named for what went wrong, as users read it
    """A parameter is missing or has a value the service does not take."""

    def __init__(
        self, message: str, *, parameter: str | None = None, value: Any = None, **context: Any
    ) -> None:
        super().__init__(message, **context)
        self.parameter = parameter
        self.value = value


class NormalizationError(ProfnetError, ValueError):
    """A value that cannot be turned into what the service expects.

    `parameter` names the service parameter it was meant for; `value` is the value refused as it
    was given (for a list, the offending item); the message names that value and says what to do.
    """

    def __init__(self, message: str, parameter: str, value: object) -> None:
        super().__init__(message)
        self.parameter = parameter
        self.value = value

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.message, self.parameter, self.value))


class NotAKeyError(NormalizationError):
    """A well-formed value that cannot be right for what it was given as (a personal e-mail
    domain, the network's own address, a network page on another host): never sent."""


class ArgumentError(ProfnetError, ValueError):
    """An argument that cannot work (a formula's, a method's: a budget of -1, a search kind
    `lead`); the message says what to give instead."""


class StoreError(ProfnetError):
    """The store (a SQLite file, a Redis server) failed: what it says, its place masked."""


class ConfigurationError(ProfnetError):
    """The settings cannot work."""


class TeamCacheUnreachable(ConfigurationError):  # noqa: N818 - named for what is wrong
    """The team's Redis cache (its spend, its cap) cannot be reached or refuses this client."""


class DamagedFile(ConfigurationError):  # noqa: N818 - named for what is wrong, as users read it
    """A cache file that SQLite cannot read: damaged, or another program's. `path` is the file
    (`details`: what SQLite said)."""

    def __init__(self, message: str, *, path: Path, **context: Any) -> None:
        super().__init__(message, **context)
        self.path = path


class ApiError(ProfnetError):
    """The service answered with an error status."""


class Unauthorized(ApiError):  # noqa: N818
    """401: the API key is missing or wrong."""


class InsufficientCredits(ApiError):  # noqa: N818
    """The account's balance cannot cover the call (402, or a 429 about the quota)."""


class NotFound(ApiError):  # noqa: N818
    """404: the company, job, post or search request does not exist."""


class SearchNotReady(ApiError):  # noqa: N818
    """Results were asked for before the search completed."""


class RateLimited(ApiError):  # noqa: N818
    """429 still after the retries."""

    def __init__(self, message: str, *, retry_after: float | None = None, **context: Any) -> None:
        super().__init__(message, **context)
        self.retry_after = retry_after


class ServiceError(ApiError):
    """The service failed (5xx) still after the retries, or its answer could not be read."""


class TransportError(ProfnetError):
    """No answer: the connection was refused or cut, or the call timed out."""

    attempts: tuple[Any, ...] = ()  # what each attempt met (client.spend.Attempt)
    uncertain_attempts: int = 0  # of those, what the spend policy settled as maybe charged
    remedy: str = ""  # the message's last sentence: what to do

    @property
    def may_have_been_charged(self) -> bool:
        """Whether the service may have done (and charged) the call all the same."""
        return self.uncertain_attempts > 0


class BudgetExceeded(ProfnetError):  # noqa: N818
    """The call would pass the budget or the spending cap (`limit`: which one's setting);
    nothing was sent. `exhausted`: the limit leaves nothing (else the call needs more than
    the `left` it leaves), as the spend policy decided. `team`: the cap is a team's (every
    machine on its Redis); `unknown`: the cap cannot be kept, a ledger of its period set
    aside unreadable (that file); `renews`: the cap has a next period (not one in all)."""

    def __init__(
        self,
        message: str,
        *,
        needed: int = 0,
        left: int = 0,
        limit: str = "",
        exhausted: bool = True,
        team: bool = False,
        unknown: str | None = None,
        renews: bool = True,
        **context: Any,
    ) -> None:
        super().__init__(message, **context)
        self.needed = needed
        self.left = left
        self.limit = limit
        self.exhausted = exhausted
        self.team = team
        self.unknown = unknown
        self.renews = renews


class StoppedBuying(ProfnetError):  # noqa: N818
    """The client stopped paying for calls (`reason` says why); nothing was sent, or only the
    attempts before a retry it refused (`possibly_charged`: the credits they may have cost).
    `lifted_by`: what failed ("cache", "ledger"), which a later run finds working before it
    buys again (empty: the stop holds for the client's life). `sent`: this call went out
    (its answer, or an attempt before, met the stop)."""

    def __init__(
        self,
        message: str,
        *,
        reason: str = "",
        lifted_by: tuple[str, ...] = (),
        **context: Any,
    ) -> None:
        super().__init__(message, **context)
        self.reason = reason
        self.lifted_by = lifted_by
        self.possibly_charged = 0
        self.sent = False


class ServiceUnreachable(StoppedBuying):
    """The client stopped sending: the service could not be reached, attempt after attempt."""


class OfflineMiss(ProfnetError):  # noqa: N818
    """Offline mode, and the answer is not in the cache."""


class SearchError(ProfnetError):
    """A search job did not give results."""

    def __init__(self, message: str, *, request_id: str | None = None, **context: Any) -> None:
        super().__init__(message, **context)
        self.request_id = request_id


class SearchFailed(SearchError):  # noqa: N818
    """The search job ended with status `failed`."""


class SearchTimedOut(SearchError):  # noqa: N818
    """The search job did not complete within the timeout of the wait."""


__all__ = [
    "ApiError",
    "ArgumentError",
    "BudgetExceeded",
    "ConfigurationError",
    "DamagedFile",
    "InsufficientCredits",
    "InvalidParameter",
    "NormalizationError",
    "NotAKeyError",
    "NotFound",
    "OfflineMiss",
    "ProfnetError",
    "RateLimited",
    "SearchError",
    "SearchFailed",
    "SearchNotReady",
    "SearchTimedOut",
    "ServiceError",
    "ServiceUnreachable",
    "StoreError",
    "TransportError",
    "Unauthorized",
]
