"""What the spec leaves open, answered as another service (or a gateway) might: the client
still does right.

A small real HTTP server on loopback plays that service (the sandbox answers as
docs/decisions.md chose, so it cannot show the alternatives).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, ClassVar

import pytest

from profnet_sheets import BudgetExceeded, Client, InsufficientCredits, SearchNotReady
from tests.integration.client.conftest import serve

pytestmark = pytest.mark.integration


class _Fake(BaseHTTPRequestHandler):
    """A service on loopback: the paths it was asked for, its address, JSON replies."""

    paths: ClassVar[list[str]]
    completed: ClassVar[threading.Event]
    base_url: ClassVar[str]

    def log_message(self, *args: Any) -> None:
        pass

    def _reply(self, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class _Service(_Fake):
    """A lead search that completes when told to; before that, its results page is a 200 that
    carries the search's status and no results (not the sandbox's 409)."""

    def do_GET(self) -> None:
        self.paths.append(self.path)
        done = self.completed.is_set()
        if self.path.startswith("/get-lead-search-status"):
            self._reply(
                {
                    "request_id": "r1",
                    "status": "completed" if done else "processing",
                    "progress": 100 if done else 10,
                    "total_results": 3 if done else 0,
                }
            )
        elif done:
            rows = [
                {"name": name, "title": "CTO", "company": "Acme", "profnet_url": "", "location": ""}
                for name in "abc"
            ]
            page = {"request_id": "r1", "page": 1, "total_pages": 1, "total_results": 3}
            self._reply({**page, "results": rows})
        else:
            self._reply(
                {
                    "request_id": "r1",
                    "status": "processing",
                    "page": 1,
                    "total_pages": 0,
                    "total_results": 0,
                    "results": [],
                }
            )


class _SpentQuota(_Fake):
    """A gateway that says, in plain text, that the month's quota is spent."""

    def do_GET(self) -> None:
        self.paths.append(self.path)
        data = b"Monthly quota exceeded for this plan"
        self.send_response(429)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class _BigPages(_Fake):
    """A completed lead search of 150 results, all on one page (the spec gives no page size)."""

    page_items: ClassVar[int] = 150

    def do_GET(self) -> None:
        self.paths.append(self.path)
        if self.path.startswith("/get-lead-search-status"):
            self._reply(
                {"request_id": "r1", "status": "completed", "progress": 100, "total_results": 150}
            )
            return
        row = {"name": "n", "title": "t", "company": "c", "profnet_url": "", "location": ""}
        page = {"request_id": "r1", "page": 1, "total_pages": 1, "total_results": 150}
        self._reply({**page, "results": [row] * self.page_items})


class _CountsAllMatches(_BigPages):
    """A search for at most 100 leads whose status and page count every match (150), while
    the page holds the 100 the search asked for."""

    page_items = 100


def _serve(base: type[_Fake]) -> Iterator[Any]:
    handler = type(base.__name__, (base,), {"completed": threading.Event(), "paths": []})
    yield from serve(handler)


@pytest.fixture
def service() -> Iterator[type[_Service]]:
    yield from _serve(_Service)


@pytest.fixture
def spent_quota() -> Iterator[type[_SpentQuota]]:
    yield from _serve(_SpentQuota)


@pytest.fixture
def big_pages() -> Iterator[type[_BigPages]]:
    yield from _serve(_BigPages)


def test_a_page_larger_than_expected_cannot_pass_the_budget(
    big_pages: type[_BigPages], tmp_path: Path
) -> None:
    base_url = big_pages.base_url
    with Client(api_key="k", base_url=base_url, cache_dir=tmp_path, budget=120) as tight:
        with pytest.raises(BudgetExceeded):
            tight.attach_search("leads", "r1").results()
        assert tight.budget.spent == 0
    assert not [path for path in big_pages.paths if path.startswith("/get-lead-results")]
    with Client(api_key="k", base_url=base_url, cache_dir=tmp_path, budget=150) as enough:
        assert len(enough.attach_search("leads", "r1").results()) == 150
        assert enough.budget.spent == 150


def test_a_quota_spent_in_plain_text_is_not_retried(
    spent_quota: type[_SpentQuota], tmp_path: Path
) -> None:
    client = Client(api_key="k", base_url=spent_quota.base_url, cache_dir=tmp_path, backoff=0.01)
    with client, pytest.raises(InsufficientCredits, match="no credits left"):
        client.get_company_details(domain="acme.io")
    assert len(spent_quota.paths) == 1


def test_results_asked_before_completion_are_not_ready_and_never_kept(
    service: type[_Service], tmp_path: Path
) -> None:
    with Client(api_key="k", base_url=service.base_url, cache_dir=tmp_path) as client:
        with pytest.raises(SearchNotReady, match="not completed"):
            client.get_lead_results(request_id="r1")
        service.completed.set()
        rows = client.attach_search("leads", "r1").results()
        assert [row["name"] for row in rows] == ["a", "b", "c"]
        pages = [path for path in service.paths if path.startswith("/get-lead-results")]
        assert len(pages) == 2, "the early page was asked for again, not taken from the cache"
        assert client.ledger.total() == 3


@pytest.fixture
def counts_all() -> Iterator[type[_CountsAllMatches]]:
    yield from _serve(_CountsAllMatches)


def test_a_total_beyond_the_searchs_limit_does_not_block_the_budget(
    counts_all: type[_CountsAllMatches], tmp_path: Path
) -> None:
    """The budget reserves what the search can give (its limit), not every match counted."""
    from profnet_sheets.client.jobs import SearchJob

    base_url = counts_all.base_url
    with Client(api_key="k", base_url=base_url, cache_dir=tmp_path, budget=120) as client:
        job = SearchJob(client, "leads", "r1", filters={"keywords": "x", "limit": 100})
        assert len(job.results()) == 100
        assert client.budget.spent == 100
