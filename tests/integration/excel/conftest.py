"""A sandbox on loopback, and the Excel session on a client of its own (a fresh cache per test)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import requests

from profnet_sheets import Client
from profnet_sheets.excel import session
from profnet_sheets.excel.session import ExcelSession, SessionConfig
from profnet_sheets.sandbox import RunningSandbox, start_sandbox
from tests.integration.client.conftest import set_faults

KEY = "excel-test-key"


@pytest.fixture(scope="module")
def sandbox() -> Iterator[RunningSandbox]:
    with start_sandbox(api_keys=(KEY,), credits=10_000_000, job_seconds=0.0, seed=5) as running:
        yield running


@dataclass
class Excel:
    """The Excel session of a test, and what the server says it charged."""

    sandbox: RunningSandbox
    cache: Path
    clients: list[Client] = field(default_factory=list)

    def start(
        self, budget: int | None = None, offline: bool = False, spending_cap: str | None = None
    ) -> ExcelSession:
        """A new session (as after restarting Excel) on the same cache directory."""
        client = Client(
            api_key=KEY,
            base_url=self.sandbox.base_url,
            cache=str(self.cache),
            cache_dir=self.cache,
            backoff=0.01,
            max_backoff=0.05,
            spending_cap=spending_cap,
        )
        self.clients.append(client)
        return session.install(client, SessionConfig(budget, offline, "the test"))

    def charged(self) -> int:
        return self.sandbox.charged(KEY)

    def calls(self, endpoint: str | None = None) -> int:
        return self.sandbox.calls(KEY, endpoint)


@pytest.fixture
def excel(sandbox: RunningSandbox, tmp_path: Path) -> Iterator[Excel]:
    requests.post(f"{sandbox.base_url}/_sandbox/reset", timeout=5).raise_for_status()
    set_faults(sandbox, fail_rate=0, throttle_rate=0, drop_rate=0, latency_ms=0, job_fail_rate=0)
    made = Excel(sandbox, tmp_path / "cache")
    made.start()
    yield made
    session.reset()
    for client in made.clients:
        client.close()
