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
them (a new Client on an empty cache each); printed: the time with faults against the time
without (goal <= 1.5x, retries included; the mix alone needs 1.46x the attempts, each taking a
token of the limit) and the rate learnt with faults against the one learnt without (goal:
within 2x), the load beside each (`--quick`: 300 keys).
"""

from __future__ import annotations

import http.client
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path

import polars as pl
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

KEYS, QUICK_KEYS = 2_000, 200
LATENCY_MS, JITTER_MS = 800.0, 400.0  # 1 s +- 20%
LATENCY_S = (LATENCY_MS + JITTER_MS / 2) / 1000
RATES: tuple[float | None, ...] = (5.0, 20.0, 80.0, None)
LIMITED_GOAL, QUICK_LIMITED_GOAL, UNLIMITED_GOAL = 0.95, 0.9, 0.9
THROTTLED_GOAL_PERCENT = 2.0


@dataclass(frozen=True)
class Run:
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

    @property
    def ratio(self) -> float:
        return self.bound_s / self.wall_s

    @property
    def throttled_percent(self) -> float:
        return 100 * self.server.errors / max(1, self.server.calls)


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
    """The pace under the fault mix against the same run without faults: the time ratio
    against FAULT_TIME_GOAL, the rate learnt against FAULT_LEARNT_GOAL; the rows in error."""
    runs: list[Run] = []
    for mix in (runs_calm(), FAULT_MIX):
        set_faults(base_url, **mix)
        with fresh_dir("faults") as cache:
            runs.append(run_once(base_url, FAULT_RATE, keys, cache))
    calm, faulty = runs
    set_faults(base_url, **runs_calm())
    for label, run in (("without faults", calm), ("with faults", faulty)):
        report.detail(
            f"{label}: {keys} keys at {FAULT_RATE:g} calls/s, wall {run.wall_s:.1f} s, "
            f"{run.server.calls} calls ({run.server.errors} 429s), learnt "
            f"{run.learnt:.1f}/s; {run.pace}; {run.row_errors} rows in error; "
            f"load average {run.load}"
        )
    report.line("faults_time_ratio", faulty.wall_s / calm.wall_s, "x", FAULT_TIME_GOAL)
    report.detail(f"with faults against without; load average {faulty.load}")
    report.line("faults_learnt_ratio", calm.learnt / faulty.learnt, "x", FAULT_LEARNT_GOAL)
    report.detail(
        f"rate learnt without faults {calm.learnt:.1f}/s over with them "
        f"{faulty.learnt:.1f}/s; load average {faulty.load}"
    )
    return [f"{run.row_errors} rows with an error" for run in runs if run.row_errors]


def runs_calm() -> dict[str, float]:
    """The sandbox's fault settings with no fault."""
    return dict.fromkeys(FAULT_MIX, 0.0) | {"retry_after": 1.0}


def main() -> None:
    parser = make_parser(__doc__, f"{QUICK_KEYS} keys instead of {KEYS} (about a minute)")
    parser.add_argument(
        "--rates",
        default=",".join("none" if rate is None else f"{rate:g}" for rate in RATES),
        help="the runs, comma-separated calls/s or none (default: all)",
    )
    parser.add_argument(
        "--faults",
        action="store_true",
        help="the pace under issue 24's fault mix instead of the runs by rate",
    )
    args = parser.parse_args()
    rates = [None if rate == "none" else float(rate) for rate in args.rates.split(",")]
    if args.faults:
        rates = []
    exit_on_sigterm()
    os.environ["PROFNET_QUIET"] = "1"
    keys = QUICK_KEYS if args.quick else KEYS
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
                errors += fault_runs(report, base, QUICK_FAULT_KEYS if args.quick else FAULT_KEYS)
            errors += server.exit_errors()
    except (SandboxError, ProfnetError, OSError, http.client.HTTPException) as error:
        errors.append(f"{type(error).__name__}: {error}")
    print(f"load at the end: {load_average()}")
    worst = f"worst ratio: {min(ratios):.3f}" if ratios else "worst ratio: n/a"
    report.finish(errors, last_line=worst)


if __name__ == "__main__":
    main()
