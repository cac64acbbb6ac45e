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
    """A real redis-server of its own, on a free port (CI fails, not skips, without one)."""
    server = shutil.which("redis-server")
    assert server, "redis-server is required (apt-get install redis-server; .ci/run installs it)"
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    import redis

    connection = redis.Redis(port=port)
    deadline = time.monotonic() + 10
    while True:
        try:
            connection.ping()
            break
        except redis.ConnectionError:
            assert time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.05)
    yield f"redis://127.0.0.1:{port}/0"
    process.terminate()
    process.wait(timeout=10)
