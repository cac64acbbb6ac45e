"""A sandbox on loopback, and clients on real SQLite caches in a temporary directory."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import requests

from profnet_sheets import Client, ProfnetError
from profnet_sheets.sandbox import RunningSandbox, start_sandbox

KEY = "client-test-key"
MakeClient = Callable[..., Client]


@pytest.fixture(scope="module")
def sandbox() -> Iterator[RunningSandbox]:
    with start_sandbox(api_keys=(KEY,), credits=10_000_000, job_seconds=0.0, seed=11) as running:
        yield running


@pytest.fixture
def fresh(sandbox: RunningSandbox) -> RunningSandbox:
    """The sandbox with its usage, jobs and faults reset (balances back to the start)."""
    requests.post(f"{sandbox.base_url}/_sandbox/reset", timeout=5).raise_for_status()
    requests.put(
        f"{sandbox.base_url}/_sandbox/faults",
        json={
            "fail_rate": 0,
            "throttle_rate": 0,
            "drop_rate": 0,
            "latency_ms": 0,
            "rate_limit": None,
            "retry_after": 1,
            "geocode_timeout_rate": 0,
            "job_fail_rate": 0,
        },
        timeout=5,
    ).raise_for_status()
    return sandbox


@pytest.fixture
def make_client(fresh: RunningSandbox, tmp_path: Path) -> Iterator[MakeClient]:
    made: list[Client] = []

    def make(**options: Any) -> Client:
        options.setdefault("cache", str(tmp_path / "cache"))
        options.setdefault("cache_dir", tmp_path / "cache")
        options.setdefault("backoff", 0.01)
        options.setdefault("max_backoff", 0.05)
        client = Client(api_key=KEY, base_url=fresh.base_url, **options)
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


def set_faults(sandbox: RunningSandbox, **faults: Any) -> None:
    requests.put(f"{sandbox.base_url}/_sandbox/faults", json=faults, timeout=5).raise_for_status()


def cut_start(sandbox: RunningSandbox, start: Callable[[], object]) -> ProfnetError:
    """`start` a search with every answer cut after it went out (its start left in doubt):
    the error it raised."""
    set_faults(sandbox, drop_rate=1.0)
    try:
        with pytest.raises(ProfnetError) as cut:
            start()
    finally:
        set_faults(sandbox, drop_rate=0.0)
    return cut.value


def serve(handler: type[BaseHTTPRequestHandler]) -> Iterator[Any]:
    """A small HTTP server on loopback with `handler` (its `base_url` set), for the test."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    handler.base_url = f"http://127.0.0.1:{server.server_address[1]}"  # type: ignore[attr-defined]
    yield handler
    server.shutdown()
    server.server_close()
