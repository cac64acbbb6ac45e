"""The HTTP layer: a plain requests session, the key header (the profile's) put on last, no
redirects, each attempt at the service's pace (`pace`): the blocking driver of the attempts
of `call.attempts_of` (the retry loop). It sends and reports what happened (`Attempt`); it
never decides what is kept, nor what was charged."""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import requests

from profnet_sheets.client.call import (
    Action,
    ClaimLost,
    GiveBack,
    Heard,
    Request,
    Sent,
    Turn,
    Wait,
    attempts_of,
    drive,
    heard,
    lesson,
    told,
)
from profnet_sheets.client.deadline import Deadline, DeadlineAdapter
from profnet_sheets.client.outgoing import Outgoing
from profnet_sheets.client.pace import Outcome, Pace, Ticket
from profnet_sheets.client.policy import Failure, RetryPolicy
from profnet_sheets.client.spend import Attempt
from profnet_sheets.config import ApiKey, Settings
from profnet_sheets.spec import Endpoint

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


# Connections kept open to the service at most: urllib3 makes its pool's every slot at once,
# so a concurrency of 10**12 (a typo) filled 10 GB before the first call. Calls beyond it
# still go out, on connections opened for them.
POOL_MOST = 512


class Transport:
    """Sends one call, with retries, at the service's pace and no redirects; the answer,
    whatever it is."""

    def __init__(self, settings: Settings, base_url: str) -> None:
        self.settings = settings
        self.base_url = base_url.rstrip("/")
        # Every call of the client (its views too) shares one pace, under the user's caps.
        self.pace = Pace(settings.concurrency, settings.rate_limit)
        self.session = requests.Session()
        kept = min(POOL_MOST, max(8, settings.concurrency * 2))
        adapter = DeadlineAdapter(pool_connections=4, pool_maxsize=kept, max_retries=0)
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
        self.outgoing = Outgoing(self.session, self.base_url)
        self.key_header = settings.key_header
        self.policy = RetryPolicy(
            retries=settings.retries,
            backoff=settings.backoff,
            max_backoff=settings.max_backoff,
            retry_after_cap=settings.retry_after_cap,
        )
        self.sleep: Callable[[float], None] = self.pace.pause  # a retry's wait: stoppable
        self.rng = random.Random()
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
        flow = attempts_of(
            endpoint,
            payload,
            self.policy,
            self.rng,
            self.base_url,
            self.reached,
            None if may_retry is None else (lambda fact: told(may_retry(fact))),
            attempts,
        )
        return drive(flow, lambda action: self._do(action, key))

    def _do(self, action: Action, key: ApiKey | None) -> Heard | Failure | Ticket | None:
        """An action of the attempts: a turn, one attempt, or a wait before the next."""
        if isinstance(action, Turn):
            return self.turn(action.endpoint)
        if isinstance(action, Request):
            sent_with = None if action.keyless else key
            return self.attempt(action.endpoint, action.payload, sent_with, action.ticket)
        if isinstance(action, GiveBack):
            self.pace.release(action.ticket, "unused")
            return None
        if isinstance(action, Wait):
            self.sleep(action.seconds)
            return None
        raise TypeError(f"not an action of the attempts: {action!r}")  # pragma: no cover

    def turn(self, endpoint: Endpoint, still_ours: Callable[[], bool] = lambda: True) -> Ticket:
        """Wait until the pace lets an attempt start: its ticket. `still_ours` is asked when
        the turn comes (the call's claim): False, and the turn is given back (ClaimLost)."""
        ticket = self.pace.acquire()
        try:
            ours = still_ours()
        except BaseException:  # the claim's store failed: the turn is given back, unused
            self.pace.release(ticket, "unused")
            raise
        if not ours:
            self.pace.release(ticket, "unused")
            raise ClaimLost(f"{endpoint.name}: the call's claim lapsed before its turn came")
        return ticket

    def attempt(
        self, endpoint: Endpoint, payload: dict[str, Any], key: ApiKey | None, ticket: Ticket
    ) -> Heard | Failure:
        """One attempt, its turn taken (`ticket`): the answer, or how it failed; the pace
        learns how it went."""
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
            secret = key.reveal() if key is not None else ""
            answer = heard(response.status_code, response.headers, response.text, secret, response)
            outcome, retry_after = lesson(answer, self.policy.retry_after_cap)
            return answer
        finally:
            self.pace.release(ticket, outcome, retry_after)

    def _request(
        self, endpoint: Endpoint, payload: dict[str, Any], key: ApiKey | None
    ) -> requests.Response:
        """One attempt: the key put on last (KeyHeader), no redirect followed."""
        response = self.session.send(
            self.outgoing.prepare(endpoint, payload, KeyHeader(key, self.key_header)),
            allow_redirects=False,
            timeout=(self.settings.connect_timeout, self.settings.timeout),
            **self.outgoing.environment,
        )
        response.content  # noqa: B018 - read the body now, so a cut connection fails here
        return response

    def close(self) -> None:
        self.session.close()
        self.pace.close()


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


# A TLS handshake that failed (an https:// URL for an http-only server, a certificate not
# trusted): the request is sent only once the handshake is done.
_HANDSHAKE_FAILED = (
    "WRONG_VERSION_NUMBER",
    "wrong version number",
    "CERTIFICATE_VERIFY_FAILED",
    "certificate verify failed",
    "UNKNOWN_PROTOCOL",
    "unknown protocol",
    "TLSV1_ALERT",
    "handshake",
)


def _never_sent(error: Exception) -> bool:
    """True when a connection error happened before the request left (refused, DNS, a TLS
    handshake failed, ...)."""
    text = repr(error)
    if isinstance(error, requests.exceptions.SSLError) and any(
        marker in text for marker in _HANDSHAKE_FAILED
    ):
        return True
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
