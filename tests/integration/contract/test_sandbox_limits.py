"""The sandbox's plans: a per-second and a per-minute limit per key, 429 at once (a gateway's),
with or without Retry-After; the named plans start a sandbox."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

import pytest
import requests

from profnet_sheets.sandbox import start_sandbox
from profnet_sheets.sandbox.limits import PLANS, Limit, Limits
from tests.integration.contract.helpers import KEY, Sandbox, call, new_key, set_faults, usage

pytestmark = pytest.mark.integration

DOMAIN = "acme-widgets.com"


@pytest.fixture(scope="module")
def box() -> Iterator[Sandbox]:
    with start_sandbox(api_keys=(KEY,), credits=1_000_000, seed=7, job_seconds=0.0) as sandbox:
        yield sandbox


@pytest.fixture
def limited(box: Sandbox) -> Iterator[Sandbox]:
    yield box
    set_faults(
        box,
        rate_limit=None,
        rate_limit_per_minute=None,
        limit_retry_after=True,
        latency_ms=0,
        latency_jitter_ms=0,
        fail_rate=0,
        throttle_rate=0,
        drop_rate=0,
        faults_counted=True,
    )


def test_a_per_minute_limit_refuses_past_its_count_and_charges_nothing(limited: Sandbox) -> None:
    key = new_key(limited)
    set_faults(limited, rate_limit_per_minute=5)
    answers = [call(limited, "get-company-details", key=key, domain=DOMAIN) for _ in range(8)]
    assert [answer.status_code for answer in answers] == [200] * 5 + [429] * 3
    refused = answers[-1]
    assert refused.json()["message"] == "rate_limited"
    # A token every 60/5 s: 12 s less what the 8 calls took (the exact figure is
    # test_a_call_takes_a_token_of_every_limit_or_of_none's, on a fake clock).
    assert 0 < int(refused.headers["Retry-After"]) <= 12
    spent = usage(limited, key)
    assert spent["balance"] == 1_000_000 - 5
    assert spent["calls"]["get-company-details"]["errors"] == 3


def test_a_plan_without_retry_after_says_only_to_slow_down(limited: Sandbox) -> None:
    key = new_key(limited)
    set_faults(limited, rate_limit=1, limit_retry_after=False)
    answers = [call(limited, "get-company-details", key=key, domain=DOMAIN) for _ in range(3)]
    refused = [answer for answer in answers if answer.status_code == 429]
    assert refused, "3 calls at once under 1/s"
    assert "Retry-After" not in refused[0].headers
    assert refused[0].json() == {
        "message": "rate_limited",
        "details": "Too many requests; slow down.",
    }


def test_a_limit_refuses_at_once_while_answers_take_their_latency(limited: Sandbox) -> None:
    key = new_key(limited)
    set_faults(limited, rate_limit_per_minute=1, latency_ms=1500)
    started = time.perf_counter()
    first = call(limited, "get-company-details", key=key, domain=DOMAIN)
    answered = time.perf_counter() - started
    started = time.perf_counter()
    second = call(limited, "get-company-details", key=key, domain=DOMAIN)
    refused = time.perf_counter() - started
    assert (first.status_code, second.status_code) == (200, 429)
    assert answered >= 1.5
    assert refused < 1.0, "a gateway refuses before any work"


@pytest.mark.parametrize("fault", ["fail_rate", "throttle_rate", "drop_rate"])
def test_faults_behind_the_limit_take_its_tokens_and_those_in_front_of_it_none(
    limited: Sandbox, fault: str
) -> None:
    """`faults_counted` (default): an injected 5xx, 429 or cut connection comes from the
    service behind the gateway, its call took a token; false: from a load balancer or the
    network in front of it, no token taken. Either way nothing is charged."""
    for counted in (True, False):
        key = new_key(limited)
        set_faults(limited, rate_limit_per_minute=2, faults_counted=counted, **{fault: 1.0})
        for _ in range(2):
            with contextlib.suppress(
                requests.ConnectionError, requests.exceptions.ChunkedEncodingError
            ):
                faulted = call(limited, "get-company-details", key=key, domain=DOMAIN)
                assert faulted.status_code in (429, 500, 503)
        set_faults(limited, **{fault: 0.0})
        after = call(limited, "get-company-details", key=key, domain=DOMAIN)
        assert after.status_code == (429 if counted else 200), counted
        assert usage(limited, key)["balance"] == 1_000_000 - (0 if counted else 1)


def test_an_unknown_key_is_refused_as_such_not_as_too_many(limited: Sandbox) -> None:
    set_faults(limited, rate_limit=1)
    for _ in range(3):
        assert call(limited, "get-company-details", key="nobody", domain=DOMAIN).status_code == 401


def test_limits_are_per_key_and_a_reset_refills_them(limited: Sandbox) -> None:
    key, other = new_key(limited), new_key(limited)
    set_faults(limited, rate_limit_per_minute=2)
    for _ in range(2):
        assert call(limited, "get-company-details", key=key, domain=DOMAIN).status_code == 200
    assert call(limited, "get-company-details", key=key, domain=DOMAIN).status_code == 429
    assert call(limited, "get-company-details", key=other, domain=DOMAIN).status_code == 200


def test_a_call_takes_a_token_of_every_limit_or_of_none() -> None:
    clock = [0.0]
    limits = Limits(clock=lambda: clock[0])
    per_second, per_minute = Limit(2, 1.0), Limit(3, 60.0)
    both = (per_second, per_minute)
    assert [limits.wait_needed("k", both) for _ in range(2)] == [0.0, 0.0]
    assert limits.wait_needed("k", both) == pytest.approx(0.5), "the second's 2 are spent"
    clock[0] = 1.0
    assert limits.wait_needed("k", both) == 0.0, "the minute's third"
    clock[0] = 2.0
    wait = limits.wait_needed("k", both)
    assert wait == pytest.approx(20.0 - 2.0, abs=0.01), "the minute's bucket refills 1 per 20 s"
    per_minute_5 = (Limit(5, 60.0),)
    clock[0] = 1_000.0
    assert [limits.wait_needed("five", per_minute_5) for _ in range(5)] == [0.0] * 5
    assert limits.wait_needed("five", per_minute_5) == pytest.approx(12.0), "a token every 60/5 s"


@pytest.mark.parametrize("name", sorted(PLANS))
def test_every_named_plan_starts_a_sandbox(name: str) -> None:
    quick = {**PLANS[name], "latency_ms": 0, "latency_jitter_ms": 0, "api_keys": (KEY,)}
    with start_sandbox(**quick) as sandbox:
        assert call(sandbox, "get-company-details", domain=DOMAIN).status_code == 200
