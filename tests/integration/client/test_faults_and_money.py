"""Retries under injected faults, what is never retried, credits errors, and the budget."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import requests

from profnet_sheets import (
    BudgetExceeded,
    Client,
    InsufficientCredits,
    TransportError,
    Unauthorized,
)
from profnet_sheets.sandbox import RunningSandbox
from profnet_sheets.spec import ENDPOINTS
from tests.integration.client.conftest import KEY, MakeClient, calls, set_faults, usage

pytestmark = pytest.mark.integration


def test_retries_ride_out_5xx_and_429(make_client: MakeClient, fresh: RunningSandbox) -> None:
    set_faults(fresh, fail_rate=0.3, throttle_rate=0.2, retry_after=0)
    client = make_client(retries=10)
    names = [client.get_company_details(domain=f"retry{i}.io")["company_name"] for i in range(30)]
    assert len(names) == 30
    spent = usage(fresh)["calls"]["get-company-details"]
    assert spent["errors"] > 0, "the faults were injected"
    assert spent["credits"] == 30, "each company paid once, errors cost nothing"
    assert client.ledger.total() == 30


def test_a_dropped_get_is_retried(make_client: MakeClient, fresh: RunningSandbox) -> None:
    set_faults(fresh, drop_rate=0.4)
    client = make_client(retries=10)
    for i in range(10):
        assert client.get_company_details(domain=f"drop{i}.io")
    assert usage(fresh)["calls"]["get-company-details"]["credits"] == 10


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
    with pytest.raises(TransportError, match="Tried 6 times"):
        make_client(retries=5).get_company_details(domain="never.io")


def test_out_of_credits_is_not_retried(make_client: MakeClient, fresh: RunningSandbox) -> None:
    requests.put(
        f"{fresh.base_url}/_sandbox/keys", json={"key": "poor-key", "credits": 30}, timeout=5
    ).raise_for_status()
    client = make_client()
    client._shared.api_key = type(client._shared.api_key)("poor-key")
    with pytest.raises(InsufficientCredits) as caught:
        client.search_leads(keywords="ai", limit=5)
    assert caught.value.status == 402
    assert usage(fresh, "poor-key")["calls"]["search-leads"]["calls"] == 1


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
    assert calls(fresh, "get-company-details") == 3
    big = make_client(budget=40)
    with pytest.raises(BudgetExceeded, match="search-leads may cost 50"):
        big.search_leads(keywords="costly", limit=5)
    assert calls(fresh, "search-leads") == 0


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
    assert usage(fresh)["credits_charged"] == 10
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
    assert estimate.credits == 1 + 50
    assert estimate.within_budget
    assert calls(fresh, "get-company-details") == 1
    assert KEY not in repr(estimate)


def test_a_dear_page_whose_answer_is_lost_is_not_repeated_and_is_counted(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    client = make_client(timeout=0.3, budget=200)
    job = client.search_leads(keywords="lost answers", limit=25)
    job.wait()
    set_faults(fresh, latency_ms=600)
    with pytest.raises(TransportError, match="may already have charged") as caught:
        job.results()
    assert caught.value.may_have_been_charged
    assert caught.value.__context__ is None, "no request (and its key) rides along"
    set_faults(fresh, latency_ms=0)
    import time

    time.sleep(0.5)  # the abandoned request finishes at the sandbox
    charged = usage(fresh)["calls"]["get-lead-results"]["credits"]
    assert charged == 25, "one page charged once: no retry"
    assert client.budget.spent == 50 + 25, "the budget counts what may have been charged"
    assert client.ledger.total(uncertain=True) == 25


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
