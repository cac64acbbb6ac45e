"""A search's results set aside under the spending cap when it is started (decision 466): two
searches started at once under one cap are never both paid for their creation with no room
left for their results; the room is drawn on page by page, renewed while the search runs, and
given back unspent (or lapses, as nothing spent, when its process dies). On this computer's
SQLite ledger and on a team's Redis alike."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis

from profnet_sheets import BudgetExceeded, Client
from profnet_sheets.client.ledger import ASIDE_LEASE, Ledger
from profnet_sheets.client.spend import Charge
from profnet_sheets.client.team_ledger import TeamLedger
from profnet_sheets.config import SpendingCap
from profnet_sheets.sandbox import RunningSandbox, start_sandbox
from tests.clocks import FakeClock

from ..conftest import cli_env, run_cli

pytestmark = pytest.mark.integration
KEY = "set-aside-key"
CAP = SpendingCap(100, "day")
RESULTS = "get-lead-results"
SERVICE = "svc"


@pytest.fixture(params=["sqlite", "redis"])
def ledger_and_clock(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[Ledger | TeamLedger, FakeClock]]:
    clock = FakeClock(1_700_000_000.0)
    local = Ledger(tmp_path / "ledger.sqlite", clock=clock)
    if request.param == "sqlite":
        yield local, clock
        return
    url = request.getfixturevalue("redis_url")
    prefix = f"svc-{uuid.uuid4().hex[:8]}"
    yield TeamLedger(local, redis.Redis.from_url(url), prefix, "here", url, clock), clock


def _used(ledger: Ledger | TeamLedger) -> int:
    return ledger.cap_use(CAP, SERVICE).used


def _settle(ledger: Ledger | TeamLedger, page: int, charged: int, aside: int) -> None:
    ledger.settle(SERVICE, "", RESULTS, Charge(sure=charged, items=charged), [page], aside)


def test_pages_draw_on_what_was_set_aside_and_no_other_call_spends_its_room(
    ledger_and_clock: tuple[Ledger | TeamLedger, FakeClock],
) -> None:
    ledger, _ = ledger_and_clock
    aside = ledger.set_aside(CAP, SERVICE, 40, "the results of this leads search")
    assert _used(ledger) == 40
    other = ledger.reserve_within(CAP, SERVICE, 60, "get-company-details", 30.0)
    with pytest.raises(BudgetExceeded, match="may cost 1 credit and only 0"):
        ledger.reserve_within(CAP, SERVICE, 1, "get-company-details", 30.0)
    ledger.release(other)
    # the first page may cost every result (the page size is not known yet): within the room
    page = ledger.reserve_within(CAP, SERVICE, 40, RESULTS, 30.0, drawing_on=aside)
    assert _used(ledger) == 40, "a page within the room set aside takes no more of the cap"
    _settle(ledger, page, 25, aside)  # a page of 25: the rest of the room stays set aside
    assert ledger.holds(SERVICE).aside == 15
    assert _used(ledger) == 25 + 15
    assert ledger.cap_use(CAP, SERVICE, aside).drawable == 15
    # a page dearer than the room left takes the room, and the cap the difference
    page = ledger.reserve_within(CAP, SERVICE, 20, RESULTS, 30.0, drawing_on=aside)
    assert _used(ledger) == 25 + 20
    _settle(ledger, page, 15, aside)
    assert ledger.holds(SERVICE).aside == 0
    ledger.give_back(aside)
    assert _used(ledger) == 40
    assert ledger.total(service=SERVICE) == 40
    assert ledger.total(service=SERVICE, uncertain=True) == 0


def test_a_page_never_sent_leaves_the_room_set_aside_whole(
    ledger_and_clock: tuple[Ledger | TeamLedger, FakeClock],
) -> None:
    ledger, _ = ledger_and_clock
    aside = ledger.set_aside(CAP, SERVICE, 40, "the results")
    page = ledger.reserve_within(CAP, SERVICE, 40, RESULTS, 30.0, drawing_on=aside)
    ledger.release(page)  # refused at its turn, Ctrl-C: not sent
    assert ledger.holds(SERVICE).aside == 40
    assert _used(ledger) == 40


def test_what_is_set_aside_is_refused_by_the_cap_like_a_call(
    ledger_and_clock: tuple[Ledger | TeamLedger, FakeClock],
) -> None:
    ledger, _ = ledger_and_clock
    ledger.set_aside(CAP, SERVICE, 70, "the results of this leads search (70 at most)")
    with pytest.raises(BudgetExceeded) as refused:
        ledger.set_aside(CAP, SERVICE, 40, "the results of this leads search (40 at most)")
    assert "the results of this leads search (40 at most) may cost 40 credits" in str(refused.value)
    assert refused.value.left == 30
    assert (
        "are left (for every machine on the team's Redis)"
        if isinstance(ledger, TeamLedger)
        else "are left (for every run on this service's ledger)"
    ) + (
        " (70 more set aside for the results of searches started and not read yet: what "
        "their reading does not take comes back); nothing was sent."
    ) in str(refused.value)
    assert _used(ledger) == 70


def test_a_page_within_its_room_goes_even_when_others_passed_the_cap(
    ledger_and_clock: tuple[Ledger | TeamLedger, FakeClock],
) -> None:
    """Another machine under a higher cap spent past this one's: the room set aside when the
    search started is still its own."""
    ledger, _ = ledger_and_clock
    aside = ledger.set_aside(CAP, SERVICE, 40, "the results")
    ledger.record(SERVICE, "", "get-company-details", 70, None)  # under a cap of 200 elsewhere
    assert _used(ledger) == 110
    page = ledger.reserve_within(CAP, SERVICE, 40, RESULTS, 30.0, drawing_on=aside)
    _settle(ledger, page, 40, aside)
    with pytest.raises(BudgetExceeded):
        ledger.reserve_within(CAP, SERVICE, 1, RESULTS, 30.0, drawing_on=aside)


def test_what_was_set_aside_lapses_as_nothing_spent_unless_renewed(
    ledger_and_clock: tuple[Ledger | TeamLedger, FakeClock],
) -> None:
    ledger, clock = ledger_and_clock
    aside = ledger.set_aside(CAP, SERVICE, 40, "the results")
    ledger.reserve_within(CAP, SERVICE, 10, RESULTS, 30.0, drawing_on=aside)  # its process dies
    clock.now += ASIDE_LEASE - 1
    ledger.renew(aside)
    clock.now += ASIDE_LEASE - 1
    assert ledger.holds(SERVICE).aside == 30, "renewed: still set aside, less its lost page"
    assert _used(ledger) == 40, "the page possibly spent, and the rest of the room held"
    clock.now += 2  # the renewal's lease passed too: the process died
    assert _used(ledger) == 10, "the page possibly spent; what was set aside, nothing"
    assert ledger.holds(SERVICE).aside == 0
    assert ledger.total(service=SERVICE, uncertain=True) == 10
    assert ledger.total(service=SERVICE) == 0
    # a page drawing on room that lapsed is held under the cap on its own
    ledger.reserve_within(CAP, SERVICE, 90, RESULTS, 30.0, drawing_on=aside)
    assert _used(ledger) == 100


def test_a_page_whose_process_died_takes_what_it_possibly_spent_off_the_room(
    ledger_and_clock: tuple[Ledger | TeamLedger, FakeClock],
) -> None:
    """A code review: the page's hold lapsed as 40 possibly spent, the room stayed 40, and a
    re-attach drew on it past the cap (used 130 of 100)."""
    ledger, clock = ledger_and_clock
    ledger.record(SERVICE, "", "search-leads", 50, None)
    aside = ledger.set_aside(CAP, SERVICE, 40, "the results")
    ledger.reserve_within(CAP, SERVICE, 40, RESULTS, 30.0, drawing_on=aside)  # killed
    clock.now += 31  # the page's lease ran out; the room's did not
    ledger.renew(aside)
    assert _used(ledger) == 50 + 40
    assert ledger.holds(SERVICE).aside == 0
    with pytest.raises(BudgetExceeded):
        ledger.reserve_within(CAP, SERVICE, 40, RESULTS, 30.0, drawing_on=aside)
    assert _used(ledger) == 90


def test_what_is_set_aside_is_kept_where_an_earlier_version_does_not_look(
    ledger_and_clock: tuple[Ledger | TeamLedger, FakeClock], tmp_path: Path
) -> None:
    """An earlier version on the same ledger (or Redis) reads the calls' holds only: it would
    settle a lapsed aside there as 40 credits possibly spent, for good."""
    ledger, _ = ledger_and_clock
    ledger.set_aside(CAP, SERVICE, 40, "the results")
    with sqlite3.connect(tmp_path / "ledger.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM reserved").fetchone() == (0,)
    if isinstance(ledger, TeamLedger):
        assert ledger.redis.hlen(ledger.held_key) == 0
        assert ledger.redis.hlen(ledger.aside_key) == 1


# -- searches over loopback -------------------------------------------------------------------


@pytest.fixture
def sandbox() -> Iterator[RunningSandbox]:
    with start_sandbox(api_keys=(KEY,), credits=100_000, job_seconds=0.0, seed=7) as running:
        yield running


@pytest.fixture(params=["sqlite", "redis"])
def machines(
    request: pytest.FixtureRequest, sandbox: RunningSandbox, tmp_path: Path
) -> Callable[[str, str], Client]:
    """A client of one machine (`name`) under the cap `cap`: on one computer's ledger, or on
    the team's Redis (a cache folder of each machine's own)."""
    url: str | None = None
    if request.param == "redis":
        url = request.getfixturevalue("killable_redis").url

    def machine(name: str, cap: str) -> Client:
        own = {"cache": url} if url is not None else {}
        folder = tmp_path / (name if url is not None else "one-computer")
        return Client(
            api_key=KEY,
            base_url=sandbox.base_url,
            cache_dir=folder,
            spending_cap=cap,
            machine=name,
            **own,
        )

    return machine


def test_two_searches_started_at_once_are_not_both_paid_with_no_room_for_results(
    sandbox: RunningSandbox, machines: Callable[[str, str], Client]
) -> None:
    """Each quoted 50 + 40 under a cap of 150: the first holds its results' 40 from its start,
    so the second is refused before anything is sent (it used to pay its 50 and read 10)."""
    first, second = machines("first", "150/day"), machines("second", "150/day")
    with first, second:
        job = first.search_leads(title_keywords="CTO", limit=40)
        assert sandbox.charged(KEY) == 50
        with pytest.raises(BudgetExceeded, match="this leads search") as refused:
            second.search_leads(title_keywords="VP Sales", limit=40)
        assert "leaves 60 (40 more set aside for the results of searches started" in str(
            refused.value
        )
        assert sandbox.charged(KEY) == 50, "the second search was not paid"
        rows = job.results()
        assert len(rows) == 40
        assert sandbox.charged(KEY) == 90
        assert first.ledger.holds(first.service).aside == 0, "the rest given back"
        assert second.quote(0).cap_left == 60


def test_another_runs_spend_leaves_a_running_searchs_results_their_room(
    sandbox: RunningSandbox, machines: Callable[[str, str], Client]
) -> None:
    """A search started under a cap of 100 (50 + 40 results): another run spends what is left
    beside it (10), not its results' room, and the search reads all of them."""
    searcher, other = machines("searcher", "100/day"), machines("other", "100/day")
    with searcher, other:
        job = searcher.search_leads(title_keywords="CTO", limit=40)
        for n in range(10):
            other.get_company_details(domain=f"other{n}.io")
        with pytest.raises(BudgetExceeded, match="cap of 100/day"):
            other.get_company_details(domain="one-more.io")
        assert len(job.results()) == 40
        assert sandbox.charged(KEY) == 100


def test_credits_shows_what_is_set_aside_apart_from_calls_under_way(
    sandbox: RunningSandbox, tmp_path: Path
) -> None:
    env = cli_env(sandbox.base_url, KEY, tmp_path)
    env["PROFNET_SPENDING_CAP"] = "500/day"
    with Client(
        api_key=KEY,
        base_url=sandbox.base_url,
        cache_dir=tmp_path / "cache",
        spending_cap="500/day",
    ) as client:
        client.search_leads(title_keywords="CTO", limit=40)  # started, its results not read
        shown = run_cli(env, "credits")
    assert shown.returncode == 0, shown.stderr
    (said,) = [line for line in shown.stdout.splitlines() if line.startswith("set aside:")]
    assert said.startswith(
        "set aside: 40 credits under the cap for the results of searches started and not read "
        "yet (not spent: what their reading does not take is given back, until "
    ), said
    assert said.endswith(" UTC at the latest unless they are read)")
    assert not any(line.startswith("in flight:") for line in shown.stdout.splitlines())
    assert "500/day for every run on this computer's ledger" in shown.stdout
    assert ": 410 left" in shown.stdout


def test_the_room_set_aside_outlasts_the_first_page(
    sandbox: RunningSandbox, machines: Callable[[str, str], Client]
) -> None:
    """Pages of 25, a limit of 40: the first page may cost 40 and costs 25; the 15 left stay
    the search's while another run spends beside it (it got 25 and cut the search at 25)."""
    searcher, other = machines("searcher", "100/day"), machines("other", "100/day")
    spent_beside: list[int] = []

    def between_pages(read: int, expected: int) -> None:
        if read < expected:
            for n in range(25):
                try:
                    other.get_company_details(domain=f"beside{n}.io")
                except BudgetExceeded:
                    return
                spent_beside.append(n)

    with searcher, other:
        job = searcher.search_leads(title_keywords="CTO", limit=40)
        rows = job.results(on_page=between_pages)
    assert len(spent_beside) == 10
    assert len(rows) == 40
    assert sandbox.charged(KEY) == 100


def test_a_search_read_by_another_job_draws_on_its_room(
    sandbox: RunningSandbox, machines: Callable[[str, str], Client]
) -> None:
    """A notebook cell run twice (the same search again: reused, free), or the search read
    by its request id elsewhere: its results' room is theirs, not counted twice."""
    starter, reader = machines("starter", "100/day"), machines("reader", "100/day")
    with starter, reader:
        first = starter.search_leads(title_keywords="CTO", limit=40)
        again = starter.search_leads(title_keywords="CTO", limit=40)
        assert again.request_id == first.request_id
        assert len(reader.attach_search("leads", first.request_id).results()) == 40
        assert reader.ledger.holds(reader.service).aside == 0, "given back by its reader"
        assert len(again.results()) == 40, "read again: cached, free"
        assert sandbox.charged(KEY) == 90


def test_a_search_left_unread_keeps_its_room_for_whoever_reads_it(
    sandbox: RunningSandbox, machines: Callable[[str, str], Client]
) -> None:
    """A search started and not read here (Ctrl-C, a timeout, a cell left, a process killed):
    its results' room stays set aside for its lease, for whoever reads it by its request id;
    another run spends beside it meanwhile."""
    with machines("one", "100/day") as starter:
        request_id = starter.search_leads(title_keywords="CTO", limit=40).request_id
    with machines("two", "100/day") as reader, machines("other", "100/day") as other:
        assert reader.ledger.holds(reader.service).aside == 40
        for n in range(10):
            other.get_company_details(domain=f"beside{n}.io")
        with pytest.raises(BudgetExceeded):
            other.get_company_details(domain="one-more.io")
        assert len(reader.attach_search("leads", request_id).results()) == 40
        assert reader.ledger.holds(reader.service).aside == 0
    assert sandbox.charged(KEY) == 100


def test_a_reading_cut_short_keeps_the_rest_of_the_room_for_its_re_attach(
    sandbox: RunningSandbox, machines: Callable[[str, str], Client]
) -> None:
    """A code review: a reading stopped after its first page gave the room back, another run
    spent it, and the re-attach the messages advise was refused."""
    searcher, other = machines("searcher", "100/day"), machines("other", "100/day")

    def stop(read: int, expected: int) -> None:
        raise KeyboardInterrupt  # Ctrl-C after the first page

    with searcher, other:
        job = searcher.search_leads(title_keywords="CTO", limit=40)
        with pytest.raises(KeyboardInterrupt):
            job.results(on_page=stop)
        assert searcher.ledger.holds(searcher.service).aside == 15
        for n in range(10):
            other.get_company_details(domain=f"beside{n}.io")
        with pytest.raises(BudgetExceeded):
            other.get_company_details(domain="one-more.io")
        assert len(searcher.attach_search("leads", job.request_id).results()) == 40
    assert sandbox.charged(KEY) == 100


def test_the_same_search_started_again_is_quoted_on_its_own_room(
    sandbox: RunningSandbox, machines: Callable[[str, str], Client]
) -> None:
    """A code review: Excel's macro said `Over the budget: not run` for a search reused,
    whose results' room was counted as another run's spend."""
    from profnet_sheets.searches.workflow import Search

    client = machines("one", "100/day")
    with client:
        client.search_leads(title_keywords="CTO", limit=40)
        cost = Search(client, "leads").quote({"title_keywords": "CTO", "limit": 40})
        assert cost.reused
        assert cost.quote is not None
        assert cost.quote.within
        planned = [("search-leads", {"title_keywords": "CTO", "limit": 40})]
        estimate = client.estimate(planned)
        assert (estimate.credits, estimate.within_budget) == (40, True), "its unread results"
        client.attach_search("leads", client.search_leads(**planned[0][1]).request_id).results()
        assert client.estimate(planned).credits == 0, "every result read: free"


def test_a_search_with_no_room_set_aside_says_none_is_kept(
    sandbox: RunningSandbox, machines: Callable[[str, str], Client], tmp_path: Path
) -> None:
    """A search started with no cap, read later under one: nothing is set aside for it, and
    nothing is said to be kept (the status poll asks once, then not again)."""
    with Client(api_key=KEY, base_url=sandbox.base_url, cache_dir=tmp_path / "nocap") as free:
        request_id = free.search_leads(title_keywords="CTO", limit=40).request_id
    with machines("one", "500/day") as client:
        job = client.attach_search("leads", request_id)
        assert job.aside is not None
        job.status()
        assert job.aside is None
