"""Section 7 (and §4 per endpoint, §5): error statuses and bodies."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.integration.contract.helpers import (
    COMPANY_URL,
    ENDPOINTS,
    MISSING_PARAMETER,
    NO_PARAMETER,
    POST_ENDPOINTS,
    PROFILE_URL,
    Sandbox,
    World,
    api,
    assert_error,
    balance,
    call,
    raw,
    valid_params,
)

pytestmark = pytest.mark.integration


# --- 400 invalid_parameter -----------------------------------------------------------------


@pytest.mark.parametrize("endpoint", sorted(ENDPOINTS))
def test_missing_required_parameter(sb: Sandbox, endpoint: str) -> None:
    resp = call(sb, endpoint)
    assert_error(resp, 400, "invalid_parameter", MISSING_PARAMETER[endpoint])


@pytest.mark.parametrize(
    ("endpoint", "params", "parameter"),
    [
        ("get-company-details", {"domain": "   "}, "company_id, profnet_url, or domain"),
        ("search-posts", {"keyword": ""}, "keyword"),
        ("search-posts", {"keyword": "   "}, "keyword"),
        ("get-job-details", {"job_id": " "}, "job_id"),
        ("get-post-details", {"urn": ""}, "urn"),
        ("get-company-posts", {"profnet_url": " "}, "profnet_url"),
        ("get-profile-posts", {"profnet_url": ""}, "profnet_url"),
        ("find-geocode-by-location", {"location": "  "}, "location"),
        ("get-profile-details", {"profnet_url": ""}, "profnet_url"),
        ("get-recommendations-received", {"profnet_url": ""}, "profnet_url"),
        ("get-recommendations-given", {"profnet_url": " "}, "profnet_url"),
        ("get-lead-search-status", {"request_id": ""}, "request_id"),
        ("get-company-search-status", {"request_id": " "}, "request_id"),
        ("get-lead-results", {"request_id": ""}, "request_id"),
        ("get-company-results", {"request_id": " "}, "request_id"),
        ("google-full-profiles", {"name": " ", "limit": 3}, "payload"),
        ("google-schools", {"school_name": "", "page": 1}, "payload"),
        ("find-custom-headcount", {"profnet_url": " "}, "profnet_url"),
    ],
)
def test_blank_counts_as_missing(
    sb: Sandbox, endpoint: str, params: dict[str, Any], parameter: str
) -> None:
    """decisions #26: empty or whitespace-only strings count as missing."""
    assert_error(call(sb, endpoint, **params), 400, "invalid_parameter", parameter)


@pytest.mark.parametrize(
    ("endpoint", "payload", "parameter"),
    [
        ("search-posts", {"keyword": None}, "keyword"),
        ("search-leads", {"title_keywords": [], "limit": 10}, "payload"),
        ("search-leads", {"keywords": None, "geo_codes": []}, "payload"),
        ("search-companies", {"company_headcounts": [], "keywords": None}, "payload"),
        ("google-full-profiles", {"name": None, "limit": 2}, "payload"),
        ("google-schools", {"school_name": None}, "payload"),
        ("find-custom-headcount", {"profnet_url": None}, "profnet_url"),
    ],
)
def test_null_and_empty_arrays_count_as_missing(
    sb: Sandbox, endpoint: str, payload: dict[str, Any], parameter: str
) -> None:
    """decisions #26: empty arrays and null in a JSON body count as not given."""
    assert_error(call(sb, endpoint, **payload), 400, "invalid_parameter", parameter)


@pytest.mark.parametrize(
    "payload",
    [{}, {"start": 0}, {"keyword": ""}, {"keyword": None, "geo_id": None}],
    ids=["empty", "start-only", "blank-keyword", "nulls"],
)
def test_search_jobs_400_has_no_parameter_field(sb: Sandbox, payload: dict[str, Any]) -> None:
    """§4.3 / §7: no search parameter -> 400 whose body has no `parameter` field."""
    assert_error(call(sb, "search-jobs", **payload), 400, "invalid_parameter", NO_PARAMETER)


@pytest.mark.parametrize(
    "payload",
    [
        {"keyword": "python", "job_type": "freelance"},
        {"keyword": "python", "remote": "sometimes"},
        {"company_id": "abc"},
        {"keyword": "python", "start": -1},
        {"keyword": "python", "start": "abc"},
        {"keyword": 123},
        {"keyword": "python", "date_posted": "yesterday"},
    ],
    ids=["job_type", "remote", "company_id", "start-negative", "start-text", "keyword", "date"],
)
def test_search_jobs_invalid_value_400_has_no_parameter_field(
    sb: Sandbox, payload: dict[str, Any]
) -> None:
    """§7: `parameter` is "absent on search-jobs", whatever the cause of the 400."""
    body = assert_error(call(sb, "search-jobs", **payload), 400, "invalid_parameter", NO_PARAMETER)
    assert set(body) == {"message", "details"}


@pytest.mark.parametrize("body", [None, b"", b"[]", b'{"keyword": '], ids=str)
def test_search_jobs_unreadable_body_400_has_no_parameter_field(
    sb: Sandbox, body: bytes | None
) -> None:
    """No body at all (no Content-Type either), an empty one, or one that is no JSON object."""
    content_type = None if body is None else "application/json"
    resp = raw(sb, "POST", "search-jobs", data=body, content_type=content_type)
    assert_error(resp, 400, "invalid_parameter", NO_PARAMETER)


@pytest.mark.parametrize("endpoint", ["google-full-profiles", "google-schools"])
def test_google_search_without_a_search_field(sb: Sandbox, endpoint: str) -> None:
    payload: dict[str, Any] = {"limit": 3} if endpoint == "google-full-profiles" else {"page": 1}
    assert_error(call(sb, endpoint, **payload), 400, "invalid_parameter", "payload")


def test_urn_style_value_is_rejected(sb: Sandbox, world: World) -> None:
    """decisions #10: get-post-details takes the numeric id alone."""
    resp = call(sb, "get-post-details", urn=f"urn:li:activity:{world.post_id}")
    assert_error(resp, 400, "invalid_parameter", "urn")


@pytest.mark.parametrize(
    ("endpoint", "url"),
    [
        ("get-profile-details", COMPANY_URL),
        ("get-profile-posts", COMPANY_URL),
        ("get-company-posts", PROFILE_URL),
        ("find-custom-headcount", PROFILE_URL),
        ("get-recommendations-received", COMPANY_URL),
        ("get-recommendations-given", COMPANY_URL),
        ("find-custom-headcount", "https://www.example.com/about/"),
    ],
)
def test_url_of_the_wrong_kind(sb: Sandbox, endpoint: str, url: str) -> None:
    """§4.13 (must contain /company/, /showcase/ or /school/) and decisions #35."""
    assert_error(call(sb, endpoint, profnet_url=url), 400, "invalid_parameter", "profnet_url")


@pytest.mark.parametrize(
    ("endpoint", "payload", "parameter"),
    [
        ("search-companies", {"keywords": "x", "limit": "abc"}, "limit"),
        ("search-leads", {"keywords": "x", "limit": "abc"}, "limit"),
        ("google-full-profiles", {"name": "Anna", "limit": "abc"}, "limit"),
        ("search-leads", {"geo_codes": ["103644278"]}, "geo_codes"),
        ("search-leads", {"title_keywords": "Engineer"}, "title_keywords"),
        ("search-companies", {"headquarters_location": ["103644278"]}, "headquarters_location"),
        (
            "search-companies",
            {"keywords": "x", "headquarters_location_exclude": ["1"]},
            "headquarters_location_exclude",
        ),
        ("search-companies", {"company_headcounts": "B"}, "company_headcounts"),
        (
            "find-custom-headcount",
            {"profnet_url": COMPANY_URL, "where_they_live": [103644278]},
            "where_they_live",
        ),
        ("search-posts", {"keyword": "python", "start": "abc"}, "start"),
        ("google-schools", {"school_name": "Tech", "page": "abc"}, "page"),
        ("search-companies", {"company_headcount_growth": "5-10"}, "company_headcount_growth"),
        (
            "search-companies",
            {"company_headcount_growth": {"min": "a", "max": 10}},
            "company_headcount_growth",
        ),
        ("search-companies", {"industry_codes": "4"}, "industry_codes"),
        ("search-companies", {"recent_activities": "funding"}, "recent_activities"),
        ("search-companies", {"hiring_on_profnet": "yes"}, "hiring_on_profnet"),
        ("search-leads", {"current_company_names": "Acme"}, "current_company_names"),
        ("search-leads", {"keywords": ["a", "b"]}, "keywords"),
        ("search-posts", {"keyword": 123}, "keyword"),
        ("google-full-profiles", {"name": ["Anna"]}, "name"),
        ("find-custom-headcount", {"profnet_url": COMPANY_URL, "keywords": ["x"]}, "keywords"),
        (
            "find-custom-headcount",
            {"profnet_url": COMPANY_URL, "what_they_do": "8"},
            "what_they_do",
        ),
        (
            "find-custom-headcount",
            {"profnet_url": COMPANY_URL, "include_subsidiaries": "yes"},
            "include_subsidiaries",
        ),
    ],
)
def test_wrong_types_name_the_parameter(
    sb: Sandbox, endpoint: str, payload: dict[str, Any], parameter: str
) -> None:
    """decisions #25: a wrong type is 400 invalid_parameter naming the parameter."""
    assert_error(call(sb, endpoint, **payload), 400, "invalid_parameter", parameter)


@pytest.mark.parametrize("endpoint", ["get-lead-results", "get-company-results"])
@pytest.mark.parametrize("page", ["0", "-1", "abc"])
def test_results_page_below_one(sb: Sandbox, world: World, endpoint: str, page: str) -> None:
    """§8: page is an integer, minimum 1 (decisions #18: parameter = page)."""
    rid = world.lead_request_id if endpoint == "get-lead-results" else world.company_request_id
    resp = api(sb, "GET", endpoint, request_id=rid, page=page)
    assert_error(resp, 400, "invalid_parameter", "page")


@pytest.mark.parametrize("endpoint", POST_ENDPOINTS)
@pytest.mark.parametrize(
    "body", ['{"keyword": ', "[1, 2]", '"text"'], ids=["malformed", "array", "string"]
)
def test_payload_that_is_not_an_object(sb: Sandbox, endpoint: str, body: str) -> None:
    """decisions #25: malformed JSON or a body that is not an object -> parameter = payload."""
    resp = raw(sb, "POST", endpoint, data=body, content_type="application/json")
    parameter = NO_PARAMETER if endpoint == "search-jobs" else "payload"
    assert_error(resp, 400, "invalid_parameter", parameter)


@pytest.mark.parametrize("endpoint", POST_ENDPOINTS)
@pytest.mark.parametrize(
    "content_type", [None, "text/plain", "application/x-www-form-urlencoded", "text/json"]
)
def test_payload_that_is_not_sent_as_json(
    sb: Sandbox, world: World, fresh_key: str, endpoint: str, content_type: str | None
) -> None:
    """Conventions: POST bodies come with `Content-Type: application/json` (decisions #92);
    a valid JSON body under another type, or none, is refused and costs nothing."""
    body = json.dumps(valid_params(world, endpoint))
    resp = raw(sb, "POST", endpoint, key=fresh_key, data=body, content_type=content_type)
    parameter = NO_PARAMETER if endpoint == "search-jobs" else "payload"
    assert "Content-Type" in assert_error(resp, 400, "invalid_parameter", parameter)["details"]
    assert balance(sb, fresh_key) == 1_000_000


@pytest.mark.parametrize("endpoint", POST_ENDPOINTS)
def test_payload_sent_as_json_with_a_charset(sb: Sandbox, world: World, endpoint: str) -> None:
    body = json.dumps(valid_params(world, endpoint))
    resp = raw(sb, "POST", endpoint, data=body, content_type="Application/JSON; charset=UTF-8")
    assert resp.status_code == 200, resp.text


@pytest.mark.parametrize("endpoint", POST_ENDPOINTS)
@pytest.mark.parametrize(
    "body",
    ["[" * 100_000 + "]" * 100_000, '{"keyword": ' + "[" * 50 + "]" * 50 + "}"],
    ids=["100000-levels", "51-levels"],
)
def test_payload_nested_too_deep(sb: Sandbox, endpoint: str, body: str) -> None:
    """No JSON text makes a 500: nesting deeper than anything the spec needs is `payload`."""
    resp = raw(sb, "POST", endpoint, data=body, content_type="application/json")
    parameter = NO_PARAMETER if endpoint == "search-jobs" else "payload"
    assert_error(resp, 400, "invalid_parameter", parameter)


@pytest.mark.parametrize(
    ("endpoint", "params", "parameter"),
    [
        ("get-lead-results", {"page": "9" * 400}, "page"),
        ("get-company-results", {"page": "9" * 5000}, "page"),
        ("get-company-results", {"page": str(2**63)}, "page"),
        ("get-company-posts", {"profnet_url": COMPANY_URL, "start": "9" * 400}, "start"),
        ("get-profile-posts", {"profnet_url": PROFILE_URL, "start": "-" + "9" * 30}, "start"),
    ],
)
def test_query_integer_beyond_64_bits(
    sb: Sandbox, world: World, endpoint: str, params: dict[str, str], parameter: str
) -> None:
    rid = world.lead_request_id if endpoint == "get-lead-results" else world.company_request_id
    resp = api(sb, "GET", endpoint, request_id=rid, **params)
    assert_error(resp, 400, "invalid_parameter", parameter)


@pytest.mark.parametrize(
    ("endpoint", "body", "parameter"),
    [
        ("search-posts", '{"keyword": "x", "start": 100000000000000000000000000000}', "start"),
        ("search-jobs", '{"keyword": "x", "start": 9223372036854775808}', NO_PARAMETER),
        ("search-leads", '{"geo_codes": [100000000000000000000000000000]}', "geo_codes"),
        ("google-schools", '{"school_name": "x", "page": -9223372036854775809}', "page"),
        (
            "search-companies",
            '{"company_headcount_growth": {"min": NaN, "max": Infinity}}',
            "company_headcount_growth",
        ),
        ("search-posts", '{"keyword": "\\ud800"}', "payload"),
    ],
    ids=["start", "search-jobs-start", "geo_codes", "page", "growth", "surrogate"],
)
def test_json_values_no_service_holds(
    sb: Sandbox, endpoint: str, body: str, parameter: object
) -> None:
    """Integers beyond 64 bits, NaN and infinities, lone surrogates: 400, never a 500."""
    resp = raw(sb, "POST", endpoint, data=body, content_type="application/json")
    assert_error(resp, 400, "invalid_parameter", parameter)


# --- 401 unauthorized (§5, decisions #20: on every endpoint) -------------------------------


@pytest.mark.parametrize("endpoint", sorted(ENDPOINTS))
def test_missing_key(sb: Sandbox, world: World, endpoint: str) -> None:
    resp = call(sb, endpoint, key=None, **valid_params(world, endpoint))
    assert_error(resp, 401, "unauthorized")


@pytest.mark.parametrize("endpoint", sorted(ENDPOINTS))
def test_wrong_key(sb: Sandbox, world: World, endpoint: str) -> None:
    resp = call(sb, endpoint, key="not-a-key", **valid_params(world, endpoint))
    assert_error(resp, 401, "unauthorized")


@pytest.mark.parametrize("endpoint", ["get-company-details", "search-leads"])
def test_empty_key(sb: Sandbox, world: World, endpoint: str) -> None:
    resp = call(sb, endpoint, key="", **valid_params(world, endpoint))
    assert_error(resp, 401, "unauthorized")


def test_key_checked_before_parameters(sb: Sandbox) -> None:
    """§5: a request without a valid key is refused whatever else it carries."""
    assert_error(call(sb, "get-job-details", key=None), 401, "unauthorized")


# --- 404 not_found -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("endpoint", "params"),
    [
        ("get-job-details", {"job_id": "999999999999"}),
        ("get-post-details", {"urn": "999999999999999"}),
        ("get-lead-search-status", {"request_id": "no-such-request"}),
        ("get-company-search-status", {"request_id": "no-such-request"}),
        ("get-lead-results", {"request_id": "no-such-request"}),
        ("get-company-results", {"request_id": "no-such-request"}),
        ("get-company-details", {"domain": "nothing-here-sandbox-missing.io"}),
        (
            "get-company-details",
            {"domain": "https://www.shop.nothing-here-sandbox-missing.io/about"},
        ),
        ("get-company-details", {"domain": "not_a_domain"}),
        ("get-company-details", {"domain": "localhost"}),
        ("get-company-details", {"company_id": "0"}),  # ids start at 1 (docs/excel.md)
    ],
)
def test_not_found(sb: Sandbox, endpoint: str, params: dict[str, str]) -> None:
    assert_error(call(sb, endpoint, **params), 404, "not_found")


@pytest.mark.parametrize(
    ("endpoint", "kind"),
    [
        ("get-company-search-status", "leads"),
        ("get-company-results", "leads"),
        ("get-lead-search-status", "companies"),
        ("get-lead-results", "companies"),
    ],
)
def test_request_id_of_the_other_kind(sb: Sandbox, world: World, endpoint: str, kind: str) -> None:
    """decisions #20: a lead id on a company endpoint (and vice versa) is 404."""
    rid = world.lead_request_id if kind == "leads" else world.company_request_id
    assert_error(call(sb, endpoint, request_id=rid), 404, "not_found")


@pytest.mark.parametrize("path", ["get-post-reactions", "get-post-comments", "no-such-thing"])
def test_unknown_path(sb: Sandbox, path: str) -> None:
    """decisions #6: unknown paths answer 404 not_found."""
    assert_error(api(sb, "GET", path, urn="1"), 404, "not_found")


# --- 500 (§4.10) ---------------------------------------------------------------------------


def test_geocode_timeout(sb: Sandbox) -> None:
    resp = call(sb, "find-geocode-by-location", location="sandbox-timeout")
    assert_error(resp, 500, "error")
