"""Benchmark the sandbox server: its own overhead per lookup and 64 requests held in flight."""

from __future__ import annotations

import argparse
import http.client
import os
import platform
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import IO
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter

API_KEY = "bench"
HEADERS = {"X-SERVICE-API-KEY": API_KEY}
LOOKUP_LIMIT_MS = 1.0  # the issue: "its own overhead per lookup stays around a millisecond"
HEAVY_LIMIT_MS = 2.0  # informational, for the heavier generators
IN_FLIGHT = 64
INJECTED_LATENCY_S = 0.2
IN_FLIGHT_LIMIT_RATIO = 1.5
START_TIMEOUT_S = 30.0
FRESH = 1_000_000  # in-flight requests use inputs from here on, unlike the sequential ones


class SandboxError(RuntimeError):
    """The sandbox failed: it did not start, or answered something other than 200."""


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


def session(pool: int = 1) -> requests.Session:
    """A keep-alive session whose pool holds `pool` connections."""
    http = requests.Session()
    http.mount("http://", HTTPAdapter(pool_connections=1, pool_maxsize=pool))
    http.headers.update(HEADERS)
    return http


def set_faults(base_url: str, **faults: float) -> None:
    response = requests.put(f"{base_url}/_sandbox/faults", json=faults, timeout=10)
    if response.status_code != 200:
        raise SandboxError(f"PUT /_sandbox/faults -> {response.status_code}: {response.text}")


# -- measurements -------------------------------------------------------------------------------

Call = Callable[[requests.Session, int], requests.Response]


@dataclass
class Sequential:
    name: str
    times_ms: list[float]
    client_cpu_ms: float  # per call
    server_cpu_ms: float | None  # per call
    errors: list[str] = field(default_factory=list)

    @property
    def mean(self) -> float:
        return statistics.fmean(self.times_ms)

    def pct(self, q: float) -> float:
        ordered = sorted(self.times_ms)
        return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def sequential(server: Server, name: str, call: Call, n: int, warmup: int) -> Sequential:
    """`warmup` then `n` calls one after another on one keep-alive connection; i is distinct."""
    times: list[float] = []
    errors: list[str] = []
    with session() as http:
        for i in range(warmup):
            _check(call(http, i), name, errors)
        cpu_before = server.cpu_seconds()
        client_before = time.process_time()
        for i in range(warmup, warmup + n):
            started = time.perf_counter()
            response = call(http, i)
            times.append((time.perf_counter() - started) * 1000)
            _check(response, name, errors)
        client_cpu = (time.process_time() - client_before) * 1000 / n
        cpu_after = server.cpu_seconds()
    server_cpu = (
        None if cpu_before is None or cpu_after is None else (cpu_after - cpu_before) * 1000 / n
    )
    return Sequential(name, times, client_cpu, server_cpu, errors)


def sequential_lean(server: Server, path: str, n: int, warmup: int) -> list[float]:
    """GET `path` % i sequentially on one keep-alive http.client connection (a lean client)."""
    url = urlsplit(server.base_url)
    connection = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=30)
    times: list[float] = []
    try:
        for i in range(warmup + n):
            started = time.perf_counter()
            connection.request("GET", path % i, headers=HEADERS)
            response = connection.getresponse()
            response.read()
            if i >= warmup:
                times.append((time.perf_counter() - started) * 1000)
            if response.status != 200:
                raise SandboxError(f"GET {path % i} -> {response.status}")
    finally:
        connection.close()
    return times


def _check(response: requests.Response, name: str, errors: list[str]) -> None:
    if response.status_code != 200 and len(errors) < 5:
        errors.append(f"{name}: {response.status_code} {response.text[:200]}")
    elif response.status_code != 200:
        errors.append(name)


def company(base_url: str) -> Call:
    url = f"{base_url}/get-company-details"
    return lambda http, i: http.get(url, params={"domain": f"d{i}.com"}, timeout=30)


def posts(base_url: str) -> Call:
    url = f"{base_url}/search-posts"
    return lambda http, i: http.post(url, json={"keyword": f"k{i}"}, timeout=30)


def profile(base_url: str) -> Call:
    url = f"{base_url}/get-profile-details"
    return lambda http, i: http.get(
        url, params={"profnet_url": f"https://www.profnet.com/in/anna-schmidt-{i}/"}, timeout=30
    )


def health(base_url: str) -> Call:
    url = f"{base_url}/_sandbox/health"
    return lambda http, i: http.get(url, timeout=30)


@dataclass
class InFlight:
    walls_s: list[float]
    statuses: list[int]
    failures: list[str]
    start_spread_s: list[float]  # per round: last request started this long after the first
    latencies_s: list[float]  # every measured request, start to answer


Fire = Callable[[int], int]  # make request i, return its status
Client = Callable[[], AbstractContextManager[Fire]]  # one per thread: its own connection(s)


def requests_client(call: Call) -> Client:
    """Each thread gets its own keep-alive requests.Session."""

    @contextmanager
    def client() -> Iterator[Fire]:
        with session() as http:
            yield lambda i: call(http, i).status_code

    return client


def lean_client(base_url: str) -> Client:
    """Each thread gets its own keep-alive http.client connection (GET get-company-details)."""
    url = urlsplit(base_url)

    @contextmanager
    def client() -> Iterator[Fire]:
        connection = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=30)

        def fire(i: int) -> int:
            connection.request("GET", f"/get-company-details?domain=flight{i}.com", headers=HEADERS)
            response = connection.getresponse()
            response.read()
            return response.status

        try:
            yield fire
        finally:
            connection.close()

    return client


def in_flight(client: Client, parallel: int, rounds: int) -> InFlight:
    """`parallel` threads, each with its own client, fire together (a Barrier), `rounds` times.

    One unmeasured round first opens the keep-alive connections.
    """
    total = rounds + 1
    barrier = threading.Barrier(parallel)
    starts = [[0.0] * parallel for _ in range(total)]
    ends = [[0.0] * parallel for _ in range(total)]
    statuses: list[int] = []
    failures: list[str] = []
    lock = threading.Lock()

    def worker(slot: int) -> None:
        with client() as fire:
            for r in range(total):
                try:
                    barrier.wait(timeout=60)
                except threading.BrokenBarrierError:
                    return
                starts[r][slot] = time.perf_counter()
                try:
                    status = fire(FRESH + r * parallel + slot)  # inputs not asked before
                except (OSError, http.client.HTTPException) as error:
                    with lock:
                        failures.append(repr(error))
                    barrier.abort()
                    return
                ends[r][slot] = time.perf_counter()
                with lock:
                    statuses.append(status)

    threads = [threading.Thread(target=worker, args=(slot,)) for slot in range(parallel)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        return InFlight([], statuses, failures, [], [])
    measured = range(1, total)
    return InFlight(
        [max(ends[r]) - min(starts[r]) for r in measured],
        statuses,
        failures,
        [max(starts[r]) - min(starts[r]) for r in measured],
        [end - start for r in measured for start, end in zip(starts[r], ends[r], strict=True)],
    )


# -- report -------------------------------------------------------------------------------------


class Report:
    def __init__(self) -> None:
        self.checked: list[tuple[str, bool, bool]] = []  # name, within the limit, informational

    def line(
        self, name: str, value: float, unit: str, limit: float, *, informational: bool = False
    ) -> None:
        ratio = value / limit
        ok = ratio <= 1.0
        self.checked.append((name, ok, informational))
        note = ", informational" if informational else ""
        print(
            f"{name}: {value:.3f} {unit} (limit {limit:g} {unit}{note}, "
            f"ratio {ratio:.2f} = value/limit; {'OK' if ok else 'OVER'})"
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
            f"{name}: {value:.3f} {unit} (ideal {ideal:g} {unit}, ratio {ratio:.2f} = "
            f"value/ideal, limit {limit:g}{note}; {'OK' if ok else 'OVER'})"
        )

    @staticmethod
    def detail(text: str) -> None:
        print(f"    {text}")


def _describe(report: Report, result: Sequential, trivial: Sequential) -> None:
    report.detail(
        f"p50 {result.pct(50):.3f} ms, p99 {result.pct(99):.3f} ms, "
        f"min {min(result.times_ms):.3f} ms, max {max(result.times_ms):.3f} ms, "
        f"n={len(result.times_ms)}"
    )
    server_cpu = "n/a" if result.server_cpu_ms is None else f"{result.server_cpu_ms:.3f} ms"
    report.detail(
        f"CPU per call: client process {result.client_cpu_ms:.3f} ms, "
        f"server process {server_cpu}; above a trivial request (mean - health mean): "
        f"{result.mean - trivial.mean:.3f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer iterations (smoke run)")
    parser.add_argument("--port", type=int, default=0, help="server port (default: a free one)")
    args = parser.parse_args()
    # SIGTERM unwinds like Ctrl-C, so the server subprocess is always terminated (finally).
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    n, warmup, rounds = (300, 20, 1) if args.quick else (2000, 100, 3)

    print(
        f"machine: {os.cpu_count()} CPUs, {platform.machine()}, {platform.system()}; "
        f"Python {platform.python_version()} ({platform.python_implementation()}); "
        f"requests {requests.__version__}"
    )
    print(
        f"setup: server in its own process (profnet-sheets sandbox), client keep-alive sessions; "
        f"{n} sequential calls after {warmup} warm-up; {IN_FLIGHT} in flight x {rounds} rounds"
    )
    report = Report()
    errors: list[str] = []
    try:
        with sandbox_process(args.port) as server:
            print(f"server: {server.base_url} (pid {server.process.pid})")
            set_faults(server.base_url, latency_ms=0)
            base = sequential(server, "health", health(server.base_url), n, warmup)
            errors += base.errors

            lookup = sequential(server, "company", company(server.base_url), n, warmup)
            errors += lookup.errors
            report.line("overhead_per_lookup_ms", lookup.mean, "ms", LOOKUP_LIMIT_MS)
            report.detail("GET get-company-details, distinct domains, client + loopback + server")
            _describe(report, lookup, base)
            lean = sequential_lean(server, "/get-company-details?domain=lean%d.com", n, warmup)
            report.detail(
                f"same with a lean client (http.client, keep-alive): mean "
                f"{statistics.fmean(lean):.3f} ms, p50 {statistics.median(lean):.3f} ms "
                f"(the rest of the gap is the requests library's own cost)"
            )
            report.line(
                "server_overhead_per_lookup_ms (estimate)",
                max(0.0, lookup.mean - base.mean),
                "ms",
                LOOKUP_LIMIT_MS,
            )
            report.detail(
                f"= lookup mean {lookup.mean:.3f} ms - GET /_sandbox/health mean "
                f"{base.mean:.3f} ms (p50 {base.pct(50):.3f}, p99 {base.pct(99):.3f}): the "
                f"lookup's cost above a trivial request"
            )
            if lookup.server_cpu_ms is not None and base.server_cpu_ms is not None:
                report.line(
                    "server_cpu_per_lookup_ms (estimate)",
                    lookup.server_cpu_ms,
                    "ms",
                    LOOKUP_LIMIT_MS,
                )
                report.detail(
                    f"server process CPU (/proc, 1/{os.sysconf('SC_CLK_TCK')} s ticks) per "
                    f"lookup, incl. uvicorn + httptools; per trivial health request: "
                    f"{base.server_cpu_ms:.3f} ms"
                )

            heavies = (
                ("overhead_search_posts_ms", "POST search-posts", posts),
                ("overhead_profile_details_ms", "GET get-profile-details", profile),
            )
            for name, label, make_call in heavies:
                call = make_call(server.base_url)
                heavy = sequential(server, name, call, n, warmup)
                errors += heavy.errors
                report.line(name, heavy.mean, "ms", HEAVY_LIMIT_MS, informational=True)
                report.detail(f"{label}, distinct inputs, client + loopback + server")
                _describe(report, heavy, base)

            set_faults(server.base_url, latency_ms=INJECTED_LATENCY_S * 1000)
            try:
                flight = in_flight(requests_client(company(server.base_url)), IN_FLIGHT, rounds)
                lean_flight = in_flight(lean_client(server.base_url), IN_FLIGHT, rounds)
            finally:
                set_faults(server.base_url, latency_ms=0)
            for label, result in (("in_flight_64", flight), ("lean", lean_flight)):
                errors += result.failures
                bad = [status for status in result.statuses if status != 200]
                if bad:
                    errors.append(f"{label}: {len(bad)} non-200 answers: {sorted(set(bad))}")
            if flight.walls_s:
                worst = max(flight.walls_s)
                report.ratio_line(
                    "in_flight_64", worst, "s", INJECTED_LATENCY_S, IN_FLIGHT_LIMIT_RATIO
                )
                report.detail(
                    f"{IN_FLIGHT} concurrent GET get-company-details (64 threads, a session each, "
                    f"a Barrier) with latency_ms={INJECTED_LATENCY_S * 1000:g}; worst of "
                    f"{len(flight.walls_s)} rounds: "
                    f"{', '.join(f'{wall:.3f} s' for wall in flight.walls_s)} "
                    f"(serialised would be {IN_FLIGHT * INJECTED_LATENCY_S:g} s); "
                    f"{flight.statuses.count(200)}/{len(flight.statuses)} answers 200 "
                    f"(incl. an unmeasured round that opens the connections)"
                )
                ordered = sorted(flight.latencies_s)
                report.detail(
                    f"per request: min {ordered[0]:.3f} s, p50 {statistics.median(ordered):.3f} s, "
                    f"max {ordered[-1]:.3f} s; the 64 client threads start their requests over "
                    f"{max(flight.start_spread_s) * 1000:.0f} ms (client-side dispatch, one GIL)"
                )
            if lean_flight.walls_s:
                report.ratio_line(
                    "in_flight_64_lean_client",
                    max(lean_flight.walls_s),
                    "s",
                    INJECTED_LATENCY_S,
                    IN_FLIGHT_LIMIT_RATIO,
                    informational=True,
                )
                report.detail(
                    f"the same {IN_FLIGHT} in flight from threads using http.client (cheaper per "
                    f"request than requests): "
                    f"{', '.join(f'{wall:.3f} s' for wall in lean_flight.walls_s)}; threads start "
                    f"over {max(lean_flight.start_spread_s) * 1000:.0f} ms; "
                    f"{lean_flight.statuses.count(200)}/{len(lean_flight.statuses)} answers 200"
                )
            if server.process.poll() is not None:
                errors.append(f"the server exited early:\n{server.log_text()}")
    except (SandboxError, OSError, http.client.HTTPException) as error:  # requests' are OSError
        errors.append(f"{type(error).__name__}: {error}")

    core = [(name, ok) for name, ok, informational in report.checked if not informational]
    extra = [(name, ok) for name, ok, informational in report.checked if informational]
    over = [name for name, ok in core + extra if not ok]
    print(
        f"summary: {sum(ok for _, ok in core)}/{len(core)} stated limits met, "
        f"{sum(ok for _, ok in extra)}/{len(extra)} informational"
        + (f" (OVER: {', '.join(over)})" if over else "")
        + f"; sandbox errors: {len(errors)}; exit {1 if errors else 0}"
    )
    for message in errors[:10]:
        print(f"    error: {message}", file=sys.stderr)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
