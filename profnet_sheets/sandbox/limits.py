"""The sandbox's rate limits per key, as a plan of the service has them: a per-second and a
per-minute token bucket, refused at once (a gateway answers 429 before any work), with or
without Retry-After; and named plans shaped like vendors' ones (the numbers are made up)."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Limit:
    """At most `calls` per `seconds`, as a token bucket holding `calls` (a full period's burst)."""

    calls: float
    seconds: float

    @property
    def rate(self) -> float:
        return self.calls / self.seconds


class Limits:
    """Per-key token buckets for every limit of the plan; thread-safe."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._tokens: dict[tuple[str, Limit], tuple[float, float]] = {}  # (tokens, when)

    def wait_needed(self, key: str, limits: tuple[Limit, ...]) -> float:
        """0 when a call of `key` may go now (it takes a token from every bucket), else the
        seconds until every bucket has one (nothing is taken)."""
        now = self._clock()
        with self._lock:
            levels = []
            for limit in limits:
                tokens, when = self._tokens.get((key, limit), (limit.calls, now))
                levels.append(min(limit.calls, tokens + (now - when) * limit.rate))
            wait = max(
                ((1 - tokens) / limit.rate for tokens, limit in zip(levels, limits, strict=True)),
                default=0.0,
            )
            taken = 1 if wait <= 0 else 0
            for tokens, limit in zip(levels, limits, strict=True):
                self._tokens[(key, limit)] = (tokens - taken, now)
            return max(0.0, wait)

    def reset(self) -> None:
        with self._lock:
            self._tokens.clear()


def retry_after(wait: float) -> int:
    """The Retry-After of a refused call: whole seconds (HTTP's), at least 1."""
    return max(1, math.ceil(wait))


# Plans shaped like comparable vendors' (a per-second and a per-minute limit per key; some
# send Retry-After, some do not), with the real service's 3-5 s per call. Start a sandbox
# with one: `start_sandbox(**PLANS["basic"])`, `uv run profnet-sheets sandbox --plan basic`.
REAL_LATENCY: Mapping[str, Any] = {"latency_ms": 3000.0, "latency_jitter_ms": 2000.0}
PLANS: Mapping[str, Mapping[str, Any]] = {
    "trial": {
        **REAL_LATENCY,
        "rate_limit": 1,
        "rate_limit_per_minute": 30,
        "limit_retry_after": True,
    },
    "basic": {
        **REAL_LATENCY,
        "rate_limit": 5,
        "rate_limit_per_minute": 200,
        "limit_retry_after": False,
    },
    "pro": {
        **REAL_LATENCY,
        "rate_limit": 20,
        "rate_limit_per_minute": 1000,
        "limit_retry_after": True,
    },
    "scale": {
        **REAL_LATENCY,
        "rate_limit": 80,
        "rate_limit_per_minute": 4000,
        "limit_retry_after": False,
    },
}
