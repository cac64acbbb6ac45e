"""Every test runs with its own config and cache directories, never the user's."""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import time_machine

from tests.redis_servers import RedisServer


@pytest.fixture
def wall_clock() -> Iterator[time_machine.Coordinates]:
    """The wall clock (time.time, datetime.now) under the test's hand: `wall_clock.shift(s)`
    moves it `s` seconds on at once (it keeps ticking meanwhile), for expiries kept in wall time
    by code that takes no clock (requests-cache's). time.monotonic is left alone."""
    with time_machine.travel(time.time(), tick=True) as traveller:
        yield traveller


def pytest_configure(config: pytest.Config) -> None:
    for name in [name for name in os.environ if name.startswith("PROFNET_")]:
        del os.environ[name]
    home = Path(tempfile.mkdtemp(prefix="profnet-tests-"))
    os.environ["PROFNET_CONFIG"] = str(home / "config.toml")
    os.environ["PROFNET_CACHE_DIR"] = str(home / "cache")
    os.environ["PROFNET_QUIET"] = "1"


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A real Redis-protocol server shared by the session's tests (see RedisServer)."""
    server = RedisServer()
    yield server.url
    server.stop()


@pytest.fixture
def killable_redis() -> Iterator[RedisServer]:
    """A real Redis-protocol server of this test's own, which it may kill."""
    server = RedisServer()
    yield server
    server.stop()


@contextmanager
def redis_server(password: str | None = None) -> Iterator[str]:
    """A real Redis-protocol server of its own, its URL (no database), demanding `password`
    when one is given (`requirepass`)."""
    server = RedisServer(password)
    try:
        yield server.address
    finally:
        server.stop()
