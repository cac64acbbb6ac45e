"""The Lite template's functions called through xlwings' own dispatcher, as xlwings Lite calls
them (`custom_functions_call`, XLWINGS_ON_SERVER=true): two recalculations of five cells over
two companies and a range, printed as JSON (one line).

Run by tests/pyodide/test_lite_in_pyodide.py in Pyodide under Node (the browser's fetch: pyfetch)
and on CPython (a loopback fetch over asyncio streams). Environment: PROFNET_LITE_TEMPLATE (the
folder `profnet-sheets lite` wrote), PROFNET_API_KEY, PROFNET_BASE_URL, PROFNET_CACHE_DIR,
PROFNET_LITE_KEYS (the companies, comma-separated)."""

import asyncio
import json
import os
import sys

os.environ["XLWINGS_ON_SERVER"] = "true"
sys.path.insert(0, os.environ["PROFNET_LITE_TEMPLATE"])

import main
from xlwings import __version__
from xlwings.server import custom_functions_call

from profnet_sheets.excel import lite


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


async def amain() -> None:
    if sys.platform != "emscripten":
        from tests.loopback_fetch import loopback_fetch

        lite.configure(fetch=loopback_fetch, folder=os.environ["PROFNET_CACHE_DIR"])
    keys = os.environ["PROFNET_LITE_KEYS"].split(",")
    first = await recalculation(keys)
    second = await recalculation(keys)
    print(json.dumps({"first": first, "second": second}))


if __name__ == "__main__" and sys.platform != "emscripten":
    asyncio.run(amain())
