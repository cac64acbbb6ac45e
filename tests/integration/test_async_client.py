"""AsyncClient, the driver without threads (xlwings Lite under Pyodide), against the scripted
service over loopback: the money scenarios of tests/money_scenarios.py as the threaded client
keeps them, identical calls under way paid once, a range sent together within the pace, a 402
then a new run, a budget that refuses before anything is sent; and no thread started."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from profnet_sheets import (
    BudgetExceeded,
    InsufficientCredits,
    NotFound,
    ProfnetError,
    StoppedBuying,
)
from profnet_sheets.client.async_client import AsyncClient, Fetch, Fetched
from profnet_sheets.spec import endpoint
from tests.clocks import FakeClock
from tests.loopback_fetch import loopback_fetch
from tests.money_scenarios import (
    SCENARIOS,
    START,
    Scenario,
    answer_of,
    assert_settled,
    calls_of,
    params_of,
)
from tests.scripted_service import Scripted, serving

DETAILS = "/get-company-details"
COMPANY = (200, {"data": {"name": "Acme", "domain": "acme.io"}})


@pytest.fixture
def scripted() -> Iterator[Scripted]:
    with serving(Scripted()) as service:
        yield service


@pytest.fixture
def no_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """Starting a thread from the test's own thread fails, as under Pyodide (the scripted
    service's threads, started from its own, still serve)."""
    start = threading.Thread.start

    def refused(thread: threading.Thread) -> None:
        if threading.current_thread() is threading.main_thread():
            raise RuntimeError("can't start new thread")
        start(thread)

    monkeypatch.setattr(threading.Thread, "start", refused)


def async_client(
    scripted: Scripted, folder: Path, waits: list[float], **options: Any
) -> AsyncClient:
    """An AsyncClient of the scripted service over asyncio streams, its cache and ledger in
    `folder`; the waits before retries told, not slept."""

    async def told(seconds: float) -> None:
        waits.append(seconds)

    return AsyncClient(
        api_key="scripted-key",
        base_url=scripted.base_url,
        cache=str(folder),
        cache_dir=folder,
        fetch=loopback_fetch,
        sleep=told,
        **options,
    )


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda it: it.name)
def test_the_async_client_keeps_the_money_guarantees(
    scenario: Scenario, scripted: Scripted, tmp_path: Path, no_thread: None
) -> None:
    path = endpoint(scenario.endpoint).path
    waits: list[float] = []
    client = async_client(
        scripted, tmp_path, waits, budget=scenario.budget, spending_cap=scenario.cap, backoff=0.5
    ).new_run()
    clock = FakeClock(START)
    client.client.ledger.clock = clock

    async def run() -> list[str | None]:
        errors: list[str | None] = []
        for number, step in calls_of(scenario, clock.sleep):
            scripted.answer(path, *(answer_of(scenario.endpoint, it) for it in step))
            try:
                await client.call(scenario.endpoint, params_of(scenario.endpoint, number))
            except ProfnetError as error:
                errors.append(type(error).__name__)
            else:
                errors.append(None)
        return errors

    errors = asyncio.run(run())
    assert_settled(scenario, client, scripted.times(path), errors)


def test_identical_calls_in_one_recalculation_are_paid_once(
    scripted: Scripted, tmp_path: Path, no_thread: None
) -> None:
    scripted.answer(DETAILS, COMPANY)
    client = async_client(scripted, tmp_path, [])
    cells = ["acme.io", "beta.io", "acme.io", "ACME.io", "beta.io"]

    async def recalculate() -> list[Any]:
        calls = (client.get_company_details(domain=cell) for cell in cells)
        return list(await asyncio.gather(*calls))

    assert [it["name"] for it in asyncio.run(recalculate())] == ["Acme"] * 5
    assert (scripted.times(DETAILS), client.spent()) == (2, 2)
    asyncio.run(recalculate())
    assert (scripted.times(DETAILS), client.spent()) == (2, 2), "the second one pays nothing"
    client.close()
    again = async_client(scripted, tmp_path, [])  # a new process on the same cache file
    asyncio.run(again.call("get-company-details", domain="beta.io"))
    assert scripted.times(DETAILS) == 2
    again.close()


@pytest.mark.parametrize("service", [True, False], ids=["the service", "a gateway"])
def test_a_404_proves_the_path_without_the_key_under_asyncio(
    scripted: Scripted, tmp_path: Path, no_thread: None, service: bool
) -> None:
    """The path's proof (decision 505) asked by the driver without threads: the free status
    of an unknown search, sent without the key; the service asks for it (401: the 404 is a
    company not found), a gateway at a wrong path answers 404 alike (buying stops)."""
    status = "/get-lead-search-status"
    scripted.answer(DETAILS, (404, {"message": "not_found", "details": "No such company"}))
    if not service:
        scripted.answer(status, (404, {"message": "not_found", "details": f"No {status}"}))
    client = async_client(scripted, tmp_path, [])
    expected = NotFound if service else StoppedBuying
    with pytest.raises(expected):
        asyncio.run(client.get_company_details(domain="gone.io"))
    ((_, headers),) = [
        it for it, path in zip(scripted.heard, scripted.asked, strict=True) if status in path
    ]
    assert "x-service-api-key" not in {name.lower() for name in headers}, "sent without the key"
    with pytest.raises(expected):
        asyncio.run(client.get_company_details(domain="gone-too.io"))
    assert scripted.times(status) == 1, "asked once"
    client.close()


def test_a_range_of_new_keys_goes_out_together_within_the_pace(
    scripted: Scripted, tmp_path: Path, no_thread: None
) -> None:
    scripted.answer(DETAILS, COMPANY)
    under_way, most = 0, 0

    async def counted(request: Fetch) -> Fetched:
        nonlocal under_way, most
        under_way += 1
        most = max(most, under_way)
        try:
            await asyncio.sleep(0.02)  # the service at work: the others get their turn
            return await loopback_fetch(request)
        finally:
            under_way -= 1

    client = async_client(scripted, tmp_path, [], concurrency=4)
    client.fetch = counted

    async def range_of(count: int) -> None:
        await asyncio.gather(
            *(
                client.call_as("get-company-details", n, lambda n=n: {"domain": f"c{n}.io"})
                for n in range(count)
            )
        )

    asyncio.run(range_of(20))
    assert scripted.times(DETAILS) == 20
    assert most == 4, "as many in flight as the pace lets, no more"
    client.close()


def test_a_402_stops_the_run_and_a_new_run_asks_again(
    scripted: Scripted, tmp_path: Path, no_thread: None
) -> None:
    scripted.answer(DETAILS, (402, {"message": "insufficient_credits"}))
    run = async_client(scripted, tmp_path, []).new_run()

    async def two(client: AsyncClient) -> list[BaseException | Any]:
        first = await asyncio.gather(
            client.call("get-company-details", domain="a.io"), return_exceptions=True
        )
        second = await asyncio.gather(
            client.call("get-company-details", domain="b.io"), return_exceptions=True
        )
        return [*first, *second]

    first, second = asyncio.run(two(run))
    assert isinstance(first, InsufficientCredits)
    assert isinstance(second, InsufficientCredits)
    assert scripted.times(DETAILS) == 1, "the run stopped: the second call was not sent"
    scripted.answer(DETAILS, COMPANY)  # topped up
    topped = run.new_run()
    found = asyncio.run(topped.get_company_details(domain="b.io"))
    assert found["name"] == "Acme"
    assert (scripted.times(DETAILS), topped.spent()) == (2, 1)
    run.close()


def test_a_budget_refuses_before_anything_is_sent(
    scripted: Scripted, tmp_path: Path, no_thread: None
) -> None:
    scripted.answer(DETAILS, COMPANY)
    client = async_client(scripted, tmp_path, [], budget=1)
    asyncio.run(client.get_company_details(domain="a.io"))
    with pytest.raises(BudgetExceeded, match="budget"):
        asyncio.run(client.get_company_details(domain="b.io"))
    assert (scripted.times(DETAILS), client.spent(), client.budget.reserved) == (1, 1, 0)
    client.close()


def test_a_cache_and_ledger_on_files_are_made_without_os_link(
    scripted: Scripted, tmp_path: Path, no_thread: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delattr(os, "link")  # Pyodide has none
    scripted.answer(DETAILS, COMPANY)
    client = async_client(scripted, tmp_path, [], spending_cap="5/day")
    asyncio.run(client.get_company_details(domain="a.io"))
    assert (client.spent(), client.quote(0).cap_left) == (1, 4)
    client.close()
    assert sorted(p.name for p in tmp_path.glob("*.sqlite"))


def test_a_call_cancelled_in_line_settles_as_nothing_one_under_way_as_maybe(
    scripted: Scripted, tmp_path: Path, no_thread: None
) -> None:
    """Cancelled while it waits for its turn in the pace, a call never left: nothing spent,
    nothing uncertain (before: one maybe credit); cancelled under way, it may have been
    charged: one uncertain credit."""
    scripted.answer(DETAILS, COMPANY)
    client = async_client(scripted, tmp_path, [], concurrency=1)
    never = asyncio.Event()

    async def at_work(request: Fetch) -> Fetched:  # the service answers no one in this test
        await never.wait()
        return await loopback_fetch(request)  # pragma: no cover

    client.fetch = at_work

    async def run() -> None:
        first = asyncio.ensure_future(client.get_company_details(domain="a.io"))
        second = asyncio.ensure_future(client.get_company_details(domain="b.io"))
        for _ in range(50):  # the first under way, the second in line
            await asyncio.sleep(0)
        assert (client.client.pace.core.in_flight, client.client.pace.core.waiting) == (1, 1)
        second.cancel()
        with pytest.raises(asyncio.CancelledError):
            await second
        assert (client.spent(), client.spent(uncertain=True)) == (0, 0)
        first.cancel()
        with pytest.raises(asyncio.CancelledError):
            await first

    asyncio.run(run())
    assert (client.spent(), client.spent(uncertain=True), client.budget.reserved) == (0, 1, 0)
    assert scripted.times(DETAILS) == 0
    client.close()


def test_an_attempt_whose_request_cannot_be_made_gives_its_turn_back(
    scripted: Scripted, tmp_path: Path, no_thread: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its turn taken, the request failing to be made (a value requests cannot encode): the
    pace's slot is freed (40 such calls held every slot, and the next call waited for ever)."""
    import profnet_sheets.client.async_client as driver

    def unencodable(url: str, params: Any) -> str:
        raise ValueError("cannot be encoded")

    client = async_client(scripted, tmp_path, [])
    monkeypatch.setattr(driver, "with_query", unencodable)
    for n in range(3):
        with pytest.raises(ValueError, match="cannot be encoded"):
            asyncio.run(client.get_company_details(domain=f"n{n}.io"))
    assert client.client.pace.core.in_flight == 0
    assert scripted.times(DETAILS) == 0
    client.close()


def test_a_fetch_handing_over_a_body_cut_short_is_an_answer_lost_not_a_paid_one_unread(
    tmp_path: Path, no_thread: None
) -> None:
    """A review: a fetch that returns what it read of a cut connection (the tests' own did)
    made a cut answer a paid 200 nobody could read: not retried, and three in a row stopped
    buying for good, where the threaded client retries it. The driver checks the length."""
    asked: list[str] = []

    async def cut_then_whole(request: Fetch) -> Fetched:
        asked.append(request.url)
        if len(asked) == 1:
            return Fetched(200, {"content-length": "1024"}, b'{"data": {')
        body = b'{"data": {"name": "Acme", "domain": "acme.io"}}'
        return Fetched(200, {"Content-Length": str(len(body))}, body)

    async def told(seconds: float) -> None:
        pass

    client = AsyncClient(
        api_key="scripted-key",
        base_url="http://127.0.0.1:9",
        cache="memory",
        cache_dir=tmp_path,
        fetch=cut_then_whole,
        sleep=told,
    )
    found = asyncio.run(client.get_company_details(domain="acme.io"))
    assert found["name"] == "Acme"
    assert len(asked) == 2, "retried, as the threaded client retries a cut GET"
    assert (client.spent(), client.spent(uncertain=True)) == (1, 1)
    client.close()
