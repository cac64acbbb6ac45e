"""Benchmark the client's caches and its cold lookups against the sandbox server.

1. A warm repeat through the fast layer (the in-memory memo) against a plain requests-cache hit:
   at least 20x faster. Also the client's own requests-cache hit path (a new Client on a primed
   cache directory: the memo is cold, SQLite holds the answer).
2. Cold lookups with N workers (one shared Client, concurrency=N) against sandbox latency L (50 and
   200 ms):
   at least 90% of the N/L limit, and exactly one paid call per distinct domain (server usage).
3. Informational: the client's ledger agrees with the credits the server charged.
"""

from __future__ import annotations

import cProfile
import gc
import http.client
import os
import statistics
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import requests
import requests_cache
from harness import (
    ENDPOINT,
    HEADERS,
    Report,
    SandboxError,
    Usage,
    exit_on_sigterm,
    fresh_dir,
    machine_line,
    make_client,
    make_parser,
    print_profile,
    sandbox_process,
    set_faults,
    usage,
)
from requests_cache.backends.sqlite import SQLiteCache

from profnet_sheets import ProfnetError

WARM_DOMAIN = "warm.io"
SPEEDUP_LIMIT = 20.0  # the issue: "warm repeat ... vs a plain requests-cache hit: at least 20x"
LATENCY_MS = 50.0  # the sandbox latency L of the main cold runs (and of the profile)
LONG_LATENCY_MS = 200.0  # L of a second set of cold runs, nearer a real service's
WORKERS = (4, 16)  # N
# Calls per worker in a cold run: each run is N x ROUNDS distinct domains, so every N is measured
# over the same number of round trips. Starting (connections, a reader per thread) and draining
# (the last workers finish up to one round trip after the first) cost about one round trip
# whatever the client does: over a fixed 400 calls that was ~1% of the run at N=4 (100 rounds)
# but ~4% at N=16 (25 rounds), and N=16 was judged on it.
ROUNDS = 100
LONG_ROUNDS = 40  # at LONG_LATENCY_MS: 8 s a run
SHORT_RUN = 400  # informational: N=16 over a short batch, where starting and draining weigh more
EFFICIENCY_LIMIT = 0.9  # the issue: "at least 90% of the N/L limit"
PROFILE_LINES = 18


# -- measurements -------------------------------------------------------------------------------


@dataclass
class Loop:
    """n calls timed as a whole (mean) and in batches (to show the noise)."""

    n: int
    wall_s: float
    cpu_s: float
    batch_means_us: list[float]
    server_calls: int  # paid calls the server saw during the loop (0 for a cache)

    @property
    def mean_us(self) -> float:
        return self.wall_s / self.n * 1e6

    @property
    def cpu_us(self) -> float:
        return self.cpu_s / self.n * 1e6


def timed_loop(call: Callable[[], object], n: int, base_url: str, batches: int = 10) -> Loop:
    """`call` n times in `batches` batches; the mean over all, each batch's mean."""
    before = usage(base_url)
    size = max(1, n // batches)
    batch_means: list[float] = []
    done = 0
    wall = cpu = 0.0
    while done < n:
        count = min(size, n - done)
        cpu_start = time.process_time()
        start = time.perf_counter()
        for _ in range(count):
            call()
        elapsed = time.perf_counter() - start
        cpu += time.process_time() - cpu_start
        wall += elapsed
        batch_means.append(elapsed / count * 1e6)
        done += count
    return Loop(n, wall, cpu, batch_means, (usage(base_url) - before).calls)


def warm_repeat(base_url: str, n: int) -> Loop:
    """(a) One client, one priming call, then n identical calls: the memo answers."""
    with fresh_dir("warm") as cache, make_client(base_url, cache) as client:
        client.get_company_details(domain=WARM_DOMAIN)
        return timed_loop(lambda: client.get_company_details(domain=WARM_DOMAIN), n, base_url)


@dataclass
class PlainHits:
    loop: Loop
    from_cache: int


def plain_requests_cache(base_url: str, n: int) -> PlainHits:
    """(b) A plain CachedSession over SQLite (WAL), as a user would set it up: n hits."""
    url = f"{base_url}/{ENDPOINT}"
    params = {"domain": WARM_DOMAIN}
    hits = [0]
    with fresh_dir("plain") as cache:
        session = requests_cache.CachedSession(
            backend=SQLiteCache(str(cache / "http_cache.sqlite"), wal=True)
        )
        try:
            primed = session.get(url, params=params, headers=HEADERS, timeout=30)
            if primed.status_code != 200:
                raise SandboxError(f"GET {url} -> {primed.status_code}: {primed.text[:200]}")

            def hit() -> None:
                response = session.get(url, params=params, headers=HEADERS, timeout=30)
                response.json()  # what a user does with it; the client parses its answers too
                hits[0] += bool(getattr(response, "from_cache", False))

            loop = timed_loop(hit, n, base_url)
        finally:
            session.close()  # type: ignore[no-untyped-call]
    return PlainHits(loop, hits[0])


@dataclass
class ColdMemo:
    call_us: list[float]  # one new Client per domain: its first (and only) call
    build_us: list[float]  # constructing that Client
    close_us: list[float]
    same_client_us: list[float]  # one Client, each primed domain once (after one warm-up)
    server_calls: int


def client_cache_hits(base_url: str, n: int) -> ColdMemo:
    """(c) The client's own requests-cache hit path: the memo is cold, SQLite holds the answer."""
    domains = [f"fresh{i}.io" for i in range(n)]
    with fresh_dir("fresh") as cache:
        with make_client(base_url, cache) as client:
            for domain in domains:
                client.get_company_details(domain=domain)
        before = usage(base_url)
        call_us: list[float] = []
        build_us: list[float] = []
        close_us: list[float] = []
        for domain in domains:
            started = time.perf_counter()
            client = make_client(base_url, cache)
            built = time.perf_counter()
            client.get_company_details(domain=domain)
            called = time.perf_counter()
            client.close()
            closed = time.perf_counter()
            build_us.append((built - started) * 1e6)
            call_us.append((called - built) * 1e6)
            close_us.append((closed - called) * 1e6)
        same: list[float] = []
        with make_client(base_url, cache) as client:
            client.get_company_details(domain=domains[0])  # opens what opens lazily
            for domain in domains[1:]:
                started = time.perf_counter()
                client.get_company_details(domain=domain)
                same.append((time.perf_counter() - started) * 1e6)
        server_calls = (usage(base_url) - before).calls
    return ColdMemo(call_us, build_us, close_us, same, server_calls)


@dataclass
class Cold:
    workers: int
    latency_ms: float
    count: int
    wall_s: float
    cpu_s: float
    latencies_ms: list[float]
    server: Usage  # what the server counted during the run
    ledger: int  # credits per the client's ledger
    failures: list[str] = field(default_factory=list)

    @property
    def throughput(self) -> float:
        return self.count / self.wall_s

    @property
    def limit(self) -> float:
        return self.workers / (self.latency_ms / 1000)


def cold_lookups(base_url: str, workers: int, latency_ms: float, count: int) -> Cold:
    """`count` distinct domains through ONE Client shared by a ThreadPoolExecutor(workers).

    The sandbox latency must already be `latency_ms`.
    """
    domains = [f"cold{latency_ms:g}-{workers}-{i}.io" for i in range(count)]
    failures: list[str] = []
    with fresh_dir(f"cold{workers}") as cache, make_client(base_url, cache, workers) as client:

        def one(domain: str) -> float:
            started = time.perf_counter()
            client.get_company_details(domain=domain)
            return (time.perf_counter() - started) * 1000

        before = usage(base_url)
        cpu_start = time.process_time()
        start = time.perf_counter()
        with ThreadPoolExecutor(workers) as pool:
            futures = [pool.submit(one, domain) for domain in domains]
            latencies = _results(futures, failures)
        wall = time.perf_counter() - start
        cpu = time.process_time() - cpu_start
        spent = usage(base_url) - before
        ledger = client.ledger.total()
    return Cold(workers, latency_ms, count, wall, cpu, latencies, spent, ledger, failures)


def cold_baseline(base_url: str, workers: int, latency_ms: float, count: int) -> Cold:
    """The same cold run with no cache at all: plain requests, one keep-alive session a thread."""
    local = threading.local()
    url = f"{base_url}/{ENDPOINT}"
    failures: list[str] = []

    def one(domain: str) -> float:
        session: requests.Session | None = getattr(local, "session", None)
        if session is None:
            session = local.session = requests.Session()
        started = time.perf_counter()
        response = session.get(url, params={"domain": domain}, headers=HEADERS, timeout=30)
        response.json()
        elapsed = (time.perf_counter() - started) * 1000
        if response.status_code != 200:
            raise SandboxError(f"GET {url} -> {response.status_code}")
        return elapsed

    before = usage(base_url)
    cpu_start = time.process_time()
    start = time.perf_counter()
    with ThreadPoolExecutor(workers) as pool:
        futures = [pool.submit(one, f"base{latency_ms:g}-{workers}-{i}.io") for i in range(count)]
        latencies = _results(futures, failures)
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    spent = usage(base_url) - before
    return Cold(workers, latency_ms, count, wall, cpu, latencies, spent, 0, failures)


def _results(futures: list[Future[float]], failures: list[str]) -> list[float]:
    latencies: list[float] = []
    for future in futures:
        try:
            latencies.append(future.result())
        except (ProfnetError, SandboxError, OSError) as error:
            failures.append(f"{type(error).__name__}: {error}")
    return latencies


# -- profiles (--profile) -----------------------------------------------------------------------


def _print_profile(title: str, profiles: list[cProfile.Profile], calls: int) -> None:
    print_profile(
        f"{title} ({calls} calls; sorted by own time; distorted by the profiler)",
        profiles,
        "tottime",
        PROFILE_LINES,
    )


def profile_client(base_url: str, warm_n: int, fresh_n: int, cold_n: int) -> None:
    """cProfile the client side of (a), (c) and the cold run with max(WORKERS) workers."""
    with fresh_dir("prof-warm") as cache, make_client(base_url, cache) as client:
        client.get_company_details(domain=WARM_DOMAIN)
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(warm_n):
            client.get_company_details(domain=WARM_DOMAIN)
        profiler.disable()
    _print_profile("warm repeat (memo hit)", [profiler], warm_n)

    domains = [f"pfresh{i}.io" for i in range(fresh_n)]
    with fresh_dir("prof-fresh") as cache:
        with make_client(base_url, cache) as client:
            for domain in domains:
                client.get_company_details(domain=domain)
        with make_client(base_url, cache) as client:
            client.get_company_details(domain=domains[0])
            profiler = cProfile.Profile()
            profiler.enable()
            for domain in domains[1:]:
                client.get_company_details(domain=domain)
            profiler.disable()
    _print_profile("requests-cache hit through the client (memo cold)", [profiler], fresh_n - 1)

    workers = max(WORKERS)
    profiles: list[cProfile.Profile] = []
    local = threading.local()
    lock = threading.Lock()
    set_faults(base_url, latency_ms=LATENCY_MS)
    try:
        with fresh_dir("prof-cold") as cache, make_client(base_url, cache, workers) as client:

            def one(domain: str) -> float:
                profiler: cProfile.Profile | None = getattr(local, "profiler", None)
                if profiler is None:
                    profiler = local.profiler = cProfile.Profile()
                    with lock:
                        profiles.append(profiler)
                profiler.enable()
                try:
                    client.get_company_details(domain=domain)
                finally:
                    profiler.disable()
                return 0.0

            with ThreadPoolExecutor(workers) as pool:
                failures: list[str] = []
                _results([pool.submit(one, f"pcold{i}.io") for i in range(cold_n)], failures)
    finally:
        set_faults(base_url, latency_ms=0)
    _print_profile(
        f"cold lookups, {workers} workers, latency {LATENCY_MS:g} ms (all worker threads; "
        "waiting on the socket shows as time in recv_into/poll)",
        profiles,
        cold_n,
    )


# -- report -------------------------------------------------------------------------------------


def _spread(values: list[float], unit: str) -> str:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return (
        f"mean {statistics.fmean(ordered):.1f} {unit}, p50 {statistics.median(ordered):.1f}, "
        f"p99 {p99:.1f}, min {ordered[0]:.1f}, max {ordered[-1]:.1f} (n={len(ordered)})"
    )


def report_caches(report: Report, warm: Loop, plain: PlainHits, own: ColdMemo) -> None:
    speedup = plain.loop.mean_us / warm.mean_us
    report.line("warm_speedup_vs_plain_requests_cache", speedup, "x", SPEEDUP_LIMIT, at_least=True)
    report.detail(
        f"= (b) plain requests-cache hit {plain.loop.mean_us:.1f} us / (a) warm repeat "
        f"{warm.mean_us:.2f} us"
    )
    report.detail(
        f"(a) warm repeat, client.get_company_details(domain={WARM_DOMAIN!r}) x {warm.n} after "
        f"1 priming call: mean {warm.mean_us:.2f} us/call (CPU {warm.cpu_us:.2f} us); batch means "
        f"{min(warm.batch_means_us):.2f}..{max(warm.batch_means_us):.2f} us; server calls "
        f"during the loop: {warm.server_calls}"
    )
    report.detail(
        f"(b) plain CachedSession(backend=SQLiteCache(path, wal=True)), GET + .json() x "
        f"{plain.loop.n} after 1 priming call: mean {plain.loop.mean_us:.1f} us/hit (CPU "
        f"{plain.loop.cpu_us:.1f} us); batch means {min(plain.loop.batch_means_us):.1f}.."
        f"{max(plain.loop.batch_means_us):.1f} us; from_cache {plain.from_cache}/{plain.loop.n}; "
        f"server calls during the loop: {plain.loop.server_calls}"
    )
    best = min(plain.loop.batch_means_us) / min(warm.batch_means_us)
    report.line(
        "warm_speedup_best_batches", best, "x", SPEEDUP_LIMIT, at_least=True, informational=True
    )
    report.detail("= fastest batch of (b) / fastest batch of (a): the same, less noise")
    call_mean = statistics.fmean(own.call_us)
    report.line(
        "client_requests_cache_hit_vs_plain",
        call_mean / plain.loop.mean_us,
        "x",
        1.0,
        informational=True,
    )
    report.detail(
        f"(c) a NEW Client on the primed cache directory per domain ({len(own.call_us)} distinct "
        f"domains; memo cold, SQLite holds each): first call {_spread(own.call_us, 'us')}"
    )
    report.detail(
        f"    building that Client {_spread(own.build_us, 'us')}; close "
        f"{statistics.fmean(own.close_us):.1f} us mean"
    )
    report.detail(
        f"    one Client, each primed domain once (memo cold, after 1 warm-up call): "
        f"{_spread(own.same_client_us, 'us')}"
    )
    report.detail(
        f"    server calls while answering from the cache: {own.server_calls} (expected 0); "
        f"the ratio above is (c) first-call mean / (b), limit 1 = as cheap as plain requests-cache"
    )


def report_cold(report: Report, cold: Cold, baseline: Cold | None) -> None:
    n = cold.workers
    name = f"cold_N{n}_L{cold.latency_ms:g}ms"
    efficiency = cold.throughput / cold.limit
    report.line(f"{name}_efficiency", efficiency, "", EFFICIENCY_LIMIT, at_least=True)
    report.detail(
        f"= throughput {cold.throughput:.1f} calls/s / limit N/L = {n}/"
        f"{cold.latency_ms / 1000:g} s = "
        f"{cold.limit:g} calls/s; {cold.count} distinct domains, ThreadPoolExecutor({n}) sharing "
        f"one Client(concurrency={n}); wall {cold.wall_s:.3f} s (ideal "
        f"{cold.count / cold.limit:.3f} s), client CPU {cold.cpu_s:.3f} s = "
        f"{cold.cpu_s / cold.count * 1000:.2f} ms/call"
    )
    if cold.latencies_ms:
        report.detail(
            f"per call (submit to answer in a worker): {_spread(cold.latencies_ms, 'ms')}"
        )
    report.exact(f"{name}_paid_calls", cold.server.calls, cold.count, "calls")
    report.detail(
        f"server /_sandbox/usage during the run: {cold.server.calls} {ENDPOINT} calls for "
        f"{cold.count} distinct domains (one paid call each), {cold.server.credits} credits, "
        f"{cold.server.errors} errors"
    )
    report.exact(
        f"{name}_ledger_credits",
        cold.ledger,
        cold.server.credits_charged,
        "credits",
        informational=True,
    )
    report.detail(
        f"client.ledger.total() {cold.ledger} vs the server's credits_charged during the run "
        f"{cold.server.credits_charged}"
    )
    if baseline is not None and baseline.latencies_ms:
        report.line(
            f"{name}_efficiency_no_cache_baseline",
            baseline.throughput / baseline.limit,
            "",
            EFFICIENCY_LIMIT,
            at_least=True,
            informational=True,
        )
        report.detail(
            f"the same {baseline.count} cold lookups with plain requests (a keep-alive Session per "
            f"thread, no cache, no client): {baseline.throughput:.1f} calls/s, client CPU "
            f"{baseline.cpu_s / baseline.count * 1000:.2f} ms/call; per call "
            f"{_spread(baseline.latencies_ms, 'ms')}"
        )


def report_short_run(report: Report, cold: Cold) -> None:
    """A short batch with the most workers: the same client, the fixed costs weigh more."""
    name = f"cold_N{cold.workers}_L{cold.latency_ms:g}ms_{cold.count}_calls_efficiency"
    efficiency = cold.throughput / cold.limit
    report.line(name, efficiency, "", EFFICIENCY_LIMIT, at_least=True, informational=True)
    report.detail(
        f"only {cold.count // cold.workers} rounds a worker: starting (connections, a reader "
        f"a thread) and draining (workers finish up to a round trip apart) cost about one round "
        f"trip ({cold.latency_ms:g} ms) of an ideal {cold.count / cold.limit:.2f} s; wall "
        f"{cold.wall_s:.3f} s"
    )


def main() -> None:
    parser = make_parser(__doc__, "fewer iterations (smoke run)")
    parser.add_argument(
        "--profile", action="store_true", help="also cProfile the client side (after measuring)"
    )
    parser.add_argument(
        "--no-baseline", action="store_true", help="skip the no-cache cold baseline runs"
    )
    args = parser.parse_args()
    exit_on_sigterm()
    os.environ["PROFNET_QUIET"] = "1"
    warm_n, plain_n, fresh_n = (5000, 500, 100) if args.quick else (20000, 2000, 500)
    share = 4 if args.quick else 1
    runs = [(LATENCY_MS, ROUNDS // share), (LONG_LATENCY_MS, LONG_ROUNDS // share)]

    gc_state = f"; gc {'on' if gc.isenabled() else 'off'}"
    print(machine_line("requests-cache", "profnet-sheets", tail=gc_state))
    print(
        f"setup: server in its own process (profnet-sheets sandbox); each measurement on a fresh "
        f"temporary cache directory; warm {warm_n}, plain hits {plain_n}, new-client hits "
        f"{fresh_n}; cold: N x R distinct domains for N in {WORKERS}, at latency L ms with R "
        f"rounds for (L, R) in {[(int(latency), rounds) for latency, rounds in runs]} (no-cache "
        f"baselines at {LATENCY_MS:g} ms). OVER = the limit is missed."
    )
    report = Report()
    errors: list[str] = []
    try:
        with sandbox_process(args.port) as server:
            base = server.base_url
            print(f"server: {base} (pid {server.process.pid})")
            set_faults(base, latency_ms=0)
            warm = warm_repeat(base, warm_n)
            plain = plain_requests_cache(base, plain_n)
            own = client_cache_hits(base, fresh_n)
            report_caches(report, warm, plain, own)
            if warm.server_calls or plain.loop.server_calls or own.server_calls:
                errors.append("a cache hit reached the server")

            try:
                for latency, rounds in runs:
                    set_faults(base, latency_ms=latency)
                    for workers in WORKERS:
                        cold = cold_lookups(base, workers, latency, workers * rounds)
                        errors += cold.failures
                        baseline = None
                        if latency == LATENCY_MS and not args.no_baseline:
                            baseline = cold_baseline(base, workers, latency, workers * rounds)
                            errors += baseline.failures
                        report_cold(report, cold, baseline)
                set_faults(base, latency_ms=LATENCY_MS)
                short = cold_lookups(base, max(WORKERS), LATENCY_MS, SHORT_RUN)
                errors += short.failures
                report_short_run(report, short)
            finally:
                set_faults(base, latency_ms=0)

            if args.profile:
                profile_client(base, warm_n, fresh_n, max(WORKERS) * runs[0][1])
            errors += server.exit_errors()
    except (SandboxError, ProfnetError, OSError, http.client.HTTPException) as error:
        errors.append(f"{type(error).__name__}: {error}")

    report.finish(errors)


if __name__ == "__main__":
    main()
