"""The one search workflow (searches.workflow.Search) over the sandbox: every page read once,
a re-attached search reads only its unread pages, the cost comes first and a search over the
budget is refused before anything is sent, its own spend sure and maybe apart, places by name."""

from __future__ import annotations

import threading
import time

import pytest

from profnet_sheets import BudgetExceeded, Client, ProfnetError, SearchStatus
from profnet_sheets.errors import SearchError
from profnet_sheets.sandbox import RunningSandbox
from profnet_sheets.searches.cost import SearchCost
from profnet_sheets.searches.places import PlaceNotFoundError
from profnet_sheets.searches.workflow import Search
from tests.integration.client.conftest import MakeClient, cut_start, set_faults

pytestmark = pytest.mark.integration
FILTERS = {"title_keywords": "Engineer", "limit": 60}  # 3 pages of at most 25


@pytest.fixture
def client(make_client: MakeClient) -> Client:
    return make_client()


def test_every_page_is_read_once_and_the_spend_is_the_searchs_own(
    client: Client, fresh: RunningSandbox
) -> None:
    client.get_company_details(domain="acme.com")  # spent before: not the search's
    before = fresh.charged()
    search = Search(client, "leads")
    quotes: list[SearchCost] = []
    seen: list[SearchStatus] = []
    pauses: list[float] = []  # the poll's waits, on an injected sleep
    search.start(FILTERS, quotes.append)
    status = search.wait(on_status=seen.append, sleep=pauses.append)
    pages: list[tuple[int, int]] = []
    frame = search.read(on_page=lambda read, expected: pages.append((read, expected)))

    assert quotes[0].credits == 50 + 60, "the cost was quoted before the search started"
    assert status.completed
    assert seen[-1] is status
    assert frame.height == 60 == len(set(frame["profnet_url"]))
    assert pages == [(25, 60), (50, 60), (60, 60)]
    assert fresh.calls(endpoint="get-lead-results") == 3, "each page read once"
    assert search.read().height == 60
    assert fresh.calls(endpoint="get-lead-results") == 3, "read again: from the cache"
    assert (search.spend.spent, search.spend.maybe) == (110, 0)
    assert fresh.charged() - before == search.spend.sure == 110


def test_a_reattached_search_reads_only_its_unread_pages(
    client: Client, fresh: RunningSandbox
) -> None:
    first = Search(client, "leads")
    first.start(FILTERS)
    first.wait()

    def stop_after_the_first_page(read: int, expected: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        first.read(on_page=stop_after_the_first_page)
    assert (fresh.calls(endpoint="get-lead-results"), fresh.charged()) == (1, 50 + 25)

    again = Search(client, "leads")
    again.attach(first.request_id)
    done = again.wait()
    unread = again.unread_cost(done)
    assert (unread.results_read, unread.results_to_pay, unread.credits) == (25, 35, 35)
    assert fresh.calls(endpoint="get-lead-results") == 1, "the quote sent nothing"
    assert again.read().height == 60
    assert fresh.calls(endpoint="get-lead-results") == 3, "only the two pages not read before"
    assert fresh.charged() == 50 + 60
    assert again.spend.said() == "35 credits", "re-attached: the search is not paid again"


def test_the_cost_comes_first_and_a_search_over_the_budget_sends_nothing(
    client: Client, fresh: RunningSandbox
) -> None:
    search = Search(client, "leads", budget=100)
    quotes: list[SearchCost] = []
    with pytest.raises(BudgetExceeded, match="nothing was sent"):
        search.start(FILTERS, quotes.append)
    assert [quote.credits for quote in quotes] == [110]
    assert fresh.usage()["calls"] == {}, "nothing reached the service"
    assert search.spend.said() == "0 credits"


def test_a_quote_that_raises_sends_nothing(client: Client, fresh: RunningSandbox) -> None:
    def declined(cost: SearchCost) -> None:
        raise SystemExit(1)

    with pytest.raises(SystemExit):
        Search(client, "leads").start(FILTERS, declined)
    assert fresh.usage()["calls"] == {}


def test_a_reused_search_the_service_forgot_is_quoted_again_as_a_new_one(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    """It was quoted as reused (its start free) and then paid in full without asking: now the
    quote is given again, as a new search's, before anything more is sent (a no sends
    nothing). Its results were not read: only the service could give them."""
    import requests

    first = Search(make_client(), "leads")
    first.start(FILTERS)
    first.wait()
    requests.post(f"{fresh.base_url}/_sandbox/reset", timeout=5).raise_for_status()
    quotes: list[SearchCost] = []

    def declined_when_forgotten(cost: SearchCost) -> None:
        quotes.append(cost)
        if cost.forgotten:
            raise SystemExit(1)

    with pytest.raises(SystemExit):
        Search(make_client(), "leads").start(FILTERS, declined_when_forgotten)
    assert [(quote.credits, quote.forgotten) for quote in quotes] == [(60, False), (110, True)]
    assert quotes[1].describe().startswith("the search reused is no longer known to the service")
    assert fresh.calls(endpoint="search-leads") == 0, "declined: no new search paid"
    again = Search(make_client(), "leads")
    again.start(FILTERS, quotes.append)
    assert (quotes[-1].credits, quotes[-1].reused) == (110, False), "quoted as new at once"
    assert again.wait().completed
    assert fresh.calls(endpoint="search-leads") == 1


def test_a_reused_search_the_service_forgot_is_not_paid_with_nobody_to_ask(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    """Excel's macro and the form start with no `quoted`: their cost line had said the start
    free, and the new search was paid (110) with no word; now nothing more is sent, the
    next run is priced as new."""
    import requests

    first = Search(make_client(), "leads")
    first.start(FILTERS)
    first.wait()
    requests.post(f"{fresh.base_url}/_sandbox/reset", timeout=5).raise_for_status()
    client = make_client()
    assert Search(client, "leads").quote(FILTERS).credits == 60, "as the cost line said"
    with pytest.raises(SearchError, match="no longer known to the service") as gone:
        Search(client, "leads").start(FILTERS)
    assert gone.value.code == "forgotten"
    assert "at most 110 credits" in str(gone.value)
    assert fresh.charged() == 0
    again = Search(client, "leads")
    assert again.quote(FILTERS).credits == 110, "priced as new"
    again.start(FILTERS)
    assert fresh.calls(endpoint="search-leads") == 1


def test_a_reused_search_read_whole_is_read_from_the_cache_when_the_service_forgot_it(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    """A new user's review: a finished search whose every result was cached was quoted free,
    then the service's forgetting it started it anew and 55 were paid again for the same
    rows. Every result in the cache: nothing is asked of the service (decision 534)."""
    import requests

    from profnet_sheets.client import jobs

    first = Search(make_client(), "leads")
    first.start(FILTERS)
    first.wait()
    rows = first.read()
    requests.post(f"{fresh.base_url}/_sandbox/reset", timeout=5).raise_for_status()
    jobs._COMPLETED.clear()  # a new process: nothing seen completed
    quotes: list[SearchCost] = []
    again = Search(make_client(), "leads")
    again.start(FILTERS, quotes.append)
    assert [(quote.credits, quote.forgotten) for quote in quotes] == [(0, False)]
    assert again.wait().completed
    assert again.read().equals(rows)
    assert fresh.usage()["calls"] == {}, "nothing sent, a status call included"


def test_the_spend_tells_sure_and_maybe_apart(client: Client, fresh: RunningSandbox) -> None:
    search = Search(client, "leads")
    search.start(FILTERS)
    search.wait()
    set_faults(fresh, drop_rate=1.0)  # every page's answer cut after it went out
    with pytest.raises(ProfnetError):
        search.read()
    spend = search.spend
    assert spend.sure == fresh.charged() == 50, "the sandbox cuts before charging the page"
    assert spend.maybe > 0, "the pages lost after they went out count as maybe"
    assert spend.said() == f"50 credits (+{spend.maybe:,} possibly)"


def test_a_start_whose_answer_was_lost_is_quoted_as_possibly_started(
    client: Client, fresh: RunningSandbox
) -> None:
    """The creation went out and its answer was cut: no request id, no cached answer. The
    next quote of the same search says it may have been started and charged (the front
    ends show it; the CLI asks, or refuses without a terminal); another search's does not."""
    cut = cut_start(fresh, lambda: Search(client, "leads").start(FILTERS))
    assert "1 attempt went out with no answer: the service may have charged 50 credits for it " in (
        str(cut)
    )
    cost = Search(client, "leads").quote(FILTERS)
    assert cost.in_doubt is not None
    assert cost.in_doubt.credits == 50
    assert "may have started it and charged 50 credits (counted as possibly spent)" in (
        cost.describe()
    )
    assert Search(client, "leads").quote({**FILTERS, "limit": 61}).in_doubt is None
    shown: list[SearchCost] = []
    Search(client, "leads").start(FILTERS, shown.append)  # told, then said yes: started anew
    assert shown[0].in_doubt is not None
    assert fresh.calls(endpoint="search-leads") == 1, "the sandbox cut the first before work"
    after = Search(client, "leads").quote(FILTERS)
    assert after.reused
    assert after.doubt_said() == ""
    assert Search(client, "leads", refresh=True).quote(FILTERS).in_doubt is None


def test_the_library_does_not_start_again_a_search_left_in_doubt_unasked(
    client: Client, fresh: RunningSandbox
) -> None:
    """A review: `client.search_leads(...)` after a start whose answer was lost started it
    anew, paid again, with nothing said. It refuses, nothing sent; with refresh it starts."""
    cut_start(fresh, lambda: client.search_leads(**FILTERS))
    with pytest.raises(SearchError) as refused:
        client.search_leads(**FILTERS)
    assert refused.value.code == "in_doubt"
    said = str(refused.value)
    assert "may have started it and charged 50 credits (counted as possibly spent)" in said
    assert said.endswith("(in Python, client.with_options(refresh=True) starts it anew).")
    assert fresh.calls(endpoint="search-leads") == 0, "the sandbox cut the first before work"
    job = client.with_options(refresh=True).search_leads(**FILTERS)
    assert job.request_id
    assert fresh.calls(endpoint="search-leads") == 1
    assert client.search_leads(**FILTERS).request_id == job.request_id, "then reused"


def test_a_search_a_live_run_is_starting_is_not_in_doubt(
    client: Client, fresh: RunningSandbox
) -> None:
    """A review: a quote while another run (here a thread) was starting the same search said
    it may have been charged, and a script refused; the start waits for that run's answer
    and reuses it."""
    set_faults(fresh, latency_ms=1500)
    first = threading.Thread(target=lambda: Search(client, "leads").start(FILTERS))
    first.start()
    key = client.key("search-leads", FILTERS).digest
    deadline = time.monotonic() + 60
    while client.ledger.in_doubt(client.service, key, 3600.0) is None:  # its hold is in
        assert time.monotonic() < deadline, "the first start never held its credits"
        time.sleep(0.01)
    try:
        assert Search(client, "leads").quote(FILTERS).in_doubt is None
    finally:
        first.join()
        set_faults(fresh, latency_ms=0)
    Search(client, "leads").start(FILTERS)
    assert fresh.calls(endpoint="search-leads") == 1, "reused"


def test_places_are_found_by_name_once_each(client: Client, fresh: RunningSandbox) -> None:
    search = Search(client, "leads")
    chosen: list[tuple[str, list[tuple[str, str]]]] = []

    def told(name: str, picked: list[tuple[str, str]]) -> None:
        chosen.append((name, picked))

    filters = search.places({"geo_codes": ["Berlin", "101"], "limit": 5}, told)
    berlin, given = filters["geo_codes"]
    assert given == "101"
    assert berlin.isdigit()
    [(name, [(label, geo_id), _])] = chosen
    assert (name, geo_id) == ("geo_codes", berlin)
    assert label.startswith("Berlin")
    assert fresh.calls(endpoint="find-geocode-by-location") == 1
    with pytest.raises(PlaceNotFoundError, match="No place called") as caught:
        search.places({"geo_codes": ["Qqqxxzz"]})
    assert caught.value.param == "geo_codes"


def test_a_start_quoted_while_another_run_was_starting_it_is_refused_if_that_run_lost_it(
    client: Client, fresh: RunningSandbox
) -> None:
    """A review: quoted while another run held the claim (no doubt said), then that run lost
    its answer: the start, told nothing, paid again. Its call asks the ledger again under
    the claim and refuses (nothing sent); quoted again, it is told, and then it starts."""
    set_faults(fresh, latency_ms=1500, drop_rate=1.0)  # the first's answer cut, late
    failed: list[BaseException] = []

    def first() -> None:
        try:
            Search(client, "leads").start(FILTERS)
        except ProfnetError as error:
            failed.append(error)

    running = threading.Thread(target=first)
    running.start()
    key = client.key("search-leads", FILTERS).digest
    deadline = time.monotonic() + 60
    while client.ledger.in_doubt(client.service, key, 3600.0) is None:
        assert time.monotonic() < deadline, "the first start never held its credits"
        time.sleep(0.01)
    second = Search(client, "leads")
    try:
        assert second.quote(FILTERS).in_doubt is None, "another run is starting it"
    finally:
        running.join()
        set_faults(fresh, latency_ms=0, drop_rate=0.0)
    assert failed, "the first lost its answer"
    with pytest.raises(SearchError) as refused:
        second.start(FILTERS)  # told nothing of a doubt: refused by its call
    assert refused.value.code == "in_doubt"
    assert "Quote it again to be told and asked" in str(refused.value)
    shown: list[SearchCost] = []
    second.start(FILTERS, shown.append)
    assert "may have started it" in shown[0].describe()
    assert fresh.calls(endpoint="search-leads") == 1, "the cut one never reached its work"


def test_a_start_in_doubt_is_said_a_day_at_least_whatever_the_reuse_window(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    """A review: with search_reuse_hours = 0 (never reuse), a start left in doubt was never
    said, and a re-run paid again unsaid."""
    client = make_client(search_reuse_hours=0)
    cut_start(fresh, lambda: Search(client, "leads").start(FILTERS))
    cost = Search(client, "leads").quote(FILTERS)
    assert cost.in_doubt is not None
    assert cost.in_doubt.credits == 50
