"""The only place that builds and uses the HTTP session: cache, redaction, retries, rate limit."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import requests
import requests_cache
from requests.adapters import HTTPAdapter
from requests_cache.backends.base import BaseCache
from requests_cache.backends.sqlite import SQLiteCache

from profnet_sheets.client.policy import Failure, RetryPolicy
from profnet_sheets.config import NOT_FOUND_EXPIRY, Settings
from profnet_sheets.errors import ConfigurationError, ServiceError, TransportError
from profnet_sheets.spec import API_KEY_HEADER, ENDPOINTS, Endpoint

CACHED_STATUSES = (200, 404)
# requests-cache redacts ignored parameters from what it stores, matching names exactly: the
# key is always sent under exactly this header name (field notes), and never stored.
IGNORED_PARAMETERS = (*requests_cache.DEFAULT_IGNORED_PARAMS, API_KEY_HEADER)


def cache_key_function(service: str) -> Callable[..., str]:
    """requests-cache key function: keys name the service, not the host and port it is on.

    The embedded sandbox listens on a new port each run; its answers must still be found.
    """

    def key(request: Any, **kwargs: Any) -> str:
        parts = urlsplit(request.url)
        logical = request.copy()
        logical.url = urlunsplit(("https", f"{service}.cache", parts.path, parts.query, ""))
        return requests_cache.create_key(logical, **kwargs)

    return key


def open_backend(settings: Settings, service: str) -> BaseCache:
    """The cache store: SQLite (WAL) in the user's cache directory, Redis, or memory."""
    where = settings.cache or ""
    if where in ("memory", "off"):
        return BaseCache()
    if where.startswith(("redis://", "rediss://", "unix://")):
        try:
            import redis
        except ImportError:  # pragma: no cover - depends on the extra being installed
            raise ConfigurationError(
                "PROFNET_CACHE names Redis but the redis package is missing: "
                "install profnet-sheets[redis]."
            ) from None
        from requests_cache.backends.redis import RedisCache

        return RedisCache(namespace=f"profnet:{service}", connection=redis.Redis.from_url(where))
    path = Path(where).expanduser() if where else settings.cache_dir
    if path.suffix not in (".sqlite", ".db"):
        path = path / f"{service}-http.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    return SQLiteCache(path, wal=True, timeout=30)


def build_session(settings: Settings, service: str) -> requests_cache.CachedSession:
    expire_after = {**settings.expiry}
    for endpoint in ENDPOINTS:
        if endpoint.search_role == "create":
            expire_after[endpoint.name] = settings.search_reuse_hours * 3600
    session = requests_cache.CachedSession(
        backend=open_backend(settings, service),
        expire_after=requests_cache.DO_NOT_CACHE if settings.cache == "off" else 86400,
        urls_expire_after={
            f"*{endpoint.path}": (
                expire_after.get(endpoint.name, 86400) or requests_cache.DO_NOT_CACHE
            )
            for endpoint in ENDPOINTS
        }
        if settings.cache != "off"
        else None,
        allowable_codes=CACHED_STATUSES,
        allowable_methods=("GET", "POST"),
        ignored_parameters=IGNORED_PARAMETERS,
        match_headers=False,
        key_fn=cache_key_function(service),
        stale_if_error=False,
    )
    adapter = HTTPAdapter(
        pool_connections=4, pool_maxsize=max(8, settings.concurrency * 2), max_retries=0
    )
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    session.headers["User-Agent"] = "profnet-sheets"
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


@dataclass
class Sent:
    """One answer from the wire or the HTTP cache."""

    response: requests.Response
    from_cache: bool
    attempts: int


class Transport:
    """Sends one call: through the HTTP cache, with retries, the rate limit and safe redirects."""

    def __init__(self, settings: Settings, base_url: str, service: str) -> None:
        self.settings = settings
        self.base_url = base_url.rstrip("/")
        self.service = service
        self.session = build_session(settings, service)
        if is_loopback(self.base_url):
            # No proxy ever applies to loopback; skipping the environment's proxy settings
            # saves a scan of os.environ on every request (the embedded sandbox, tests).
            self.session.trust_env = False
        self.policy = RetryPolicy(
            retries=settings.retries,
            backoff=settings.backoff,
            max_backoff=settings.max_backoff,
            retry_after_cap=settings.retry_after_cap,
        )
        self.limiter = RateLimiter(settings.rate_limit)
        self.sleep: Callable[[float], None] = time.sleep
        self._random = random.Random()

    def cached(self, endpoint: Endpoint, payload: dict[str, Any], api_key: str) -> Sent | None:
        """The answer the HTTP cache holds for this call, or None (no network either way)."""
        response = self._request(endpoint, payload, api_key, only_if_cached=True)
        if response.status_code not in CACHED_STATUSES:  # 504: requests-cache's "not cached"
            return None
        return Sent(response, True, 0)

    def send(
        self, endpoint: Endpoint, payload: dict[str, Any], api_key: str, *, refresh: bool
    ) -> Sent:
        """Make the call, retrying what is safe to retry; the final answer, whatever its status."""
        attempt = 0
        while True:
            from_cache = False
            try:
                self.limiter.wait()
                response = self._request(endpoint, payload, api_key, force_refresh=refresh)
                from_cache = bool(getattr(response, "from_cache", False))
            except requests.exceptions.ConnectionError as error:
                failure: Failure = (
                    "connect"
                    if isinstance(error, requests.exceptions.ConnectTimeout) or _never_sent(error)
                    else "read"
                )
                wait = self.policy.after_failure(attempt, failure, endpoint.method, self._random)
                if wait is None:
                    raise self._transport_error(endpoint, error, failure) from None
            except requests.exceptions.Timeout as error:
                wait = self.policy.after_failure(attempt, "timeout", endpoint.method, self._random)
                if wait is None:
                    raise self._transport_error(endpoint, error, "timeout") from None
            except requests.exceptions.ChunkedEncodingError as error:
                wait = self.policy.after_failure(attempt, "read", endpoint.method, self._random)
                if wait is None:
                    raise self._transport_error(endpoint, error, "read") from None
            else:
                if 300 <= response.status_code < 400:
                    raise ServiceError(
                        f"{endpoint.name}: the service answered with a redirect "
                        f"({response.status_code}) to {response.headers.get('Location')!r}; "
                        "it is not followed, so that the API key is never sent elsewhere. "
                        "Check the base URL (PROFNET_BASE_URL).",
                        endpoint=endpoint.name,
                        status=response.status_code,
                    )
                body = _json_or_none(response)
                wait = self.policy.after_status(
                    attempt, response.status_code, response.headers, body, self._random
                )
                if wait is None:
                    if response.status_code == 404 and not from_cache:
                        self._expire_not_found(response)
                    return Sent(response, from_cache, attempt + 1)
            attempt += 1
            self.sleep(wait)

    def _request(
        self, endpoint: Endpoint, payload: dict[str, Any], api_key: str, **cache_options: Any
    ) -> requests.Response:
        url = self.base_url + endpoint.path
        headers = {API_KEY_HEADER: api_key}
        timeout = (self.settings.connect_timeout, self.settings.timeout)
        if endpoint.method == "GET":
            return self.session.request(
                "GET",
                url,
                params=payload,
                headers=headers,
                timeout=timeout,
                allow_redirects=False,
                **cache_options,
            )
        return self.session.request(
            "POST",
            url,
            json=payload,
            headers=headers,
            timeout=timeout,
            allow_redirects=False,
            **cache_options,
        )

    def _expire_not_found(self, response: requests.Response) -> None:
        key = getattr(response, "cache_key", None)
        if key and self.session.cache.contains(key=key):
            expires = datetime.now(UTC) + timedelta(seconds=NOT_FOUND_EXPIRY)
            self.session.cache.save_response(response, cache_key=key, expires=expires)

    def _transport_error(
        self, endpoint: Endpoint, error: Exception, failure: Failure
    ) -> TransportError:
        what = {
            "connect": "could not reach the service",
            "read": "lost the connection while waiting for the answer",
            "timeout": "timed out waiting for the answer",
        }[failure]
        paid_post = endpoint.method == "POST" and failure != "connect"
        advice = (
            " It was not retried because the service may already have charged for it."
            if paid_post
            else f" Tried {self.settings.retries + 1} times."
        )
        return TransportError(
            f"{endpoint.name}: {what} at {self.base_url}.{advice} "
            "Check the network and PROFNET_BASE_URL, then try again.",
            endpoint=endpoint.name,
            details=type(error).__name__,
        )

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
