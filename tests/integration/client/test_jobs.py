"""Search jobs: wait with progress, read every page, re-attach, failures and time-outs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from profnet_sheets import Client, PollSchedule, SearchFailed, SearchStatus, SearchTimedOut
from profnet_sheets.sandbox import RunningSandbox, start_sandbox
from tests.integration.client.conftest import MakeClient

pytestmark = pytest.mark.integration


def test_results_are_read_page_by_page_once(make_client: MakeClient, fresh: RunningSandbox) -> None:
    client = make_client()
    seen: list[SearchStatus] = []
    job = client.search_leads(title_keywords="Engineer", limit=60)
    status = job.wait(progress=seen.append)
    assert status.completed
    assert seen[-1].progress == 100
    rows = job.results()
    assert len(rows) == status.total_results == 60
    assert len({row["profnet_url"] for row in rows}) == 60
    assert fresh.calls(endpoint="get-lead-results") == 3
    assert fresh.charged() == 50 + 60
    again = make_client().attach_search("leads", job.request_id)
    assert again.results() == rows
    assert fresh.charged() == 50 + 60, "re-attaching costs nothing"
    frame = job.frame()
    assert frame.columns == [
        "name",
        "title",
        "company",
        "profnet_url",
        "location",
        "profile_picture",
    ]
    assert frame.height == 60


def test_company_search_with_a_progress_bar(make_client: MakeClient, fresh: RunningSandbox) -> None:
    job = make_client().search_companies(company_headcounts=["B", "C"], limit=7)
    job.wait(progress=True)
    assert len(job.results()) == 7


def test_a_failed_search_raises(make_client: MakeClient) -> None:
    job = make_client().search_companies(keywords="sandbox-fail", limit=5)
    with pytest.raises(SearchFailed, match="failed") as caught:
        job.wait(schedule=PollSchedule(first=0.01))
    assert caught.value.request_id == job.request_id
    assert caught.value.endpoint == "get-company-search-status"
    assert (caught.value.status, caught.value.code) == (200, "failed")


def test_a_failed_search_asked_again_runs_anew_and_is_priced_so(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    from profnet_sheets.searches.cost import search_cost

    client = make_client()
    filters = {"keywords": "sandbox-fail", "limit": 5}
    with pytest.raises(SearchFailed):
        client.search_companies(**filters).wait(schedule=PollSchedule(first=0.01))
    assert not search_cost(client, "companies", filters).reused  # the preview tells the truth
    client.search_companies(**filters)
    assert fresh.calls(endpoint="search-companies") == 2


def test_a_search_that_failed_unseen_is_not_handed_back(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    """Another process started it and never looked: asking for it again says it failed,
    forgets it, and the next ask starts (and pays for) a new one."""
    filters = {"keywords": "sandbox-fail", "limit": 5}
    make_client().search_companies(**filters)
    later = make_client()
    with pytest.raises(SearchFailed, match="ran earlier") as caught:
        later.search_companies(**filters)
    assert caught.value.code == "failed"
    assert fresh.calls(endpoint="search-companies") == 1
    later.search_companies(**filters)
    assert fresh.calls(endpoint="search-companies") == 2


def test_a_failed_job_never_forgets_a_newer_run_of_the_same_search(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    """A failure can be passing: the same search run again may complete. The old job, looked
    at again (here, by another job object of it, as another thread would), must not drop the
    new run from the cache."""
    from profnet_sheets.client.jobs import SearchJob
    from tests.integration.client.conftest import set_faults

    client = make_client()
    filters = {"keywords": "passing trouble", "limit": 5}
    set_faults(fresh, job_fail_rate=1.0)
    failed = client.search_companies(**filters)
    with pytest.raises(SearchFailed):
        failed.wait(schedule=PollSchedule(first=0.01))
    set_faults(fresh, job_fail_rate=0.0)
    good = client.search_companies(**filters)
    assert good.wait().completed
    SearchJob(failed.client, "companies", failed.request_id, filters=filters).status()
    assert client.search_companies(**filters).request_id == good.request_id
    assert fresh.calls(endpoint="search-companies") == 2


def test_a_failed_search_runs_anew_on_a_shared_redis_cache(
    make_client: MakeClient, fresh: RunningSandbox, redis_url: str
) -> None:
    filters = {"keywords": "sandbox-fail", "limit": 5}
    client = make_client(cache=redis_url)
    client.clear_cache()
    with pytest.raises(SearchFailed):
        client.search_companies(**filters).wait(schedule=PollSchedule(first=0.01))
    make_client(cache=redis_url).search_companies(**filters)
    assert fresh.calls(endpoint="search-companies") == 2


def test_an_empty_search_is_charged_and_gives_no_rows(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    job = make_client().search_leads(keywords="sandbox-empty", limit=5)
    assert job.results() == []
    assert fresh.charged() == 50


@pytest.fixture(scope="module")
def slow_sandbox() -> Iterator[RunningSandbox]:
    with start_sandbox(api_keys=("slow",), job_seconds=600) as running:
        yield running


def test_waiting_times_out_and_the_job_can_be_reattached(
    slow_sandbox: RunningSandbox, tmp_path: Path
) -> None:
    with Client(api_key="slow", base_url=slow_sandbox.base_url, cache=str(tmp_path)) as client:
        job = client.search_leads(keywords="slow", limit=5)
        with pytest.raises(SearchTimedOut, match="attach") as caught:
            job.wait(timeout=0.2, schedule=PollSchedule(first=0.05, cap=0.05))
        assert caught.value.request_id == job.request_id
        assert caught.value.endpoint == "get-lead-search-status"
        assert caught.value.details is not None
        assert caught.value.details.startswith("processing at")
        import requests

        requests.post(f"{slow_sandbox.base_url}/_sandbox/clock", json={"advance": 601}, timeout=5)
        attached = client.attach_search("leads", job.request_id)
        assert attached.wait().completed
        assert len(attached.results()) == 5


def test_a_reused_search_that_the_service_forgot_is_run_again(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    import requests

    client = make_client()
    first = client.search_leads(keywords="forgotten", limit=5)
    requests.post(f"{fresh.base_url}/_sandbox/reset", timeout=5).raise_for_status()
    again = make_client().search_leads(keywords="forgotten", limit=5)
    assert again.request_id != first.request_id or again.status().completed
    assert len(again.results()) == 5
    assert fresh.calls(endpoint="search-leads") == 1


def test_a_search_url_spelled_another_way_reuses_the_search(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    """Decision 582: the scheme, `www.`, the host's case and a default port do not make
    another search: the second spelling reuses the first start and its results."""
    path = "/sales/search/people?query=(keywords%3AReuse)"
    first = make_client().search_leads(sales_nav_url=f"https://www.profnet.com{path}", limit=4)
    rows = first.results()
    again = make_client().search_leads(sales_nav_url=f"http://ProfNet.com:80{path}", limit=4)
    assert again.request_id == first.request_id
    assert again.results() == rows
    assert fresh.calls(endpoint="search-leads") == 1
    assert fresh.charged() == 50 + 4


def test_a_school_found_by_name_filters_a_lead_search(make_client: MakeClient) -> None:
    client = make_client()
    everyone = client.search_leads(keywords="alumni", limit=2500).results()
    schools = client.google_schools(school_name="university")["results"]
    assert schools
    counts = []
    for school in schools[:3]:
        url = school["profnet_url"]  # the school's id is the part after /school/
        leads = client.search_leads(keywords="alumni", school_ids=[url], limit=2500).results()
        assert {lead["profnet_url"] for lead in leads} <= {p["profnet_url"] for p in everyone}
        counts.append(len(leads))
    assert any(counts), "a school's alumni are found by its page URL"
    assert all(count < len(everyone) for count in counts), "the filter narrows"
