"""PROFNET_LEADS in Lite on CPython (a loopback fetch): a chain of calls (the search's status,
never cached, then its pages) fetched over several runs of one formula; prints the cells and
then, recalculated, the same cells, as JSON. Environment as lite_probe.py, plus
PROFNET_LITE_REQUEST (a lead search's request_id)."""

import asyncio
import json
import os

os.environ["XLWINGS_ON_SERVER"] = "true"

from profnet_sheets.excel import lite
from tests.loopback_fetch import loopback_fetch


async def amain() -> None:
    lite.configure(fetch=loopback_fetch, folder=os.environ["PROFNET_CACHE_DIR"])
    leads = lite.FUNCTIONS["PROFNET_LEADS"]
    wanted = os.environ["PROFNET_LITE_REQUEST"]
    print(json.dumps([await leads(wanted, "name", None), await leads(wanted, "name", None)]))


asyncio.run(amain())
