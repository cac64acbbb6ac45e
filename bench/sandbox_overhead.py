"""Benchmark the sandbox server: its own overhead per lookup and 64 requests held in flight.

The stated lines time the server from a lean client (http.client on keep-alive connections),
so that they measure the server; the same through requests is printed beside them, its extra
cost being the client library's (bench/client_cache.py measures our client).
"""

from __future__ import annotations

import http.client
import os
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import requests
from harness import (
    HEADERS,
    Report,
    SandboxError,
    Server,
    exit_on_sigterm,
    machine_line,
    make_parser,
    sandbox_process,
    set_faults,
)
from requests.adapters import HTTPAdapter

LOOKUP_LIMIT_MS = 1.0  # the issue: "its own overhead per lookup stays around a millisecond"
HEAVY_LIMIT_MS = 2.0  # informational, for the heavier generators
IN_FLIGHT = 64
INJECTED_LATENCY_S = 0.2
IN_FLIGHT_LIMIT_RATIO = 1.5
FRESH = 1_000_000  # in-flight requests use inputs from here on, unlike the sequential ones


def session(pool: int = 1) -> requests.Session:
    """A keep-alive session whose pool holds `pool` connections."""
    http = requests.Session()
    http.mount("http://", HTTPAdapter(pool_connections=1, pool_maxsize=pool))
    http.headers.update(HEADERS)
    return http


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


def sequential_lean(
    server: Server, path: str, n: int, warmup: int, body: str | None = None
) -> list[float]:
    """GET `path` % i (or POST the JSON `body` % i to `path`) sequentially on one keep-alive
    http.client connection (a lean client)."""
    url = urlsplit(server.base_url)
    connection = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=30)
    times: list[float] = []
    try:
        for i in range(warmup + n):
            started = time.perf_counter()
            if body is None:
                connection.request("GET", path % i, headers=HEADERS)
            else:
                headers = {**HEADERS, "Content-Type": "application/json"}
                connection.request("POST", path, body % i, headers=headers)
            response = connection.getresponse()
            response.read()
            if i >= warmup:
                times.append((time.perf_counter() - started) * 1000)
            if response.status != 200:
                raise SandboxError(f"{path} ({i}) -> {response.status}")
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
    args = make_parser(__doc__, "fewer iterations (smoke run)").parse_args()
    exit_on_sigterm()
    n, warmup, rounds = (300, 20, 1) if args.quick else (2000, 100, 3)

    print(machine_line())
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
            lean = sequential_lean(server, "/get-company-details?domain=lean%d.com", n, warmup)
            report.line("overhead_per_lookup_ms", statistics.fmean(lean), "ms", LOOKUP_LIMIT_MS)
            report.detail(
                f"GET get-company-details, distinct domains, a whole round trip from a lean "
                f"client (http.client, keep-alive): server + loopback + the least a client can "
                f"do; p50 {statistics.median(lean):.3f} ms, min {min(lean):.3f} ms"
            )
            report.info("round_trip_with_requests_ms", lookup.mean, "ms")
            report.detail(
                "the same through requests (a keep-alive Session): the difference is the requests "
                "library's own cost, a client's, not the server's"
            )
            _describe(report, lookup, base)
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
                ("search_posts", "POST search-posts", posts, "/search-posts", '{"keyword":"l%d"}'),
                (
                    "profile_details",
                    "GET get-profile-details",
                    profile,
                    "/get-profile-details?profnet_url=https://www.profnet.com/in/lean-%d/",
                    None,
                ),
            )
            for name, label, make_call, path, body in heavies:
                lean = sequential_lean(server, path, n, warmup, body)
                report.line(
                    f"overhead_{name}_ms",
                    statistics.fmean(lean),
                    "ms",
                    HEAVY_LIMIT_MS,
                    informational=True,
                )
                report.detail(
                    f"{label}, distinct inputs, a round trip from the lean client: p50 "
                    f"{statistics.median(lean):.3f} ms"
                )
                heavy = sequential(server, name, make_call(server.base_url), n, warmup)
                errors += heavy.errors
                report.info(f"round_trip_with_requests_{name}_ms", heavy.mean, "ms")
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
            if lean_flight.walls_s:
                report.ratio_line(
                    "in_flight_64",
                    max(lean_flight.walls_s),
                    "s",
                    INJECTED_LATENCY_S,
                    IN_FLIGHT_LIMIT_RATIO,
                )
                report.detail(
                    f"{IN_FLIGHT} concurrent GET get-company-details from 64 threads using "
                    f"http.client (a lean client, a connection each, a Barrier) with latency_ms="
                    f"{INJECTED_LATENCY_S * 1000:g}; worst of {len(lean_flight.walls_s)} rounds: "
                    f"{', '.join(f'{wall:.3f} s' for wall in lean_flight.walls_s)} (serialised "
                    f"would be {IN_FLIGHT * INJECTED_LATENCY_S:g} s); threads start over "
                    f"{max(lean_flight.start_spread_s) * 1000:.0f} ms; "
                    f"{lean_flight.statuses.count(200)}/{len(lean_flight.statuses)} answers 200 "
                    f"(incl. an unmeasured round that opens the connections)"
                )
            if flight.walls_s:
                report.ratio_line(
                    "in_flight_64_with_requests",
                    max(flight.walls_s),
                    "s",
                    INJECTED_LATENCY_S,
                    IN_FLIGHT_LIMIT_RATIO,
                    informational=True,
                )
                ordered = sorted(flight.latencies_s)
                report.detail(
                    f"the same through requests (a Session a thread): "
                    f"{', '.join(f'{wall:.3f} s' for wall in flight.walls_s)}; per request: min "
                    f"{ordered[0]:.3f} s, p50 {statistics.median(ordered):.3f} s, max "
                    f"{ordered[-1]:.3f} s; the 64 threads start their requests over "
                    f"{max(flight.start_spread_s) * 1000:.0f} ms: requests' own cost, one GIL"
                )
            errors += server.exit_errors()
    except (SandboxError, OSError, http.client.HTTPException) as error:  # requests' are OSError
        errors.append(f"{type(error).__name__}: {error}")

    report.finish(errors, "sandbox errors")


if __name__ == "__main__":
    main()
