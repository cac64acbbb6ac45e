"""Never pay by surprise, never lose what was paid: under a dying cache, and a service that
charges and answers in a shape this version cannot read (a proxy in front of the sandbox)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import requests

from profnet_sheets import Client, StoppedBuying
from profnet_sheets.batch import enrich
from profnet_sheets.sandbox import RunningSandbox, start_sandbox

from ..conftest import RedisServer

pytestmark = pytest.mark.integration
KEY = "money-key"


@pytest.fixture
def sandbox() -> Iterator[RunningSandbox]:
    with start_sandbox(api_keys=(KEY,), credits=1_000_000, job_seconds=0.0, seed=3) as running:
        yield running


def domains(count: int) -> pl.DataFrame:
    return pl.DataFrame({"website": [f"money{n}.io" for n in range(count)]})


def test_a_cache_that_dies_mid_run_loses_no_paid_answer(
    sandbox: RunningSandbox, killable_redis: RedisServer, tmp_path: Path
) -> None:
    requests.put(
        f"{sandbox.base_url}/_sandbox/faults", json={"latency_ms": 20}, timeout=5
    ).raise_for_status()
    client = Client(
        api_key=KEY, base_url=sandbox.base_url, cache=killable_redis.url, cache_dir=tmp_path
    )
    killed = threading.Event()

    def kill_after_some(done: int, total: int) -> None:
        if done >= 40 and not killed.is_set():
            killed.set()
            killable_redis.kill()  # SIGKILL: the team's Redis dies under the run

    result = enrich(
        domains(200), "website", "company", client=client, concurrency=4, progress=kill_after_some
    )
    assert killed.is_set()
    answered = result.filter(pl.col("company_error").is_null()).height
    refused = result.filter(pl.col("company_error").str.contains("not fetched")).height
    assert answered + refused == 200, "every row is kept, answered or marked"
    assert refused > 0, "the run stopped buying"
    assert sandbox.charged(KEY) == answered, "every answer paid for is in the output"
    assert client.stopped is not None
    assert "cache" in client.stopped
    with pytest.raises(StoppedBuying, match="stopped buying"):
        client.get_company_details(domain="one-more.io")
    assert sandbox.charged(KEY) == answered, "nothing more bought"
    client.close()


class _Unreadable(BaseHTTPRequestHandler):
    """A gateway that lets the service charge, then answers 200 with a body nobody reads."""

    upstream: str = ""

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        requests.get(
            self.upstream + self.path,
            headers={"X-SERVICE-API-KEY": self.headers.get("X-SERVICE-API-KEY", "")},
            timeout=10,
        )
        data = json.dumps({"notanswer": 1}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def gateway(sandbox: RunningSandbox) -> Iterator[str]:
    handler = type("Gateway", (_Unreadable,), {"upstream": sandbox.base_url})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_budget_holds_against_answers_that_cannot_be_read(
    sandbox: RunningSandbox, gateway: str, tmp_path: Path
) -> None:
    client = Client(api_key=KEY, base_url=gateway, cache=str(tmp_path), cache_dir=tmp_path)
    result = enrich(
        domains(500),
        "website",
        "company",
        client=client,
        budget=50,
        concurrency=8,
        progress=False,
    )
    assert result.height == 500
    assert sandbox.charged(KEY) <= 50, "the budget is a cap, also for answers not understood"
    assert sandbox.charged(KEY) <= 3 + 8, "buying stops after 3 unreadable answers in a row"
    assert client.spent(uncertain=True) == sandbox.charged(KEY), "each counted as possibly charged"
    assert client.stopped is not None
    assert "does not read" in client.stopped
    client.close()


def test_a_budget_cuts_off_in_row_order(sandbox: RunningSandbox, tmp_path: Path) -> None:
    """Concurrent workers used to race for the last credits: the budget's refusal landed on
    row 3 while rows 4-6 were filled. Now the rows past the budget are the last ones."""
    requests.put(
        f"{sandbox.base_url}/_sandbox/faults", json={"latency_ms": 20}, timeout=5
    ).raise_for_status()
    client = Client(api_key=KEY, base_url=sandbox.base_url, cache=str(tmp_path), cache_dir=tmp_path)
    client.get_company_details(domain="money7.io")  # cached: free, whatever its row
    result = enrich(
        domains(10), "website", "company", client=client, budget=5, concurrency=8, progress=False
    )
    errors = result["company_error"].to_list()
    assert errors[:5] == [None] * 5, "rows 1-5 take the budget"
    assert [error is None for error in errors[5:]] == [False, False, True, False, False], (
        "rows 6 on are cut off, but for row 8: cached, free"
    )
    assert sandbox.charged(KEY) == 1 + 5
    client.close()


class _Breaking(BaseHTTPRequestHandler):
    """A proxy that lets the sandbox do (and charge) each call, then breaks its answer."""

    upstream: str = ""
    mode: str = ""

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        answer = requests.get(
            self.upstream + self.path,
            headers={"X-SERVICE-API-KEY": self.headers.get("X-SERVICE-API-KEY", "")},
            timeout=10,
        )
        if self.mode == "cut":  # the connection dies before any answer
            self.connection.close()
            return
        status, data = 200, answer.content
        if self.mode in ("500", "502", "504"):
            status, data = int(self.mode), b'{"message": "upstream failed"}'
        elif self.mode == "truncated":
            data = data[: len(data) // 2]
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.mark.parametrize("mode", ["500", "502", "504", "cut", "truncated"])
def test_a_budget_holds_when_answers_break_after_the_service_charged(
    sandbox: RunningSandbox, tmp_path: Path, mode: str
) -> None:
    handler = type("Breaking", (_Breaking,), {"upstream": sandbox.base_url, "mode": mode})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        client = Client(
            api_key=KEY,
            base_url=f"http://127.0.0.1:{server.server_address[1]}",
            cache=str(tmp_path),
            cache_dir=tmp_path,
            backoff=0.01,
            max_backoff=0.02,
        )
        result = enrich(
            domains(100),
            "website",
            "company",
            client=client,
            budget=20,
            concurrency=4,
            progress=False,
        )
        assert result.height == 100, "every row kept"
        assert sandbox.charged(KEY) <= 20, f"{mode}: the budget is a cap"
        counted = client.spent() + client.spent(uncertain=True)
        assert counted >= sandbox.charged(KEY), f"{mode}: every charge counted, surely or maybe"
        client.close()
    finally:
        server.shutdown()
        server.server_close()
