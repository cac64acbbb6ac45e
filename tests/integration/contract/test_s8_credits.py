"""Sections 4.0 and 8: prices, read through the usage endpoint; decisions #19, #27, #28."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
import requests

from tests.integration.contract.helpers import (
    ENDPOINTS,
    PAGE_SIZE,
    Sandbox,
    World,
    assert_error,
    call,
    create_search,
    get_ok,
    new_key,
    ok,
    set_key,
    usage,
    valid_params,
    wait_done,
)

pytestmark = pytest.mark.integration

FIXED = sorted(name for name, (_, price) in ENDPOINTS.items() if price is not None)


def measure(
    sb: Sandbox, key: str, endpoint: str, action: Callable[[], requests.Response]
) -> tuple[requests.Response, int]:
    """Run ``action``; return its response and the credits it cost, checking that the balance,
    ``credits_charged`` and the endpoint's own counters all agree."""
    before = usage(sb, key)
    resp = action()
    after = usage(sb, key)
    spent = before["balance"] - after["balance"]
    assert after["credits_charged"] - before["credits_charged"] == spent
    was = before["calls"].get(endpoint, {"calls": 0, "credits": 0, "errors": 0})
    now = after["calls"][endpoint]
    assert now["calls"] == was["calls"] + 1, "every authenticated call is counted"
    assert now["credits"] - was["credits"] == spent
    assert now["errors"] - was["errors"] == (0 if resp.status_code == 200 else 1)
    return resp, spent


def setup_params(sb: Sandbox, world: World, key: str, endpoint: str) -> dict[str, Any]:
    """Valid parameters; request ids come from searches made with ``key`` itself."""
    params = valid_params(world, endpoint)
    if "request_id" in params:
        kind = "leads" if "lead" in endpoint else "companies"
        payload = valid_params(world, "search-leads" if kind == "leads" else "search-companies")
        params["request_id"] = create_search(sb, kind, key=key, **payload)
        wait_done(sb, kind, params["request_id"], key=key)
    return params


@pytest.mark.parametrize("endpoint", FIXED)
def test_fixed_price(sb: Sandbox, world: World, fresh_key: str, endpoint: str) -> None:
    params = setup_params(sb, world, fresh_key, endpoint)
    resp, spent = measure(
        sb, fresh_key, endpoint, lambda: call(sb, endpoint, key=fresh_key, **params)
    )
    ok(resp)
    assert spent == ENDPOINTS[endpoint][1]


def test_usage_report_shape(sb: Sandbox, fresh_key: str) -> None:
    get_ok(sb, "get-company-details", key=fresh_key, domain="acme-widgets.com")
    get_ok(sb, "search-posts", key=fresh_key, keyword="python")
    report = usage(sb, fresh_key)
    assert report["balance"] == 1_000_000 - 6
    assert report["credits_charged"] == 6
    assert report["calls"]["get-company-details"] == {"calls": 1, "credits": 1, "errors": 0}
    assert report["calls"]["search-posts"] == {"calls": 1, "credits": 5, "errors": 0}


@pytest.mark.parametrize("kind", ["leads", "companies"])
def test_per_result_price(sb: Sandbox, fresh_key: str, kind: str) -> None:
    """§8: 1 credit per result retrieved; a page past the end is empty and free (#23)."""
    endpoint = "get-lead-results" if kind == "leads" else "get-company-results"
    payload: dict[str, Any] = (
        {"title_keywords": ["Engineer"], "limit": 30}
        if kind == "leads"
        else {"company_headcounts": ["C", "D", "E"], "limit": 30}
    )
    rid = create_search(sb, kind, key=fresh_key, **payload)
    total = wait_done(sb, kind, rid, key=fresh_key)["total_results"]
    assert 0 < total <= 30
    pages = -(-total // PAGE_SIZE)
    seen = 0
    for page in range(1, pages + 2):
        params: dict[str, Any] = {"request_id": rid, "page": page}
        resp, spent = measure(
            sb, fresh_key, endpoint, partial(call, sb, endpoint, key=fresh_key, **params)
        )
        results = ok(resp)["results"]
        assert spent == len(results)
        seen += len(results)
        if page > pages:
            assert results == []
    assert seen == total


@pytest.mark.parametrize("limit", [1, 3, 5])
def test_google_full_profiles_price_per_profile(sb: Sandbox, fresh_key: str, limit: int) -> None:
    resp, spent = measure(
        sb,
        fresh_key,
        "google-full-profiles",
        lambda: call(sb, "google-full-profiles", key=fresh_key, job_title="Engineer", limit=limit),
    )
    assert spent == len(ok(resp)["data"])


@pytest.mark.parametrize(("kind", "price"), [("leads", 50), ("companies", 25)])
@pytest.mark.parametrize("trigger", ["sandbox-empty", "sandbox-fail"])
def test_search_creation_is_charged_even_without_results(
    sb: Sandbox, fresh_key: str, kind: str, price: int, trigger: str
) -> None:
    """§4.14 / §8: 25/50 charged even with 0 results; decisions #28: a failed search too."""
    endpoint = "search-leads" if kind == "leads" else "search-companies"
    resp, spent = measure(
        sb,
        fresh_key,
        endpoint,
        lambda: call(sb, endpoint, key=fresh_key, keywords=f"x {trigger}", limit=10),
    )
    rid = ok(resp)["request_id"]
    assert spent == price
    final = wait_done(sb, kind, rid, key=fresh_key)
    assert final["status"] == ("completed" if trigger == "sandbox-empty" else "failed")
    assert usage(sb, fresh_key)["balance"] == 1_000_000 - price


@pytest.mark.parametrize("kind", ["leads", "companies"])
def test_status_polls_are_free_and_counted(
    sb: Sandbox, world: World, fresh_key: str, kind: str
) -> None:
    endpoint = "get-lead-search-status" if kind == "leads" else "get-company-search-status"
    rid = create_search(sb, kind, key=fresh_key, **valid_params(world, f"search-{kind}"))
    for _ in range(3):
        resp, spent = measure(
            sb, fresh_key, endpoint, lambda: call(sb, endpoint, key=fresh_key, request_id=rid)
        )
        ok(resp)
        assert spent == 0


ERROR_CALLS: dict[str, tuple[str, dict[str, Any], int]] = {
    "400-missing": ("get-company-details", {}, 400),
    "400-search-jobs": ("search-jobs", {}, 400),
    "400-urn-style": ("get-post-details", {"urn": "urn:li:activity:123"}, 400),
    "400-search-leads-limit": ("search-leads", {"keywords": "x", "limit": 2501}, 400),
    "400-search-companies-both": (
        "search-companies",
        {"keywords": "x", "sales_nav_url": "https://www.profnet.com/sales/search/company?q=x"},
        400,
    ),
    "400-search-leads-neither": ("search-leads", {"limit": 10}, 400),
    "400-google-profiles": ("google-full-profiles", {"limit": 3}, 400),
    "400-google-profiles-limit": ("google-full-profiles", {"name": "Anna", "limit": 6}, 400),
    "404-job": ("get-job-details", {"job_id": "999999999999"}, 404),
    "404-domain": ("get-company-details", {"domain": "nowhere-sandbox-missing.io"}, 404),
    "404-status": ("get-lead-search-status", {"request_id": "nope"}, 404),
    "404-results": ("get-company-results", {"request_id": "nope"}, 404),
    "500-geocode": ("find-geocode-by-location", {"location": "sandbox-timeout"}, 500),
}


@pytest.mark.parametrize("case", sorted(ERROR_CALLS))
def test_errors_cost_nothing(sb: Sandbox, fresh_key: str, case: str) -> None:
    endpoint, params, status = ERROR_CALLS[case]
    resp, spent = measure(
        sb, fresh_key, endpoint, lambda: call(sb, endpoint, key=fresh_key, **params)
    )
    assert resp.status_code == status, resp.text[:300]
    assert spent == 0


def test_results_before_completion_cost_nothing(sb: Sandbox, world: World, fresh_key: str) -> None:
    """decisions #15: a 409 (here: a failed search) charges nothing."""
    rid = create_search(sb, "leads", key=fresh_key, keywords="sandbox-fail", limit=10)
    assert wait_done(sb, "leads", rid, key=fresh_key)["status"] == "failed"
    resp, spent = measure(
        sb,
        fresh_key,
        "get-lead-results",
        lambda: call(sb, "get-lead-results", key=fresh_key, request_id=rid),
    )
    assert resp.status_code == 409
    assert spent == 0


# --- 402 insufficient_credits (decisions #19) ---------------------------------------------


def test_402_when_a_search_is_too_expensive(sb: Sandbox) -> None:
    key = new_key(sb, credits=10)
    resp = call(sb, "search-companies", key=key, keywords="x", limit=10)
    body = assert_error(resp, 402, "insufficient_credits")
    assert body["required"] == 25
    assert body["balance"] == 10
    assert usage(sb, key)["balance"] == 10
    set_key(sb, key, 49)
    body = assert_error(
        call(sb, "search-leads", key=key, keywords="x", limit=10), 402, "insufficient_credits"
    )
    assert body["required"] == 50
    assert body["balance"] == 49
    assert usage(sb, key)["balance"] == 49


def test_balance_is_spent_down_to_zero(sb: Sandbox) -> None:
    key = new_key(sb, credits=2)
    get_ok(sb, "get-company-details", key=key, domain="acme-widgets.com")
    get_ok(sb, "get-company-details", key=key, domain="acme-widgets.com")
    assert usage(sb, key)["balance"] == 0
    body = assert_error(
        call(sb, "get-company-details", key=key, domain="acme-widgets.com"),
        402,
        "insufficient_credits",
    )
    assert body["required"] == 1
    assert body["balance"] == 0
    assert usage(sb, key)["balance"] == 0


def test_free_endpoints_work_with_an_empty_balance(sb: Sandbox, world: World) -> None:
    key = new_key(sb, credits=50)
    rid = create_search(sb, "leads", key=key, **valid_params(world, "search-leads"))
    assert usage(sb, key)["balance"] == 0
    assert wait_done(sb, "leads", rid, key=key)["status"] == "completed"


def test_402_on_a_results_page_the_balance_cannot_cover(sb: Sandbox) -> None:
    key = new_key(sb, credits=60)
    rid = create_search(sb, "leads", key=key, title_keywords=["Engineer"], limit=30)
    total = wait_done(sb, "leads", rid, key=key)["total_results"]
    assert total >= 4
    set_key(sb, key, 3)
    resp = call(sb, "get-lead-results", key=key, request_id=rid, page=1)
    assert_error(resp, 402, "insufficient_credits")
    assert usage(sb, key)["balance"] == 3
