"""Where the spec says "not shown", another service may answer otherwise: the client reads
those answers right, keeps none that could lock a paid search, and counts every charge.

A small scripted HTTP server on loopback plays the service (the sandbox answers as
docs/decisions.md chose, so it cannot show the alternatives). Each test scripts, per path,
the answers to give in turn (the last one repeats).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from profnet_sheets import Client, NotFound, ProfnetError, ServiceError
from profnet_sheets.client.jobs import PAGE_ATTEMPTS
from profnet_sheets.errors import SearchError
from profnet_sheets.spec import API_KEY_HEADER
from tests.scripted_service import Answer, Scripted, serving

pytestmark = pytest.mark.integration


@pytest.fixture
def service() -> Iterator[Scripted]:
    with serving(Scripted()) as scripted:
        yield scripted


@pytest.fixture
def client(service: Scripted, tmp_path: Path) -> Iterator[Client]:
    made = Client(
        api_key="not-shown-key",
        base_url=service.base_url,
        cache=str(tmp_path / "cache"),
        cache_dir=tmp_path / "cache",
        backoff=0.01,
        max_backoff=0.02,
    )
    yield made
    made.close()


def _lead(n: int) -> dict[str, Any]:
    return {"name": f"n{n}", "title": "CTO", "company": "Acme", "profnet_url": "", "location": ""}


CREATED = (200, {"message": "ok", "request_id": "r1", "status": "processing", "search_type": "x"})
DONE = (200, {"request_id": "r1", "status": "completed", "progress": 100, "total_results": 3})


def _page(items: int, **envelope: Any) -> Answer:
    return 200, {
        "request_id": "r1",
        "page": 1,
        **envelope,
        "results": [_lead(n) for n in range(items)],
    }


def _uncertain(client: Client) -> int:
    return client.spent(uncertain=True)


def test_a_404_of_a_results_page_is_never_kept(service: Scripted, client: Client) -> None:
    """Some services answer 404 while a search still runs, or once by mistake: kept, it would
    lock the paid search for a day."""
    service.answer("/search-leads", CREATED)
    service.answer("/get-lead-search-status", DONE)
    service.answer(
        "/get-lead-results",
        (404, {"message": "not_found", "details": "not yet"}),
        _page(3, total_pages=1, total_results=3),
    )
    job = client.search_leads(title_keywords="CTO", limit=3)
    with pytest.raises(NotFound):
        job.results()
    assert len(job.results()) == 3, "asked again, not answered from the cache"
    assert service.times("/get-lead-results") == 2
    assert len(client.search_leads(title_keywords="CTO", limit=3).results()) == 3
    assert service.times("/get-lead-results") == 2, "the real page is kept"


def test_a_404_of_a_status_is_never_kept(service: Scripted, client: Client) -> None:
    service.answer("/get-lead-search-status", (404, {"message": "not_found"}), DONE)
    with pytest.raises(NotFound):
        client.get_lead_search_status(request_id="r1")
    assert client.get_lead_search_status(request_id="r1")["status"] == "completed"


def test_a_page_without_total_pages_is_read_and_charged(service: Scripted, client: Client) -> None:
    service.answer("/search-leads", CREATED)
    service.answer("/get-lead-search-status", DONE)
    service.answer("/get-lead-results", _page(3, total_results=3))
    assert len(client.search_leads(title_keywords="CTO", limit=3).results()) == 3
    assert client.spent() == 50 + 3
    assert _uncertain(client) == 0


def test_a_status_without_total_results_is_waited_on_and_pages_read_to_a_short_one(
    service: Scripted, client: Client
) -> None:
    service.answer("/search-leads", CREATED)
    service.answer(
        "/get-lead-search-status",
        (200, {"request_id": "r1", "status": "processing"}),
        (200, {"request_id": "r1", "status": "completed"}),
    )
    service.answer("/get-lead-results", _page(25), _page(25), _page(10))
    job = client.search_leads(title_keywords="CTO", limit=100)
    job.sleep = lambda seconds: None
    assert len(job.results()) == 60
    assert service.times("/get-lead-results") == 3, "a short page is the last"
    assert client.spent() == 50 + 60


def test_null_counts_are_never_read_as_no_results(service: Scripted, client: Client) -> None:
    """`total_results` and `progress` null: not "completed 0%" and an empty list: the pages are
    read until an empty one."""
    service.answer("/search-leads", CREATED)
    service.answer(
        "/get-lead-search-status",
        (200, {"request_id": "r1", "status": "completed", "progress": None, "total_results": None}),
    )
    service.answer(
        "/get-lead-results",
        _page(25, total_pages=None, total_results=None),
        _page(0, total_pages=None, total_results=None),
    )
    job = client.search_leads(title_keywords="CTO", limit=100)
    status = job.wait()
    assert status.completed
    assert status.total_results is None
    assert status.progress is None
    assert len(job.results()) == 25, "25 paid leads, all handed over"
    assert client.spent() == 50 + 25


def test_a_creation_without_request_id_is_a_clear_error_counted_as_possibly_charged(
    service: Scripted, client: Client
) -> None:
    service.answer("/search-leads", (200, {"message": "ok", "request_id": None}))
    with pytest.raises(ServiceError, match="request_id"):
        client.search_leads(title_keywords="CTO", limit=10)
    assert service.times("/get-lead-search-status") == 0, "no status of job 'None' asked"
    assert _uncertain(client) == 50
    with pytest.raises(SearchError) as in_doubt:  # it may have started: not sent again unasked
        client.search_leads(title_keywords="CTO", limit=10)
    assert in_doubt.value.code == "in_doubt"
    assert service.times("/search-leads") == 1
    with pytest.raises(ServiceError):
        client.with_options(refresh=True).search_leads(title_keywords="CTO", limit=10)
    assert service.times("/search-leads") == 2, "not kept: asking again asks the service"


def test_null_data_and_null_lists_come_back_empty_and_are_not_kept(
    service: Scripted, client: Client
) -> None:
    service.answer("/find-geocode-by-location", (200, {"data": None}))
    assert client.find_geocode_by_location(location="Atlantis") == []
    assert client.find_geocode_by_location(location="Atlantis") == []
    assert service.times("/find-geocode-by-location") == 2, "a null answer is not kept"
    service.answer(
        "/search-posts", (200, {"data": {"posts": None, "paging": {"start": 0}, "extra": 1}})
    )
    posts = client.search_posts(keyword="python")
    assert posts["posts"] == []
    assert posts["extra"] == 1, "extra fields are left as they came"


def test_a_charged_page_not_understood_is_uncertain_spend_and_not_kept(
    service: Scripted, client: Client
) -> None:
    service.answer("/search-leads", CREATED)
    service.answer("/get-lead-search-status", DONE)
    service.answer("/get-lead-results", (200, {"notanswer": 1}), _page(3, total_pages=1))
    job = client.search_leads(title_keywords="CTO", limit=3)
    with pytest.raises(ServiceError, match="results"):
        job.results()
    assert _uncertain(client) == 3, "the most that page could cost"
    assert len(job.results()) == 3
    assert client.spent() == 50 + 3


def test_a_lookup_not_understood_is_uncertain_spend(service: Scripted, client: Client) -> None:
    service.answer("/get-company-details", (200, {"notanswer": 1}))
    with pytest.raises(ServiceError, match="no data"):
        client.get_company_details(domain="acme.com")
    assert _uncertain(client) == 1
    assert client.spent() == 0, "nothing sure"


def test_reading_a_completed_search_rides_out_transient_faults(
    service: Scripted, client: Client
) -> None:
    service.answer("/search-leads", CREATED)
    service.answer("/get-lead-search-status", DONE)
    service.answer(
        "/get-lead-results",
        (502, {"message": "bad_gateway"}),
        (503, {"message": "unavailable"}),
        _page(3, total_pages=1, total_results=3),
    )
    job = client.search_leads(title_keywords="CTO", limit=3)
    job.sleep = lambda seconds: None
    assert len(job.results()) == 3
    assert client.spent() == 50 + 3
    assert _uncertain(client) == 3, "the 502 may have been charged: counted; the 503 was not"


def test_a_page_that_keeps_failing_says_how_to_resume(service: Scripted, client: Client) -> None:
    service.answer("/search-leads", CREATED)
    service.answer("/get-lead-search-status", DONE)
    service.answer("/get-lead-results", (500, {"message": "internal_error"}))
    job = client.search_leads(title_keywords="CTO", limit=3)
    job.sleep = lambda seconds: None
    with pytest.raises(ServiceError, match="--request-id r1"):
        job.results()
    assert service.times("/get-lead-results") == 4


@pytest.mark.parametrize(
    ("fault", "asked"),
    [
        # the call's own retries repeat these (nothing was done): the page is not asked again
        ((503, {"message": "unavailable"}), 1 + 4),
        ((429, {"message": "rate_limited"}, {"Retry-After": "0"}), 1 + 4),
        # the call never repeats these (the page may have been done, and charged): the page
        # is asked again by the reading, up to PAGE_ATTEMPTS, each counted maybe
        ((500, {"message": "internal_error"}), PAGE_ATTEMPTS),
    ],
    ids=["503", "429", "500"],
)
def test_a_failing_page_is_repeated_by_one_loop_only(
    service: Scripted, client: Client, fault: Answer, asked: int
) -> None:
    """Before: the reading asked a page again up to 4 times on top of the call's own 5
    attempts: a page answered 503 was asked 20 times. Now the reading repeats only what the
    call's retries left unrepeated for money's sake (decision 391)."""
    service.answer("/search-leads", CREATED)
    service.answer("/get-lead-search-status", DONE)
    service.answer("/get-lead-results", fault)
    job = client.search_leads(title_keywords="CTO", limit=3)
    job.sleep = lambda seconds: None
    with pytest.raises(ProfnetError, match=f"resume with .*--request-id {job.request_id}"):
        job.results()
    assert service.times("/get-lead-results") == asked


def test_a_cookie_a_gateway_sets_goes_back_with_the_next_call(
    service: Scripted, client: Client
) -> None:
    """A gateway's sticky-session cookie (not in the spec) is sent back, as requests would."""
    company = {"data": {"name": "Acme", "domain": "acme.io"}}
    service.answer(
        "/get-company-details",
        (200, company, {"Set-Cookie": "AWSALB=sticky-1; Path=/"}),
        (200, company),
    )
    client.get_company_details(domain="first.io")
    client.get_company_details(domain="second.io")
    first, second = ({k.lower(): v for k, v in heard.items()} for _, heard in service.heard)
    assert "cookie" not in first
    assert second["cookie"] == "AWSALB=sticky-1"
    assert second[API_KEY_HEADER.lower()] == "not-shown-key"
