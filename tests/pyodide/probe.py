"""The core as xlwings Lite uses it, with no call sent: a call key and a spend quote, as JSON.

Run by tests/unit/test_core_wheel.py (CPython, the desktop packages blocked) and by
tests/pyodide/run_core.mjs (Pyodide in Node), which compare what it prints."""

import json

from profnet_sheets.client.client import Client
from profnet_sheets.client.spend import PlannedCall
from profnet_sheets.excel import formulas

client = Client(api_key="probe-key", base_url="http://127.0.0.1:9", cache="memory", budget=2)
key = client.key("get-company-details", {"domain": "https://www.acme.com/about"})
estimate = client.estimate(
    [
        PlannedCall("get-company-details", {"domain": "acme.com"}),
        PlannedCall("get-company-details", {"domain": "https://www.acme.com/about"}),
        PlannedCall("get-company-details", {"domain": "globex.com"}),
        PlannedCall("get-company-details", {"domain": "initech.com"}),
    ]
)
print(
    json.dumps(
        {
            "key": key.digest,
            "unique": estimate.unique,
            "credits": estimate.credits,
            "within_budget": estimate.within_budget,
            "formula": formulas.company.__name__,
        }
    )
)
