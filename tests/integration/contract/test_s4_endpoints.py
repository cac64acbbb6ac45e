"""Section 4: methods, paths, where parameters go, and each endpoint's documented rules."""

from __future__ import annotations

from typing import Any

import pytest
import requests

from tests.integration.contract.helpers import (
    COMPANY_URL,
    ENDPOINTS,
    GET_ENDPOINTS,
    HEADER,
    KEY,
    LIST_PAGE_SIZE,
    MISSING_PARAMETER,
    POST_ENDPOINTS,
    PROFILE_URL,
    SCHOOL_URL,
    Sandbox,
    World,
    assert_error,
    call,
    get_ok,
    parse_timestamp,
    raw,
    valid_params,
)

pytestmark = pytest.mark.integration


# --- 4.0: the 20 endpoints, their methods and where their parameters go ------------------


def test_openapi_lists_exactly_the_20_endpoints(sb: Sandbox) -> None:
    resp = requests.get(f"{sb.base_url}/openapi.json", timeout=15)
    assert resp.status_code == 200
    doc = resp.json()
    assert str(doc["openapi"]).startswith("3.1")
    paths: dict[str, Any] = doc["paths"]
    assert not [p for p in paths if p.startswith("/_sandbox")], "control endpoints leaked"
    documented = {f"/{name}": {method.lower()} for name, (method, _) in ENDPOINTS.items()}
    found = {
        path: {m for m in ops if m in {"get", "post", "put", "patch", "delete"}}
        for path, ops in paths.items()
    }
    assert found == documented


@pytest.mark.parametrize("endpoint", GET_ENDPOINTS)
def test_get_parameters_go_in_the_query_string(sb: Sandbox, world: World, endpoint: str) -> None:
    """Conventions: GET endpoints read the query string; the same values as a JSON body are
    not parameters, so the request lacks its required one."""
    resp = raw(sb, "GET", endpoint, json_body=valid_params(world, endpoint))
    assert_error(resp, 400, "invalid_parameter", MISSING_PARAMETER[endpoint])


@pytest.mark.parametrize("endpoint", POST_ENDPOINTS)
def test_post_parameters_go_in_the_json_body(sb: Sandbox, world: World, endpoint: str) -> None:
    """Conventions: POST endpoints read a JSON payload; query parameters are not the payload."""
    resp = raw(sb, "POST", endpoint, params=valid_params(world, endpoint), json_body={})
    assert_error(resp, 400, "invalid_parameter", MISSING_PARAMETER[endpoint])


@pytest.mark.parametrize("endpoint", sorted(ENDPOINTS))
def test_wrong_method_is_not_served(sb: Sandbox, world: World, endpoint: str) -> None:
    method = "POST" if ENDPOINTS[endpoint][0] == "GET" else "GET"
    params = valid_params(world, endpoint)
    if method == "GET":
        resp = raw(sb, method, endpoint, params=params)
    else:
        resp = raw(sb, method, endpoint, json_body=params)
    assert resp.status_code in (404, 405), (resp.status_code, resp.text[:300])


# --- 4.1 get-company-details ---------------------------------------------------------------


@pytest.mark.parametrize(
    "domain",
    [
        "https://www.initech-labs.com/about",
        "http://initech-labs.com",
        "www.initech-labs.com",
        "initech-labs.com",
        "https://initech-labs.com/",
        "http://www.initech-labs.com/careers/jobs?x=1",
    ],
)
def test_domain_is_normalised(sb: Sandbox, domain: str) -> None:
    """4.1 rule 1: protocol, www. and any trailing path are removed before the lookup."""
    plain = get_ok(sb, "get-company-details", domain="initech-labs.com")["data"]
    assert get_ok(sb, "get-company-details", domain=domain)["data"] == plain


@pytest.mark.parametrize(
    "url",
    [
        "http://www.profnet.com/company/acme-widgets/",
        "https://profnet.com/company/acme-widgets/",
        "https://de.profnet.com/company/acme-widgets/",
        "https://www.profnet.com/company/acme-widgets",
        "https://www.profnet.com/company/acme-widgets/?trk=abc",
        "https://www.profnet.com/company/acme-widgets/#top",
        "https://www.profnet.com/company/acme-widgets/about/",
    ],
)
def test_company_url_variants(sb: Sandbox, url: str) -> None:
    """decisions #33: the accepted variants of a company URL name the same company."""
    canonical = get_ok(sb, "get-company-details", profnet_url=COMPANY_URL)["data"]
    assert get_ok(sb, "get-company-details", profnet_url=url)["data"] == canonical


@pytest.mark.parametrize(
    "url",
    [
        "http://www.profnet.com/in/jane-doe-4711/",
        "https://profnet.com/in/jane-doe-4711/",
        "https://www.profnet.com/in/jane-doe-4711",
        "https://www.profnet.com/in/jane-doe-4711/?utm_source=x",
    ],
)
def test_profile_url_variants(sb: Sandbox, url: str) -> None:
    canonical = get_ok(sb, "get-profile-details", profnet_url=PROFILE_URL)["data"]
    assert get_ok(sb, "get-profile-details", profnet_url=url)["data"] == canonical


def test_company_url_and_domain_both_resolve(sb: Sandbox) -> None:
    data = get_ok(sb, "get-company-details", profnet_url=COMPANY_URL)["data"]
    assert data["profnet_url"] == COMPANY_URL


def test_profnet_url_wins_over_domain(sb: Sandbox) -> None:
    """decisions #5: company_id > profnet_url > domain; the others are ignored."""
    by_url = get_ok(sb, "get-company-details", profnet_url=COMPANY_URL)["data"]
    by_domain = get_ok(sb, "get-company-details", domain="umbrella-bio.com")["data"]
    assert by_url != by_domain
    both = get_ok(sb, "get-company-details", profnet_url=COMPANY_URL, domain="umbrella-bio.com")[
        "data"
    ]
    assert both == by_url


def test_company_id_wins_over_url_and_domain(sb: Sandbox) -> None:
    """decisions #5: company_id wins; #34: an id never shown gives a company known only by its
    id (canonical URL /company/<id>/, no website)."""
    alone = get_ok(sb, "get-company-details", company_id="987654321012")["data"]
    assert alone["profnet_url"] == "https://www.profnet.com/company/987654321012/"
    assert alone["website"] is None
    both = get_ok(
        sb,
        "get-company-details",
        company_id="987654321012",
        profnet_url=COMPANY_URL,
        domain="acme-widgets.com",
    )["data"]
    assert both == alone


def test_company_id_and_its_url_agree(sb: Sandbox) -> None:
    """decisions #33/#34: /company/<id>/ names the company of that id."""
    by_id = get_ok(sb, "get-company-details", company_id="4455667")["data"]
    by_url = get_ok(
        sb, "get-company-details", profnet_url="https://www.profnet.com/company/4455667/"
    )["data"]
    assert by_id == by_url
    assert get_ok(sb, "get-company-details", company_id="4455668")["data"] != by_id


def test_non_numeric_company_id(sb: Sandbox) -> None:
    """§4.1: company_id is a numeric id; decisions #20: a non-numeric one is 400."""
    resp = call(sb, "get-company-details", company_id="acme")
    assert_error(resp, 400, "invalid_parameter", "company_id")


# TODO(contract): "a company id the sandbox has shown gives that company" (decisions #34) needs
# the id of a slug-named company; no endpoint of the spec returns one, so slug <-> id
# consistency is not tested.


# --- 4.2 search-posts ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "extra",
    [
        {"sort_by": "relevance"},
        {"sort_by": "date"},
        {"date_posted": "past-24h"},
        {"date_posted": "past-week"},
        {"date_posted": "past-month"},
        {"start": 0},
    ],
    ids=lambda e: "-".join(f"{k}={v}" for k, v in e.items()),
)
def test_search_posts_accepts_documented_options(sb: Sandbox, extra: dict[str, Any]) -> None:
    body = get_ok(sb, "search-posts", keyword="python", **extra)
    assert isinstance(body["data"]["posts"], list)


def test_search_posts_sorted_by_date(sb: Sandbox) -> None:
    posts = get_ok(sb, "search-posts", keyword="marketing", sort_by="date")["data"]["posts"]
    stamps = [parse_timestamp(p["posted_at"]) for p in posts]
    assert stamps == sorted(stamps, reverse=True)


def test_search_posts_default_sort_is_relevance(sb: Sandbox) -> None:
    default = get_ok(sb, "search-posts", keyword="python")["data"]
    explicit = get_ok(sb, "search-posts", keyword="python", sort_by="relevance")["data"]
    assert default == explicit


@pytest.mark.parametrize(
    ("endpoint", "params", "items"),
    [
        ("search-posts", {"keyword": "python"}, "posts"),
        ("search-jobs", {"keyword": "engineer"}, "jobs"),
        ("get-company-posts", {"profnet_url": COMPANY_URL}, "posts"),
        ("get-profile-posts", {"profnet_url": PROFILE_URL}, "posts"),
    ],
)
def test_paging_by_start(sb: Sandbox, endpoint: str, params: dict[str, Any], items: str) -> None:
    """§2 Paging {start, count, total}; default start 0 (§8); 10 per call, count = number
    returned, a start past the end gives an empty list (decisions #29)."""
    first = get_ok(sb, endpoint, **params)["data"]
    paging = first["paging"]
    assert paging["start"] == 0
    assert paging["count"] == len(first[items]) <= LIST_PAGE_SIZE
    assert paging["total"] >= paging["count"]
    explicit = get_ok(sb, endpoint, start=0, **params)["data"]
    assert explicit == first
    if paging["total"] > LIST_PAGE_SIZE:
        assert paging["count"] == LIST_PAGE_SIZE
        second = get_ok(sb, endpoint, start=LIST_PAGE_SIZE, **params)["data"]
        assert second["paging"]["start"] == LIST_PAGE_SIZE
        assert second["paging"]["count"] == len(second[items])
        assert second["paging"]["total"] == paging["total"]
        assert second[items]
        assert second[items][0] != first[items][0]
    past = get_ok(sb, endpoint, start=paging["total"] + 100, **params)["data"]
    assert past[items] == []
    assert past["paging"]["count"] == 0


@pytest.mark.parametrize("endpoint", ["get-company-posts", "get-profile-posts"])
def test_pagination_token_is_accepted(sb: Sandbox, endpoint: str) -> None:
    """decisions #11: a pagination_token is accepted and ignored; paging is by start."""
    url = COMPANY_URL if endpoint == "get-company-posts" else PROFILE_URL
    plain = get_ok(sb, endpoint, profnet_url=url)["data"]
    assert get_ok(sb, endpoint, profnet_url=url, pagination_token="abc123")["data"] == plain


# --- 4.3 search-jobs -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "extra",
    [
        {"date_posted": "past-24h"},
        {"date_posted": "past-week"},
        {"date_posted": "past-month"},
        {"job_type": "full-time"},
        {"job_type": "part-time"},
        {"job_type": "contract"},
        {"job_type": "internship"},
        {"remote": "on-site"},
        {"remote": "remote"},
        {"remote": "hybrid"},
        {"experience_level": "Director"},
        {"start": 0},
    ],
    ids=lambda e: "-".join(f"{k}={v}" for k, v in e.items()),
)
def test_search_jobs_accepts_documented_options(sb: Sandbox, extra: dict[str, Any]) -> None:
    body = get_ok(sb, "search-jobs", keyword="engineer", **extra)
    assert isinstance(body["data"]["jobs"], list)


@pytest.mark.parametrize(
    "only",
    [
        {"geo_id": "GEO"},
        {"date_posted": "past-month"},
        {"experience_level": "Associate"},
        {"job_type": "full-time"},
        {"remote": "remote"},
        {"industry_id": "4"},
    ],
    ids=lambda e: next(iter(e)),
)
def test_any_search_field_alone_is_enough(sb: Sandbox, world: World, only: dict[str, str]) -> None:
    """4.3: all fields optional; at least one search field is required."""
    payload = {k: (world.geo_id if v == "GEO" else v) for k, v in only.items()}
    get_ok(sb, "search-jobs", **payload)


@pytest.mark.parametrize("level", ["director", "Mid-Senior level", "ENTRY LEVEL"])
def test_experience_level_matches_case_insensitively(sb: Sandbox, level: str) -> None:
    """decisions #7: experience_level matches job levels case-insensitively."""
    jobs = get_ok(sb, "search-jobs", experience_level=level)["data"]["jobs"]
    assert jobs, f"no job at level {level!r}"
    for job in jobs[:3]:
        detail = get_ok(sb, "get-job-details", job_id=job["job_id"])["data"]
        assert detail["experience_level"].lower() == level.lower()


def test_unknown_experience_level_matches_nothing(sb: Sandbox) -> None:
    body = get_ok(sb, "search-jobs", keyword="engineer", experience_level="grand-wizard")
    assert body["data"]["jobs"] == []
    assert body["data"]["paging"]["total"] == 0


def test_unknown_industry_id_matches_nothing(sb: Sandbox) -> None:
    """decisions #8: an unknown industry id matches nothing."""
    body = get_ok(sb, "search-jobs", keyword="engineer", industry_id="no-such-industry")
    assert body["data"]["jobs"] == []


# --- 4.8 google-full-profiles, 4.9 google-schools ------------------------------------------


def test_google_full_profiles_default_limit_is_3(sb: Sandbox) -> None:
    assert len(get_ok(sb, "google-full-profiles", job_title="Engineer")["data"]) <= 3


@pytest.mark.parametrize("limit", [1, 2, 5])
def test_google_full_profiles_respects_limit(sb: Sandbox, limit: int) -> None:
    data = get_ok(sb, "google-full-profiles", job_title="Engineer", limit=limit)["data"]
    assert 0 < len(data) <= limit


@pytest.mark.parametrize("field", ["name", "company_name", "job_title", "location", "keywords"])
def test_google_full_profiles_any_field_is_enough(sb: Sandbox, field: str) -> None:
    get_ok(sb, "google-full-profiles", **{field: "Berlin" if field == "location" else "Anna"})


@pytest.mark.parametrize("field", ["school_name", "location", "keyword"])
def test_google_schools_any_field_is_enough(sb: Sandbox, field: str) -> None:
    get_ok(sb, "google-schools", **{field: "Boston" if field == "location" else "Tech"})


def test_google_schools_pages(sb: Sandbox) -> None:
    """§8 page default 1; decisions #30: 10 per page, a page past the end is empty."""
    first = get_ok(sb, "google-schools", school_name="University")["data"]["results"]
    assert (
        first == get_ok(sb, "google-schools", school_name="University", page=1)["data"]["results"]
    )
    assert 0 < len(first) <= LIST_PAGE_SIZE
    far = get_ok(sb, "google-schools", school_name="University", page=500)["data"]["results"]
    assert far == []


# --- 4.11 get-profile-details: flags are the strings true/false --------------------------


@pytest.mark.parametrize("flag", ["include_skills", "include_certifications"])
def test_profile_flag_must_be_true_or_false(sb: Sandbox, flag: str) -> None:
    resp = call(sb, "get-profile-details", profnet_url=PROFILE_URL, **{flag: "yes"})
    assert_error(resp, 400, "invalid_parameter", flag)


# --- 4.13 find-custom-headcount ----------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        COMPANY_URL,
        SCHOOL_URL,
        "https://www.profnet.com/showcase/acme-widgets-cloud/",
    ],
)
def test_headcount_echoes_the_url(sb: Sandbox, url: str) -> None:
    data = get_ok(sb, "find-custom-headcount", profnet_url=url)["data"]
    assert data["profnet_url"] == url
    assert data["headcount"] >= 0


@pytest.mark.parametrize(
    "url",
    [
        "https://profnet.com/company/acme-widgets",
        "http://www.profnet.com/company/acme-widgets/about/",
    ],
)
def test_headcount_echoes_the_url_as_sent(sb: Sandbox, url: str) -> None:
    """§2 Headcount result: profnet_url is "the URL that was sent" (not a normalised form)."""
    assert get_ok(sb, "find-custom-headcount", profnet_url=url)["data"]["profnet_url"] == url


def test_headcount_ignores_empty_filters(sb: Sandbox) -> None:
    """decisions #26: empty arrays / null count as not given, so nothing is echoed."""
    plain = get_ok(sb, "find-custom-headcount", profnet_url=COMPANY_URL)["data"]
    empty = get_ok(
        sb, "find-custom-headcount", profnet_url=COMPANY_URL, where_they_live=[], keywords=None
    )["data"]
    assert empty == plain


def test_headcount_without_filters_echoes_none(sb: Sandbox) -> None:
    """§2: `filters` echoes the filters that were sent; none were sent."""
    assert get_ok(sb, "find-custom-headcount", profnet_url=COMPANY_URL)["data"]["filters"] == {}


def test_unknown_fields_are_ignored(sb: Sandbox) -> None:
    """decisions #25: unknown fields are ignored."""
    plain = get_ok(sb, "search-posts", keyword="python")
    assert get_ok(sb, "search-posts", keyword="python", colour="blue") == plain
    plain = get_ok(sb, "get-company-details", domain="acme-widgets.com")
    assert get_ok(sb, "get-company-details", domain="acme-widgets.com", colour="blue") == plain


def test_headcount_echoes_the_filters(sb: Sandbox) -> None:
    filters: dict[str, Any] = {
        "where_they_live": ["103644278"],
        "what_they_do": ["8"],
        "keywords": "python",
        "include_subsidiaries": "true",
    }
    data = get_ok(sb, "find-custom-headcount", profnet_url=COMPANY_URL, **filters)["data"]
    for name, value in filters.items():
        assert data["filters"].get(name) == value, (name, data["filters"])


def test_headcount_flag_as_json_boolean_is_rejected(sb: Sandbox) -> None:
    """Conventions: flags are the strings true/false, not booleans (decisions #25)."""
    resp = call(sb, "find-custom-headcount", profnet_url=COMPANY_URL, include_subsidiaries=True)
    assert_error(resp, 400, "invalid_parameter", "include_subsidiaries")


def test_hiring_flag_as_json_boolean_is_rejected(sb: Sandbox, fresh_key: str) -> None:
    resp = call(sb, "search-companies", key=fresh_key, hiring_on_profnet=True, limit=5)
    assert_error(resp, 400, "invalid_parameter", "hiring_on_profnet")


def test_hiring_flag_as_string_is_accepted(sb: Sandbox) -> None:
    get_ok(sb, "search-companies", hiring_on_profnet="true", limit=5)


def test_header_name_is_the_documented_one(sb: Sandbox) -> None:
    """§5: the key travels in X-SERVICE-API-KEY (and not, say, as a bearer token)."""
    url = f"{sb.base_url}/get-company-details"
    resp = requests.get(
        url,
        params={"domain": "acme-widgets.com"},
        headers={"Authorization": f"Bearer {KEY}"},
        timeout=15,
    )
    assert resp.status_code == 401
    resp = requests.get(
        url, params={"domain": "acme-widgets.com"}, headers={HEADER: KEY}, timeout=15
    )
    assert resp.status_code == 200
