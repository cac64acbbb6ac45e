"""The sandbox service without HTTP: keys and credits, the job life cycle, faults, the clock."""

from __future__ import annotations

import math
import random
import threading
import time
import uuid
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from profnet_sheets.sandbox.controls import check, check_all
from profnet_sheets.sandbox.hostile import plant
from profnet_sheets.sandbox.limits import Limit, Limits, retry_after
from profnet_sheets.sandbox.operations import FAIL_TRIGGER, RESULTS_PAGE_SIZE, Operations
from profnet_sheets.sandbox.params import ApiError, Unreadable, parse
from profnet_sheets.sandbox.store import Job, Store
from profnet_sheets.sandbox.world import World, stable_hash
from profnet_sheets.spec import errors
from profnet_sheets.spec.endpoints import BY_NAME, Endpoint
from profnet_sheets.spec.profile import DEFAULT_PROFILE, ServiceProfile
from profnet_sheets.spec.resources import SEARCH_TYPE_STANDARD


@dataclass
class Faults:
    """Fault injection, all off by default; changed at run time through /_sandbox/faults."""

    latency_ms: float = 0.0
    latency_jitter_ms: float = 0.0
    spike_rate: float = 0.0  # share of calls that take spike_ms more
    spike_ms: float = 0.0
    fail_rate: float = 0.0  # random 500 / 503
    throttle_rate: float = 0.0  # random 429 with Retry-After
    drop_rate: float = 0.0  # the connection is cut mid-response
    geocode_timeout_rate: float = 0.0
    job_fail_rate: float = 0.0
    rate_limit: float | None = None  # requests per second per key (limits.py)
    rate_limit_per_minute: float | None = None  # requests per minute per key
    limit_retry_after: bool = True  # the limits' 429s say Retry-After (some vendors do not)
    retry_after: int = 1  # the Retry-After of injected 429s
    # Where the injected 5xx, 429s and cut connections come from: behind the rate limit (the
    # service's own: the call took a token), or in front of it (a load balancer's, the
    # network's: a faulted call takes none).
    faults_counted: bool = True

    def limits(self) -> tuple[Limit, ...]:
        """The plan's rate limits, per key."""
        found = []
        if self.rate_limit:
            found.append(Limit(self.rate_limit, 1.0))
        if self.rate_limit_per_minute:
            found.append(Limit(self.rate_limit_per_minute, 60.0))
        return tuple(found)

    def __post_init__(self) -> None:
        self.update(asdict(self))

    def update(self, changes: Mapping[str, Any]) -> None:
        """Change the settings named in `changes`; SettingError (nothing changed) if one is
        unknown or out of its range (controls.SETTINGS)."""
        names = (setting.name for setting in fields(self))
        for name, value in check_all(changes, names).items():
            setattr(self, name, value)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Reply:
    """What the service answers: status, JSON body, extra headers."""

    status: int
    body: dict[str, Any]
    headers: Mapping[str, str] = field(default_factory=dict)


class Backend:
    """All state and behaviour of the sandbox; the HTTP layer only translates to and from it.

    It plays the service `profile` describes: its pages on the profile's first network host,
    the key read from its key header, its extra headers required with every call, calls
    charged at its prices (by default, all as the spec names them)."""

    def __init__(
        self,
        *,
        api_keys: tuple[str, ...] = ("sandbox-key",),
        credits: int = 100_000,
        seed: int = 0,
        job_seconds: float = 5.0,
        db: str | None = None,
        faults: Faults | None = None,
        hostile_rate: float = 0.0,
        profile: ServiceProfile = DEFAULT_PROFILE,
    ) -> None:
        self.profile = profile
        self.world = World(seed, profile.network_hosts[0])
        self.store = Store(db)
        self.operations = Operations(self.world, self.store)
        self.faults = faults or Faults()
        self.hostile_rate = 0.0  # share of free-text strings planted with formulas (hostile.py)
        self.set_hostile(hostile_rate)
        self.job_seconds = job_seconds
        self.credits = credits
        self._random = random.Random(seed)
        self._limits = Limits()
        self._lock = threading.RLock()
        self.clock_offset = float(self.store.get_meta("clock_offset", "0"))
        for key in api_keys:
            self.store.ensure_key(key, credits)

    # -- the clock ------------------------------------------------------------------------------

    def now(self) -> float:
        return time.time() + self.clock_offset

    def advance_clock(self, seconds: object) -> float:
        """Move the clock `seconds` forward (SettingError for what controls.SETTINGS refuses)."""
        self.clock_offset += check("advance", seconds)
        self.store.set_meta("clock_offset", repr(self.clock_offset))
        return self.now()

    # -- the service ----------------------------------------------------------------------------

    def handle(
        self,
        name: str,
        key: str | None,
        raw: Mapping[str, Any] | Unreadable,
        *,
        from_query: bool,
        headers: Mapping[str, str | None] | None = None,
        inject: bool = True,
    ) -> Reply:
        """Answer one call of endpoint `name`, charging `key` as the profile's price table
        says. `headers`: the values the call carries of the headers the profile requires;
        `inject`: the injected faults may come (False: they were rolled in front of the limit)."""
        endpoint = BY_NAME[name]
        with self._lock:
            refused = self.refusal(key, headers or {})
            if refused is not None:
                return refused
            assert key is not None
            balance = self.store.balance(key) or 0
            try:
                if inject:
                    self._injected_fault(endpoint)
                params = parse(endpoint, raw, from_query=from_query, host=self.world.host)
                reply = self._call(endpoint, key, params, balance)
            except ApiError as error:
                self.store.record_call(key, name, 0, error=True)
                return Reply(
                    error.status, errors.as_answered_by(endpoint, error.body), error.headers
                )
            self.store.record_call(key, name, self.charge(endpoint, reply.body), error=False)
            if self.hostile_rate:
                return Reply(reply.status, plant(reply.body, self.hostile_rate), reply.headers)
            return reply

    def refusal(self, key: str | None, headers: Mapping[str, str | None]) -> Reply | None:
        """The 401 for a call without a known key (saying whether one came at all), or
        without a header the profile requires (or with another value); None when it may go."""
        header = self.profile.key_header
        if key is None or self.store.balance(key) is None:
            return Reply(401, errors.unauthorized(header, sent=key is not None))
        for name, value in self.profile.headers:
            if headers.get(name) != value:
                return Reply(401, errors.missing_header(name))
        return None

    def charge(self, endpoint: Endpoint, body: Any) -> int:
        """What an answer of `endpoint` costs, at the profile's prices."""
        return self.profile.prices.price(endpoint).charge(body)

    def limited(self, name: str, key: str | None) -> Reply | None:
        """The plan's 429 for a call of a known `key` over a rate limit (answered at once, as a
        gateway does, before any work), or None: the call goes on to `handle`."""
        limits = self.faults.limits()
        if not limits or key is None:
            return None
        with self._lock:
            if self.store.balance(key) is None:
                return None  # handle() answers 401
            wait = self._limits.wait_needed(key, limits)
            if not wait:
                return None
            self.store.record_call(key, name, 0, error=True)
        if not self.faults.limit_retry_after:
            return Reply(429, errors.rate_limited(None))
        retry = retry_after(wait)
        return Reply(429, errors.rate_limited(retry), {"Retry-After": str(retry)})

    def front_fault(self, name: str, key: str | None) -> Reply | None:
        """With `faults_counted` false, the injected 5xx or 429 of a call in front of the rate
        limit (it takes no token; counted as an error of a known key), or None: the call goes
        on, its faults rolled here."""
        try:
            self._injected_fault(BY_NAME[name])
        except ApiError as error:
            with self._lock:
                if key is not None and self.store.balance(key) is not None:
                    self.store.record_call(key, name, 0, error=True)
            body = errors.as_answered_by(BY_NAME[name], error.body)
            return Reply(error.status, body, error.headers)
        return None

    def _injected_fault(self, endpoint: Endpoint) -> None:
        faults = self.faults
        roll = self._random.random()
        if roll < faults.fail_rate:
            if self._random.random() < 0.5:
                raise ApiError(500, errors.server_error("Internal error (injected)."))
            raise ApiError(503, errors.service_unavailable())
        if self._random.random() < faults.throttle_rate:
            retry = faults.retry_after
            raise ApiError(429, errors.rate_limited(retry), {"Retry-After": str(retry)})
        if (
            endpoint.name == "find-geocode-by-location"
            and self._random.random() < faults.geocode_timeout_rate
        ):
            raise ApiError(500, errors.server_error(errors.GEOCODE_TIMEOUT))

    def _call(self, endpoint: Endpoint, key: str, params: dict[str, Any], balance: int) -> Reply:
        price = self.profile.prices.price(endpoint)
        if price.kind == "fixed" and price.credits > balance:
            raise ApiError(402, errors.insufficient_credits(price.credits, balance))
        if endpoint.search_role == "create":
            body = self._create_search(endpoint, key, params)
        elif endpoint.search_role == "status":
            body = self._search_status(endpoint, key, params["request_id"])
        elif endpoint.search_role == "results":
            body = self._search_results(endpoint, key, params)
        else:
            body = self.operations.handler(endpoint.name)(params, key)
        cost = price.charge(body)
        if cost > balance:
            raise ApiError(402, errors.insufficient_credits(cost, balance))
        return Reply(200, body)

    # -- search jobs ----------------------------------------------------------------------------

    def _create_search(
        self, endpoint: Endpoint, key: str, params: dict[str, Any]
    ) -> dict[str, Any]:
        kind = str(endpoint.search)
        seq = self.store.next_job_seq()
        request_id = str(uuid.uuid4())  # unique, as the service's are: never reissued
        keywords = str(params.get("keywords", "")).lower()
        fails = FAIL_TRIGGER in keywords or self._random.random() < self.faults.job_fail_rate
        total = min(params["limit"], self.operations.search_total(kind, params))
        fail_at = 10 + stable_hash(request_id) % 80 if fails else None
        self.store.add_job(
            Job(request_id, seq, key, kind, params, self.now(), self.job_seconds, total, fail_at)
        )
        return {
            "message": f"Your {'lead' if kind == 'leads' else 'company'} search has been "
            "created. Poll its status with the request_id, then read its results.",
            "request_id": request_id,
            "status": "processing",
            "search_type": SEARCH_TYPE_STANDARD,
        }

    def _job(self, endpoint: Endpoint, key: str, request_id: str) -> Job:
        job = self.store.job(request_id.strip())
        if job is None or job.key != key or job.kind != endpoint.search:
            raise ApiError(404, errors.not_found(f"Search request {request_id!r} not found."))
        return job

    def job_state(self, job: Job) -> tuple[str, int]:
        """(status, progress) of a job at the sandbox clock's present."""
        elapsed = self.now() - job.created
        progress = 100 if job.seconds <= 0 else min(100, int(100 * elapsed / job.seconds))
        progress = max(progress, 0)
        if job.fail_at is not None and progress >= job.fail_at:
            return "failed", job.fail_at
        return ("completed" if progress >= 100 else "processing"), progress

    def _search_status(self, endpoint: Endpoint, key: str, request_id: str) -> dict[str, Any]:
        job = self._job(endpoint, key, request_id)
        status, progress = self.job_state(job)
        return {
            "status": status,
            "request_id": job.request_id,
            "progress": progress,
            "total_results": job.total if status == "completed" else 0,
        }

    def _search_results(
        self, endpoint: Endpoint, key: str, params: dict[str, Any]
    ) -> dict[str, Any]:
        job = self._job(endpoint, key, params["request_id"])
        status, _ = self.job_state(job)
        if status != "completed":
            raise ApiError(409, errors.search_not_completed(status))
        page = params["page"]
        return {
            "request_id": job.request_id,
            "page": page,
            "total_pages": math.ceil(job.total / RESULTS_PAGE_SIZE),
            "total_results": job.total,
            "results": self.operations.results_page(job, page),
        }

    # -- control (outside the spec) ---------------------------------------------------------------

    def usage(self, key: str) -> dict[str, Any] | None:
        balance = self.store.balance(key)
        if balance is None:
            return None
        calls = self.store.usage(key)
        return {
            "balance": balance,
            "credits_charged": sum(entry["credits"] for entry in calls.values()),
            "calls": calls,
        }

    def reset(self) -> None:
        with self._lock:
            self.store.reset()
            self._limits.reset()
            self.clock_offset = 0.0

    def set_hostile(self, rate: object) -> None:
        """Plant formula-like text in `rate` of the answers' free-text strings (0: never)."""
        self.hostile_rate = check("rate", rate)

    def set_key(self, key: object, credits: object) -> int:
        """Add `key`, or set its balance; the balance. SettingError for what is refused."""
        balance: int = check("credits", credits)
        self.store.set_balance(check("key", key), balance)
        return balance

    def close(self) -> None:
        self.store.close()
