"""A reused search on a service whose status and pages give no counts (`total_results`,
`total_pages`: not shown in the spec's examples): read again whole, never as 0 results
(a review of decision 534)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from profnet_sheets import Client
from profnet_sheets.client import jobs
from tests.scripted_service import Scripted, serving

pytestmark = pytest.mark.integration
CREATED = (200, {"message": "ok", "request_id": "r1", "status": "processing", "search_type": "x"})
COMPLETED = (200, {"request_id": "r1", "status": "completed"})
RESULTS = "/get-lead-results"


def page(items: int) -> tuple[int, dict[str, Any]]:
    """A results page with `items` leads and no counts."""
    leads = [
        {"name": f"n{n}", "title": "CTO", "company": "Acme", "profnet_url": "", "location": ""}
        for n in range(items)
    ]
    return 200, {"request_id": "r1", "page": 1, "results": leads}


@pytest.fixture
def scripted() -> Iterator[Scripted]:
    jobs._COMPLETED.clear()
    with serving(Scripted()) as service:
        service.answer("/search-leads", CREATED)
        service.answer("/get-lead-search-status", COMPLETED)
        yield service


def client(scripted: Scripted, folder: Path) -> Client:
    return Client(
        api_key="k",
        base_url=scripted.base_url,
        cache=str(folder),
        cache_dir=folder,
        backoff=0.01,
        max_backoff=0.02,
    )


def test_a_search_read_whole_without_counts_is_read_again_whole(
    scripted: Scripted, tmp_path: Path
) -> None:
    """It read back `[]` (`0 leads written ...; 0 credits: reused`, exit 0): the cache's
    pages, their counts missing, were taken for a search of 0 results read whole."""
    scripted.answer(RESULTS, page(25), page(25), page(10))
    with client(scripted, tmp_path) as first:
        assert len(first.search_leads(title_keywords="CTO", limit=100).results()) == 60
    jobs._COMPLETED.clear()
    with client(scripted, tmp_path) as again:
        job = again.search_leads(title_keywords="CTO", limit=100)
        assert job.last is None or job.last.total_results != 0
        assert len(job.results()) == 60
    assert scripted.times(RESULTS) == 3, "every page paid once"


def test_a_search_read_in_part_without_counts_reads_the_rest(
    scripted: Scripted, tmp_path: Path
) -> None:
    scripted.answer(RESULTS, page(25), (500, {"message": "error", "details": "x"}))
    with client(scripted, tmp_path) as first:
        job = first.search_leads(title_keywords="CTO", limit=100)
        assert len(job.results(until_budget=True)) == 25
    scripted.answer(RESULTS, page(25), page(10))
    jobs._COMPLETED.clear()
    with client(scripted, tmp_path) as again:
        assert len(again.search_leads(title_keywords="CTO", limit=100).results()) == 60


def test_a_search_read_to_its_limit_without_counts_is_read_from_the_cache_when_forgotten(
    scripted: Scripted, tmp_path: Path
) -> None:
    """A review: read to its limit (50 of 50), its pages without counts, then forgotten by
    the service: the dry run said free and the run paid 100 again. Read to its limit, it
    is whole."""
    scripted.answer(RESULTS, page(25), page(25))
    with client(scripted, tmp_path) as first:
        assert len(first.search_leads(title_keywords="CTO", limit=50).results()) == 50
    scripted.answer("/get-lead-search-status", (404, {"message": "not_found", "details": "x"}))
    jobs._COMPLETED.clear()
    with client(scripted, tmp_path) as again:
        assert len(again.search_leads(title_keywords="CTO", limit=50).results()) == 50
    assert scripted.times("/search-leads") == 1, "not started anew"
    assert scripted.times(RESULTS) == 2, "no page paid twice"
