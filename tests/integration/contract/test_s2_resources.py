"""Section 2: every endpoint answers 200 with exactly the documented envelope, fields and types."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.contract import shapes
from tests.integration.contract.helpers import (
    COMPANY_SIZES,
    COMPANY_URL_RE,
    ENDPOINTS,
    PROFILE_URL_RE,
    SCHOOL_URL_RE,
    Sandbox,
    World,
    check_values,
    get_ok,
    parse_timestamp,
    valid_params,
)

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("endpoint", sorted(ENDPOINTS))
def test_success_envelope_and_types(sb: Sandbox, world: World, endpoint: str) -> None:
    body = get_ok(sb, endpoint, **valid_params(world, endpoint))
    shapes.assert_shape(body, shapes.ENVELOPES[endpoint])


@pytest.mark.parametrize("endpoint", sorted(ENDPOINTS))
def test_values_look_real(sb: Sandbox, world: World, endpoint: str) -> None:
    """Section 2: timestamps are ISO 8601 UTC; URL fields are URLs with a scheme and a host."""
    body = get_ok(sb, endpoint, **valid_params(world, endpoint))
    problems = check_values(body)
    assert not problems, "\n".join(problems[:20])


@pytest.mark.parametrize(
    ("flags", "shape"),
    [
        ({}, shapes.PROFILE_DETAIL),
        ({"include_skills": "false", "include_certifications": "false"}, shapes.PROFILE_DETAIL),
        ({"include_skills": "true"}, shapes.PROFILE_DETAIL_WITH_SKILLS),
        ({"include_certifications": "true"}, shapes.PROFILE_DETAIL_WITH_CERTS),
        (
            {"include_skills": "true", "include_certifications": "true"},
            shapes.PROFILE_DETAIL_WITH_BOTH,
        ),
    ],
    ids=["defaults", "both-false", "skills", "certifications", "both"],
)
def test_profile_detail_optional_parts(
    sb: Sandbox, world: World, flags: dict[str, str], shape: dict[str, Any]
) -> None:
    """§2 Profile detail: skills/certifications 'present when requested'; default false (#12)."""
    body = get_ok(sb, "get-profile-details", profnet_url=world.profile_url, **flags)
    shapes.assert_shape(body, {"data": shape})


@pytest.mark.parametrize("post_type", ["posts", "reposts"])
def test_company_posts_types(sb: Sandbox, world: World, post_type: str) -> None:
    body = get_ok(sb, "get-company-posts", profnet_url=world.company_url, type=post_type)
    shapes.assert_shape(body, shapes.ENVELOPES["get-company-posts"])


@pytest.mark.parametrize("post_type", ["posts", "comments", "reactions"])
def test_profile_posts_types(sb: Sandbox, world: World, post_type: str) -> None:
    body = get_ok(sb, "get-profile-posts", profnet_url=world.profile_url, type=post_type)
    shapes.assert_shape(body, shapes.ENVELOPES["get-profile-posts"])


def test_geocode_inner_envelope(sb: Sandbox) -> None:
    """§4.10: { data: { message: 'ok', data: [Geocode item] } }; types per decisions #2."""
    body = get_ok(sb, "find-geocode-by-location", location="San Francisco")
    assert body["data"]["message"] == "ok"
    items = body["data"]["data"]
    assert items
    for item in items:
        assert item["type"] in {"CITY", "METRO_AREA", "ADMIN_DIVISION", "COUNTRY"}, item
        assert item["geo_id"].isdigit(), "geo ids are numeric ids in requests (§4.14)"
        assert item["name"].strip()


def test_post_urns(sb: Sandbox, world: World) -> None:
    """§2: list urns are URN-style ending in a numeric id; the detail urn is the number alone."""
    posts = get_ok(sb, "search-posts", keyword="python")["data"]["posts"]
    assert posts, "the search found no post: no urn was checked"
    for post in posts:
        assert post["urn"][-1].isdigit(), post["urn"]
        assert not post["urn"].isdigit(), f"{post['urn']!r} is not URN-style"
    detail = get_ok(sb, "get-post-details", urn=world.post_id)["data"]
    assert detail["urn"] == world.post_id


def test_company_fields_look_real(sb: Sandbox) -> None:
    data = get_ok(sb, "get-company-details", domain="globex-corp.com")["data"]
    assert data["company_size"] in COMPANY_SIZES, "decisions #32"
    assert COMPANY_URL_RE.match(data["profnet_url"]), data["profnet_url"]
    if data["founded"] is not None:
        assert 1600 <= data["founded"] <= 2030
    assert all(isinstance(s, str) and s for s in data["specialties"])


def test_search_result_fields_look_real(sb: Sandbox, world: World) -> None:
    companies = get_ok(sb, "get-company-results", request_id=world.company_request_id)["results"]
    leads = get_ok(sb, "get-lead-results", request_id=world.lead_request_id)["results"]
    assert companies
    assert leads
    for company in companies:
        assert company["company_size"] in COMPANY_SIZES, company
        assert COMPANY_URL_RE.match(company["profnet_url"]), company
    for lead in leads:
        assert PROFILE_URL_RE.match(lead["profnet_url"]), lead


def test_school_and_profile_search_urls(sb: Sandbox) -> None:
    schools = get_ok(sb, "google-schools", school_name="University")["data"]["results"]
    assert schools
    for school in schools:
        assert SCHOOL_URL_RE.match(school["profnet_url"]), school
    profiles = get_ok(sb, "google-full-profiles", job_title="Engineer", limit=5)["data"]
    assert profiles
    for profile in profiles:
        assert PROFILE_URL_RE.match(profile["profnet_url"]), profile


def test_counts_are_not_negative(sb: Sandbox, world: World) -> None:
    posts = get_ok(sb, "search-posts", keyword="python")["data"]["posts"]
    assert posts, "the search found no post: no count was checked"
    detail = get_ok(sb, "get-job-details", job_id=world.job_id)["data"]
    assert detail["applicants_count"] >= 0
    for post in posts:
        for name in ("reactions_count", "comments_count", "reposts_count"):
            assert post[name] >= 0, post


def test_job_summary_timestamps_parse(sb: Sandbox) -> None:
    jobs = get_ok(sb, "search-jobs", keyword="engineer")["data"]["jobs"]
    assert jobs, "the search found no job: no timestamp was checked"
    for job in jobs:
        parse_timestamp(job["posted_at"])
