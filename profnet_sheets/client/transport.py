"""The HTTP layer: a plain requests session, the key header (the profile's) put on last, no
redirects, the retry loop of `policy`, each attempt at the service's pace (`pace`). It sends
and reports what happened (`Attempt`); it never decides what is kept, nor what was charged."""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import requests

from profnet_sheets.client.deadline import Deadline, DeadlineAdapter
from profnet_sheets.client.pace import Outcome, Pace
from profnet_sheets.client.policy import (
    NEVER_SENT,
    Failure,
    RetryPolicy,
    parse_retry_after,
    says_out_of_credits,
)
from profnet_sheets.client.spend import Attempt
from profnet_sheets.config import ApiKey, Settings
from profnet_sheets.errors import ServiceError, TransportError
from profnet_sheets.redact import masked, masked_url, shown
from profnet_sheets.spec import Endpoint
from profnet_sheets.words import counted

LOG = logging.getLogger("profnet_sheets")
USER_AGENT = "profnet-sheets"


def is_loopback(base_url: str) -> bool:
    host = urlsplit(base_url).hostname or ""
    return host in ("localhost", "::1") or host.startswith("127.")


class KeyHeader(requests.auth.AuthBase):
    """Puts the key on a request at the last moment, under the profile's key header (the name
    the store redacts): only this object (masked) is in locals. With no key it puts nothing,
    and stands in the way of requests' own: a URL's user info or ~/.netrc sent as Basic auth."""

    def __init__(self, key: ApiKey | None, header: str) -> None:
        self.key = key
        self.header = header

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        if self.key is not None:
            request.headers[self.header] = self.key.reveal()
        return request

    def __repr__(self) -> str:
        return f"KeyHeader({self.header}: {self.key!r})"


@dataclass
class Sent:
    """One answer, from the wire or the HTTP cache: its body parsed once (None: not JSON).
    `expires`: until when a cached one is fresh (unix time); `attempts`: what each attempt of
    the call met (none for a cached answer), for the spend policy to settle."""

    status: int
    text: str
    body: Any
    headers: Mapping[str, str]
    from_cache: bool
    attempts: tuple[Attempt, ...] = ()
    expires: float | None = None
    response: requests.Response | None = None  # from the wire: what the store keeps
    out_of_credits: bool = False  # the answer says the account cannot pay (decided once)


@dataclass(frozen=True)
class _Heard:
    """One attempt's answer: its body parsed once (None: not JSON), and whether it says the
    account cannot pay (`says_out_of_credits`, decided once for the retry, the pace and the
    client)."""

    response: requests.Response
    body: Any
    out_of_credits: bool
    text: str  # the body's text, the key masked where the service quoted it back
    quoted_key: bool = False  # it did: the answer is never kept (the store saves `response`)


class Transport:
    """Sends one call, with retries, at the service's pace and no redirects; the answer,
    whatever it is."""

    def __init__(self, settings: Settings, base_url: str) -> None:
        self.settings = settings
        self.base_url = base_url.rstrip("/")
        # Every call of the client (its views too) shares one pace, under the user's caps.
        self.pace = Pace(settings.concurrency, settings.rate_limit)
        self.session = requests.Session()
        adapter = DeadlineAdapter(
            pool_connections=4, pool_maxsize=max(8, settings.concurrency * 2), max_retries=0
        )
        self.session.mount("http://", adapter)
        self.session.mount("https://", adapter)
        # A proxy, CA bundle or client certificate from the environment for the service;
        # loopback never goes through a proxy.
        self.session.trust_env = not is_loopback(self.base_url)
        self.session.headers.update(
            {
                "User-Agent": USER_AGENT,
                "Accept": "application/json",
                "Accept-Encoding": "gzip, deflate",
                **settings.headers,  # the profile's extra headers (a gateway's own)
            }
        )
        self.key_header = settings.key_header
        self.policy = RetryPolicy(
            retries=settings.retries,
            backoff=settings.backoff,
            max_backoff=settings.max_backoff,
            retry_after_cap=settings.retry_after_cap,
        )
        self.sleep: Callable[[float], None] = time.sleep
        self._random = random.Random()
        # Told after each attempt whether it reached the service; False back: the service is
        # deemed unreachable, and a call that could not connect is not tried again.
        self.reached: Callable[[bool], bool] = lambda reached: True

    def send(
        self,
        endpoint: Endpoint,
        payload: dict[str, Any],
        key: ApiKey | None,
        may_retry: Callable[[Attempt], bool] | None = None,
        attempts: list[Attempt] | None = None,
    ) -> Sent:
        """Make the call, retrying what the retry policy says to; the final answer, whatever its
        status. `key` None sends none (the setup check asks what the service says to a call
        without). `may_retry` is asked before each repeat, with what the attempt met (the
        spend policy's say: one that may have been charged, and the budget); False ends the
        retries there.

        `attempts` (the caller's list, so that it knows them whatever is raised) gets what each
        attempt met as it happens: an attempt under way is there as one that went out with no
        answer yet, until its end says otherwise. Raises TransportError when no answer came.
        """
        attempts = [] if attempts is None else attempts
        while True:
            number = len(attempts)
            attempts.append(Attempt(went_out=True))  # under way: it may reach the service
            answer = self._attempt(endpoint, payload, key)
            attempts.pop()
            if isinstance(answer, str):
                failure: Failure = answer
                # Returned, not raised, by _attempt: the error (which holds the request and its
                # headers) must not ride along as the __context__ of what is raised.
                fact = Attempt(went_out=failure not in NEVER_SENT)
                attempts.append(fact)
                wait = self.policy.after_failure(number, failure, self._random)
                if not self.reached(fact.went_out):
                    wait = None
                held_back = wait is not None and may_retry is not None and not may_retry(fact)
                if wait is None or held_back:
                    raise self._transport_error(endpoint, failure, attempts, held_back)
            else:
                self.reached(True)
                response, body = answer.response, answer.body
                status = response.status_code
                if 300 <= status < 400:
                    raise ServiceError(
                        f"{endpoint.name}: the service answered with a redirect "
                        f"({status}) to {shown(response.headers.get('Location'))}; "
                        "it is not followed, so that the API key is never sent elsewhere. "
                        "Check the base URL (PROFNET_BASE_URL).",
                        endpoint=endpoint.name,
                        status=status,
                    )
                fact = Attempt(went_out=True, status=status)
                attempts.append(fact)
                wait = self.policy.after_status(
                    number,
                    status,
                    response.headers,
                    body,
                    self._random,
                    out_of_credits=answer.out_of_credits,
                )
                if wait is not None and may_retry is not None and not may_retry(fact):
                    wait = None
                if wait is None:
                    return Sent(
                        status,
                        answer.text,
                        body,
                        response.headers,
                        False,
                        tuple(attempts),
                        response=None if answer.quoted_key else response,
                        out_of_credits=answer.out_of_credits,
                    )
            self.sleep(wait)

    def _attempt(
        self, endpoint: Endpoint, payload: dict[str, Any], key: ApiKey | None
    ) -> _Heard | Failure:
        """One attempt when the pace lets it start: the answer, or how it failed; the pace
        learns how it went."""
        ticket = self.pace.acquire()
        outcome: Outcome = "failed"
        retry_after: float | None = None
        deadline = Deadline(self.settings.deadline)
        try:
            with deadline:
                response = self._request(endpoint, payload, key)
        except requests.exceptions.RequestException as error:
            failure = _failure(error, deadline.expired)
            if failure in ("timeout", "deadline"):
                outcome = "timeout"
            return failure
        else:
            text, body = response.text, _json_or_none(response)
            secret = key.reveal() if key is not None else ""
            quoted_key = bool(secret) and response.status_code != 200 and secret in text
            if quoted_key:  # a key quoted back in an error reaches no message, log nor cache
                text = masked(text, (secret,))
                body = _json_or_none_of(text)
            said = body if body is not None else text  # a quota told in plain text
            heard = _Heard(
                response,
                body,
                says_out_of_credits(response.status_code, said),
                text,
                quoted_key,
            )
            outcome, retry_after = self._lesson(heard)
            return heard
        finally:
            self.pace.release(ticket, outcome, retry_after)

    def _lesson(self, heard: _Heard) -> tuple[Outcome, float | None]:
        """What an answer tells the pace: a 429 about speed (with its Retry-After, capped),
        a 5xx nothing, any other answer that the service answered."""
        status = heard.response.status_code
        if status >= 500:
            return "failed", None
        if status != 429:
            return "answered", None
        if heard.out_of_credits:
            return "failed", None  # out of credits: not a question of speed
        wait = parse_retry_after(heard.response.headers.get("Retry-After"))
        return "throttled", None if wait is None else min(wait, self.policy.retry_after_cap)

    def _request(
        self, endpoint: Endpoint, payload: dict[str, Any], key: ApiKey | None
    ) -> requests.Response:
        """One attempt: the key put on last (KeyHeader), no redirect followed."""
        get = endpoint.method == "GET"
        response = self.session.request(
            endpoint.method,
            self.base_url + endpoint.path,
            params=payload if get else None,
            json=None if get else payload,
            auth=KeyHeader(key, self.key_header),  # never None: see KeyHeader
            allow_redirects=False,
            timeout=(self.settings.connect_timeout, self.settings.timeout),
        )
        response.content  # noqa: B018 - read the body now, so a cut connection fails here
        return response

    def _transport_error(
        self, endpoint: Endpoint, failure: Failure, attempts: list[Attempt], held_back: bool
    ) -> TransportError:
        what = {
            "connect": "could not reach the service",
            "refused": "could not reach the service (the connection was refused)",
            "read": "lost the connection while waiting for the answer",
            "timeout": "timed out waiting for the answer (PROFNET_TIMEOUT)",
            "deadline": "timed out waiting for the answer: no whole answer within the call's "
            "deadline (PROFNET_DEADLINE), so it was not tried again",
        }[failure]
        if held_back:
            advice = " It was not retried because the service may already have charged for it."
        else:
            advice = f" Tried {counted(len(attempts), 'time')}."
        error = TransportError(
            f"{endpoint.name}: {what} at {masked_url(self.base_url)}.{advice} "
            "Check the network and PROFNET_BASE_URL, then try again.",
            endpoint=endpoint.name,
            details="connect" if failure in NEVER_SENT else _DETAILS.get(failure, failure),
        )
        error.attempts = tuple(attempts)
        return error

    def close(self) -> None:
        self.session.close()


# An error's details name how it failed: a deadline passed is a timeout there (check and the
# front ends read "connect", "read", "timeout").
_DETAILS: dict[Failure, str] = {"deadline": "timeout"}


def _failure(error: requests.exceptions.RequestException, expired: bool) -> Failure:
    """How an attempt failed: past its deadline (whatever the shut connection raised), a
    connection refused or cut, a timeout; anything else is raised again."""
    if expired:
        return "deadline"
    if isinstance(error, requests.exceptions.ConnectionError):
        if not _never_sent(error):
            return "read"
        return "refused" if "Connection refused" in repr(error) else "connect"
    if isinstance(error, requests.exceptions.Timeout):
        return "timeout"
    if isinstance(
        error, requests.exceptions.ChunkedEncodingError | requests.exceptions.ContentDecodingError
    ):
        return "read"  # cut, or a body that cannot be decoded: it went out, no answer is read
    raise error


def _never_sent(error: Exception) -> bool:
    """True when a connection error happened before the request left (refused, DNS, ...)."""
    text = repr(error)
    return any(
        marker in text
        for marker in (
            "NewConnectionError",
            "Connection refused",
            "NameResolutionError",
            "Failed to establish",
            "ConnectTimeout",
        )
    )


def _json_or_none(response: requests.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def _json_or_none_of(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None
