"""decisions #21, #27, #28, #34 and the control endpoints the other files rely on."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from profnet_sheets.sandbox import RunningSandbox, SandboxConfig, start_sandbox
from tests.integration.contract.helpers import (
    HEADER,
    KEY,
    Sandbox,
    World,
    assert_error,
    call,
    create_search,
    get_ok,
    new_key,
    raw,
    set_faults,
    trailing_number,
    usage,
    wait_done,
)

pytestmark = pytest.mark.integration

CALM: dict[str, Any] = {
    "latency_ms": 0,
    "latency_jitter_ms": 0,
    "fail_rate": 0.0,
    "throttle_rate": 0.0,
    "drop_rate": 0.0,
    "geocode_timeout_rate": 0.0,
    "job_fail_rate": 0.0,
    "rate_limit": None,
    "retry_after": 1,
}


def _config(**overrides: Any) -> SandboxConfig:
    settings: dict[str, Any] = {
        "api_keys": (KEY,),
        "credits": 1_000_000,
        "seed": 7,
        "job_seconds": 0.0,
    }
    settings.update(overrides)
    return SandboxConfig(**settings)


@pytest.fixture(scope="module")
def fb() -> Iterator[Sandbox]:
    with start_sandbox(_config()) as box:
        yield box


@pytest.fixture
def faulty(fb: Sandbox) -> Iterator[Sandbox]:
    """The module's sandbox, calmed down again after each test."""
    yield fb
    set_faults(fb, **CALM)


def test_faults_endpoint_reports_all_settings(faulty: Sandbox) -> None:
    current = requests.get(f"{faulty.base_url}/_sandbox/faults", timeout=15).json()
    assert set(CALM) <= set(current)
    updated = set_faults(faulty, fail_rate=0.25)
    assert updated["fail_rate"] == 0.25
    assert set(CALM) <= set(updated)


def test_injected_429_has_retry_after_and_costs_nothing(faulty: Sandbox) -> None:
    key = new_key(faulty)
    set_faults(faulty, throttle_rate=1.0, retry_after=3)
    resp = call(faulty, "get-company-details", key=key, domain="acme-widgets.com")
    assert resp.status_code == 429
    assert resp.headers["Retry-After"] == "3"
    assert usage(faulty, key)["balance"] == 1_000_000


def test_rate_limit(faulty: Sandbox) -> None:
    """decisions #21: at most N requests per second per key; 429 rate_limited + Retry-After."""
    key = new_key(faulty)
    set_faults(faulty, rate_limit=2)
    answers = [
        call(faulty, "get-company-details", key=key, domain="acme-widgets.com") for _ in range(8)
    ]
    limited = [r for r in answers if r.status_code == 429]
    assert limited, "8 calls at once under a limit of 2/s were all served"
    body = limited[0].json()
    assert body["message"] == "rate_limited"
    assert int(limited[0].headers["Retry-After"]) >= 1
    served = sum(r.status_code == 200 for r in answers)
    assert usage(faulty, key)["balance"] == 1_000_000 - served
    other = new_key(faulty)
    ok_other = call(faulty, "get-company-details", key=other, domain="acme-widgets.com")
    assert ok_other.status_code == 200, "the limit is per key"


def test_injected_5xx_costs_nothing(faulty: Sandbox) -> None:
    key = new_key(faulty)
    set_faults(faulty, fail_rate=1.0)
    cases: list[tuple[str, dict[str, Any]]] = [
        ("get-company-details", {"domain": "acme-widgets.com"}),
        ("search-leads", {"title_keywords": ["Engineer"], "limit": 5}),
    ]
    for endpoint, params in cases:
        resp = call(faulty, endpoint, key=key, **params)
        assert 500 <= resp.status_code < 600
    assert usage(faulty, key)["balance"] == 1_000_000


def test_dropped_connection_costs_nothing(faulty: Sandbox) -> None:
    key = new_key(faulty)
    set_faults(faulty, drop_rate=1.0)
    with pytest.raises(requests.RequestException):
        requests.post(
            f"{faulty.base_url}/search-posts",
            json={"keyword": "python"},
            headers={"X-SERVICE-API-KEY": key},
            timeout=5,
        )
    set_faults(faulty, drop_rate=0.0)
    assert usage(faulty, key)["balance"] == 1_000_000


def test_geocode_timeout_fault(faulty: Sandbox) -> None:
    key = new_key(faulty)
    set_faults(faulty, geocode_timeout_rate=1.0)
    assert_error(call(faulty, "find-geocode-by-location", key=key, location="Paris"), 500, "error")
    assert usage(faulty, key)["balance"] == 1_000_000


def test_job_fail_fault_keeps_the_creation_charge(faulty: Sandbox) -> None:
    key = new_key(faulty)
    set_faults(faulty, job_fail_rate=1.0)
    rid = create_search(faulty, "companies", key=key, company_headcounts=["B"], limit=5)
    assert wait_done(faulty, "companies", rid, key=key)["status"] == "failed"
    assert usage(faulty, key)["balance"] == 1_000_000 - 25


def test_latency(faulty: Sandbox) -> None:
    set_faults(faulty, latency_ms=120)
    began = time.perf_counter()
    get_ok(faulty, "get-company-details", domain="acme-widgets.com")
    assert time.perf_counter() - began >= 0.1


# --- what the controls refuse (docs/sandbox.md) ------------------------------------------------

REFUSED: list[tuple[str, str, str, str]] = [
    ("PUT", "faults", '{"latency_ms": Infinity}', "latency_ms"),
    ("PUT", "faults", '{"latency_ms": 1e12}', "latency_ms"),
    ("PUT", "faults", '{"latency_ms": -1}', "latency_ms"),
    ("PUT", "faults", '{"latency_jitter_ms": true}', "latency_jitter_ms"),
    ("PUT", "faults", '{"spike_ms": "400"}', "spike_ms"),
    ("PUT", "faults", '{"fail_rate": NaN}', "fail_rate"),
    ("PUT", "faults", '{"throttle_rate": 1.5}', "throttle_rate"),
    ("PUT", "faults", '{"drop_rate": -Infinity}', "drop_rate"),
    ("PUT", "faults", '{"rate_limit": 0}', "rate_limit"),
    ("PUT", "faults", '{"rate_limit": NaN}', "rate_limit"),
    ("PUT", "faults", '{"retry_after": 1.5}', "retry_after"),
    ("PUT", "faults", '{"retry_after": 100000000000000000000000000000}', "retry_after"),
    ("PUT", "faults", '{"fail_rate": 0.5, "latency_ms": null}', "latency_ms"),
    ("PUT", "faults", '{"no_such_fault": 1}', "payload"),
    ("POST", "clock", '{"advance": NaN}', "advance"),
    ("POST", "clock", '{"advance": Infinity}', "advance"),
    ("POST", "clock", '{"advance": -1}', "advance"),
    ("POST", "clock", '{"advance": true}', "advance"),
    ("POST", "clock", '{"advance": 1e12}', "advance"),
    ("PUT", "keys", '{"key": "k-big", "credits": 100000000000000000000000000000}', "credits"),
    ("PUT", "keys", '{"key": "k-true", "credits": true}', "credits"),
    ("PUT", "keys", '{"key": "k-neg", "credits": -5}', "credits"),
    ("PUT", "keys", '{"key": "k-half", "credits": 1.5}', "credits"),
    ("PUT", "keys", '{"key": "k-nan", "credits": NaN}', "credits"),
    ("PUT", "keys", '{"key": "", "credits": 5}', "key"),
    ("PUT", "keys", '{"key": " k-space ", "credits": 5}', "key"),
    ("PUT", "keys", '{"key": 5, "credits": 5}', "key"),
    ("PUT", "keys", '{"credits": 5}', "key"),
    ("PUT", "keys", '{"key": "k-x", "credits": 5, "balance": 5}', "payload"),
    ("PUT", "hostile", '{"rate": NaN}', "rate"),
    ("PUT", "hostile", '{"rate": true}', "rate"),
    ("PUT", "faults", "[" * 100_000 + "]" * 100_000, "payload"),
    ("PUT", "faults", '{"latency_ms": ' + "[" * 40 + "]" * 40 + "}", "payload"),
]


@pytest.mark.parametrize(
    ("method", "control", "body", "field"), REFUSED, ids=[f"{c}-{b[:40]}" for _, c, b, _ in REFUSED]
)
def test_controls_refuse_values_that_cannot_be_meant(
    faulty: Sandbox, method: str, control: str, body: str, field: str
) -> None:
    """400 naming the field and what it takes; nothing changes, and every call still answers."""
    before = requests.get(f"{faulty.base_url}/_sandbox/faults", timeout=15).json()
    resp = raw(faulty, method, f"_sandbox/{control}", data=body, content_type="application/json")
    error = assert_error(resp, 400, "invalid_parameter", field)
    if field != "payload":
        assert error["details"].startswith(f"{field} must be "), error
        assert re.search(r"\d to \d", error["details"]), "the range is in the details"
    assert requests.get(f"{faulty.base_url}/_sandbox/faults", timeout=15).json() == before
    began = time.perf_counter()
    get_ok(faulty, "get-company-details", domain="acme-widgets.com")
    rid = create_search(faulty, "leads", title_keywords=["Engineer"], limit=5)
    assert wait_done(faulty, "leads", rid)["status"] == "completed"
    assert time.perf_counter() - began < 5


def test_refused_keys_are_not_added(faulty: Sandbox) -> None:
    raw(faulty, "PUT", "_sandbox/keys", json_body={"key": "k-refused", "credits": -5})
    resp = call(faulty, "get-company-details", key="k-refused", domain="acme-widgets.com")
    assert_error(resp, 401, "unauthorized")


@pytest.mark.parametrize(
    ("method", "control", "payload"),
    [
        ("PUT", "faults", {"latency_ms": 60_000, "fail_rate": 1, "rate_limit": None}),
        ("PUT", "faults", {"latency_ms": 0, "fail_rate": 0, "rate_limit": 1, "retry_after": 2.0}),
        ("POST", "clock", {"advance": 0}),
        ("POST", "clock", {}),
        ("PUT", "keys", {"key": "k-bounds", "credits": 0}),
        ("PUT", "keys", {"key": "k-bounds", "credits": 10**12}),
        ("PUT", "hostile", {"rate": 0}),
    ],
)
def test_controls_take_the_ends_of_their_ranges(
    faulty: Sandbox, method: str, control: str, payload: dict[str, Any]
) -> None:
    resp = raw(faulty, method, f"_sandbox/{control}", json_body=payload)
    assert resp.status_code == 200, resp.text
    if control == "faults":
        assert resp.json() == {**resp.json(), **payload}


def test_controls_refuse_a_body_not_sent_as_json(faulty: Sandbox) -> None:
    """decisions #92, as for the endpoints of the spec."""
    resp = raw(faulty, "PUT", "_sandbox/faults", data='{"fail_rate": 1}', content_type="text/plain")
    assert_error(resp, 400, "invalid_parameter", "payload")
    assert set_faults(faulty)["fail_rate"] == 0


def test_a_bug_of_the_sandbox_is_still_answered_in_json(monkeypatch: pytest.MonkeyPatch) -> None:
    """ "All responses are JSON": an unforeseen exception is the spec's 500 body, logged."""

    def fail(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    with start_sandbox(_config()) as box:
        assert isinstance(box, RunningSandbox)
        monkeypatch.setattr(box.backend, "handle", fail)
        monkeypatch.setattr(box.backend, "usage", fail)
        resp = call(box, "get-company-details", domain="acme-widgets.com")
        assert resp.headers["Content-Type"] == "application/json"
        assert_error(resp, 500, "error")
        usage = requests.get(f"{box.base_url}/_sandbox/usage", headers={HEADER: KEY}, timeout=15)
        assert_error(usage, 500, "error")


# --- ids only the service hands out (decisions #34) -----------------------------------------


def test_ids_resolve_only_after_being_shown(sb: Sandbox, world: World) -> None:
    """A job id / post id the shared (seed 7) sandbox showed is unknown to a fresh seed-7
    sandbox until that one shows it too."""
    with start_sandbox(_config()) as fresh:
        assert_error(call(fresh, "get-job-details", job_id=world.job_id), 404, "not_found")
        assert_error(call(fresh, "get-post-details", urn=world.post_id), 404, "not_found")
        jobs = get_ok(fresh, "search-jobs", keyword="engineer")["data"]["jobs"]
        posts = get_ok(fresh, "search-posts", keyword="python")["data"]["posts"]
        assert jobs[0]["job_id"] == world.job_id
        assert trailing_number(posts[0]["urn"]) == world.post_id
        assert get_ok(fresh, "get-job-details", job_id=world.job_id) == get_ok(
            sb, "get-job-details", job_id=world.job_id
        )
        assert get_ok(fresh, "get-post-details", urn=world.post_id) == get_ok(
            sb, "get-post-details", urn=world.post_id
        )


def test_reset(tmp_path: Path) -> None:
    with start_sandbox(_config(credits=500)) as box:
        job_id = get_ok(box, "search-jobs", keyword="engineer")["data"]["jobs"][0]["job_id"]
        rid = create_search(box, "leads", title_keywords=["Engineer"], limit=5)
        assert usage(box)["balance"] == 500 - 10 - 50
        resp = requests.post(f"{box.base_url}/_sandbox/reset", timeout=15)
        assert resp.status_code == 200
        assert usage(box)["balance"] == 500
        assert usage(box)["credits_charged"] == 0
        assert_error(call(box, "get-lead-search-status", request_id=rid), 404, "not_found")
        assert_error(call(box, "get-job-details", job_id=job_id), 404, "not_found")


def test_database_remembers_shown_ids(tmp_path: Path) -> None:
    db = str(tmp_path / "sandbox.db")
    with start_sandbox(_config(db=db)) as first:
        job_id = get_ok(first, "search-jobs", keyword="engineer")["data"]["jobs"][0]["job_id"]
        detail = get_ok(first, "get-job-details", job_id=job_id)
    with start_sandbox(_config(db=db)) as second:
        assert get_ok(second, "get-job-details", job_id=job_id) == detail


def test_control_endpoints_are_not_in_openapi(sb: Sandbox) -> None:
    paths = requests.get(f"{sb.base_url}/openapi.json", timeout=15).json()["paths"]
    assert not [p for p in paths if "_sandbox" in p]


def test_the_usage_read_from_the_running_sandbox_is_what_its_control_endpoint_answers() -> None:
    """The tests read charges with RunningSandbox.usage/charged/calls: the same as GET
    /_sandbox/usage in the service's own key header, for the sandbox's first key by default."""
    with start_sandbox(_config(api_keys=(KEY, "second-key"))) as box:
        call(box, "get-company-details", domain="acme-widgets.com")
        call(box, "get-company-details", domain="acme-widgets.com", key="nope")
        answered = requests.get(f"{box.base_url}/_sandbox/usage", headers={HEADER: KEY}, timeout=15)
        assert box.usage() == box.usage(KEY) == answered.json()
        assert box.charged() == box.charged(KEY, "get-company-details") == 1
        assert box.calls() == box.calls(KEY, "get-company-details") == 1
        assert box.counted("search-leads") == {"calls": 0, "credits": 0, "errors": 0}
        assert box.charged("second-key") == 0
        with pytest.raises(KeyError, match="no key 'nope'"):
            box.usage("nope")
