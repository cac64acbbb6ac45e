"""A 429 about calls per time is a rate limit, waited out; only a balance or quota that cannot
pay is out of credits. A gateway on loopback answers the sandbox's calls with 429s worded
as marketplaces word them, with a Retry-After."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, ClassVar

import polars as pl
import pytest
import requests

from profnet_sheets import Client, InsufficientCredits
from profnet_sheets.batch.workflow import Enrichment
from profnet_sheets.sandbox import RunningSandbox
from tests.integration.client.conftest import KEY, serve

pytestmark = pytest.mark.integration

RATE_LIMITS = ("per-second request quota exceeded", "rate quota exceeded, retry in 1s")
NO_CREDITS = ("monthly quota exhausted", "insufficient credits")


class _Quota(BaseHTTPRequestHandler):
    """Answers every `every`-th request with a 429 worded `wording` (Retry-After: 1), and
    passes the others on to the sandbox."""

    upstream: ClassVar[str] = ""
    base_url: ClassVar[str] = ""
    wording: ClassVar[str] = ""
    every: ClassVar[int] = 1
    seen: ClassVar[list[str]] = []
    lock: ClassVar[threading.Lock] = threading.Lock()

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        with self.lock:
            self.seen.append(self.path)
            refused = len(self.seen) % self.every == 0
        if refused:
            self._send(429, {"message": "Too many requests", "details": self.wording}, "1")
            return
        answer = requests.get(
            self.upstream + self.path,
            headers={"X-SERVICE-API-KEY": self.headers.get("X-SERVICE-API-KEY", "")},
            timeout=10,
        )
        self._send(answer.status_code, answer.json())

    def _send(self, status: int, body: dict[str, Any], retry_after: str | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if retry_after is not None:
            self.send_header("Retry-After", retry_after)
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def gateway(sandbox: RunningSandbox) -> Iterator[type[_Quota]]:
    yield from serve(type("Quota", (_Quota,), {"upstream": sandbox.base_url, "seen": []}))


def _client(gateway: type[_Quota], tmp_path: Path, waits: list[float]) -> Client:
    client = Client(api_key=KEY, base_url=gateway.base_url, cache=str(tmp_path), cache_dir=tmp_path)
    client._shared.transport.sleep = waits.append  # the waits told, not slept
    return client


@pytest.mark.parametrize("wording", RATE_LIMITS)
def test_a_quota_of_calls_per_time_is_a_rate_limit(
    gateway: type[_Quota], tmp_path: Path, wording: str
) -> None:
    gateway.wording, gateway.every = wording, 2  # the first attempt of each call is refused
    waits: list[float] = []
    with _client(gateway, tmp_path, waits) as client:
        gateway.seen.append("-")  # the next request (the call's first attempt) is refused
        answer = client.get_company_details(domain="rate.io")
        assert answer["company_name"]
        assert not client.out_of_credits
    assert len(gateway.seen) == 3, "refused once, then asked again"
    assert waits == [1.0], "after its Retry-After"


@pytest.mark.parametrize("wording", NO_CREDITS)
def test_a_balance_or_quota_used_up_is_out_of_credits(
    gateway: type[_Quota], tmp_path: Path, wording: str
) -> None:
    gateway.wording, gateway.every = wording, 1
    waits: list[float] = []
    with _client(gateway, tmp_path, waits) as client:
        run = client.new_run()
        with pytest.raises(InsufficientCredits):
            run.get_company_details(domain="spent.io")
        assert run.out_of_credits
        with pytest.raises(InsufficientCredits):
            run.get_company_details(domain="spent2.io")
    assert len(gateway.seen) == 1, "not retried, and the run sends nothing more"
    assert waits == []


def test_a_run_throttled_by_a_per_second_quota_does_every_row(
    gateway: type[_Quota], tmp_path: Path
) -> None:
    """The report: exit 4 "Out of credits" after 7 of 60 rows, with credits left."""
    gateway.wording, gateway.every = RATE_LIMITS[0], 7
    table = pl.DataFrame({"website": [f"row{i}.io" for i in range(60)]})
    with _client(gateway, tmp_path, []) as client:
        _, outcome = Enrichment(client, table, "website", "company").run(concurrency=4)
    assert (outcome.ending, outcome.exit_code, outcome.done) == (None, 0, 60)
    assert len(gateway.seen) > 60, "some were refused, and asked again"
