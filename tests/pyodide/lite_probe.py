"""The Lite template's functions called through xlwings' own dispatcher, as xlwings Lite calls
them (`custom_functions_call`, XLWINGS_ON_SERVER=true): two recalculations of five cells over
two companies and a range, printed as JSON (one line). PROFNET_LITE_SCENARIO picks another
play: `topup` (a recalculation meets a 402; the account is topped up; the session's clock is
moved past the stop's hold and the next recalculation asks again), `range` (one formula over
a range of every key, and the seconds it took after an untimed warm-up that pays nothing), `warm`
(PROFNET_REPEAT calls of one cell already fetched: microseconds each, the function itself
and through the dispatcher; for bench/lite.py). Each also says whether JSPI was on (`jspi`:
None on CPython).

Run by tests/pyodide/test_lite_in_pyodide.py in Pyodide under Node (the browser's fetch: pyfetch)
and on CPython (a loopback fetch over asyncio streams). Environment: PROFNET_LITE_TEMPLATE (the
folder `profnet-sheets lite` wrote), PROFNET_API_KEY, PROFNET_BASE_URL, PROFNET_CACHE_DIR,
PROFNET_LITE_KEYS (the companies, comma-separated)."""

import asyncio
import json
import os
import sys
import time

os.environ["XLWINGS_ON_SERVER"] = "true"
sys.path.insert(0, os.environ["PROFNET_LITE_TEMPLATE"])

import main
from xlwings import __version__
from xlwings.server import custom_functions_call

from profnet_sheets.client.async_client import Fetch, FetchFunction, browser_fetch
from profnet_sheets.excel import lite, session

_fetch: list[FetchFunction] = [browser_fetch]
WARM_UP_KEY = "warm-up.io"  # the range scenario's one key paid before the timed range


async def call(name: str, *args: object) -> object:
    """One cell's call as Lite sends it: every argument a 2-D array, omitted ones null."""
    data = {
        "func_name": name,
        "args": list(args),
        "version": __version__,
        "client": "Office.js",
        "runtime": "1.4",
    }
    return await custom_functions_call(data, main)


async def recalculation(keys: list[str]) -> list[object]:
    """Five cells (the keys, then the first again, ...) and one range of them, at once."""
    cells = [
        call("PROFNET_COMPANY", [[keys[i % len(keys)]]], [["company_name"]], None) for i in range(5)
    ]
    whole = call(
        "PROFNET_COMPANY", [[key] for key in keys + keys[:1]], [["company_name, website"]], None
    )
    credits = call("PROFNET_CREDITS", None)
    return list(await asyncio.gather(*cells, whole, credits))


def _jspi() -> bool | None:
    """Whether Python may block on a promise here (WebAssembly stack switching)."""
    if sys.platform != "emscripten":
        return None
    from pyodide.ffi import can_run_sync

    return bool(can_run_sync())


async def top_up(credits: int) -> None:
    """The account's balance set at the sandbox (its control endpoint): a top-up."""
    url = os.environ["PROFNET_BASE_URL"].rstrip("/") + "/_sandbox/keys"
    body = json.dumps({"key": os.environ["PROFNET_API_KEY"], "credits": credits}).encode()
    asked = Fetch("PUT", url, {"Content-Type": "application/json"}, body, 10.0)
    assert (await _fetch[0](asked)).status == 200


async def after_a_top_up(keys: list[str]) -> dict[str, object]:
    """A recalculation meeting a 402, another at once (the stop holds), a top-up, and one
    past the hold (the session's clock moved on): it asks the service again."""
    now = [0.0]
    session.current(workbook=dict).clock = lambda: now[0]
    refused = await recalculation(keys)
    held = await recalculation(keys)
    await top_up(1_000)
    now[0] += session.STOP_HOLD
    return {"refused": refused, "held": held, "after": await recalculation(keys)}


async def warm_up() -> object:
    """Untimed: what the desktop bench's first call warms (its session, the identifier lists,
    the range's path, a paid call's whole path, the first connection), here the session
    opened, a personal e-mail refused as a company (the lists loaded) and one key fetched
    through a range (one credit: `WARM_UP_KEY`). The refusal, said in its cell, is returned."""
    await call("PROFNET_CREDITS", None)
    refused = await call("PROFNET_COMPANY", [["someone@gmail.com"]], None, None)
    fetched = await call(
        "PROFNET_COMPANY", [[WARM_UP_KEY], [WARM_UP_KEY]], [["company_name"]], None
    )
    assert isinstance(fetched, list), fetched
    assert not [row for row in fetched if str(row[0]).startswith("#")], fetched
    return refused


async def warm_calls(key: str, repeat: int) -> dict[str, float]:
    """Microseconds per call of one cell already fetched: the Lite function awaited as it
    is, and as the dispatcher calls it (arguments and result converted)."""
    formula = lite.FUNCTIONS["PROFNET_COMPANY"]
    await call("PROFNET_COMPANY", [[key]], None, None)  # fetched once, then warm
    started = time.perf_counter()
    for _ in range(repeat):
        await formula([[key]])
    function = time.perf_counter() - started
    started = time.perf_counter()
    for _ in range(repeat):
        await call("PROFNET_COMPANY", [[key]], None, None)
    dispatched = time.perf_counter() - started
    return {"function": function / repeat * 1e6, "dispatcher": dispatched / repeat * 1e6}


async def amain() -> None:
    if sys.platform != "emscripten":
        from tests.loopback_fetch import loopback_fetch

        _fetch[0] = loopback_fetch
        lite.configure(fetch=loopback_fetch, folder=os.environ["PROFNET_CACHE_DIR"])
    keys = os.environ["PROFNET_LITE_KEYS"].split(",")
    scenario = os.environ.get("PROFNET_LITE_SCENARIO", "twice")
    said: dict[str, object] = {"jspi": _jspi()}
    if scenario == "topup":
        said.update(await after_a_top_up(keys))
    elif scenario == "range":
        said["warm_up"] = await warm_up()
        started = time.perf_counter()
        said["range"] = await call(
            "PROFNET_COMPANY", [[key] for key in keys], [["company_name"]], None
        )
        said["seconds"] = time.perf_counter() - started
    elif scenario == "warm":
        said["warm_us"] = await warm_calls(keys[0], int(os.environ["PROFNET_REPEAT"]))
    else:
        said["first"] = await recalculation(keys)
        said["second"] = await recalculation(keys)
    print(json.dumps(said))


if __name__ == "__main__" and sys.platform != "emscripten":
    asyncio.run(amain())
