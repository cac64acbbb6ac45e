"""Section 3 and 4.14: the asynchronous searches, driven by the sandbox clock (no sleeping)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from profnet_sheets.sandbox import SandboxConfig, start_sandbox
from tests.integration.contract import shapes
from tests.integration.contract.helpers import (
    HEADCOUNT_CODES,
    KEY,
    KIND_ENDPOINTS,
    PAGE_SIZE,
    Sandbox,
    advance_clock,
    assert_error,
    call,
    create_search,
    get_ok,
    new_key,
    pages_for,
    usage,
    wait_done,
)

pytestmark = pytest.mark.integration

JOB_SECONDS = 10.0
KINDS = ["leads", "companies"]
FILTERS: dict[str, dict[str, Any]] = {
    "leads": {"title_keywords": ["Engineer"]},
    "companies": {"company_headcounts": ["C", "D", "E"]},
}
SALES_NAV = {
    "leads": "https://www.profnet.com/sales/search/people?query=(keywords%3Aengineer)",
    "companies": "https://www.profnet.com/sales/search/company?query=(keywords%3Asoftware)",
}
MAX_LIMIT = {"leads": 2500, "companies": 1000}


@pytest.fixture(scope="module")
def jb() -> Iterator[Sandbox]:
    """A sandbox whose searches take 10 s of sandbox-clock time."""
    config = SandboxConfig(api_keys=(KEY,), credits=1_000_000, seed=7, job_seconds=JOB_SECONDS)
    with start_sandbox(config) as box:
        yield box


def status_of(sb: Sandbox, kind: str, rid: str) -> dict[str, Any]:
    body: dict[str, Any] = get_ok(sb, KIND_ENDPOINTS[kind][1], request_id=rid)
    shapes.assert_shape(body, shapes.SEARCH_STATUS)
    assert body["request_id"] == rid
    assert body["status"] in ("processing", "completed", "failed")
    return body


@pytest.mark.parametrize("kind", KINDS)
def test_creation_response(jb: Sandbox, kind: str) -> None:
    """§3 rule 1 and §4.14: { message, request_id, status: processing, search_type: standard }."""
    body = get_ok(jb, KIND_ENDPOINTS[kind][0], limit=10, **FILTERS[kind])
    shapes.assert_shape(body, shapes.SEARCH_CREATED)
    assert body["status"] == "processing"
    assert body["search_type"] == "standard"
    assert body["message"].strip()
    assert body["request_id"].strip()


@pytest.mark.parametrize("kind", KINDS)
def test_life_cycle(jb: Sandbox, kind: str) -> None:
    """decisions #3: processing -> completed; progress rises 0..100; total_results 0 until done;
    decisions #15: results read before completion answer 409 and cost nothing."""
    results_endpoint = KIND_ENDPOINTS[kind][2]
    rid = create_search(jb, kind, limit=40, **FILTERS[kind])
    first = status_of(jb, kind, rid)
    assert first["status"] == "processing"
    assert 0 <= first["progress"] < 100
    assert first["total_results"] == 0

    before = usage(jb)["balance"]
    early = call(jb, results_endpoint, request_id=rid)
    body = assert_error(early, 409, "search_not_completed")
    assert body["status"] == "processing"
    assert usage(jb)["balance"] == before

    progress = [first["progress"]]
    seen_middle = False
    for _ in range(20):
        advance_clock(jb, JOB_SECONDS / 4)
        now = status_of(jb, kind, rid)
        progress.append(now["progress"])
        if now["status"] == "completed":
            break
        assert now["status"] == "processing"
        assert now["total_results"] == 0
        seen_middle = seen_middle or 0 < now["progress"] < 100
    assert progress == sorted(progress), f"progress went backwards: {progress}"
    assert seen_middle, f"progress never strictly between 0 and 100: {progress}"
    assert now["status"] == "completed"
    assert len(progress) - 1 <= 4, f"not completed after job_seconds: {progress}"
    assert now["progress"] == 100
    assert 0 < now["total_results"] <= 40
    # completed is terminal
    advance_clock(jb, JOB_SECONDS * 3)
    assert status_of(jb, kind, rid) == now


@pytest.mark.parametrize("kind", KINDS)
def test_results_paging(jb: Sandbox, kind: str) -> None:
    """§2 paged envelope; decisions #22 (25 per page) and #23 (page past the end: empty)."""
    results_endpoint = KIND_ENDPOINTS[kind][2]
    item = shapes.LEAD_ITEM if kind == "leads" else shapes.COMPANY_SEARCH_ITEM
    rid = create_search(jb, kind, limit=60, **FILTERS[kind])
    total = wait_done(jb, kind, rid, step=JOB_SECONDS)["total_results"]
    assert 0 < total <= 60
    default = get_ok(jb, results_endpoint, request_id=rid)
    shapes.assert_shape(default, shapes.paged(item))
    assert default["page"] == 1
    assert default == get_ok(jb, results_endpoint, request_id=rid, page=1)
    pages = pages_for(total)
    collected: list[dict[str, Any]] = []
    for page in range(1, pages + 1):
        body = get_ok(jb, results_endpoint, request_id=rid, page=page)
        shapes.assert_shape(body, shapes.paged(item))
        assert body["request_id"] == rid
        assert body["page"] == page
        assert body["total_pages"] == pages
        assert body["total_results"] == total
        expected = PAGE_SIZE if page < pages else total - PAGE_SIZE * (pages - 1)
        assert len(body["results"]) == expected
        collected += body["results"]
    assert len(collected) == total
    unique = {r["profnet_url"] for r in collected}
    assert len(unique) == total, "the same result appears twice"
    past = get_ok(jb, results_endpoint, request_id=rid, page=pages + 1)
    assert past["results"] == []
    assert past["page"] == pages + 1
    assert past["total_results"] == total


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("limit", [1, 7, 26])
def test_total_results_never_above_limit(jb: Sandbox, kind: str, limit: int) -> None:
    rid = create_search(jb, kind, limit=limit, **FILTERS[kind])
    total = wait_done(jb, kind, rid, step=JOB_SECONDS)["total_results"]
    assert 0 < total <= limit
    body = get_ok(jb, KIND_ENDPOINTS[kind][2], request_id=rid)
    assert len(body["results"]) == min(total, PAGE_SIZE)


@pytest.mark.parametrize("kind", KINDS)
def test_default_limit_is_100(jb: Sandbox, kind: str) -> None:
    rid = create_search(jb, kind, **FILTERS[kind])
    total = wait_done(jb, kind, rid, step=JOB_SECONDS)["total_results"]
    assert 0 < total <= 100


@pytest.mark.parametrize("kind", KINDS)
def test_failed_search(jb: Sandbox, kind: str) -> None:
    """decisions #36 trigger; #3: failed is terminal and keeps its progress; #15: 409 with the
    status `failed`."""
    rid = create_search(jb, kind, keywords="acme sandbox-fail", limit=10)
    assert status_of(jb, kind, rid)["status"] == "processing"
    final = wait_done(jb, kind, rid, step=JOB_SECONDS / 4)
    assert final["status"] == "failed"
    assert 0 <= final["progress"] <= 100
    assert final["total_results"] == 0
    advance_clock(jb, JOB_SECONDS * 2)
    assert status_of(jb, kind, rid) == final
    body = assert_error(
        call(jb, KIND_ENDPOINTS[kind][2], request_id=rid), 409, "search_not_completed"
    )
    assert body["status"] == "failed"


@pytest.mark.parametrize("kind", KINDS)
def test_empty_search(jb: Sandbox, kind: str) -> None:
    rid = create_search(jb, kind, keywords="sandbox-empty", limit=10)
    final = wait_done(jb, kind, rid, step=JOB_SECONDS)
    assert final["status"] == "completed"
    assert final["progress"] == 100
    assert final["total_results"] == 0
    body = get_ok(jb, KIND_ENDPOINTS[kind][2], request_id=rid, page=1)
    assert body["results"] == []
    assert body["total_results"] == 0


@pytest.mark.parametrize("kind", KINDS)
def test_sales_nav_url_alternative(jb: Sandbox, kind: str) -> None:
    body = get_ok(jb, KIND_ENDPOINTS[kind][0], sales_nav_url=SALES_NAV[kind], limit=12)
    assert body["status"] == "processing"
    assert body["search_type"] == "standard"
    final = wait_done(jb, kind, body["request_id"], step=JOB_SECONDS)
    assert final["status"] == "completed"
    assert final["total_results"] <= 12
    results = get_ok(jb, KIND_ENDPOINTS[kind][2], request_id=body["request_id"])
    item = shapes.LEAD_ITEM if kind == "leads" else shapes.COMPANY_SEARCH_ITEM
    shapes.assert_shape(results, shapes.paged(item))


@pytest.mark.parametrize("kind", KINDS)
def test_filters_and_sales_nav_url_together(jb: Sandbox, kind: str) -> None:
    """decisions #14: both -> 400 parameter sales_nav_url, nothing charged."""
    key = new_key(jb)
    resp = call(
        jb,
        KIND_ENDPOINTS[kind][0],
        key=key,
        sales_nav_url=SALES_NAV[kind],
        limit=10,
        **FILTERS[kind],
    )
    assert_error(resp, 400, "invalid_parameter", "sales_nav_url")
    assert usage(jb, key)["balance"] == 1_000_000


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    "payload",
    [{}, {"limit": 10}, {"keywords": "  ", "limit": 10}, {"sales_nav_url": ""}],
    ids=["empty", "limit-only", "blank-keywords", "blank-sales-nav"],
)
def test_neither_filters_nor_sales_nav_url(jb: Sandbox, kind: str, payload: dict[str, Any]) -> None:
    """decisions #14 and #26: no filter at all -> 400 parameter payload, nothing charged."""
    key = new_key(jb)
    resp = call(jb, KIND_ENDPOINTS[kind][0], key=key, **payload)
    assert_error(resp, 400, "invalid_parameter", "payload")
    assert usage(jb, key)["balance"] == 1_000_000


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("where", ["low", "high"])
def test_limit_bounds_accepted(jb: Sandbox, kind: str, where: str) -> None:
    limit = 1 if where == "low" else MAX_LIMIT[kind]
    body = get_ok(jb, KIND_ENDPOINTS[kind][0], limit=limit, **FILTERS[kind])
    assert body["status"] == "processing"


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("where", ["zero", "negative", "above", "float"])
def test_limit_out_of_range(jb: Sandbox, kind: str, where: str) -> None:
    limit: float = {"zero": 0, "negative": -5, "above": MAX_LIMIT[kind] + 1, "float": 2.5}[where]
    key = new_key(jb)
    resp = call(jb, KIND_ENDPOINTS[kind][0], key=key, limit=limit, **FILTERS[kind])
    assert_error(resp, 400, "invalid_parameter", "limit")
    assert usage(jb, key)["balance"] == 1_000_000


@pytest.mark.parametrize("limit", [0, 6, -1])
def test_google_full_profiles_limit_out_of_range(jb: Sandbox, limit: int) -> None:
    resp = call(jb, "google-full-profiles", name="Anna", limit=limit)
    assert_error(resp, 400, "invalid_parameter", "limit")


@pytest.mark.parametrize("code", sorted(HEADCOUNT_CODES))
def test_headcount_codes_accepted(jb: Sandbox, code: str) -> None:
    body = get_ok(jb, "search-companies", company_headcounts=[code], limit=5)
    assert body["status"] == "processing"


@pytest.mark.parametrize("codes", [["I"], ["A", "Z"], ["AB"], [""], [1]])
def test_headcount_codes_validated(jb: Sandbox, codes: list[Any]) -> None:
    resp = call(jb, "search-companies", company_headcounts=codes, limit=5)
    assert_error(resp, 400, "invalid_parameter", "company_headcounts")


@pytest.mark.parametrize("code", ["A", "C", "F", "H"])
def test_headcount_code_filters_company_size(jb: Sandbox, code: str) -> None:
    """§2 headcount codes and decisions #32: results have the code's size label."""
    rid = create_search(jb, "companies", company_headcounts=[code], limit=10)
    assert wait_done(jb, "companies", rid, step=JOB_SECONDS)["status"] == "completed"
    results = get_ok(jb, "get-company-results", request_id=rid)["results"]
    assert results
    assert {r["company_size"] for r in results} == {HEADCOUNT_CODES[code]}


def test_title_keywords_filter_leads(jb: Sandbox) -> None:
    rid = create_search(jb, "leads", title_keywords=["Designer"], limit=10)
    wait_done(jb, "leads", rid, step=JOB_SECONDS)
    results = get_ok(jb, "get-lead-results", request_id=rid)["results"]
    assert results
    for lead in results:
        assert "designer" in lead["title"].lower(), lead


def test_unknown_recent_activity_matches_nothing(jb: Sandbox) -> None:
    """decisions #13: an unknown recent_activities value matches nothing."""
    rid = create_search(jb, "companies", recent_activities=["no-such-activity"], limit=10)
    final = wait_done(jb, "companies", rid, step=JOB_SECONDS)
    assert final["status"] == "completed"
    assert final["total_results"] == 0


@pytest.mark.parametrize("activity", ["funding", "hiring_surge"])
def test_known_recent_activity_is_accepted(jb: Sandbox, activity: str) -> None:
    rid = create_search(jb, "companies", recent_activities=[activity], limit=10)
    assert wait_done(jb, "companies", rid, step=JOB_SECONDS)["status"] == "completed"


def test_growth_range_is_accepted(jb: Sandbox) -> None:
    body = get_ok(jb, "search-companies", company_headcount_growth={"min": 5, "max": 50.5}, limit=5)
    assert body["status"] == "processing"


@pytest.mark.parametrize("kind", KINDS)
def test_unknown_request_id(jb: Sandbox, kind: str) -> None:
    for endpoint in KIND_ENDPOINTS[kind][1:]:
        assert_error(call(jb, endpoint, request_id="0000-unknown"), 404, "not_found")
