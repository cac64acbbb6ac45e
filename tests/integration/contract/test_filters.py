"""Filters narrow a search: a filtered search returns a subset of the same search without the
filter, and every result satisfies the filter (§4.2, §4.3, §4.14 describe them as filters)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from tests.integration.contract.helpers import (
    Sandbox,
    World,
    create_search,
    get_ok,
    parse_timestamp,
    read_all_pages,
    wait_done,
)

pytestmark = pytest.mark.integration

WINDOWS = {
    "past-24h": timedelta(hours=24),
    "past-week": timedelta(days=7),
    "past-month": timedelta(days=31),
}


def all_items(sb: Sandbox, endpoint: str, items: str, **payload: Any) -> list[dict[str, Any]]:
    """Every item of a start-paged search (at most 60 calls)."""
    found: list[dict[str, Any]] = []
    for _ in range(60):
        data = get_ok(sb, endpoint, start=len(found), **payload)["data"]
        if not data[items]:
            assert len(found) == data["paging"]["total"]
            return found
        found += data[items]
    raise AssertionError(f"{endpoint} {payload}: more than 60 pages")


@pytest.mark.parametrize(
    ("endpoint", "items", "id_field", "base"),
    [
        ("search-posts", "posts", "urn", {"keyword": "python"}),
        ("search-jobs", "jobs", "job_id", {"keyword": "engineer"}),
    ],
)
def test_date_posted_windows_are_nested(
    sb: Sandbox, endpoint: str, items: str, id_field: str, base: dict[str, Any]
) -> None:
    """past-24h ⊆ past-week ⊆ past-month ⊆ no filter, for the same keyword."""
    sets: dict[str, set[str]] = {}
    for window in [None, *WINDOWS]:
        payload = dict(base) if window is None else {**base, "date_posted": window}
        found = all_items(sb, endpoint, items, **payload)
        sets[window or "any"] = {item[id_field] for item in found}
        if window is not None and found:
            stamps = [parse_timestamp(item["posted_at"]) for item in found]
            assert max(stamps) - min(stamps) <= WINDOWS[window], window
    sizes = {name: len(found) for name, found in sets.items()}
    for narrow, wide in [
        ("past-24h", "past-week"),
        ("past-week", "past-month"),
        ("past-month", "any"),
    ]:
        outside = sets[narrow] - sets[wide]
        assert not outside, f"{len(outside)} of the {narrow} items are not in {wide}; sizes {sizes}"


@pytest.mark.parametrize(
    ("field", "value", "detail_field"),
    [
        ("job_type", "full-time", "job_type"),
        ("job_type", "internship", "job_type"),
        ("remote", "remote", "remote_type"),
        ("remote", "on-site", "remote_type"),
        ("experience_level", "Director", "experience_level"),
    ],
)
def test_job_filters_narrow(sb: Sandbox, field: str, value: str, detail_field: str) -> None:
    everything = {j["job_id"] for j in all_items(sb, "search-jobs", "jobs", keyword="engineer")}
    narrowed = all_items(sb, "search-jobs", "jobs", keyword="engineer", **{field: value})
    assert narrowed, f"no engineer job with {field}={value}"
    outside = {j["job_id"] for j in narrowed} - everything
    assert not outside, (
        f"{len(outside)} of {len(narrowed)} jobs found with {field}={value} are not among the "
        f"{len(everything)} found without the filter"
    )
    for job in narrowed[:5]:
        detail = get_ok(sb, "get-job-details", job_id=job["job_id"])["data"]
        assert detail[detail_field].lower() == value.lower(), (detail_field, detail[detail_field])


def _subset_check(
    sb: Sandbox, kind: str, limit: int, wide: dict[str, Any], extra: dict[str, Any]
) -> None:
    wide_rid = create_search(sb, kind, limit=limit, **wide)
    narrow_rid = create_search(sb, kind, limit=limit, **wide, **extra)
    wide_total = wait_done(sb, kind, wide_rid)["total_results"]
    assert wide_total < limit, "the unfiltered search hit its limit: the check is inconclusive"
    narrow_total = wait_done(sb, kind, narrow_rid)["total_results"]
    assert 0 < narrow_total <= wide_total
    wide_urls = {r["profnet_url"] for r in read_all_pages(sb, kind, wide_rid)}
    narrow_urls = {r["profnet_url"] for r in read_all_pages(sb, kind, narrow_rid)}
    outside = narrow_urls - wide_urls
    assert not outside, (
        f"{len(outside)} of {len(narrow_urls)} filtered results are not in the wider search"
    )


def test_geo_filter_narrows_leads(sb: Sandbox, world: World) -> None:
    _subset_check(
        sb, "leads", 2500, {"title_keywords": ["Engineer"]}, {"geo_codes": [int(world.geo_id)]}
    )


def test_geo_filter_narrows_companies(sb: Sandbox, world: World) -> None:
    _subset_check(
        sb,
        "companies",
        1000,
        {"company_headcounts": ["C"]},
        {"headquarters_location": [int(world.geo_id)]},
    )


def test_search_posts_keyword_in_text(sb: Sandbox) -> None:
    for post in get_ok(sb, "search-posts", keyword="python")["data"]["posts"]:
        assert "python" in post["text"].lower(), post["text"]


def test_sort_orders_rank_the_same_posts(sb: Sandbox) -> None:
    by_date = {
        p["urn"] for p in all_items(sb, "search-posts", "posts", keyword="cloud", sort_by="date")
    }
    by_relevance = {p["urn"] for p in all_items(sb, "search-posts", "posts", keyword="cloud")}
    assert by_date == by_relevance


def test_google_profiles_location(sb: Sandbox) -> None:
    for profile in get_ok(sb, "google-full-profiles", location="Berlin", limit=5)["data"]:
        assert "Berlin" in profile["location"], profile["location"]


def test_google_schools_name(sb: Sandbox) -> None:
    for school in get_ok(sb, "google-schools", school_name="University")["data"]["results"]:
        assert "university" in school["school_name"].lower(), school["school_name"]


def test_headcount_filters_narrow(sb: Sandbox, world: World) -> None:
    url = world.company_url
    total = get_ok(sb, "find-custom-headcount", profnet_url=url)["data"]["headcount"]
    narrowed = get_ok(
        sb,
        "find-custom-headcount",
        profnet_url=url,
        where_they_live=[world.geo_id],
        keywords="python",
    )["data"]["headcount"]
    assert 0 <= narrowed <= total
    with_subsidiaries = get_ok(
        sb, "find-custom-headcount", profnet_url=url, include_subsidiaries="true"
    )["data"]["headcount"]
    assert with_subsidiaries >= total


def _lead_results(sb: Sandbox, **payload: Any) -> list[dict[str, Any]]:
    rid = create_search(sb, "leads", limit=10, **payload)
    assert wait_done(sb, "leads", rid)["status"] == "completed"
    results: list[dict[str, Any]] = get_ok(sb, "get-lead-results", request_id=rid)["results"]
    assert results, f"no lead for {payload}"
    return results


def test_current_company_names_filter(sb: Sandbox) -> None:
    for lead in _lead_results(sb, current_company_names=["Acme Widgets"]):
        assert lead["company"] == "Acme Widgets", lead


def test_current_company_ids_filter(sb: Sandbox) -> None:
    company = get_ok(sb, "get-company-details", company_id="4455667")["data"]
    for lead in _lead_results(sb, current_company_ids=[4455667]):
        assert lead["company"] == company["company_name"], lead


def test_past_company_names_filter(sb: Sandbox) -> None:
    """A lead found by past company has worked there: it is in the profile's experience."""
    for lead in _lead_results(sb, past_company_names=["Acme Widgets"])[:5]:
        profile = get_ok(sb, "get-profile-details", profnet_url=lead["profnet_url"])["data"]
        companies = [item["company"] for item in profile["experience"]]
        assert "Acme Widgets" in companies, (lead["profnet_url"], companies)


def test_search_jobs_company_id_filter(sb: Sandbox) -> None:
    company = get_ok(sb, "get-company-details", company_id="4455667")["data"]
    jobs = get_ok(sb, "search-jobs", company_id="4455667")["data"]["jobs"]
    assert jobs
    for job in jobs:
        assert job["company_profnet_url"] == company["profnet_url"]
        assert job["company_name"] == company["company_name"]
