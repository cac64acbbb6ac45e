"""Run the sandbox under uvicorn: in a background thread (embedded, tests) or in the foreground."""

from __future__ import annotations

import errno
import logging
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, fields
from types import TracebackType
from typing import Any

import uvicorn

from profnet_sheets.sandbox.app import DroppedConnectionError, Receive, SandboxApp, Scope, Send
from profnet_sheets.sandbox.backend import Backend, Faults
from profnet_sheets.sandbox.controls import SETTINGS, check
from profnet_sheets.sandbox.cors import Cors
from profnet_sheets.sandbox.defaults import DEFAULT_KEY
from profnet_sheets.spec.profile import (
    API_KEY_HEADER,
    DEFAULT_NETWORK_HOSTS,
    LITE_ORIGIN,
    ServiceProfile,
)

__all__ = [
    "DEFAULT_KEY",
    "ListenError",
    "RunningSandbox",
    "SandboxConfig",
    "serve_forever",
    "start_sandbox",
]

Asgi = Callable[[Scope, Receive, Send], Awaitable[None]]


@dataclass(frozen=True)
class SandboxConfig:
    """Everything a sandbox is started with; fault settings can also change while it runs."""

    host: str = "127.0.0.1"
    port: int = 0  # 0: a free port
    api_keys: tuple[str, ...] = (DEFAULT_KEY,)
    credits: int = 100_000
    seed: int = 0
    latency_ms: float = 0.0
    job_seconds: float = 5.0
    fail_rate: float = 0.0
    rate_limit: float | None = None  # per second per key (limits.py)
    db: str | None = None
    throttle_rate: float = 0.0
    drop_rate: float = 0.0
    geocode_timeout_rate: float = 0.0
    job_fail_rate: float = 0.0
    retry_after: int = 1
    latency_jitter_ms: float = 0.0
    hostile_rate: float = 0.0  # share of free-text strings planted with formulas (hostile.py)
    # The service it plays (docs/sandbox.md): its network's host, the header its key comes in,
    # headers it requires besides (a gateway's), prices over the spec's (endpoint: credits).
    network_host: str = DEFAULT_NETWORK_HOSTS[0]
    key_header: str = API_KEY_HEADER
    required_headers: Mapping[str, str] = field(default_factory=dict)
    prices: Mapping[str, int] = field(default_factory=dict)
    rate_limit_per_minute: float | None = None
    limit_retry_after: bool = True  # the limits' 429s say Retry-After
    faults_counted: bool = True  # injected faults behind the rate limit (False: in front)
    # The web origins that may call it from a browser (cors.py): xlwings Lite's by default.
    cors_origins: tuple[str, ...] = (LITE_ORIGIN,)

    def __post_init__(self) -> None:
        """Refuse at once what the sandbox cannot mean (controls.SETTINGS): SettingError."""
        for setting in fields(self):
            if setting.name in SETTINGS:
                check(setting.name, getattr(self, setting.name))
        for key in self.api_keys:
            check("key", key)

    def faults(self) -> Faults:
        names = {f.name for f in fields(Faults)}
        return Faults(**{f.name: getattr(self, f.name) for f in fields(self) if f.name in names})

    def profile(self) -> ServiceProfile:
        """The service this sandbox plays, as a client's profile would describe it."""
        return ServiceProfile(
            key_header=check("key_header", self.key_header),
            headers=tuple(check("required_headers", self.required_headers).items()),
            network_hosts=(check("network_host", self.network_host),),
            prices=check("prices", self.prices),
        )

    def cors(self) -> Cors:
        """Who may call it from a browser, with the key header and the headers it requires."""
        return Cors(self.cors_origins, (self.key_header, *self.required_headers))

    def backend(self) -> Backend:
        return Backend(
            api_keys=self.api_keys,
            credits=self.credits,
            seed=self.seed,
            job_seconds=self.job_seconds,
            db=self.db,
            faults=self.faults(),
            hostile_rate=self.hostile_rate,
            profile=self.profile(),
        )


class _QuietDrops(logging.Filter):
    """Keep injected connection drops out of the server log (they are deliberate)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and isinstance(record.exc_info[1], DroppedConnectionError))


def _uvicorn_config(app: Asgi, config: SandboxConfig, log_level: str) -> uvicorn.Config:
    logging.getLogger("uvicorn.error").addFilter(_QuietDrops())
    return uvicorn.Config(
        app,
        host=config.host,
        port=config.port,
        http="httptools",
        loop="asyncio",
        lifespan="off",
        access_log=False,
        log_level=log_level,
        backlog=2048,
        timeout_keep_alive=30,
    )


class ListenError(OSError):
    """The sandbox's address could not be bound; the message names it and says why."""


def listening_socket(host: str, port: int) -> socket.socket:
    """A bound, listening socket whose connections send small replies at once (ListenError
    when the port is taken, privileged or the host not this machine's).

    Without TCP_NODELAY a keep-alive client waits ~40 ms per call (Nagle's algorithm meets
    delayed ACKs when headers and body go out as two writes); accepted sockets inherit it.
    """
    try:
        sock = socket.create_server((host, port), backlog=2048)
    except OSError as error:
        raise ListenError(error.errno, _why_not(host, port, error)) from None
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def _why_not(host: str, port: int, error: OSError) -> str:
    where = f"{host}:{port}"
    if error.errno == errno.EADDRINUSE:
        return f"port {port} on {host} is already in use (another sandbox or program)"
    if error.errno == errno.EACCES:
        return f"port {port} on {host} needs administrator rights (ports below 1024)"
    if error.errno == errno.EADDRNOTAVAIL or isinstance(error, socket.gaierror):
        return f"{host} is not an address of this machine, so {where} cannot be listened on"
    return f"cannot listen on {where}: {error.strerror or error}"


def base_url(sock: socket.socket) -> str:
    """The URL a listening socket serves: its real port (also when port 0 asked for a free one)."""
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


class RunningSandbox:
    """A sandbox serving in a background thread; `base_url` to call it, `stop()` to end it.
    `around`: a layer served in front of its app (tests: one that notes every request)."""

    def __init__(
        self,
        config: SandboxConfig,
        log_level: str = "warning",
        around: Callable[[SandboxApp], Asgi] | None = None,
    ) -> None:
        self.config = config
        self.backend = config.backend()
        self.app = SandboxApp(self.backend, config.cors())
        self._socket = listening_socket(config.host, config.port)
        self.base_url = base_url(self._socket)
        port = self._socket.getsockname()[1]
        served = self.app if around is None else around(self.app)
        self._server = uvicorn.Server(_uvicorn_config(served, config, log_level))
        self._thread = threading.Thread(
            target=self._server.run,
            kwargs={"sockets": [self._socket]},
            daemon=True,
            name=f"profnet-sandbox-{port}",
        )
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the sandbox did not start on {self.base_url}")
            time.sleep(0.005)

    @property
    def api_key(self) -> str:
        return self.config.api_keys[0]

    def usage(self, key: str | None = None) -> dict[str, Any]:
        """What GET /_sandbox/usage answers for `key` (the first key by default): its balance,
        credits_charged, and calls, credits and errors per endpoint. KeyError for a key it
        does not know."""
        key = self.api_key if key is None else key
        found = self.backend.usage(key)
        if found is None:
            raise KeyError(f"the sandbox knows no key {key!r}")
        return found

    def counted(self, endpoint: str, key: str | None = None) -> dict[str, int]:
        """The calls, credits and errors of `key` at one endpoint (all 0 before its first call)."""
        return {"calls": 0, "credits": 0, "errors": 0, **self.usage(key)["calls"].get(endpoint, {})}

    def charged(self, key: str | None = None, endpoint: str | None = None) -> int:
        """Credits charged to `key` (the first key by default), in all or at one endpoint."""
        if endpoint is None:
            return int(self.usage(key)["credits_charged"])
        return self.counted(endpoint, key)["credits"]

    def calls(self, key: str | None = None, endpoint: str | None = None) -> int:
        """Calls `key` made (the first key by default), paid or not, in all or to one endpoint."""
        if endpoint is None:
            return sum(entry["calls"] for entry in self.usage(key)["calls"].values())
        return self.counted(endpoint, key)["calls"]

    def most_in_flight(self) -> int:
        """The most calls to the endpoints it has had under way at once (arrived, not yet
        answered) since it started: how many a client had in flight."""
        return self.app.most_under_way

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._socket.close()
        self.backend.close()

    def __enter__(self) -> RunningSandbox:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"RunningSandbox({self.base_url})"


def start_sandbox(config: SandboxConfig | None = None, **overrides: Any) -> RunningSandbox:
    """Start a sandbox in a background thread on a free loopback port and return it."""
    config = config or SandboxConfig()
    if overrides:
        config = SandboxConfig(
            **{**{f.name: getattr(config, f.name) for f in fields(config)}, **overrides}
        )
    return RunningSandbox(config)


def serve_forever(
    config: SandboxConfig,
    log_level: str = "info",
    on_listening: Callable[[str], None] | None = None,
) -> None:
    """Run the sandbox in the foreground until interrupted (the `sandbox` command).

    `on_listening(base_url)` is called once the socket listens, with the port it really has."""
    app = SandboxApp(config.backend(), config.cors())
    with listening_socket(config.host, config.port) as sock:
        if on_listening is not None:
            on_listening(base_url(sock))
        uvicorn.Server(_uvicorn_config(app, config, log_level)).run(sockets=[sock])
