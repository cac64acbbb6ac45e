"""Retries under injected faults, what is never retried, credits errors, and the budget."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
import requests

from profnet_sheets import (
    BudgetExceeded,
    Client,
    InsufficientCredits,
    NotFound,
    StoppedBuying,
    TransportError,
    Unauthorized,
)
from profnet_sheets.sandbox import RunningSandbox
from profnet_sheets.spec import ENDPOINTS
from tests.integration.client.conftest import KEY, MakeClient, set_faults

pytestmark = pytest.mark.integration


def test_retries_ride_out_5xx_and_429(make_client: MakeClient, fresh: RunningSandbox) -> None:
    set_faults(fresh, fail_rate=0.3, throttle_rate=0.2, retry_after=0)
    client = make_client(retries=10)
    names = [client.get_company_details(domain=f"retry{i}.io")["company_name"] for i in range(30)]
    assert len(names) == 30
    spent = fresh.usage()["calls"]["get-company-details"]
    assert spent["errors"] > 0, "the faults were injected"
    assert spent["credits"] == 30, "each company paid once, errors cost nothing"
    assert client.ledger.total() == 30


def test_a_dropped_get_is_retried(make_client: MakeClient, fresh: RunningSandbox) -> None:
    set_faults(fresh, drop_rate=0.4)
    client = make_client(retries=10)
    for i in range(10):
        assert client.get_company_details(domain=f"drop{i}.io")
    assert fresh.usage()["calls"]["get-company-details"]["credits"] == 10


PAID_POSTS: dict[str, Callable[[Client], object]] = {
    "search-posts": lambda client: client.search_posts(keyword="once"),
    "search-jobs": lambda client: client.search_jobs(keyword="once"),
    "google-full-profiles": lambda client: client.google_full_profiles(name="Ann Once"),
    "google-schools": lambda client: client.google_schools(school_name="Once"),
    "find-custom-headcount": lambda client: client.find_custom_headcount(
        profnet_url="https://www.profnet.com/company/once/"
    ),
    "search-leads": lambda client: client.search_leads(keywords="once"),
    "search-companies": lambda client: client.search_companies(keywords="once"),
}


def test_every_paid_post_is_listed_here() -> None:
    paid_posts = {ep.name for ep in ENDPOINTS if ep.method == "POST" and ep.price.kind != "free"}
    assert paid_posts == set(PAID_POSTS)


@pytest.mark.parametrize("name", sorted(PAID_POSTS))
def test_a_paid_post_is_never_retried_after_it_may_have_been_read(
    make_client: MakeClient, fresh: RunningSandbox, name: str
) -> None:
    """Even a one-credit POST (google-schools, find-custom-headcount): the issue says never a
    read retry on a paid POST."""
    set_faults(fresh, drop_rate=1.0)
    client = make_client(retries=5)
    sent = []
    original = client._shared.transport._request

    def counting(*args: object, **kwargs: object) -> requests.Response:
        sent.append(1)
        return original(*args, **kwargs)  # type: ignore[arg-type]

    client._shared.transport._request = counting  # type: ignore[method-assign]
    with pytest.raises(TransportError, match="may already have charged"):
        PAID_POSTS[name](client)
    assert len(sent) == 1, "exactly one send"


def test_a_one_credit_lookup_is_retried_after_a_lost_answer(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    set_faults(fresh, drop_rate=1.0)
    with pytest.raises(TransportError, match="Tried 6 times") as raised:
        make_client(retries=5).get_company_details(domain="never.io")
    # what asking again may cost is said, before the remedy (decision 484)
    assert (
        "Tried 6 times. 6 attempts went out with no answer: the service may have charged "
        "6 credits for them (counted as possibly spent). Check the network"
    ) in str(raised.value)


def test_out_of_credits_is_not_retried(make_client: MakeClient, fresh: RunningSandbox) -> None:
    requests.put(
        f"{fresh.base_url}/_sandbox/keys", json={"key": "poor-key", "credits": 30}, timeout=5
    ).raise_for_status()
    client = make_client()
    client._shared.api_key = type(client._shared.api_key)("poor-key")
    with pytest.raises(InsufficientCredits) as caught:
        client.search_leads(keywords="ai", limit=5)
    assert caught.value.status == 402
    assert fresh.usage("poor-key")["calls"]["search-leads"]["calls"] == 1


def test_a_wrong_key_is_unauthorized_and_not_shown(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    client = make_client()
    client._shared.api_key = type(client._shared.api_key)("wrong-secret-key")
    with pytest.raises(Unauthorized) as caught:
        client.get_company_details(domain="a.io")
    assert "wrong-secret-key" not in str(caught.value)
    assert "wrong-secret-key" not in repr(caught.value)
    assert "PROFNET_API_KEY" in str(caught.value)


def test_the_budget_stops_before_spending(make_client: MakeClient, fresh: RunningSandbox) -> None:
    client = make_client(budget=3)
    for i in range(3):
        client.get_company_details(domain=f"budget{i}.io")
    client.get_company_details(domain="budget0.io")  # cached: free, allowed
    with pytest.raises(BudgetExceeded) as caught:
        client.get_company_details(domain="budget3.io")
    assert (caught.value.needed, caught.value.left) == (1, 0)
    assert fresh.calls(endpoint="get-company-details") == 3
    big = make_client(budget=40)
    with pytest.raises(BudgetExceeded, match="may cost up to 55 credits, and the budget"):
        big.search_leads(keywords="costly", limit=5)
    assert fresh.calls(endpoint="search-leads") == 0


def test_a_search_that_cannot_be_read_within_the_budget_is_not_started(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    """Creation (50) and its results (up to 100) are known before paying: with 60 left, the
    search would pay 50 and then be refused its pages."""
    client = make_client(budget=60)
    with pytest.raises(BudgetExceeded, match="up to 150 credits") as caught:
        client.search_leads(title_keywords="Engineer", limit=100)
    assert (caught.value.needed, caught.value.left) == (150, 60)
    assert fresh.calls(endpoint="search-leads") == 0
    assert client.budget.spent == 0
    rows = client.search_leads(title_keywords="Engineer", limit=10).results()
    assert client.budget.spent == 50 + len(rows)


def test_the_spending_cap_holds_across_runs_and_processes(
    make_client: MakeClient, fresh: RunningSandbox, tmp_path: Path
) -> None:
    """Three runs one after another, each with a fresh budget, and three processes at once:
    together never more than the cap (per-run budgets reset; a cap does not)."""
    for run in range(3):
        client = make_client(spending_cap="5/day")
        for n in range(4):
            with contextlib.suppress(BudgetExceeded):
                client.get_company_details(domain=f"cap-run{run}-{n}.io")
    assert fresh.charged() == 5
    script = textwrap.dedent(
        f"""
        import contextlib
        from profnet_sheets import BudgetExceeded, Client
        folder = {str(tmp_path / "cache")!r}
        client = Client(api_key={KEY!r}, base_url={fresh.base_url!r}, cache=folder,
                        cache_dir=folder, spending_cap="12/day")
        for n in range(10):
            with contextlib.suppress(BudgetExceeded):
                client.get_company_details(domain=f"cap-process-{{__import__('os').getpid()}}-{{n}}.io")
        """
    )
    children = [subprocess.Popen([sys.executable, "-c", script]) for _ in range(3)]
    assert all(child.wait(60) == 0 for child in children)
    assert fresh.charged() == 12, "5 before, 7 more: the cap of 12 a day"


def test_rows_cut_by_the_spending_cap_say_the_cap_not_a_budget(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    from profnet_sheets.batch.engine import enrich
    from profnet_sheets.batch.marks import CAP_NOT_FETCHED

    client = make_client(spending_cap="3/day")
    frame = pl.DataFrame({"website": [f"capped{i}.io" for i in range(6)]})
    result = enrich(frame, "website", "company", client=client, progress=False)
    errors = result["company_error"].to_list()
    assert errors.count(None) == 3
    assert errors.count(CAP_NOT_FETCHED) == 3, errors
    assert fresh.charged() == 3
    with pytest.raises(BudgetExceeded) as caught:
        client.get_company_details(domain="one-more.io")
    assert caught.value.limit == "PROFNET_SPENDING_CAP"


def test_the_budget_holds_under_concurrency(make_client: MakeClient, fresh: RunningSandbox) -> None:
    from concurrent.futures import ThreadPoolExecutor

    set_faults(fresh, latency_ms=30)
    client = make_client(budget=10)

    def fetch(i: int) -> bool:
        try:
            client.get_company_details(domain=f"many{i}.io")
        except BudgetExceeded:
            return False
        return True

    with ThreadPoolExecutor(16) as pool:
        done = sum(pool.map(fetch, range(40)))
    assert done == 10
    assert fresh.charged() == 10
    assert client.budget.spent == 10


def test_estimate_knows_what_the_cache_holds(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    client = make_client(budget=100)
    client.get_company_details(domain="known.io")
    estimate = client.estimate(
        [("get-company-details", {"domain": d}) for d in ("known.io", "www.known.io", "new.io")]
        + [("search-leads", {"keywords": "x", "limit": 10})]
    )
    assert (estimate.calls, estimate.unique, estimate.cached) == (4, 3, 1)
    assert estimate.credits == 1 + 50 + 10, "a search: its creation, and its 10 results at most"
    assert estimate.within_budget
    assert str(estimate) == (
        "4 calls: 3 distinct, 1 already cached (free), 2 to fetch; at most 61 credits; budget "
        "left 99"
    ), "printed in a notebook: a sentence"
    assert fresh.calls(endpoint="get-company-details") == 1
    assert KEY not in repr(estimate)


def test_a_search_is_estimated_with_its_results_not_its_start_fee_alone(
    make_client: MakeClient,
) -> None:
    """A new user's review: 50 credits estimated, within a budget of 100, for a search that
    may cost 550 (and that the budget then refused)."""
    client = make_client(budget=100)
    estimate = client.estimate(
        [("search-leads", {"title_keywords": "Head of Growth", "limit": 500})]
    )
    assert estimate.credits == 550
    assert not estimate.within_budget


def _completed_search(make_client: MakeClient, keywords: str, limit: int) -> str:
    """A lead search started and completed by a client with the usual timeout (a loaded
    machine may take longer than the short timeout under test to start one): its request id."""
    job = make_client().search_leads(keywords=keywords, limit=limit)
    job.wait()
    return job.request_id


def test_a_dear_page_whose_answer_is_lost_is_asked_again_within_the_budget_and_counted(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    """The transport never repeats a call that may have been charged; reading a completed
    search asks for a page again (issue: "retries transient faults by itself, bounded, each
    attempt counted as possibly charged, within the budget"): here the budget allows two."""
    import time

    client = make_client(timeout=0.3, budget=50)
    job = client.attach_search("leads", _completed_search(make_client, "lost answers", 25))
    job.wait()  # free, and retried: its answer tells the pages
    job.sleep = lambda seconds: None
    set_faults(fresh, latency_ms=600)
    with pytest.raises(BudgetExceeded, match="get-lead-results may cost 25"):
        job.results()
    set_faults(fresh, latency_ms=0)
    time.sleep(0.8)  # the abandoned requests finish at the sandbox
    charged = fresh.usage()["calls"]["get-lead-results"]["credits"]
    assert charged == 50, "two attempts of a 25-credit page, then the budget said no"
    assert client.budget.spent == 50, "the budget counts what may have been charged"
    assert client.ledger.total(uncertain=True) == 50


def test_a_lost_page_says_how_to_resume(make_client: MakeClient, fresh: RunningSandbox) -> None:
    client = make_client(timeout=0.3)
    job = client.attach_search("leads", _completed_search(make_client, "lost again", 5))
    job.wait()  # free, and retried: its answer tells the pages
    job.sleep = lambda seconds: None
    set_faults(fresh, latency_ms=600)
    with pytest.raises(TransportError, match="may already have charged") as caught:
        job.results()
    set_faults(fresh, latency_ms=0)
    assert caught.value.may_have_been_charged
    assert caught.value.__context__ is None, "no request (and its key) rides along"
    assert f"--request-id {job.request_id}" in str(caught.value)


def test_the_key_is_not_in_traceback_locals(make_client: MakeClient, fresh: RunningSandbox) -> None:
    import traceback

    set_faults(fresh, drop_rate=1.0)
    client = make_client(retries=0)
    try:
        client.get_company_details(domain="locals.io")
    except TransportError as error:
        text = "".join(
            traceback.TracebackException.from_exception(error, capture_locals=True).format()
        )
    assert "client.get_company_details" in text
    assert KEY not in text


def test_a_base_url_with_a_wrong_path_is_told_from_a_company_not_found(
    fresh: RunningSandbox, tmp_path: Path
) -> None:
    """Decision 505 on the sandbox, which answers an unknown path with the service's JSON 404
    (as a gateway at a wrong path may): the first 404 asks the free status of an unknown
    search without the key; the sandbox at the right path asks for its key (401), at a wrong
    one answers 404 alike: buying stops, nothing kept, nothing charged."""
    cache = tmp_path / "cache"
    with Client(api_key=KEY, base_url=f"{fresh.base_url}/v2", cache_dir=cache) as wrong:
        with pytest.raises(StoppedBuying, match="with the API key and without it"):
            wrong.get_company_details(domain="acme.io")
        with pytest.raises(StoppedBuying, match="with the API key and without it"):
            wrong.get_job_details(job_id=999_999_999)
    with Client(api_key=KEY, base_url=fresh.base_url, cache_dir=cache) as right:
        for job in (999_999_999, 999_999_998):
            with pytest.raises(NotFound):
                right.get_job_details(job_id=job)
        assert right.get_company_details(domain="acme.io")
    assert fresh.usage()["credits_charged"] == 1, "the company, at the right path"
    assert "get-lead-search-status" not in fresh.usage()["calls"], "asked without the key"
