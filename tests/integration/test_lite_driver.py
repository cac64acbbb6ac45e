"""The Lite formulas (excel/lite.py) in this process, as xlwings Lite runs them (all at once,
on one loop) against the sandbox over loopback: PROFNET_CREDITS counts what the formulas
fetching beside it spent, and what a recalculation paid for is written to IndexedDB once."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from profnet_sheets.excel import lite, session, udfs
from profnet_sheets.sandbox import RunningSandbox, start_sandbox
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
