"""Fixtures: one shared sandbox per session, plus a few ids it has shown us."""

from __future__ import annotations

from collections.abc import Iterator

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
    new_key,
    trailing_number,
    wait_done,
)


@pytest.fixture(scope="session")
def sb() -> Iterator[Sandbox]:
    config = SandboxConfig(api_keys=(KEY,), credits=1_000_000, seed=7, job_seconds=0.0)
    with start_sandbox(config) as box:
        yield box


@pytest.fixture
def fresh_key(sb: Sandbox) -> str:
    """A key of its own (1 000 000 credits, no usage yet), so charges can be read exactly."""
    return new_key(sb)


@pytest.fixture(scope="session")
def world(sb: Sandbox) -> World:
    lead_rid = create_search(sb, "leads", title_keywords=["Engineer"], limit=30)
    company_rid = create_search(sb, "companies", company_headcounts=["C", "D", "E"], limit=30)
    assert wait_done(sb, "leads", lead_rid)["status"] == "completed"
    assert wait_done(sb, "companies", company_rid)["status"] == "completed"
    jobs = get_ok(sb, "search-jobs", keyword="engineer")["data"]["jobs"]
    assert jobs, "search-jobs for 'engineer' found nothing"
    posts = get_ok(sb, "search-posts", keyword="python")["data"]["posts"]
    assert posts, "search-posts for 'python' found nothing"
    geo = get_ok(sb, "find-geocode-by-location", location="Berlin")["data"]["data"]
    assert geo, "find-geocode-by-location for 'Berlin' found nothing"
    cities = [item for item in geo if item["type"] == "CITY"] or geo
    return World(
        company_url=COMPANY_URL,
        profile_url=PROFILE_URL,
        school_url=SCHOOL_URL,
        lead_request_id=lead_rid,
        company_request_id=company_rid,
        job_id=jobs[0]["job_id"],
        post_id=trailing_number(posts[0]["urn"]),
        geo_id=cities[0]["geo_id"],
        geo_name=cities[0]["name"],
    )
