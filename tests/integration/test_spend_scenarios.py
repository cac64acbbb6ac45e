"""The money guarantees' scenarios (tests/money_scenarios.py) against the threaded client over
loopback: a scripted service answers each attempt as the table says; the ledger's clock is a
fake one and retries' waits are told, not slept."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from profnet_sheets import Client, ProfnetError
from tests.clocks import FakeClock
from tests.money_scenarios import (
    A_DAY_LATER,
    DAY,
    SCENARIOS,
    START,
    Answer,
    Scenario,
    body_of,
    params_of,
)


class _Scripted(BaseHTTPRequestHandler):
    """Answers each request with the next answer of the script (`cut`: no answer at all)."""

    script: list[Answer]
    endpoint_name: str
    sent: list[str]

    def log_message(self, *args: Any) -> None:
        pass

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        self.sent.append(self.path)
        status, headers, text = body_of(self.endpoint_name, self.script.pop(0))
        if text is None:
            self.close_connection = True
            self.connection.close()
            return
        data = text.encode()
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", **headers}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self._answer()


@pytest.fixture
def scripted() -> Iterator[type[_Scripted]]:
    handler = type("Script", (_Scripted,), {"script": [], "sent": [], "endpoint_name": ""})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    handler.base_url = f"http://127.0.0.1:{server.server_address[1]}"  # type: ignore[attr-defined]
    yield handler
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda it: it.name)
def test_the_threaded_client_keeps_the_money_guarantees(
    scenario: Scenario, scripted: type[_Scripted], tmp_path: Path
) -> None:
    scripted.endpoint_name = scenario.endpoint
    client = Client(
        api_key="scripted-key",
        base_url=scripted.base_url,  # type: ignore[attr-defined]
        cache=str(tmp_path),
        cache_dir=tmp_path,
        budget=scenario.budget,
        spending_cap=scenario.cap,
        backoff=0.5,
    ).new_run()
    clock = FakeClock(START)
    client.ledger.clock = clock
    waits: list[float] = []
    client._shared.transport.sleep = waits.append  # told, not slept
    errors: list[str | None] = []
    for number, step in enumerate(scenario.calls):
        if step == A_DAY_LATER:
            clock.sleep(DAY)
            continue
        assert not isinstance(step, str)
        scripted.script[:] = list(step)
        try:
            client.call(scenario.endpoint, params_of(scenario.endpoint, number))
        except ProfnetError as error:
            errors.append(type(error).__name__)
        else:
            errors.append(None)
    sure, maybe = client.spent(), client.spent(uncertain=True)
    client.close()
    assert (sure, maybe, len(scripted.sent)) == (scenario.sure, scenario.maybe, scenario.sent)
    assert tuple(errors) == scenario.errors
    assert client.budget.reserved == 0, "every reservation settled"
