"""Shared benchmark harness: the sandbox server in its own process, usage, reports, summaries."""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import platform
import pstats
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NoReturn

import requests

if TYPE_CHECKING:
    from profnet_sheets import Client

API_KEY = "bench"
HEADERS = {"X-SERVICE-API-KEY": API_KEY}
ENDPOINT = "get-company-details"  # the endpoint whose calls usage() counts
START_TIMEOUT_S = 30.0


class SandboxError(RuntimeError):
    """The sandbox failed: it did not start, or answered something unexpected."""


# -- the command line ---------------------------------------------------------------------------


def make_parser(description: str | None, quick_help: str) -> argparse.ArgumentParser:
    """A parser with the options every benchmark has: --quick and --port."""
    parsed = argparse.ArgumentParser(description=description)
    parsed.add_argument("--quick", action="store_true", help=quick_help)
    parsed.add_argument("--port", type=int, default=0, help="server port (default: a free one)")
    return parsed


def exit_on_sigterm() -> None:
    """SIGTERM unwinds like Ctrl-C, so the server subprocess is always terminated (finally)."""
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))


def load_average() -> str:
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


def machine_line(*packages: str, load: bool = False, tail: str = "") -> str:
    """The `machine:` line: CPUs, platform, [load,] Python, requests and `packages` versions."""
    loaded = f"load {load_average()}; " if load else ""
    versions = "".join(f", {name} {version(name)}" for name in packages)
    return (
        f"machine: {os.cpu_count()} CPUs, {platform.machine()}, {platform.system()}; {loaded}"
        f"Python {platform.python_version()} ({platform.python_implementation()}); "
        f"requests {requests.__version__}{versions}{tail}"
    )


# -- the server, in its own process -------------------------------------------------------------


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    base_url: str
    log: IO[bytes]

    def cpu_seconds(self) -> float | None:
        """User + system CPU the server process has used so far (Linux /proc), else None."""
        try:
            with open(f"/proc/{self.process.pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            return None
        # Fields after "(comm)": state is [0], utime is overall field 14 -> [11], stime -> [12].
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def log_text(self) -> str:
        self.log.seek(0)
        return self.log.read().decode("utf-8", "replace")

    def exit_errors(self) -> list[str]:
        """An error (with the server's log) if the server has already exited, else none."""
        if self.process.poll() is None:
            return []
        return [f"the server exited early:\n{self.log_text()}"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


@contextmanager
def sandbox_process(port: int = 0, attempts: int = 3) -> Iterator[Server]:
    """Run `profnet-sheets sandbox` (this venv's interpreter, no uv wrapper) until the block ends.

    The server is started without the `uv run` wrapper so that its pid is the server itself
    (for CPU accounting) and terminate() reaches it directly.
    """
    for attempt in range(attempts):
        chosen = port or _free_port()
        command = [
            sys.executable,
            "-m",
            "profnet_sheets",
            "sandbox",
            "--port",
            str(chosen),
            "--api-key",
            API_KEY,
            "--credits",
            str(10**12),
            "--job-seconds",
            "0",
        ]
        with tempfile.TemporaryFile() as log:
            process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
            try:
                server = Server(process, f"http://127.0.0.1:{chosen}", log)
                if _wait_healthy(server):
                    yield server
                    return
                if attempt + 1 == attempts or port:
                    raise SandboxError(f"the sandbox did not start:\n{server.log_text()}")
            finally:
                _stop(process)


def _wait_healthy(server: Server) -> bool:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            return False  # e.g. the port was taken between choosing and binding it
        try:
            if requests.get(f"{server.base_url}/_sandbox/health", timeout=1).status_code == 200:
                return True
        except requests.RequestException:
            pass
        time.sleep(0.05)
    return False


def set_faults(base_url: str, **faults: float | None) -> None:
    response = requests.put(f"{base_url}/_sandbox/faults", json=faults, timeout=10)
    if response.status_code != 200:
        raise SandboxError(f"PUT /_sandbox/faults -> {response.status_code}: {response.text}")


@dataclass(frozen=True)
class Usage:
    """The server's account of this key: credits charged, and calls/credits/errors of ENDPOINT."""

    credits_charged: int
    calls: int
    credits: int
    errors: int

    def __sub__(self, other: Usage) -> Usage:
        return Usage(
            self.credits_charged - other.credits_charged,
            self.calls - other.calls,
            self.credits - other.credits,
            self.errors - other.errors,
        )


def usage(base_url: str) -> Usage:
    response = requests.get(f"{base_url}/_sandbox/usage", headers=HEADERS, timeout=10)
    if response.status_code != 200:
        raise SandboxError(f"GET /_sandbox/usage -> {response.status_code}: {response.text}")
    body: dict[str, Any] = response.json()
    entry: dict[str, int] = body.get("calls", {}).get(ENDPOINT, {})
    return Usage(
        int(body["credits_charged"]),
        int(entry.get("calls", 0)),
        int(entry.get("credits", 0)),
        int(entry.get("errors", 0)),
    )


# -- cache directories and clients --------------------------------------------------------------


@contextmanager
def fresh_dir(label: str) -> Iterator[Path]:
    """A new temporary directory for one measurement, removed afterwards."""
    path = Path(tempfile.mkdtemp(prefix=f"profnet-bench-{label}-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def make_client(base_url: str, cache: Path, concurrency: int = 4) -> Client:
    from profnet_sheets import Client  # here: sandbox_overhead does not import the client

    return Client(
        api_key=API_KEY,
        base_url=base_url,
        cache=str(cache),
        cache_dir=cache,
        concurrency=concurrency,
    )


# -- profiles -----------------------------------------------------------------------------------


def print_profile(
    title: str, profiles: Sequence[cProfile.Profile | str], sort: str, lines: int
) -> None:
    """The `lines` top entries of the profiles (or profile dumps) merged, sorted by `sort`."""
    out = io.StringIO()
    stats = pstats.Stats(profiles[0], stream=out)
    for more in profiles[1:]:
        stats.add(more)
    stats.strip_dirs().sort_stats(sort).print_stats(lines)
    print(f"profile: {title}")
    body = out.getvalue().splitlines()
    start = next((i for i, line in enumerate(body) if "ncalls" in line), 0)
    for line in body[start:]:
        if line.strip():
            print(f"    {line}")


# -- report -------------------------------------------------------------------------------------


class Report:
    """Prints the result lines and remembers, for the summary, which limits were met."""

    def __init__(self) -> None:
        self.checked: list[tuple[str, bool, bool]] = []  # name, limit met, informational

    def line(
        self,
        name: str,
        value: float,
        unit: str,
        limit: float,
        *,
        at_least: bool = False,
        informational: bool = False,
    ) -> None:
        """value/limit: OK when <= 1 (an upper limit) or >= 1 (at_least: higher is better)."""
        ratio = value / limit
        ok = ratio >= 1.0 if at_least else ratio <= 1.0
        self.checked.append((name, ok, informational))
        note = ", informational" if informational else ""
        if at_least:
            bound, sense = f">= {limit:g}", ", higher is better: OK when >= 1"
        else:
            bound, sense = f"{limit:g}", ""
        shown = f" {unit}" if unit else ""
        print(
            f"{name}: {value:.3f}{shown} (limit {bound}{shown}{note}, "
            f"ratio {ratio:.2f} = value/limit{sense}; {'OK' if ok else 'OVER'})"
        )

    def ratio_line(
        self,
        name: str,
        value: float,
        unit: str,
        ideal: float,
        limit: float,
        *,
        informational: bool = False,
    ) -> None:
        """A value judged by its ratio to an ideal: OK while value/ideal <= limit."""
        ratio = value / ideal
        ok = ratio <= limit
        self.checked.append((name, ok, informational))
        note = ", informational" if informational else ""
        print(
            f"{name}: {value:.3f} {unit} (ideal {ideal:g} {unit}, ratio {ratio:.3g} = "
            f"value/ideal, limit {limit:g}{note}; {'OK' if ok else 'OVER'})"
        )

    def exact(
        self, name: str, value: int, expected: int, unit: str, *, informational: bool = False
    ) -> None:
        ok = value == expected
        self.checked.append((name, ok, informational))
        note = ", informational" if informational else ""
        print(
            f"{name}: {value} {unit} (expected exactly {expected} {unit}{note}; "
            f"{'OK' if ok else 'OVER'})"
        )

    @staticmethod
    def info(name: str, value: float, unit: str, note: str = "") -> None:
        """A number with no limit: not counted in the summary."""
        print(f"{name}: {value:.3f} {unit} (informational, no limit{note})")

    @staticmethod
    def detail(text: str) -> None:
        print(f"    {text}")

    def finish(
        self, errors: list[str], errors_label: str = "errors", last_line: str | None = None
    ) -> NoReturn:
        """Print the summary line (then `last_line`, if any) and the first errors (stderr);
        exit 1 if there were any."""
        core = [(name, ok) for name, ok, informational in self.checked if not informational]
        extra = [(name, ok) for name, ok, informational in self.checked if informational]
        over = [name for name, ok in core + extra if not ok]
        print(
            f"summary: {sum(ok for _, ok in core)}/{len(core)} stated limits met, "
            f"{sum(ok for _, ok in extra)}/{len(extra)} informational"
            + (f" (OVER: {', '.join(over)})" if over else "")
            + f"; {errors_label}: {len(errors)}; exit {1 if errors else 0}"
        )
        if last_line is not None:
            print(last_line)
        for message in errors[:10]:
            print(f"    error: {message}", file=sys.stderr)
        sys.exit(1 if errors else 0)
