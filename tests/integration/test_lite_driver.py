"""The Lite formulas (excel/lite.py) in this process, as xlwings Lite runs them (all at once,
on one loop) against the sandbox over loopback: PROFNET_CREDITS counts what the formulas
fetching beside it spent, what a recalculation paid for is written to IndexedDB once, and a
range's first calls go out before the rest of it is recorded."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from profnet_sheets import Client
from profnet_sheets.client.async_client import AsyncClient, Fetch, Fetched
from profnet_sheets.client.pace import INITIAL_WINDOW
from profnet_sheets.client.recorder import Recorder
from profnet_sheets.excel import lite, session, udfs
from profnet_sheets.sandbox import RunningSandbox, start_sandbox
from tests.integration.client.conftest import set_faults
from tests.loopback_fetch import loopback_fetch

KEY = "lite-driver-key"
CELLS = ["acme.com", "globex.com", "acme.com", "globex.com", "acme.com"]


@pytest.fixture
def sandbox() -> Iterator[RunningSandbox]:
    with start_sandbox(api_keys=(KEY,), credits=1_000, seed=3, job_seconds=0.0) as running:
        yield running


class FakeIndexedDB:
    """Emscripten's FS as a browser has it (an IDBFS mount), its syncs counted."""

    class filesystems:  # noqa: N801 - Emscripten.s name
        IDBFS = "IDBFS"

    def __init__(self) -> None:
        self.written = 0  # syncs from memory to IndexedDB

    def mkdirTree(self, path: str) -> None:
        Path(path).mkdir(parents=True, exist_ok=True)

    def mount(self, kind: str, options: dict[str, Any], path: str) -> None:
        assert kind == self.filesystems.IDBFS


@pytest.fixture
def lite_here(
    sandbox: RunningSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[FakeIndexedDB]:
    """Lite's formulas over the loopback fetch, its folder on a counted fake IndexedDB."""
    for name, value in {
        "PROFNET_API_KEY": KEY,
        "PROFNET_BASE_URL": sandbox.base_url,
        "PROFNET_CACHE_DIR": str(tmp_path / "cache"),
        "PROFNET_EXCEL_BUDGET": "none",
    }.items():
        monkeypatch.setenv(name, value)
    indexed_db = FakeIndexedDB()

    async def synced(fs: FakeIndexedDB, populate: bool) -> None:
        await asyncio.sleep(0)  # the browser's callback comes later
        fs.written += not populate

    monkeypatch.setattr(lite, "_fs", lambda: indexed_db)
    monkeypatch.setattr(lite, "_syncfs", synced)
    lite.configure(fetch=loopback_fetch, folder=str(tmp_path / "cache"))
    yield indexed_db
    lite.configure()
    session.reset()


async def _recalculation(credits_first: bool) -> list[Any]:
    """Five cells over two companies and a PROFNET_CREDITS cell, all at once as Lite runs
    them (the credits cell called first or last)."""
    cells = [lite.evaluate(udfs.PROFNET_COMPANY, [[cell]], "company_name") for cell in CELLS]
    credits = lite.evaluate(udfs.PROFNET_CREDITS)
    together = [credits, *cells] if credits_first else [*cells, credits]
    return list(await asyncio.gather(*together))


@pytest.mark.parametrize("credits_first", [False, True], ids=["credits-last", "credits-first"])
def test_credits_count_what_the_formulas_beside_them_spent(
    lite_here: FakeIndexedDB, sandbox: RunningSandbox, credits_first: bool
) -> None:
    """Before: PROFNET_CREDITS, run at once with the formulas of its recalculation, read the
    budget before they had fetched anything (0 spent, after a 402 and a top-up too)."""
    done = asyncio.run(_recalculation(credits_first))
    credits = done[0] if credits_first else done[-1]
    assert credits[0][:2] == [2, "no limit"], credits
    assert sandbox.charged() == 2


def test_a_recalculation_writes_to_indexeddb_once(
    lite_here: FakeIndexedDB, sandbox: RunningSandbox
) -> None:
    """Before: once per fetching formula (five here). What each cell shows is written
    before it shows it, so a restart finds all of it (tests/e2e/test_lite_browser.py)."""
    done = asyncio.run(_recalculation(False))
    assert done[:5] == ["Acme", "Globex", "Acme", "Globex", "Acme"]
    assert lite_here.written == 1
    asyncio.run(_recalculation(False))  # all in the cache: nothing fetched, nothing written
    assert lite_here.written == 1


def test_the_first_calls_of_a_range_go_out_before_the_rest_is_recorded(
    lite_here: FakeIndexedDB,
    sandbox: RunningSandbox,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """Before: a range's run noted every row's call before the first request left (in
    Pyodide ~1 ms a row: 50-80 ms of a 50-row range). Now the run is cut at the first wave
    (the pace's window: 8), those are sent, and the run is made again for the rest; the keys
    recorded twice are paid once."""
    keys = [f"early-{n}.io" for n in range(30)]
    noted: list[object] = []
    noted_at_first_request: list[int] = []
    real_miss = Recorder.miss

    def miss(recorder: Recorder, plan: Any) -> None:
        noted.append(plan.key)
        real_miss(recorder, plan)

    async def fetch(request: Fetch) -> Fetched:
        if not noted_at_first_request:
            noted_at_first_request.append(len(noted))
        return await loopback_fetch(request)

    monkeypatch.setattr(Recorder, "miss", miss)
    lite.configure(fetch=fetch, folder=str(tmp_path / "cache"))
    cells = asyncio.run(
        lite.evaluate(udfs.PROFNET_COMPANY, [[key] for key in keys], "company_name")
    )
    assert noted_at_first_request == [INITIAL_WINDOW]
    assert isinstance(cells, list), cells
    assert len(cells) == len(keys), cells
    assert not [row for row in cells if str(row[0]).startswith("#")], cells
    assert sandbox.charged() == len(keys)  # the first wave recorded twice, paid once
    again = asyncio.run(
        lite.evaluate(udfs.PROFNET_COMPANY, [[key] for key in keys], "company_name")
    )
    assert again == cells
    assert sandbox.charged() == len(keys)


def test_a_range_cancelled_as_its_first_wave_leaves_leaves_no_call_running(
    lite_here: FakeIndexedDB, sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """The calls sent before the rest of the run is recorded belong to the formula: when
    Excel cancels it (here as the first of them leaves, before the formula awaits them),
    they are cancelled with it, none left running behind the cell; asked again, the range
    is fetched once."""
    keys = [f"cancelled-{n}.io" for n in range(20)]
    set_faults(sandbox, latency_ms=300)
    sent: list[str] = []
    formula: list[asyncio.Future[Any]] = []

    async def fetch(request: Fetch) -> Fetched:
        if not sent and formula:
            formula[0].cancel()
        sent.append(request.url)
        return await loopback_fetch(request)

    lite.configure(fetch=fetch, folder=str(tmp_path / "cache"))

    async def cancelled_then_again() -> tuple[Any, int]:
        formula.append(
            asyncio.ensure_future(
                lite.evaluate(udfs.PROFNET_COMPANY, [[key] for key in keys], "company_name")
            )
        )
        with pytest.raises(asyncio.CancelledError):
            await formula[0]
        left = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        if left:  # were they not cancelled, their answers would come
            await asyncio.wait(left, timeout=10)
        assert [task for task in left if not task.cancelled()] == []
        formula.clear()
        before = len(sent)
        again = await lite.evaluate(udfs.PROFNET_COMPANY, [[key] for key in keys], "company_name")
        return again, len(sent) - before

    cells, asked_again = asyncio.run(cancelled_then_again())
    assert not [row for row in cells if str(row[0]).startswith("#")], cells
    assert asked_again <= len(keys)  # each key once (those cut off in flight asked again)


def test_a_cell_cut_at_its_only_call_shows_the_answer(
    lite_here: FakeIndexedDB, sandbox: RunningSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pace cut to one call at a time cuts a cell's first run at its only call: the run
    made again misses nothing new, and the call under way is awaited all the same (before,
    such a cell showed what its unfetched run said)."""
    monkeypatch.setattr(AsyncClient, "first_wave", lambda self: 1)
    cells = asyncio.run(_recalculation(False))
    assert cells[:5] == ["Acme", "Globex", "Acme", "Globex", "Acme"]
    assert sandbox.charged() == 2


def test_a_search_read_in_lite_draws_on_its_results_room(
    lite_here: FakeIndexedDB,
    sandbox: RunningSandbox,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A code review: Lite's driver read a search's pages as calls of their own, and the first
    recording pass gave the room back before anything was paid."""
    monkeypatch.setenv("PROFNET_SPENDING_CAP", "100/day")
    cache = tmp_path / "cache"
    with Client(
        api_key=KEY, base_url=sandbox.base_url, cache_dir=cache, spending_cap="100/day"
    ) as c:
        request_id = c.search_leads(title_keywords="CTO", limit=40).request_id
    with Client(
        api_key=KEY, base_url=sandbox.base_url, cache_dir=cache, spending_cap="100/day"
    ) as c:
        for n in range(10):
            c.get_company_details(domain=f"beside{n}.io")  # what the cap leaves beside it
    cells = asyncio.run(lite.evaluate(udfs.PROFNET_LEADS, request_id))
    assert isinstance(cells, list), cells
    assert len(cells) == 41, cells  # a header and 40 results
    assert sandbox.charged() == 50 + 10 + 40
