"""The synthetic world: determinism per seed (decisions #34) and consistency across endpoints."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from profnet_sheets.sandbox import SandboxConfig, start_sandbox
from tests.integration.contract.helpers import (
    COMPANY_URL,
    KEY,
    PROFILE_URL,
    SCHOOL_URL,
    Sandbox,
    World,
    create_search,
    get_ok,
    read_all_pages,
    size_bounds,
    trailing_number,
    wait_done,
)

pytestmark = pytest.mark.integration


# --- determinism ---------------------------------------------------------------------------


def _start(seed: int) -> Any:
    return start_sandbox(
        SandboxConfig(api_keys=(KEY,), credits=1_000_000, seed=seed, job_seconds=0.0)
    )


@pytest.fixture(scope="module")
def trio() -> Iterator[tuple[Sandbox, Sandbox, Sandbox]]:
    """Two sandboxes with seed 7 and one with seed 8."""
    with _start(7) as a, _start(7) as b, _start(8) as c:
        yield a, b, c


SAME_REQUESTS: list[tuple[str, dict[str, Any]]] = [
    ("get-company-details", {"domain": "acme-widgets.com"}),
    ("get-company-details", {"profnet_url": "https://www.profnet.com/company/hooli/"}),
    (
        "get-profile-details",
        {"profnet_url": PROFILE_URL, "include_skills": "true", "include_certifications": "true"},
    ),
    ("get-company-posts", {"profnet_url": COMPANY_URL}),
    ("get-profile-posts", {"profnet_url": PROFILE_URL}),
    ("search-posts", {"keyword": "python"}),
    ("search-jobs", {"keyword": "engineer"}),
    ("google-full-profiles", {"job_title": "Engineer", "limit": 5}),
    ("google-schools", {"school_name": "University"}),
    ("find-geocode-by-location", {"location": "Berlin"}),
    ("get-recommendations-received", {"profnet_url": PROFILE_URL}),
    ("get-recommendations-given", {"profnet_url": PROFILE_URL}),
    ("find-custom-headcount", {"profnet_url": COMPANY_URL}),
]


def _ids(request: tuple[str, dict[str, Any]]) -> str:
    return request[0]


@pytest.mark.parametrize("request_", SAME_REQUESTS, ids=[_ids(r) for r in SAME_REQUESTS])
def test_same_seed_same_answers(
    trio: tuple[Sandbox, Sandbox, Sandbox], request_: tuple[str, dict[str, Any]]
) -> None:
    a, b, _ = trio
    endpoint, params = request_
    assert get_ok(a, endpoint, **params) == get_ok(b, endpoint, **params)


@pytest.mark.parametrize("kind", ["leads", "companies"])
def test_same_seed_same_search_results(trio: tuple[Sandbox, Sandbox, Sandbox], kind: str) -> None:
    a, b, _ = trio
    payload: dict[str, Any] = (
        {"title_keywords": ["Engineer"], "limit": 30}
        if kind == "leads"
        else {"company_headcounts": ["C", "D"], "limit": 30}
    )
    found = []
    for box in (a, b):
        rid = create_search(box, kind, **payload)
        wait_done(box, kind, rid)
        found.append(read_all_pages(box, kind, rid))
    assert found[0]
    assert found[0] == found[1]


def test_same_seed_same_job_and_post_details(trio: tuple[Sandbox, Sandbox, Sandbox]) -> None:
    a, b, _ = trio
    answers = []
    for box in (a, b):
        job = get_ok(box, "search-jobs", keyword="engineer")["data"]["jobs"][0]
        post = get_ok(box, "search-posts", keyword="python")["data"]["posts"][0]
        answers.append(
            (
                get_ok(box, "get-job-details", job_id=job["job_id"]),
                get_ok(box, "get-post-details", urn=trailing_number(post["urn"])),
            )
        )
    assert answers[0] == answers[1]


def test_other_seed_other_world(trio: tuple[Sandbox, Sandbox, Sandbox]) -> None:
    a, _, c = trio
    differing = [
        endpoint
        for endpoint, params in SAME_REQUESTS
        if get_ok(a, endpoint, **params) != get_ok(c, endpoint, **params)
    ]
    assert len(differing) >= len(SAME_REQUESTS) // 2, f"only {differing} differ"
    company_a = get_ok(a, "get-company-details", domain="acme-widgets.com")["data"]
    company_c = get_ok(c, "get-company-details", domain="acme-widgets.com")["data"]
    assert company_a != company_c


# --- consistency across endpoints -----------------------------------------------------------


@pytest.mark.parametrize("domain", ["acme-widgets.com", "globex-corp.com", "example.org"])
def test_company_by_domain_equals_company_by_url(sb: Sandbox, domain: str) -> None:
    by_domain = get_ok(sb, "get-company-details", domain=domain)["data"]
    by_url = get_ok(sb, "get-company-details", profnet_url=by_domain["profnet_url"])["data"]
    assert by_url == by_domain


def test_company_website_leads_back_to_the_company(sb: Sandbox) -> None:
    company = get_ok(sb, "get-company-details", profnet_url=COMPANY_URL)["data"]
    if company["website"] is not None:
        again = get_ok(sb, "get-company-details", domain=company["website"])["data"]
        assert again == company


def test_lead_results_resolve_to_profiles(sb: Sandbox, world: World) -> None:
    leads = get_ok(sb, "get-lead-results", request_id=world.lead_request_id)["results"]
    assert leads
    for lead in leads[:5]:
        profile = get_ok(sb, "get-profile-details", profnet_url=lead["profnet_url"])["data"]
        assert profile["full_name"] == lead["name"]


def test_company_results_resolve_to_companies(sb: Sandbox, world: World) -> None:
    items = get_ok(sb, "get-company-results", request_id=world.company_request_id)["results"]
    assert items
    for item in items[:5]:
        company = get_ok(sb, "get-company-details", profnet_url=item["profnet_url"])["data"]
        for field in (
            "company_name",
            "profnet_url",
            "industry",
            "company_size",
            "headquarters",
            "website",
        ):
            assert company[field] == item[field], field


def test_google_profiles_resolve_to_profiles(sb: Sandbox) -> None:
    found = get_ok(sb, "google-full-profiles", job_title="Engineer", limit=5)["data"]
    assert found
    for item in found:
        profile = get_ok(sb, "get-profile-details", profnet_url=item["profnet_url"])["data"]
        assert profile["full_name"] == item["full_name"]
        assert profile["headline"] == item["headline"]


def _assert_same_post(sb: Sandbox, item: dict[str, Any]) -> dict[str, Any]:
    post_id = trailing_number(item["urn"])
    detail: dict[str, Any] = get_ok(sb, "get-post-details", urn=post_id)["data"]
    assert detail["urn"] == post_id
    assert detail["text"] == item["text"]
    assert detail["posted_at"] == item["posted_at"]
    return detail


def test_search_posts_resolve(sb: Sandbox) -> None:
    posts = get_ok(sb, "search-posts", keyword="cloud")["data"]["posts"]
    assert posts
    for item in posts[:5]:
        detail = _assert_same_post(sb, item)
        assert detail["author"]["name"] == item["author_name"]
        assert detail["author"]["profnet_url"] == item["author_profnet_url"]
        assert detail["author"]["headline"] == item["author_headline"]


@pytest.mark.parametrize(
    ("endpoint", "url"),
    [("get-company-posts", COMPANY_URL), ("get-profile-posts", PROFILE_URL)],
)
def test_entity_posts_resolve(sb: Sandbox, endpoint: str, url: str) -> None:
    posts = get_ok(sb, endpoint, profnet_url=url)["data"]["posts"]
    assert posts
    for item in posts[:5]:
        _assert_same_post(sb, item)


def test_profile_posts_are_by_the_profile(sb: Sandbox) -> None:
    posts = get_ok(sb, "get-profile-posts", profnet_url=PROFILE_URL)["data"]["posts"]
    profile = get_ok(sb, "get-profile-details", profnet_url=PROFILE_URL)["data"]
    for item in posts[:3]:
        detail = get_ok(sb, "get-post-details", urn=trailing_number(item["urn"]))["data"]
        assert detail["author"]["name"] == profile["full_name"]
        assert detail["author"]["profnet_url"] == PROFILE_URL


def test_jobs_resolve(sb: Sandbox) -> None:
    jobs = get_ok(sb, "search-jobs", keyword="engineer")["data"]["jobs"]
    assert jobs
    for job in jobs[:5]:
        detail = get_ok(sb, "get-job-details", job_id=job["job_id"])["data"]
        for field in (
            "job_id",
            "title",
            "company_name",
            "company_profnet_url",
            "location",
            "posted_at",
        ):
            assert detail[field] == job[field], field


def test_job_company_resolves(sb: Sandbox) -> None:
    job = get_ok(sb, "search-jobs", keyword="engineer")["data"]["jobs"][0]
    company = get_ok(sb, "get-company-details", profnet_url=job["company_profnet_url"])["data"]
    assert company["company_name"] == job["company_name"]


def test_experience_company_resolves(sb: Sandbox) -> None:
    profile = get_ok(sb, "get-profile-details", profnet_url=PROFILE_URL)["data"]
    assert profile["experience"]
    for item in profile["experience"][:3]:
        company = get_ok(sb, "get-company-details", profnet_url=item["company_url"])["data"]
        assert company["company_name"] == item["company"]


def test_recommendation_people_resolve(sb: Sandbox) -> None:
    received = get_ok(sb, "get-recommendations-received", profnet_url=PROFILE_URL)["data"]
    given = get_ok(sb, "get-recommendations-given", profnet_url=PROFILE_URL)["data"]
    pairs = [
        (r["recommender_profnet_url"], r["recommender_name"]) for r in received["recommendations"]
    ]
    pairs += [
        (r["recommendee_profnet_url"], r["recommendee_name"]) for r in given["recommendations"]
    ]
    assert pairs
    for url, name in pairs[:4]:
        assert get_ok(sb, "get-profile-details", profnet_url=url)["data"]["full_name"] == name


# --- geo ids as filters ----------------------------------------------------------------------


def _place(world: World) -> str:
    return world.geo_name.split(",")[0].strip()


def test_geo_id_filters_leads(sb: Sandbox, world: World) -> None:
    rid = create_search(sb, "leads", geo_codes=[int(world.geo_id)], limit=10)
    assert wait_done(sb, "leads", rid)["status"] == "completed"
    leads = get_ok(sb, "get-lead-results", request_id=rid)["results"]
    assert leads
    for lead in leads:
        assert _place(world) in lead["location"], (world.geo_name, lead["location"])


def test_geo_id_filters_company_headquarters(sb: Sandbox, world: World) -> None:
    rid = create_search(sb, "companies", headquarters_location=[int(world.geo_id)], limit=10)
    assert wait_done(sb, "companies", rid)["status"] == "completed"
    items = get_ok(sb, "get-company-results", request_id=rid)["results"]
    assert items
    for item in items:
        assert _place(world) in item["headquarters"], (world.geo_name, item["headquarters"])


def test_geo_id_excluded_headquarters(sb: Sandbox, world: World) -> None:
    rid = create_search(
        sb,
        "companies",
        company_headcounts=["C", "D", "E"],
        headquarters_location_exclude=[int(world.geo_id)],
        limit=30,
    )
    wait_done(sb, "companies", rid)
    for item in get_ok(sb, "get-company-results", request_id=rid)["results"]:
        assert _place(world) not in item["headquarters"], item["headquarters"]


def test_geo_id_filters_jobs(sb: Sandbox, world: World) -> None:
    jobs = get_ok(sb, "search-jobs", geo_id=world.geo_id)["data"]["jobs"]
    assert jobs
    for job in jobs:
        assert _place(world) in job["location"], (world.geo_name, job["location"])


def test_geo_code_alias_in_search_jobs(sb: Sandbox, world: World) -> None:
    """decisions #9: geo_code is accepted as an alias of geo_id; geo_id wins when both."""
    by_id = get_ok(sb, "search-jobs", geo_id=world.geo_id)["data"]
    assert get_ok(sb, "search-jobs", geo_code=world.geo_id)["data"] == by_id
    other = get_ok(sb, "find-geocode-by-location", location="Tokyo")["data"]["data"][0]["geo_id"]
    assert get_ok(sb, "search-jobs", geo_id=world.geo_id, geo_code=other)["data"] == by_id


# --- headcount -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        COMPANY_URL,
        "https://www.profnet.com/company/hooli/",
        "https://www.profnet.com/company/initech/",
        "https://www.profnet.com/company/tiny-shop/",
    ],
)
def test_headcount_within_company_size(sb: Sandbox, url: str) -> None:
    company = get_ok(sb, "get-company-details", profnet_url=url)["data"]
    headcount = get_ok(sb, "find-custom-headcount", profnet_url=url)["data"]["headcount"]
    low, high = size_bounds(company["company_size"])
    assert headcount >= low, (headcount, company["company_size"])
    if high is not None:
        assert headcount <= high, (headcount, company["company_size"])


def test_school_headcount(sb: Sandbox) -> None:
    data = get_ok(sb, "find-custom-headcount", profnet_url=SCHOOL_URL)["data"]
    assert data["headcount"] >= 0


# --- the same person seen through different endpoints ----------------------------------------


def test_lead_results_match_the_profile(sb: Sandbox, world: World) -> None:
    """A lead `title` at `company` in `location` is the person the profile describes."""
    leads = get_ok(sb, "get-lead-results", request_id=world.lead_request_id)["results"]
    for lead in leads[:5]:
        profile = get_ok(sb, "get-profile-details", profnet_url=lead["profnet_url"])["data"]
        assert profile["location"] == lead["location"]
        assert profile["profile_picture"] == lead["profile_picture"]
        jobs = {(e["title"], e["company"]) for e in profile["experience"]}
        assert (lead["title"], lead["company"]) in jobs, (lead, jobs)


def test_google_profile_matches_the_profile(sb: Sandbox) -> None:
    for item in get_ok(sb, "google-full-profiles", job_title="Engineer", limit=3)["data"]:
        profile = get_ok(sb, "get-profile-details", profnet_url=item["profnet_url"])["data"]
        assert profile["location"] == item["location"]
        assert profile["profile_picture"] == item["profile_picture"]
        short = [
            {k: e[k] for k in ("title", "company", "start_date", "end_date")}
            for e in profile["experience"]
        ]
        assert item["experience"] == short


def test_post_authors_are_profiles(sb: Sandbox) -> None:
    for post in get_ok(sb, "search-posts", keyword="python")["data"]["posts"][:5]:
        url = post["author_profnet_url"]
        if "/in/" in url:
            profile = get_ok(sb, "get-profile-details", profnet_url=url)["data"]
            assert profile["full_name"] == post["author_name"]
            assert profile["headline"] == post["author_headline"]
        else:
            company = get_ok(sb, "get-company-details", profnet_url=url)["data"]
            assert company["company_name"] == post["author_name"]


def test_company_posts_are_by_the_company(sb: Sandbox) -> None:
    company = get_ok(sb, "get-company-details", profnet_url=COMPANY_URL)["data"]
    for item in get_ok(sb, "get-company-posts", profnet_url=COMPANY_URL)["data"]["posts"][:3]:
        detail = get_ok(sb, "get-post-details", urn=trailing_number(item["urn"]))["data"]
        assert detail["author"]["profnet_url"] == COMPANY_URL
        assert detail["author"]["name"] == company["company_name"]
