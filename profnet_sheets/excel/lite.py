"""The PROFNET_* formulas in xlwings Lite (Pyodide): the desktop's declarations (udfs.py, the
logic in formulas.py) as `async def` twins that fetch through the browser's fetch.

A formula runs first against the caches alone (`client.recording`): the calls they cannot
answer are noted, fetched together by `AsyncClient` (the same memo, store, budget, cap and
ledger), and the formula runs again, warm, until nothing is missing. The first calls a run
misses, as many as may go out at once, are sent before the rest of it is recorded. Ranges are
looked up row by row (no polars, no thread). Import this module under xlwings Lite only (or with
XLWINGS_ON_SERVER=true): it imports xlwings, whose `func` is then Lite's.
"""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from profnet_sheets.client.async_client import AsyncClient, FetchFunction
from profnet_sheets.client.recorder import EnoughRecorded, Recorder
from profnet_sheets.excel import session, udfs
from profnet_sheets.excel.cells import Result
from profnet_sheets.excel.formulas import PREFIX
from profnet_sheets.excel.messages import message_for
from profnet_sheets.excel.session import ExcelSession

# Where the cache and the ledger live under Pyodide: a folder on IndexedDB (IDBFS) in a
# browser, so that they outlive a restart of Excel or of the add-in (decision 324).
LITE_FOLDER: Final = "/home/pyodide/profnet-sheets"
CACHE_DIR_KEY: Final = "PROFNET_CACHE_DIR"
# Runs of one formula at most: each fetches what the last one missed (a search's status,
# then its pages one by one); a formula still missing calls after them says offline.
MAX_ROUNDS: Final = 30


@dataclass
class _Lite:
    """This process's Lite state: the fetch (None: the browser's), the folder, the driver."""

    fetch: FetchFunction | None = None
    folder: str = LITE_FOLDER
    mounted: bool = False  # True: on IndexedDB
    # The folder's opening, started by the first formula and awaited by every one: none may
    # open the session before the folder is named and read back (decision 330).
    opening: asyncio.Future[None] | None = None
    driven: tuple[ExcelSession, AsyncClient] | None = None
    # The formulas fetching now (one recalculation, give or take): `burst` is done once the
    # last of them has ended and what they paid for is written to IndexedDB, once for all.
    fetching: int = 0
    burst: asyncio.Future[None] | None = None
    writing: asyncio.Future[None] | None = None  # the last write: one at a time


_lite = _Lite()


def configure(fetch: FetchFunction | None = None, folder: str | None = None) -> None:
    """Use another fetch function (tests: Node's, a loopback one) or cache folder; forgets the
    session, so that the next formula opens one with them."""
    vars(_lite).update(vars(_Lite(fetch, folder or LITE_FOLDER)))  # every field anew
    session.reset()


async def _syncfs(fs: Any, populate: bool) -> None:
    """Emscripten's FS.syncfs awaited: IndexedDB into memory (`populate`) or back."""
    from pyodide.ffi import create_once_callable  # type: ignore[import-not-found]

    done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    fs.syncfs(populate, create_once_callable(lambda error=None: done.set_result(error)))
    error = await done
    if error:
        raise OSError(f"the cache folder could not be synced with IndexedDB: {error}")


def _fs() -> Any | None:
    """Pyodide's file system in a browser (IndexedDB there), else None (CPython; Node)."""
    try:
        import js  # type: ignore[import-not-found]
        import pyodide_js  # type: ignore[import-not-found]
    except ImportError:
        return None
    return pyodide_js.FS if hasattr(js, "indexedDB") else None


async def _open_folder() -> None:
    """The cache folder opened once; the formulas of one recalculation, run together, all
    wait for the first one's opening (an error in it is said by each)."""
    if _lite.opening is None:
        _lite.opening = asyncio.ensure_future(_mount_folder())
    await _lite.opening


async def _mount_folder() -> None:
    """The cache folder named, mounted on IndexedDB and read back from it (a browser only:
    in Node or CPython it is a plain folder)."""
    os.environ.setdefault(CACHE_DIR_KEY, _lite.folder)
    fs = _fs()
    if fs is not None:
        fs.mkdirTree(_lite.folder)
        fs.mount(fs.filesystems.IDBFS, {}, _lite.folder)
        await _syncfs(fs, True)
        _lite.mounted = True


async def _keep() -> None:
    """What the cache and the ledger hold written to IndexedDB (when mounted there)."""
    fs = _fs() if _lite.mounted else None
    if fs is not None:
        await _syncfs(fs, False)


def _join_burst() -> asyncio.Future[None]:
    """A formula starts fetching: the burst it belongs to (a new one when none is on)."""
    _lite.fetching += 1
    if _lite.burst is None:
        _lite.burst = asyncio.get_running_loop().create_future()
    return _lite.burst


async def _leave_burst(burst: asyncio.Future[None]) -> None:
    """A formula is done fetching; the last one of its burst writes what they all paid for to
    IndexedDB, once; each returns once that is written (a cell shows nothing that a restart
    would not find)."""
    _lite.fetching -= 1
    if _lite.fetching == 0:
        _lite.burst = None
        _lite.writing = asyncio.ensure_future(_write(burst, _lite.writing))
    await asyncio.shield(burst)


async def _write(burst: asyncio.Future[None], before: asyncio.Future[None] | None) -> None:
    """`burst` written to IndexedDB after the write `before` it (Emscripten's syncfs runs one
    at a time); its error said by each of its formulas."""
    if before is not None:
        await asyncio.wait({before})
    try:
        await _keep()
    except Exception as error:  # said in the cells of the burst
        burst.set_exception(error)
    else:
        burst.set_result(None)


async def _after_the_fetching() -> None:
    """Once the formulas fetching now (those of this recalculation called before this one)
    have settled what they spent: what PROFNET_CREDITS reads."""
    await asyncio.sleep(0)  # the formulas called together with this one start fetching
    while _lite.burst is not None:
        await asyncio.wait({_lite.burst})


def _session() -> ExcelSession:
    """The formulas' session, its ranges row by row. Lite's settings come from its
    environment variables (no workbook sheet is read: a formula cannot read cells)."""
    current = session.current(workbook=dict)
    current.one_by_one, current.host = True, "lite"
    return current


def _driver(current: ExcelSession) -> AsyncClient:
    """The AsyncClient of the session's client (one in-flight map for the whole process),
    driving the session's run of now."""
    if _lite.driven is None or _lite.driven[0] is not current:
        _lite.driven = current, AsyncClient(client=current.run, fetch=_lite.fetch)
    return _lite.driven[1].driving(current.run)


# Formulas that read what the session spent: in a recalculation they run after the formulas
# fetching (Lite runs them all at once), so that they count what those spent.
READS_SPENT: Final = frozenset({"PROFNET_CREDITS"})


async def evaluate(formula: Callable[..., Result], *args: Any, **kwargs: Any) -> Result:
    """A formula's result in Lite: run against the caches, the calls missed fetched together,
    run again, until nothing is missing (at most MAX_ROUNDS runs). One of READS_SPENT runs
    once the formulas fetching beside it have settled."""
    try:
        await _open_folder()
        current = _session()
    except Exception as error:  # settings that cannot be used: said in the cell
        return message_for(error, "lite")
    if getattr(formula, "__name__", None) in READS_SPENT:
        await _after_the_fetching()
    if current.config.offline:
        return formula(*args, **kwargs)
    recorder = Recorder(enough=_driver(current).first_wave())
    burst: asyncio.Future[None] | None = None
    try:
        for _ in range(MAX_ROUNDS):
            current.recorder = recorder
            try:
                result, cut = formula(*args, **kwargs), False
            except EnoughRecorded:  # the first calls go out while the rest are recorded
                cut = True
            finally:
                current.recorder = None
                recorder.enough = None  # the first run only: a cut run is made again
            missed = recorder.take()
            if not missed and not recorder.under_way:
                break
            burst = burst or _join_burst()
            driver = _driver(current)  # the session's run now: the formula may have begun one
            if cut:
                recorder.start(driver, missed)
                await _let_requests_leave()
            else:
                await recorder.fetch(driver, missed)
    finally:
        recorder.abandon()
        if burst is not None:
            await _leave_burst(burst)
    return result


async def _let_requests_leave() -> None:
    """The calls just started run to their requests, and the browser sends them (a turn of
    its event loop), before the formula's next run holds the thread."""
    for _ in range(2):
        await asyncio.sleep(0)


def _twin(declared: Callable[..., Result]) -> Callable[..., Any]:
    """`declared` (an xlwings function of udfs.py) as an `async def` with its declaration."""

    @functools.wraps(declared)
    async def twin(*args: Any, **kwargs: Any) -> Result:
        return await evaluate(declared, *args, **kwargs)

    return twin


FUNCTIONS: dict[str, Callable[..., Any]] = {
    name: _twin(declared)
    for name, declared in vars(udfs).items()
    if name.startswith(PREFIX) and hasattr(declared, "__xlfunc__")
}
globals().update(FUNCTIONS)
__all__ = [*FUNCTIONS]  # noqa: PLE0604 - the PROFNET_* functions made above
