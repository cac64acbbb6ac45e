"""Benchmark the money core (the call path on requests-cache's public API) beside the stock
`requests_cache.CachedSession` a user would write, measured in the same run.

1. Warm re-run: 10,000 rows / 2,000 unique domains enriched again in a NEW process (the
   cache on disk from a cold run): the work only (enrich() itself, imports and the Client
   excluded), limit 0.5 s (aim 0.3 s) where stock took 0.91 s: judged as 0.55x stock's re-run
   in the same run. Stock: a new process that asks a CachedSession (SQLite, its defaults) for
   each unique domain, all cached.
2. Warm formula call: =PROFNET_COMPANY on a remembered key, as xlwings hands one cell over:
   limit 10 us a call (median of rounds) where a stock hit took 430 us: judged as 0.023x a
   stock hit in the same run. Stock: a CachedSession hit for the same URL.
3. Cold: the same rows, sandbox latency 500 ms, 64 calls in flight: wall time against the
   latency bound (unique keys x latency / in flight), limit 1.05x; the server charges exactly
   one credit per unique key. Stock: a CachedSession behind a 64-thread pool over the unique
   domains (normalised by hand, as a careful user would).
4. Client CPU per cold call (user + system of this process over the cold run / calls):
   printed for both, informational.
5. Client CPU, cold: 2,000 distinct keys at 16 in flight, sandbox latency 50 ms, through one
   Client (client_cache.cold_lookups) against a stock CachedSession doing the same calls in the
   same run: limit 0.45x stock per call (its level before the store's process-wide lock).
6. `import profnet_sheets.excel.udfs`, its own part: a new process that has imported xlwings
   and pandas before the clock starts, the modules' bytecode written by a first import (an
   installed package has it: PYTHONDONTWRITEBYTECODE is dropped for the children); limit 60 ms
   (median of rounds). Stock: `import requests_cache` timed the same way.
Every figure is followed by the load average when it was measured (2 shared cores).
`--quick`: 1,000 rows / 200 keys and fewer rounds, to prove the benchmark runs (no judging).
"""

from __future__ import annotations

import functools
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from batch_enrich import make_rows
from client_cache import cold_lookups
from harness import (
    ENDPOINT,
    HEADERS,
    Report,
    exit_on_sigterm,
    fresh_dir,
    load_average,
    machine_line,
    make_client,
    make_parser,
    sandbox_process,
    set_faults,
    usage,
)

ROWS, UNIQUE = 10_000, 2_000
LATENCY_S = 0.5
IN_FLIGHT = 64
WARM_LIMIT_S = 0.5
FORMULA_LIMIT_US = 10.0
COLD_LIMIT_RATIO = 1.05
CPU_IN_FLIGHT, CPU_LATENCY_MS = 16, 50.0
CPU_LIMIT_RATIO = 0.45
IMPORT_LIMIT_MS = 60.0
# The warm limits are the seconds on the machine where they were set, whose stock took
# 0.91 s for the re-run and 430 us a hit (decision 154). Our machines differ 4-5x in absolute
# times, so each is judged as its ratio to stock measured in the same run (decision 578); the
# seconds are printed too.
WARM_LIMIT_RATIO = round(WARM_LIMIT_S / 0.91, 3)  # 0.549
FORMULA_LIMIT_RATIO = round(FORMULA_LIMIT_US / 430.0, 4)  # 0.0233


def _cpu() -> float:
    usage_now = resource.getrusage(resource.RUSAGE_SELF)
    return usage_now.ru_utime + usage_now.ru_stime


def _loaded(text: str) -> str:
    return f"{text}; load average {load_average()}"


def _stock_session(cache: Path, in_flight: int = IN_FLIGHT) -> object:
    import requests_cache
    from requests.adapters import HTTPAdapter

    session = requests_cache.CachedSession(str(cache / "stock.sqlite"), expire_after=86400)
    session.mount("http://", HTTPAdapter(pool_maxsize=in_flight))
    return session


def cold(base_url: str, rows: list[str], cache: Path) -> tuple[float, float, int]:
    """enrich() over `rows`, cold: wall seconds, client CPU seconds, credits charged."""
    import polars as pl

    from profnet_sheets.batch import enrich

    client = make_client(base_url, cache, IN_FLIGHT)
    frame = pl.DataFrame({"domain": rows})
    before, cpu, started = usage(base_url), _cpu(), time.perf_counter()
    enrich(frame, "domain", "company", client=client, concurrency=IN_FLIGHT, progress=False)
    wall, spent = time.perf_counter() - started, _cpu() - cpu
    client.close()
    return wall, spent, (usage(base_url) - before).credits_charged


def cold_stock(
    base_url: str, domains: list[str], cache: Path, in_flight: int = IN_FLIGHT
) -> tuple[float, float, int]:
    """The stock alternative, cold: a CachedSession behind a thread pool."""
    session = _stock_session(cache, in_flight)
    url = f"{base_url}/{ENDPOINT}"

    def fetch(domain: str) -> int:
        answer = session.get(url, params={"domain": domain}, headers=HEADERS)  # type: ignore[attr-defined]
        return int(answer.status_code)

    before, cpu, started = usage(base_url), _cpu(), time.perf_counter()
    with ThreadPoolExecutor(in_flight) as pool:
        statuses = list(pool.map(fetch, domains))
    wall, spent = time.perf_counter() - started, _cpu() - cpu
    assert set(statuses) == {200}, set(statuses)
    return wall, spent, (usage(base_url) - before).credits_charged


_WARM_CHILD = """
import sys, time
import polars as pl
sys.path.insert(0, {bench!r})
from harness import make_client
from profnet_sheets.batch import enrich
from pathlib import Path
client = make_client({base_url!r}, Path({cache!r}), {in_flight})
frame = pl.read_parquet({rows!r})
started = time.perf_counter()
enrich(frame, "domain", "company", client=client, concurrency={in_flight}, progress=False)
print(time.perf_counter() - started)
"""

_WARM_STOCK_CHILD = """
import sys, time
sys.path.insert(0, {bench!r})
from pathlib import Path
from money_core import _stock_session
from harness import HEADERS
session = _stock_session(Path({cache!r}))
domains = Path({domains!r}).read_text().split()
url = {url!r}
started = time.perf_counter()
for domain in domains:
    session.get(url, params={{"domain": domain}}, headers=HEADERS)
print(time.perf_counter() - started)
"""


def _child_seconds(code: str, bytecode: bool = True) -> float:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        check=False,
        env=_with_bytecode() if bytecode else _from_source(),
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    return float(done.stdout.strip().splitlines()[-1])


def warm(base_url: str, rows: list[str], cache: Path, rounds: int) -> float:
    """The warm re-run's work in a new process (median of `rounds`), seconds."""
    import polars as pl

    path = cache / "rows.parquet"
    pl.DataFrame({"domain": rows}).write_parquet(path)
    bench = str(Path(__file__).parent)
    code = _WARM_CHILD.format(
        bench=bench, base_url=base_url, cache=str(cache), rows=str(path), in_flight=IN_FLIGHT
    )
    return statistics.median(_child_seconds(code) for _ in range(rounds))


def warm_stock(base_url: str, domains: list[str], cache: Path, rounds: int) -> float:
    path = cache / "domains.txt"
    path.write_text("\n".join(domains))
    code = _WARM_STOCK_CHILD.format(
        bench=str(Path(__file__).parent),
        cache=str(cache),
        domains=str(path),
        url=f"{base_url}/{ENDPOINT}",
    )
    return statistics.median(_child_seconds(code) for _ in range(rounds))


_IMPORT_CHILD = """
import time
{before}
started = time.perf_counter()
import {module}
print((time.perf_counter() - started) * 1000)
"""


def _with_bytecode() -> dict[str, str]:
    """This environment, compiled modules kept: an installed package has its bytecode (pip
    compiles it; a first import writes it). With PYTHONDONTWRITEBYTECODE set, as on some
    machines, every new process compiled every module from source: 3-4x the import time."""
    return {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


@functools.cache
def _from_source() -> dict[str, str]:
    """This environment, every module compiled from source: bytecode neither read (an empty
    cache folder of this run) nor written."""
    empty = tempfile.mkdtemp(prefix="no-bytecode-")
    return {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": empty}


def import_ms(module: str, rounds: int, before: str = "", bytecode: bool = True) -> float:
    """Milliseconds to import `module` in a new process once `before` has run (median), after
    a first import not counted, which writes the bytecode a user's installation has (with
    `bytecode` False: no bytecode written, every module compiled from source each time)."""
    code = _IMPORT_CHILD.format(module=module, before=before)
    _child_seconds(code, bytecode)
    return statistics.median(_child_seconds(code, bytecode) for _ in range(rounds))


def client_cpu(base_url: str, keys: int, stock: Path) -> tuple[float, float]:
    """Client CPU per cold call, ms, at CPU_IN_FLIGHT in flight: ours, then stock's."""
    set_faults(base_url, latency_ms=CPU_LATENCY_MS)
    ours = cold_lookups(base_url, CPU_IN_FLIGHT, CPU_LATENCY_MS, keys)
    if ours.failures:
        raise RuntimeError(ours.failures[0])
    domains = [f"cpu-stock-{n}.io" for n in range(keys)]
    _, stock_cpu, _ = cold_stock(base_url, domains, stock, CPU_IN_FLIGHT)
    return ours.cpu_s / keys * 1000, stock_cpu / keys * 1000


def report_cpu(report: Report, ours_ms: float, stock_ms: float, keys: int) -> None:
    name = f"cold_cpu_N{CPU_IN_FLIGHT}_L{CPU_LATENCY_MS:g}ms"
    report.ratio_line(name, ours_ms, "ms/call", stock_ms, CPU_LIMIT_RATIO)
    report.detail(
        _loaded(
            f"{keys} distinct keys, {CPU_IN_FLIGHT} in flight through one Client; the ideal is "
            f"a stock CachedSession's {stock_ms:.3f} ms/call over the same calls, this run"
        )
    )


def report_import(report: Report, rounds: int) -> None:
    ours = import_ms("profnet_sheets.excel.udfs", rounds, before="import xlwings, pandas")
    report.line("import_udfs_own_part", ours, "ms", IMPORT_LIMIT_MS)
    report.detail(_loaded("a new process; xlwings and pandas imported before the clock starts"))
    stock = import_ms("requests_cache", rounds)
    report.info("import_requests_cache_stock", stock, "ms", f"; {load_average()}")
    source = import_ms("profnet_sheets.excel.udfs", rounds, "import xlwings, pandas", False)
    report.info("import_udfs_own_part_from_source", source, "ms", f"; {load_average()}")


def formula_us(base_url: str, cache: Path, calls: int, rounds: int) -> float:
    """Microseconds per warm =PROFNET_COMPANY(cell) on a remembered key (median of rounds)."""
    from profnet_sheets.excel import session, udfs
    from profnet_sheets.excel.session import SessionConfig

    client = make_client(base_url, cache, 4)
    session.install(client, SessionConfig(budget=None))
    udfs.PROFNET_COMPANY([["d1.io"]])
    per_round = []
    for _ in range(rounds):
        started = time.perf_counter()
        for _ in range(calls):
            udfs.PROFNET_COMPANY([["d1.io"]])
        per_round.append((time.perf_counter() - started) / calls * 1e6)
    client.close()
    return statistics.median(per_round)


def formula_stock_us(base_url: str, cache: Path, calls: int, rounds: int) -> float:
    session = _stock_session(cache)
    url = f"{base_url}/{ENDPOINT}"
    session.get(url, params={"domain": "d1.io"}, headers=HEADERS)  # type: ignore[attr-defined]
    per_round = []
    for _ in range(rounds):
        started = time.perf_counter()
        for _ in range(calls):
            session.get(url, params={"domain": "d1.io"}, headers=HEADERS)  # type: ignore[attr-defined]
        per_round.append((time.perf_counter() - started) / calls * 1e6)
    return statistics.median(per_round)


def main() -> None:
    exit_on_sigterm()
    args = make_parser(__doc__, "1,000 rows / 200 keys, fewer rounds (no judging)").parse_args()
    rows_n, unique = (1_000, 200) if args.quick else (ROWS, UNIQUE)
    rounds, calls = (3, 2_000) if args.quick else (7, 20_000)
    rows = make_rows(unique, rows_n)
    domains = [f"d{n}.io" for n in range(unique)]
    bound = unique * LATENCY_S / IN_FLIGHT
    report, errors = Report(), []
    print(machine_line("requests-cache", "polars", load=True))
    print(f"rows {rows_n}, keys {unique}, latency {LATENCY_S * 1000:g} ms, {IN_FLIGHT} in flight")
    with (
        sandbox_process(args.port) as server,
        fresh_dir("money") as ours,
        fresh_dir("stock") as stock,
    ):
        base_url = server.base_url
        set_faults(base_url, latency_ms=LATENCY_S * 1000)
        wall, cpu, credits = cold(base_url, rows.values, ours)
        report.ratio_line("cold_ours", wall, "s", bound, COLD_LIMIT_RATIO)
        report.detail(_loaded(f"credits charged {credits} for {unique} unique keys"))
        stock_wall, stock_cpu, stock_credits = cold_stock(base_url, domains, stock)
        report.info("cold_stock_ratio", stock_wall / bound, "x the bound", f"; {load_average()}")
        report.info("cpu_per_cold_call_ours", cpu / unique * 1000, "ms")
        report.info("cpu_per_cold_call_stock", stock_cpu / unique * 1000, "ms")
        if credits != unique:
            errors.append(f"ours charged {credits} credits for {unique} unique keys")
        set_faults(base_url, latency_ms=0)
        ours_warm = warm(base_url, rows.values, ours, rounds)
        report.info("warm_rerun_ours_seconds", ours_warm, "s", f"; {load_average()}")
        stock_warm = warm_stock(base_url, domains, stock, rounds)
        report.ratio_line("warm_rerun_ours", ours_warm, "s", stock_warm, WARM_LIMIT_RATIO)
        report.detail(
            _loaded(
                f"a new process, enrich() only, beside stock's re-run this run; the issue's "
                f"{WARM_LIMIT_S:g} s where stock took 0.91 s"
            )
        )
        ours_us = formula_us(base_url, ours, calls, rounds)
        report.info("warm_formula_ours_us", ours_us, "us", f"; {load_average()}")
        stock_us = formula_stock_us(base_url, stock, calls // 10, rounds)
        report.ratio_line("warm_formula_ours", ours_us, "us", stock_us, FORMULA_LIMIT_RATIO)
        report.detail(
            _loaded(
                f"=PROFNET_COMPANY(cell) on a remembered key, beside a stock CachedSession hit "
                f"this run; the issue's {FORMULA_LIMIT_US:g} us where a stock hit took 430 us"
            )
        )
        del stock_credits
        report_cpu(report, *client_cpu(base_url, unique, stock), unique)
    report_import(report, rounds)
    report.finish(errors)


if __name__ == "__main__":
    main()
