"""Pure decisions of the request layer: retry or not and how long to wait, what an answer means."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any, Literal

from profnet_sheets import errors
from profnet_sheets.client.answers import unfinished
from profnet_sheets.config import Settings
from profnet_sheets.redact import clipped
from profnet_sheets.spec import Endpoint
from profnet_sheets.spec.errors import is_foreign
from profnet_sheets.words import command

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
# A 429 without Retry-After is retried no sooner than this: a per-second limit's window.
RATE_WINDOW = 1.0
# Words of a balance that cannot pay: out of credits, whatever else the answer says.
_NO_CREDITS = re.compile(
    r"out of credits|no credits left|insufficient[ _](credits?|balance|funds)"
    r"|credits? (are |is )?(exhausted|used up|spent)|balance (is )?too low",
    re.IGNORECASE,
)
# Words of a quota of a long period (a month's, a day's, a plan's): out of credits until it
# renews, whatever else the answer says ("Too many requests: monthly quota exceeded").
_LONG_QUOTA = re.compile(
    r"\b(month|monthly|day|daily|year|yearly|annual|plan'?s?)\W+(\w+\W+)?quota"
    r"|quota\b.*\b(month|day|year|plan)\b",
    re.IGNORECASE,
)
# Words of a number of calls per time: a rate limit, retried after it, even when worded as a
# quota ("per-second request quota exceeded", "rate quota exceeded, retry in 1s").
_PER_TIME = re.compile(
    r"\brate\b|per[- ]?(second|sec|minute|min)\b|/\s?(s|sec|second|min|minute)\b"
    r"|requests? per\b|(retry|try again) (in|after)\b|slow down",
    re.IGNORECASE,
)
# Words of any other quota or plan used up: out of credits.
_QUOTA = re.compile(r"quota|plan limit", re.IGNORECASE)

# "deadline": the attempt took its whole total deadline (PROFNET_DEADLINE) without a whole answer
Failure = Literal["connect", "refused", "read", "timeout", "deadline"]
NEVER_SENT: frozenset[Failure] = frozenset({"connect", "refused"})  # safe to repeat, unpaid
# A refused connection is the host's own answer that nothing listens at that address: tried
# again once (a server restarting), not with every retry (decision 234).
REFUSED_RETRIES = 1


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently to retry; `decide` says what to do after one attempt."""

    retries: int = 4
    backoff: float = 0.5
    max_backoff: float = 30.0
    retry_after_cap: float = 60.0

    def wait_before(self, attempt: int, rng: random.Random | None = None) -> float:
        """Exponential backoff with full jitter: a random wait up to backoff * 2**attempt."""
        ceiling = min(self.max_backoff, self.backoff * 2**attempt)
        return (rng or random).uniform(ceiling / 2, ceiling)

    def after_status(
        self,
        attempt: int,
        status: int,
        headers: Any,
        body: Any,
        rng: random.Random | None = None,
        *,
        out_of_credits: bool | None = None,
    ) -> float | None:
        """Seconds to wait before trying again after an error status, or None: do not retry.

        Whether an attempt that may have been charged may be repeated is the spend policy's
        to say (`SpendPolicy.may_repeat`), not this one's. `out_of_credits`:
        `says_out_of_credits` of this answer, when the caller decided it already (else decided
        here from `body`).
        """
        if status not in RETRY_STATUSES or attempt >= self.retries:
            return None
        spent = says_out_of_credits(status, body) if out_of_credits is None else out_of_credits
        if status == 429 and spent:
            return None
        retry_after = parse_retry_after(headers.get("Retry-After") if headers else None)
        if retry_after is not None:
            return min(retry_after, self.retry_after_cap)
        if status == 429:
            return max(RATE_WINDOW, self.wait_before(attempt, rng))
        return self.wait_before(attempt, rng)

    def after_failure(
        self, attempt: int, failure: Failure, rng: random.Random | None = None
    ) -> float | None:
        """Seconds to wait after a transport failure, or None: do not retry.

        A refused connection is repeated only REFUSED_RETRIES times. One that took its whole
        deadline is never repeated: the deadline bounds the call, and another attempt would
        take as long. Whether one that may have been read (and charged) may be repeated is the
        spend policy's to say (`SpendPolicy.may_repeat`).
        """
        if failure == "deadline":
            return None
        if attempt >= self.retries or (failure == "refused" and attempt >= REFUSED_RETRIES):
            return None
        return self.wait_before(attempt, rng)


def longest_call(settings: Settings) -> float:
    """The most seconds one call can take, its retries and their waits included (at most 30
    minutes): how long a claim or a reservation of it may be waited on."""
    longest_wait = max(settings.retry_after_cap, settings.max_backoff)
    attempts = settings.retries + 1
    return min(1800.0, (settings.deadline + longest_wait) * attempts)  # connecting included


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (a number of seconds or an HTTP date)."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        from datetime import UTC, datetime

        moment = parsedate_to_datetime(value)
        return max(0.0, (moment - datetime.now(UTC)).total_seconds())
    except (TypeError, ValueError):
        return None


def says_out_of_credits(status: int, body: Any) -> bool:
    """Whether an answer says the account cannot pay: a 402, or a 429 about spent credits or a
    used-up quota (`is_quota_exhausted`). Decided once per answer (the transport's `Sent`
    carries it); a 429 about speed is a rate limit."""
    return status == 402 or (status == 429 and is_quota_exhausted(body))


def is_quota_exhausted(body: Any) -> bool:
    """A 429 that is about the quota or credits, not about speed (field notes: marketplaces).

    An explicit `insufficient_credits` code, words of a balance that cannot pay or of a quota
    of a long period ("monthly quota exhausted") decide; then words of calls per time make it
    a rate limit ("per-second request quota exceeded", "you have exceeded your rate limit",
    "retry in 1s"); then any other word of a quota or plan limit makes it out of credits.
    """
    if isinstance(body, dict) and body.get("message") == "insufficient_credits":
        return True
    text = " ".join(str(v) for v in body.values()) if isinstance(body, dict) else str(body or "")
    if _NO_CREDITS.search(text) or _LONG_QUOTA.search(text):
        return True
    return not _PER_TIME.search(text) and bool(_QUOTA.search(text))


def error_for(
    endpoint: Endpoint,
    status: int,
    body: Any,
    headers: Any = None,
    *,
    charged: str = "",
    out_of_credits: bool | None = None,
) -> errors.ProfnetError:
    """The exception for an error answer, with a message that says what to do (`charged`:
    the spend policy's words on what it may have cost, `SpendPolicy.charged_words`;
    `out_of_credits`: what `says_out_of_credits` decided of this answer, when it was)."""
    body_dict = body if isinstance(body, dict) else {}
    code = body_dict.get("message")
    details = body_dict.get("details") or body_dict.get("error")
    context: dict[str, Any] = {
        "endpoint": endpoint.name,
        "status": status,
        "code": code if isinstance(code, str) else None,
        "details": details if isinstance(details, str) else None,
        "body": body,
    }
    said = f" The service said: {_sentence(clipped(str(details)))}" if details else ""
    if is_foreign(status, body):
        page = clipped(" ".join(str(body).split()), 80)
        return errors.ServiceError(
            f"{endpoint.name}: HTTP {status} with a page that is not the service's answer "
            f"({page!r}): the base URL may name the wrong path. Check it with "
            f"`{command('check')}`.",
            **context,
        )
    if status == 409 or code == "search_not_completed" or unfinished(endpoint, body):
        return errors.SearchNotReady(
            f"{endpoint.name}: the search has not completed yet.{said} Wait for it first.",
            **context,
        )
    if status == 400:
        parameter = body_dict.get("parameter")
        named = f" ({parameter})" if parameter else ""
        return errors.InvalidParameter(
            f"{endpoint.name} refused a parameter{named}.{said}",
            parameter=parameter if isinstance(parameter, str) else None,
            **context,
        )
    if status == 401:
        return errors.Unauthorized(
            f"{endpoint.name}: the service refused the API key. Check PROFNET_API_KEY (or the "
            "api_key you passed, or the config file).",
            **context,
        )
    retry_after = parse_retry_after(headers.get("Retry-After")) if headers else None
    if says_out_of_credits(status, body) if out_of_credits is None else out_of_credits:
        return errors.InsufficientCredits(
            f"{endpoint.name}: the account has no credits left for this call.{said} "
            "Top up the account, or lower what you ask for.",
            **context,
        )
    if status == 404:
        return errors.NotFound(f"{endpoint.name}: not found.{said}", **context)
    if status == 429:
        return errors.RateLimited(
            f"{endpoint.name}: still rate limited after retrying.{said} Lower the concurrency "
            "(PROFNET_CONCURRENCY) or the rate of calls (PROFNET_RATE_LIMIT), or try again "
            "later.",
            retry_after=retry_after,
            **context,
        )
    return errors.ServiceError(
        f"{endpoint.name}: the service failed with HTTP {status}.{said}{charged} Try again later.",
        **context,
    )


def _sentence(text: str) -> str:
    """`text` ending as a sentence does, for what follows it (the service's own words may
    not: `Timeout while waiting for geocode results`)."""
    return text if text.endswith((".", "!", "?", "…")) else f"{text}."
