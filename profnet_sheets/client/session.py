"""The only place that builds and uses the HTTP session: cache, redaction, retries, rate limit."""

from __future__ import annotations

import hashlib
import json
import logging
import random
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import requests
import requests_cache
from requests.adapters import HTTPAdapter
from requests.hooks import default_hooks
from requests.structures import CaseInsensitiveDict
from requests.utils import requote_uri
from requests_cache.backends.base import BaseCache

from profnet_sheets.client.memo import canonical_json
from profnet_sheets.client.policy import (
    MAYBE_DONE_STATUSES,
    Failure,
    RetryPolicy,
    fresh_for,
    is_risky,
    unfinished,
)
from profnet_sheets.client.store import open_backend, open_claims, read_stored, save_answer
from profnet_sheets.config import ApiKey, Settings
from profnet_sheets.errors import ServiceError, TransportError
from profnet_sheets.spec import API_KEY_HEADER, Endpoint
from profnet_sheets.spec.endpoints import BY_PATH, is_answer
from profnet_sheets.words import counted

LOG = logging.getLogger("profnet_sheets")
CACHED_STATUSES = (200, 404)
USER_AGENT = "profnet-sheets"
KEY_VERSION = "k1"  # change it when call_key changes: old entries then simply miss
# requests-cache redacts ignored parameters from what it stores, matching names exactly: the
# key is always sent under exactly this header name (field notes), and never stored.
IGNORED_PARAMETERS = (*requests_cache.DEFAULT_IGNORED_PARAMS, API_KEY_HEADER)


def account_of(request: Any) -> str:
    """A one-way digest of the request's key: search jobs belong to one account."""
    key = request.headers.get(API_KEY_HEADER, "")
    return hashlib.sha256(str(key).encode()).hexdigest()[:12]


def call_key(service: str, endpoint: Endpoint, payload: Mapping[str, Any], account: str) -> str:
    """The HTTP cache's key of a call: the service, the endpoint and the parameters as sent.

    It names the service, not the host and port (the embedded sandbox moves port every run).
    Search jobs are an account's own: their keys also name the account (a one-way digest of
    the key), so that a team sharing one cache never reuses another member's job. Cheap to
    compute (no URL normalisation), so that a plan can ask the store about thousands of calls.
    """
    sent = {k: str(v) for k, v in payload.items()} if endpoint.method == "GET" else payload
    owner = account if endpoint.search else ""
    text = "|".join((KEY_VERSION, service, owner, endpoint.name, canonical_json(dict(sent))))
    return hashlib.sha256(text.encode()).hexdigest()[:40]


def cache_key_function(service: str) -> Callable[..., str]:
    """requests-cache key function: `call_key` of the request being sent."""

    def key(request: Any, **kwargs: Any) -> str:
        parts = urlsplit(request.url)
        endpoint = BY_PATH.get(parts.path)
        if endpoint is None:
            return requests_cache.create_key(request, **kwargs)
        if endpoint.method == "GET":
            payload: Any = dict(parse_qsl(parts.query, keep_blank_values=True))
        else:
            body = request.body or b"{}"
            payload = json.loads(body.decode() if isinstance(body, bytes) else body)
        return call_key(service, endpoint, payload, account_of(request))

    return key


def storable(endpoint: Endpoint, status: int, body: Any) -> bool:
    """Only real answers go into the HTTP cache: the service's own 404 (a JSON error body, not
    a gateway's page), or a 200 that holds the answer. A results page is kept only when it
    holds results: an empty one costs nothing to ask again, and one answered before its search
    completed must not stand for the finished search's."""
    if status == 404:
        return isinstance(body, dict)
    if status != 200 or not is_answer(endpoint, body):
        return False
    return endpoint.search_role != "results" or (
        bool(body.get("results")) and not unfinished(endpoint, body)
    )


def build_session(settings: Settings, service: str) -> requests_cache.CachedSession:
    """requests-cache's session, which configures the store: our keys, the key header redacted.

    Answers are not sent through it: the client asks the store itself (under the key's lock),
    sends through a plain adapter and saves what is `storable`, with the expiry of `fresh_for`.
    That skips requests-cache's per-request work (building a key from the request, reading
    Cache-Control, deciding what to do), which the client has already decided: ~0.6 ms a call.
    """
    session = requests_cache.CachedSession(
        backend=open_backend(settings, service),
        allowable_codes=CACHED_STATUSES,
        allowable_methods=("GET", "POST"),
        ignored_parameters=IGNORED_PARAMETERS,
        match_headers=False,
        key_fn=cache_key_function(service),
        stale_if_error=False,
    )
    session.headers["User-Agent"] = USER_AGENT
    return session


def is_loopback(base_url: str) -> bool:
    host = urlsplit(base_url).hostname or ""
    return host in ("localhost", "::1") or host.startswith("127.")


class RateLimiter:
    """At most `rate` requests per second leave this process (a token bucket, thread-safe)."""

    def __init__(self, rate: float | None) -> None:
        self.rate = rate
        self._lock = threading.Lock()
        self._next = 0.0

    def wait(self) -> None:
        if not self.rate:
            return
        with self._lock:
            now = time.monotonic()
            slot = max(now, self._next)
            self._next = slot + 1.0 / self.rate
        if slot > now:
            time.sleep(slot - now)


class LimitedAdapter(HTTPAdapter):
    """Paces requests that really go out; cache hits never reach an adapter, so never wait."""

    def __init__(self, limiter: RateLimiter, **options: Any) -> None:
        super().__init__(**options)
        self.limiter = limiter

    def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> Any:
        self.limiter.wait()
        return super().send(request, *args, **kwargs)


class KeyHeader(requests.auth.AuthBase):
    """Puts the key on a request at the last moment: only this object (masked) is in locals."""

    def __init__(self, key: ApiKey) -> None:
        self.key = key

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        request.headers[API_KEY_HEADER] = self.key.reveal()
        return request

    def __repr__(self) -> str:
        return f"KeyHeader({self.key!r})"


@dataclass
class Sent:
    """One answer, from the wire or the HTTP cache: its body parsed once (None: not JSON).
    `expires`: until when a cached one is fresh (unix time); `uncertain`: attempts that may
    have been charged without an answer (lost after the request went out, or a 500, 502 or
    504, after which the service may have done the work)."""

    status: int
    text: str
    body: Any
    headers: Mapping[str, str]
    from_cache: bool
    attempts: int
    uncertain: int = 0
    expires: float | None = None


def prepare_request(
    base_url: str, endpoint: Endpoint, payload: dict[str, Any], headers: Mapping[str, str]
) -> requests.PreparedRequest:
    """The request requests' `PreparedRequest.prepare` makes for this call (a test compares
    them), built directly: the base URL is already clean, the parameters are plain values, no
    cookie or hook is ever used; ~0.1 ms less a call."""
    prepared = requests.PreparedRequest()
    prepared.method = endpoint.method
    prepared.headers = CaseInsensitiveDict(headers)
    prepared.hooks = default_hooks()
    prepared.prepare_cookies(None)  # an empty jar, as requests makes (requests-cache reads it)
    url = base_url + endpoint.path
    if endpoint.method == "GET":
        query = urlencode(list(payload.items()), doseq=True)
        prepared.url = requote_uri(f"{url}?{query}" if query else url)
        prepared.body = None
    else:
        body = json.dumps(payload, allow_nan=False).encode("utf-8")
        prepared.url = requote_uri(url)
        prepared.body = body
        prepared.headers["Content-Type"] = "application/json"
        prepared.headers["Content-Length"] = str(len(body))
    return prepared


class Transport:
    """Sends one call, with retries, the rate limit and no redirects; keeps real answers."""

    def __init__(self, settings: Settings, base_url: str, service: str) -> None:
        self.settings = settings
        self.base_url = base_url.rstrip("/")
        self.service = service
        self.session = build_session(settings, service)
        self.cache: BaseCache = self.session.cache
        self.claims = open_claims(settings, service, self.cache)
        self.limiter = RateLimiter(settings.rate_limit)
        self.adapter = LimitedAdapter(
            self.limiter,
            pool_connections=4,
            pool_maxsize=max(8, settings.concurrency * 2),
            max_retries=0,
        )
        self.session.mount("http://", self.adapter)
        self.session.mount("https://", self.adapter)
        # What requests would take from the environment for this service: its proxy, CA
        # bundle and client certificate. Loopback never goes through a proxy.
        self.wire_options: dict[str, Any] = {"proxies": {}, "verify": True, "cert": None}
        if not is_loopback(self.base_url):
            found = self.session.merge_environment_settings(self.base_url, {}, False, None, None)
            self.wire_options = {name: found[name] for name in ("proxies", "verify", "cert")}
        self.headers = {
            "User-Agent": USER_AGENT,
            "Accept": "application/json",
            "Accept-Encoding": "gzip, deflate",
        }
        self.policy = RetryPolicy(
            retries=settings.retries,
            backoff=settings.backoff,
            max_backoff=settings.max_backoff,
            retry_after_cap=settings.retry_after_cap,
        )
        self.sleep: Callable[[float], None] = time.sleep
        self._random = random.Random()
        self._last_key = threading.local()

    def key_of(self, endpoint: Endpoint, payload: dict[str, Any], key: ApiKey) -> str:
        """`call_key` of this call; one call asks for it several times (store, claim, save),
        so each thread keeps its last one."""
        last = getattr(self._last_key, "value", None)
        if last is not None and last[0] is endpoint and last[1] is key and last[2] == payload:
            return str(last[3])
        found = call_key(self.service, endpoint, payload, key.fingerprint)
        self._last_key.value = (endpoint, key, dict(payload), found)
        return found

    def claim(self, endpoint: Endpoint, payload: dict[str, Any], key: ApiKey) -> Any:
        """The claim on this call across processes sharing the cache (a context manager)."""
        return self.claims.hold(self.key_of(endpoint, payload, key))

    def forget(self, endpoint: Endpoint, payload: dict[str, Any], key: ApiKey) -> None:
        """Drop this call's answer from the HTTP cache's store."""
        self.cache.delete(self.key_of(endpoint, payload, key))

    def stored(
        self, endpoint: Endpoint, payload: dict[str, Any], key: ApiKey, *, stale_ok: bool = False
    ) -> Sent | None:
        """The fresh answer (with `stale_ok`, any answer) the HTTP cache's store holds for this
        call, read straight by key (no request built), or None."""
        cache_key = self.key_of(endpoint, payload, key)
        stored = read_stored(self.cache, cache_key, stale_ok=stale_ok)
        if stored is None or stored.status not in CACHED_STATUSES:
            return None
        body = _json_text_or_none(stored.text)
        return Sent(stored.status, stored.text, body, stored.headers, True, 0, 0, stored.expires)

    def send(
        self,
        endpoint: Endpoint,
        payload: dict[str, Any],
        key: ApiKey,
        afford_retry: Callable[[], bool] | None = None,
    ) -> Sent:
        """Make the call, retrying what is safe to retry; the final answer, whatever its status.

        A real answer (`storable`) is saved in the HTTP cache. Raises TransportError when no
        answer came; its `may_have_been_charged` says whether an attempt may have been done
        (and charged) by the service all the same. `afford_retry` is asked before repeating
        an attempt that may have been charged (the budget): False ends the retries there.
        """
        risky = is_risky(endpoint)
        attempt = uncertain = 0
        while True:
            was_uncertain = uncertain
            failure: Failure | None = None
            try:
                response = self._request(endpoint, payload, key)
            except requests.exceptions.ConnectionError as error:
                failure = "connect" if _never_sent(error) else "read"
            except requests.exceptions.Timeout as error:
                failure = (
                    "connect"
                    if isinstance(error, requests.exceptions.ConnectTimeout)
                    else "timeout"
                )
            except requests.exceptions.ChunkedEncodingError:
                failure = "read"
            if failure is not None:
                # Decided outside the except blocks: the error (which holds the request and its
                # headers) must not ride along as the __context__ of what is raised.
                if failure != "connect":
                    uncertain += 1
                wait = self.policy.after_failure(attempt, failure, self._random, risky=risky)
                if wait is not None and uncertain > was_uncertain and afford_retry is not None:
                    wait = wait if afford_retry() else None
                if wait is None:
                    raise self._transport_error(endpoint, failure, attempt + 1, uncertain)
            else:
                status = response.status_code
                if 300 <= status < 400:
                    raise ServiceError(
                        f"{endpoint.name}: the service answered with a redirect "
                        f"({status}) to {response.headers.get('Location')!r}; "
                        "it is not followed, so that the API key is never sent elsewhere. "
                        "Check the base URL (PROFNET_BASE_URL).",
                        endpoint=endpoint.name,
                        status=status,
                    )
                body = _json_or_none(response)
                if status in MAYBE_DONE_STATUSES and endpoint.price.kind != "free":
                    uncertain += 1  # the service (or a gateway's upstream) may have done it
                said = body if body is not None else response.text  # a quota told in plain text
                wait = self.policy.after_status(
                    attempt, status, response.headers, said, self._random, risky=risky
                )
                if wait is not None and uncertain > was_uncertain and afford_retry is not None:
                    wait = wait if afford_retry() else None
                if wait is None:
                    self._keep(endpoint, payload, key, response, body)
                    return Sent(
                        status, response.text, body, response.headers, False, attempt + 1, uncertain
                    )
            attempt += 1
            self.sleep(wait)

    def _request(
        self, endpoint: Endpoint, payload: dict[str, Any], key: ApiKey
    ) -> requests.Response:
        """One attempt, straight through the adapter (the session's merging is done once)."""
        prepared = prepare_request(self.base_url, endpoint, payload, self.headers)
        KeyHeader(key)(prepared)
        timeout = (self.settings.connect_timeout, self.settings.timeout)
        response: requests.Response = self.adapter.send(
            prepared, timeout=timeout, **self.wire_options
        )
        response.content  # noqa: B018 - read the body now, so a cut connection fails here
        return response

    def _keep(
        self,
        endpoint: Endpoint,
        payload: dict[str, Any],
        key: ApiKey,
        response: requests.Response,
        body: Any,
    ) -> None:
        """Save a real answer in the HTTP cache, fresh for its endpoint's time.

        A save that fails (a disk full, a database locked past its busy timeout) is logged,
        never raised: the answer is paid for, and the caller still gets (and counts) it.
        """
        if self.settings.cache == "off" or not storable(endpoint, response.status_code, body):
            return
        seconds = fresh_for(self.settings, endpoint, response.status_code)
        if seconds <= 0:
            return
        try:
            save_answer(
                self.cache,
                self.key_of(endpoint, payload, key),
                response,
                datetime.now(UTC) + timedelta(seconds=seconds),
                IGNORED_PARAMETERS,
            )
        except Exception as error:
            LOG.warning(
                "%s: the answer could not be saved in the cache (%s: %s); it is used now, and "
                "would be fetched (and paid) again by another process",
                endpoint.name,
                type(error).__name__,
                error,
            )

    def _transport_error(
        self, endpoint: Endpoint, failure: Failure, attempts: int, uncertain: int
    ) -> TransportError:
        what = {
            "connect": "could not reach the service",
            "read": "lost the connection while waiting for the answer",
            "timeout": "timed out waiting for the answer",
        }[failure]
        if uncertain and is_risky(endpoint):
            advice = " It was not retried because the service may already have charged for it."
        else:
            advice = f" Tried {counted(attempts, 'time')}."
        error = TransportError(
            f"{endpoint.name}: {what} at {self.base_url}.{advice} "
            "Check the network and PROFNET_BASE_URL, then try again.",
            endpoint=endpoint.name,
            details=failure,
        )
        error.uncertain_attempts = uncertain
        return error

    def close(self) -> None:
        self.session.close()  # type: ignore[no-untyped-call]


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


def _json_text_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None
