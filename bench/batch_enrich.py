"""Benchmark enrich() on a 10,000-row column against the sandbox: cold, naive, warm, and big.

1. Cold: 10,000 rows holding 2,000 unique domains (shuffled, 5 rows each, some in messy variants
   such as `https://www.dN.io/about` or `WWW.DN.IO`), sandbox latency 50 ms, 16 workers, run
   in-process with enrich(): within 1.2x of the latency-bound limit 2,000 x 50 ms / 16 = 6.25 s,
   and the server charges exactly 2,000 credits. Informational: the same through the CLI.
2. Against a naive loop, one plain requests.get per row (no cache, no dedupe, one thread, the
   same latency), timed on a sample and extrapolated to 10,000 rows: naive / enrich (higher is
   better; no limit) and the credits each spends.
3. Warm: the same rows again in a NEW process (the CLI on the same cache directory): the enrich
   work under 1 s, i.e. the subprocess wall time minus the interpreter start-up (measured apart as
   `python -c "import profnet_sheets.cli, ..."`, the modules an enrich command imports); the
   server charges nothing more.
4. Big: a 2,000,000-row CSV with 1,000 unique keys through the CLI, CSV -> Parquet (the streaming
   path), latency 0: wall time and that child's peak RSS; the output holds every row.
"""

from __future__ import annotations

import cProfile
import http.client
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import requests
from harness import (
    API_KEY,
    ENDPOINT,
    HEADERS,
    Report,
    SandboxError,
    Server,
    Usage,
    exit_on_sigterm,
    fresh_dir,
    load_average,
    machine_line,
    make_client,
    make_parser,
    print_profile,
    sandbox_process,
    set_faults,
    usage,
)

from profnet_sheets import ProfnetError
from profnet_sheets.batch import enrich

ROWS = 10_000
UNIQUE = 2_000
LATENCY_MS = 50.0
WORKERS = 16
IDEAL_COLD_S = UNIQUE * LATENCY_MS / 1000 / WORKERS  # 6.25 s: the latency-bound limit
COLD_LIMIT_RATIO = 1.2  # the issue: "within 1.2x of the latency-bound limit"
WARM_LIMIT_S = 1.0  # the issue: "a re-run in a new process ... under 1 s"
BIG_UNIQUE = 1_000
MESSY_SHARE = 0.4  # rows written in a messy variant of their domain
CHILD_TIMEOUT_S = 1800.0
PROFILE_LINES = 22


class ChildError(RuntimeError):
    """A subprocess (the CLI) failed."""


# -- inputs and CLI commands --------------------------------------------------------------------


@dataclass(frozen=True)
class Rows:
    """The cold/warm input: each row's cell value and the number N of the domain dN.io it names."""

    values: list[str]
    domain_of: list[int]

    @property
    def messy(self) -> int:
        return sum(
            value != f"d{n}.io" for value, n in zip(self.values, self.domain_of, strict=True)
        )

    def frame(self) -> pl.DataFrame:
        return pl.DataFrame({"row": range(len(self.values)), "domain": self.values})


def make_rows(unique: int, rows: int, seed: int = 20240501) -> Rows:
    """`unique` domains, each on rows // unique rows (shuffled); MESSY_SHARE in messy variants."""
    rng = random.Random(seed)
    variants = (
        lambda n: f"https://www.d{n}.io/about",
        lambda n: f"WWW.D{n}.IO",
        lambda n: f"http://d{n}.io/",
        lambda n: f"  d{n}.io ",
        lambda n: f"D{n}.io",
    )
    numbers = [n for n in range(unique) for _ in range(rows // unique)]
    rng.shuffle(numbers)
    values = [
        rng.choice(variants)(n) if rng.random() < MESSY_SHARE else f"d{n}.io" for n in numbers
    ]
    return Rows(values, numbers)


def cli_env(base_url: str, cache: Path, config: Path) -> dict[str, str]:
    """This environment without PROFNET_* settings, plus the CLI's key, URL and cache."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("PROFNET_")}
    env.update(
        PROFNET_API_KEY=API_KEY,
        PROFNET_BASE_URL=base_url,
        PROFNET_CACHE_DIR=str(cache),
        PROFNET_QUIET="1",
        PROFNET_CONFIG=str(config),  # a file that does not exist: no user config applies
    )
    return env


def enrich_command(source: Path, target: Path, *, profile_to: Path | None = None) -> list[str]:
    profiled = ["-m", "cProfile", "-o", str(profile_to)] if profile_to is not None else []
    return [
        sys.executable,
        *profiled,
        "-m",
        "profnet_sheets",
        "enrich",
        str(source),
        "--column",
        "domain",
        "--kind",
        "company",
        "--out",
        str(target),
        "--concurrency",
        str(WORKERS),
        "--yes",
    ]


# -- subprocesses, with their own rusage --------------------------------------------------------


@dataclass
class Child:
    """One finished subprocess: wall time, its own rusage (os.wait4), what it said on stderr."""

    wall_s: float
    returncode: int
    maxrss_kib: int  # Linux: ru_maxrss in KiB, of this child alone
    cpu_s: float
    stderr: str

    @property
    def maxrss_mib(self) -> float:
        return self.maxrss_kib / 1024

    def cli_seconds(self) -> float | None:
        """The time the CLI itself printed (`...; 1.2 s. Written to ...`), 0.1 s resolution."""
        found = re.search(r"credits spent; ([0-9.]+) s\. Written", self.stderr)
        return float(found.group(1)) if found else None

    def cli_credits(self) -> int | None:
        found = re.search(r"; ([0-9]+) credits spent;", self.stderr)
        return int(found.group(1)) if found else None

    def stderr_lines(self) -> list[str]:
        """What it said on stderr, without progress-bar frames."""
        lines = (line.strip() for line in self.stderr.splitlines())
        return [line for line in lines if line and "%|" not in line]


def run_child(command: Sequence[str], env: dict[str, str] | None = None) -> Child:
    """Run `command`, reap it with os.wait4 (its rusage alone); kill it on CHILD_TIMEOUT_S.

    The child may write bytecode caches (PYTHONDONTWRITEBYTECODE is dropped), as an installed
    package has them: otherwise every child compiles every module it imports (~1.5 s here).
    """
    env = dict(os.environ if env is None else env)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen(
            list(command), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, env=env
        )
        watchdog = threading.Timer(CHILD_TIMEOUT_S, process.kill)
        watchdog.start()
        try:
            _, status, rusage = os.wait4(process.pid, 0)
            wall = time.perf_counter() - started
            process.returncode = os.waitstatus_to_exitcode(status)  # reaped: tell Popen
        finally:
            watchdog.cancel()
            if process.returncode is None:  # interrupted while waiting
                process.kill()
                process.wait(timeout=10)
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
    return Child(
        wall,
        process.returncode,
        int(rusage.ru_maxrss),
        rusage.ru_utime + rusage.ru_stime,
        text,
    )


def checked(child: Child, what: str) -> Child:
    if child.returncode != 0:
        tail = "\n".join(child.stderr_lines()[-8:])
        raise ChildError(f"{what}: exit {child.returncode}\n{tail}")
    return child


@dataclass
class Startup:
    runs: list[Child]

    @property
    def median_s(self) -> float:
        return statistics.median(child.wall_s for child in self.runs)

    @property
    def maxrss_mib(self) -> float:
        return statistics.median(child.maxrss_mib for child in self.runs)


STARTUP_IMPORTS = (
    "import profnet_sheets.cli, profnet_sheets.batch.engine, profnet_sheets.client.client"
)


def measure_startup(count: int) -> Startup:
    """Interpreter start and the imports an enrich command loads (the CLI loads the engine and
    the client lazily, inside the command), then exit."""
    command = [sys.executable, "-c", STARTUP_IMPORTS]
    checked(run_child(command), "start-up")  # once unmeasured: file system caches warm
    return Startup([checked(run_child(command), "start-up") for _ in range(count)])


# -- 1. cold, in-process ------------------------------------------------------------------------


@dataclass
class Cold:
    wall_s: float
    cpu_s: float  # this process (main thread + the 16 workers)
    server_cpu_s: float | None
    build_s: float  # constructing the Client (not in wall_s)
    server: Usage
    out_rows: int
    same_order: bool
    errors: int
    consistent: int  # domains whose rows (all variants) got one and the same company
    distinct_companies: int
    raw_distinct: int


def cold_enrich(server: Server, rows: Rows, cache: Path) -> Cold:
    """enrich() on the rows, one new Client on `cache` (empty), WORKERS workers."""
    frame = rows.frame()
    started = time.perf_counter()
    with make_client(server.base_url, cache, WORKERS) as client:
        build = time.perf_counter() - started
        before = usage(server.base_url)
        server_cpu = server.cpu_seconds()
        cpu_start = time.process_time()
        start = time.perf_counter()
        out: pl.DataFrame = enrich(
            frame, "domain", "company", client=client, concurrency=WORKERS, progress=False
        )
        wall = time.perf_counter() - start
        cpu = time.process_time() - cpu_start
        server_after = server.cpu_seconds()
        spent = usage(server.base_url) - before
    server_cpu_s = None if server_cpu is None or server_after is None else server_after - server_cpu
    return _cold_result(out, rows, wall, cpu, server_cpu_s, build, spent)


def _cold_result(
    out: pl.DataFrame,
    rows: Rows,
    wall: float,
    cpu: float,
    server_cpu: float | None,
    build: float,
    spent: Usage,
) -> Cold:
    checked_frame = out.with_columns(pl.Series("n", rows.domain_of))
    per_domain = checked_frame.group_by("n").agg(
        pl.col("company_profnet_url").n_unique().alias("companies"),
        pl.col("company_profnet_url").null_count().alias("nulls"),
        pl.col("company_profnet_url").first().alias("url"),
    )
    consistent = per_domain.filter((pl.col("companies") == 1) & (pl.col("nulls") == 0))
    return Cold(
        wall_s=wall,
        cpu_s=cpu,
        server_cpu_s=server_cpu,
        build_s=build,
        server=spent,
        out_rows=out.height,
        same_order=out["domain"].to_list() == rows.values,
        errors=int(out["company_error"].is_not_null().sum()),
        consistent=consistent.height,
        distinct_companies=int(consistent["url"].n_unique()),
        raw_distinct=len(set(rows.values)),
    )


# -- 2. the naive loop --------------------------------------------------------------------------


@dataclass
class Naive:
    sample: int
    wall_s: float
    server: Usage
    failures: int

    @property
    def per_row_ms(self) -> float:
        return self.wall_s / self.sample * 1000

    def extrapolated_s(self, rows: int) -> float:
        return self.wall_s / self.sample * rows

    def extrapolated_credits(self, rows: int) -> float:
        return self.server.credits_charged / self.sample * rows


def naive_loop(base_url: str, values: list[str]) -> Naive:
    """One plain requests.get per row, the cell as it is: no cache, no dedupe, one thread."""
    url = f"{base_url}/{ENDPOINT}"
    failures = 0
    before = usage(base_url)
    start = time.perf_counter()
    for value in values:
        response = requests.get(url, params={"domain": value}, headers=HEADERS, timeout=30)
        response.json()
        failures += response.status_code != 200
    wall = time.perf_counter() - start
    return Naive(len(values), wall, usage(base_url) - before, failures)


# -- 3. warm, a new process ---------------------------------------------------------------------


@dataclass
class Warm:
    runs: list[Child]
    server: Usage
    out_rows: int

    @property
    def median_s(self) -> float:
        return statistics.median(child.wall_s for child in self.runs)


def warm_cli(base_url: str, source: Path, cache: Path, work: Path, count: int) -> Warm:
    """`count` CLI runs on the primed `cache`, each a new process; what the server charged."""
    env = cli_env(base_url, cache, work / "no-config.toml")
    target = work / "warm.parquet"
    before = usage(base_url)
    runs = [
        checked(run_child(enrich_command(source, target), env), "warm CLI enrich")
        for _ in range(count)
    ]
    spent = usage(base_url) - before
    rows = int(pl.scan_parquet(target).select(pl.len()).collect().item())
    return Warm(runs, spent, rows)


@dataclass
class ColdCli:
    child: Child
    server: Usage
    out_rows: int
    errors: int


def cold_cli(base_url: str, source: Path, cache: Path, work: Path) -> ColdCli:
    env = cli_env(base_url, cache, work / "no-config.toml")
    target = work / "cold.parquet"
    before = usage(base_url)
    child = checked(run_child(enrich_command(source, target), env), "cold CLI enrich")
    spent = usage(base_url) - before
    counts = (
        pl.scan_parquet(target)
        .select(pl.len(), pl.col("company_error").is_not_null().sum())
        .collect()
        .row(0)
    )
    return ColdCli(child, spent, int(counts[0]), int(counts[1]))


# -- 4. the big file ----------------------------------------------------------------------------


@dataclass
class Big:
    rows: int
    csv_mib: float
    write_s: float
    child: Child
    server: Usage
    out_rows: int
    errors: int
    in_order: bool
    parquet_mib: float


def write_big_csv(path: Path, rows: int) -> float:
    """id, domain (BIG_UNIQUE keys, spread), segment, amount: ~25 bytes a row. Seconds taken."""
    start = time.perf_counter()
    ids = pl.int_range(rows, eager=True, dtype=pl.Int64).alias("id")
    pl.DataFrame([ids]).with_columns(
        pl.format("big{}.io", (pl.col("id") * 7919) % BIG_UNIQUE).alias("domain"),
        pl.format("seg-{}", pl.col("id") % 37).alias("segment"),
        ((pl.col("id") % 100_000) / 100).alias("amount"),
    ).write_csv(path)
    return time.perf_counter() - start


def big_file(base_url: str, rows: int, work: Path, cache: Path) -> Big:
    source = work / "big.csv"
    target = work / "big-enriched.parquet"
    write_s = write_big_csv(source, rows)
    env = cli_env(base_url, cache, work / "no-config.toml")
    before = usage(base_url)
    child = checked(run_child(enrich_command(source, target), env), "big CLI enrich")
    spent = usage(base_url) - before
    counts = (
        pl.scan_parquet(target)
        .select(
            pl.len(),
            pl.col("company_error").is_not_null().sum(),
            (pl.col("id").cast(pl.Int64) == pl.int_range(pl.len())).all(),
        )
        .collect(engine="streaming")
        .row(0)
    )
    return Big(
        rows,
        source.stat().st_size / 2**20,
        write_s,
        child,
        spent,
        int(counts[0]),
        int(counts[1]),
        bool(counts[2]),
        target.stat().st_size / 2**20,
    )


# -- profiles (--profile) -----------------------------------------------------------------------


def profile_cold(server: Server, rows: Rows) -> None:
    """cProfile one more cold enrich(): the main thread by cumulative time (the phases), the
    worker threads by own time (waiting on the socket shows as recv_into/poll)."""
    workers: list[cProfile.Profile] = []
    lock = threading.Lock()

    def start_in_thread(*_: object) -> None:  # the first profile event of each new thread
        profiler = cProfile.Profile()
        with lock:
            workers.append(profiler)
        profiler.enable()  # replaces this function as the thread's profiler

    frame = rows.frame()
    main = cProfile.Profile()
    with fresh_dir("prof-cold") as cache, make_client(server.base_url, cache, WORKERS) as client:
        threading.setprofile(start_in_thread)
        main.enable()
        try:
            enrich(frame, "domain", "company", client=client, concurrency=WORKERS, progress=False)
        finally:
            main.disable()
            threading.setprofile(None)
    print_profile(
        "cold enrich(), main thread (sorted by cumulative time; distorted by the profiler)",
        [main],
        "cumulative",
        PROFILE_LINES,
    )
    if workers:
        print_profile(
            f"cold enrich(), {len(workers)} worker threads (sorted by own time)",
            workers,
            "tottime",
            PROFILE_LINES,
        )


def profile_warm(base_url: str, source: Path, cache: Path, work: Path) -> None:
    """The warm CLI run once more under `python -m cProfile` (start-up imports included)."""
    dump = work / "warm.prof"
    env = cli_env(base_url, cache, work / "no-config.toml")
    command = enrich_command(source, work / "warm-prof.parquet", profile_to=dump)
    child = checked(run_child(command, env), "profiled warm CLI enrich")
    print_profile(
        f"warm CLI run, a new process ({child.wall_s:.2f} s under the profiler; sorted by "
        "cumulative time; <module>/_find_and_load lines are imports)",
        [str(dump)],
        "cumulative",
        PROFILE_LINES,
    )


# -- report -------------------------------------------------------------------------------------


def _walls(children: list[Child]) -> str:
    return ", ".join(f"{child.wall_s:.3f}" for child in children) + " s"


def report_startup(report: Report, startup: Startup) -> None:
    report.info("startup_s", startup.median_s, "s", "; subtracted from the CLI wall times below")
    report.detail(
        f'median of {len(startup.runs)} runs of {Path(sys.executable).name} -c "'
        f'{STARTUP_IMPORTS}" (interpreter start, the imports of an enrich command incl. polars, '
        f"requests and requests-cache, exit; bytecode caches allowed, after 1 unmeasured run): "
        f"{_walls(startup.runs)}; peak RSS "
        f"{startup.maxrss_mib:.0f} MiB"
    )


def report_cold(report: Report, cold: Cold) -> None:
    report.ratio_line(f"cold_enrich_{ROWS}_rows", cold.wall_s, "s", IDEAL_COLD_S, COLD_LIMIT_RATIO)
    server_cpu = "n/a" if cold.server_cpu_s is None else f"{cold.server_cpu_s:.2f} s"
    report.detail(
        f"enrich(frame, 'domain', 'company', client=..., concurrency={WORKERS}) in this process, "
        f"a new Client(concurrency={WORKERS}) on an empty cache directory; {ROWS} rows, "
        f"{cold.raw_distinct} distinct cell values ({UNIQUE} domains, {MESSY_SHARE:.0%} of rows in "
        f"messy variants), latency {LATENCY_MS:g} ms; ideal {UNIQUE} x {LATENCY_MS:g} ms / "
        f"{WORKERS} = {IDEAL_COLD_S:g} s"
    )
    report.detail(
        f"CPU during the call: this process {cold.cpu_s:.2f} s "
        f"({cold.cpu_s / cold.wall_s:.0%} of the wall time), the sandbox process {server_cpu}; "
        f"{os.cpu_count()} CPUs; building the Client (not counted) {cold.build_s * 1000:.1f} ms"
    )
    report.exact("cold_enrich_credits", cold.server.credits_charged, UNIQUE, "credits")
    report.detail(
        f"server /_sandbox/usage during the call: {cold.server.calls} {ENDPOINT} calls, "
        f"{cold.server.errors} errors, {cold.server.credits_charged} credits charged"
    )
    report.exact(
        "cold_enrich_domains_consistent", cold.consistent, UNIQUE, "domains", informational=True
    )
    report.detail(
        f"domains whose rows (every variant) all got one and the same company, no error; "
        f"{cold.distinct_companies} distinct companies; output {cold.out_rows} rows, input order "
        f"{'kept' if cold.same_order else 'NOT kept'}, {cold.errors} rows with an error"
    )


def report_naive(report: Report, naive: Naive, cold: Cold) -> None:
    extrapolated = naive.extrapolated_s(ROWS)
    report.info(
        f"naive_vs_enrich_{ROWS}_rows",
        extrapolated / cold.wall_s,
        "x",
        "; higher is better",
    )
    report.detail(
        f"= naive loop {extrapolated:.1f} s (extrapolated) / enrich {cold.wall_s:.3f} s (cold, "
        f"above); naive: one plain requests.get per row, the cell as it is (no cache, no "
        f"dedupe, one thread, a new connection each), latency {LATENCY_MS:g} ms, timed on the "
        f"first {naive.sample} rows: {naive.wall_s:.2f} s = {naive.per_row_ms:.1f} ms/row, x "
        f"{ROWS // naive.sample}; {naive.failures} non-200 answers"
    )
    report.info(
        f"naive_credits_{ROWS}_rows",
        naive.extrapolated_credits(ROWS),
        "credits",
        f"; enrich was charged {cold.server.credits_charged}",
    )
    report.detail(
        f"= the server charged {naive.server.credits_charged} credits for the {naive.sample}-row "
        f"sample ({naive.server.calls} calls), x {ROWS // naive.sample}: every row is paid, "
        f"duplicates and messy variants included"
    )


def report_warm(report: Report, warm: Warm, startup: Startup) -> None:
    work = warm.median_s - startup.median_s
    report.line("warm_cli_enrich_work_s", work, "s", WARM_LIMIT_S)
    report.detail(
        f"= CLI subprocess wall (median of {len(warm.runs)}: {_walls(warm.runs)}) "
        f"{warm.median_s:.3f} s - start-up (above) {startup.median_s:.3f} s; a NEW process "
        f"each run, `-m profnet_sheets enrich rows.csv --column domain --kind company --out "
        f"warm.parquet --concurrency {WORKERS} --yes` on the cold run's cache directory "
        f"(answers from SQLite); latency still {LATENCY_MS:g} ms"
    )
    printed = [child.cli_seconds() for child in warm.runs]
    report.detail(
        f"the CLI's own printed time (from its enrich command's start, after the imports; "
        f"0.1 s resolution): {', '.join('n/a' if s is None else f'{s:.1f}' for s in printed)} s; "
        f"child CPU {statistics.median(c.cpu_s for c in warm.runs):.2f} s, peak RSS "
        f"{statistics.median(c.maxrss_mib for c in warm.runs):.0f} MiB; output {warm.out_rows} rows"
    )
    report.line("warm_cli_total_s", warm.median_s, "s", WARM_LIMIT_S, informational=True)
    report.detail("the same median with the start-up included (what a user waits for)")
    report.exact("warm_cli_credits", warm.server.credits_charged, 0, "credits")
    report.detail(
        f"server /_sandbox/usage over the {len(warm.runs)} warm runs: {warm.server.calls} "
        f"{ENDPOINT} calls, {warm.server.credits_charged} credits; the CLI said: "
        f"{warm.runs[-1].stderr_lines()[0] if warm.runs[-1].stderr_lines() else '(nothing)'}"
    )


def report_cold_cli(report: Report, run: ColdCli, startup: Startup) -> None:
    child = run.child
    report.ratio_line(
        f"cold_cli_{ROWS}_rows",
        child.wall_s - startup.median_s,
        "s",
        IDEAL_COLD_S,
        COLD_LIMIT_RATIO,
        informational=True,
    )
    printed = child.cli_seconds()
    report.detail(
        f"= the CLI in a new process on an empty cache directory (rows.csv -> cold.parquet): "
        f"wall {child.wall_s:.3f} s - start-up {startup.median_s:.3f} s; its own printed time "
        f"{'n/a' if printed is None else f'{printed:.1f} s'}; child CPU {child.cpu_s:.2f} s, "
        f"peak RSS {child.maxrss_mib:.0f} MiB; output {run.out_rows} rows, {run.errors} errors"
    )
    report.exact(
        "cold_cli_credits", run.server.credits_charged, UNIQUE, "credits", informational=True
    )


def report_big(report: Report, big: Big, startup: Startup) -> None:
    child = big.child
    report.info(f"big_cli_{big.rows}_rows_wall_s", child.wall_s, "s")
    report.detail(
        f"`-m profnet_sheets enrich big.csv --column domain --kind company --out "
        f"big-enriched.parquet --concurrency {WORKERS} --yes` (CSV -> Parquet: the streaming "
        f"path), latency 0, empty cache; {big.rows} rows, {BIG_UNIQUE} unique keys, CSV "
        f"{big.csv_mib:.1f} MiB (written by polars in {big.write_s:.2f} s); wall minus start-up "
        f"{child.wall_s - startup.median_s:.3f} s; {big.rows / child.wall_s / 1e6:.2f} M "
        f"rows/s over the whole wall time; its own printed time "
        f"{'n/a' if child.cli_seconds() is None else f'{child.cli_seconds():.1f} s'}; child CPU "
        f"{child.cpu_s:.2f} s"
    )
    report.info(f"big_cli_{big.rows}_rows_peak_rss", child.maxrss_mib, "MiB")
    report.detail(
        f"ru_maxrss of that child alone (os.wait4); the start-up alone peaks at "
        f"{startup.maxrss_mib:.0f} MiB; the CSV is {big.csv_mib:.1f} MiB, the Parquet written "
        f"{big.parquet_mib:.1f} MiB"
    )
    report.exact(f"big_cli_{big.rows}_rows_out", big.out_rows, big.rows, "rows", informational=True)
    report.detail(
        f"rows in the Parquet written; {big.errors} with an error; ids in input order: "
        f"{'yes' if big.in_order else 'NO'}"
    )
    report.exact(
        "big_cli_credits", big.server.credits_charged, BIG_UNIQUE, "credits", informational=True
    )
    lines = child.stderr_lines()
    if lines:
        report.detail(f"the CLI said: {' / '.join(lines[-2:])}")


def main() -> None:
    parser = make_parser(__doc__, "smaller samples (smoke run)")
    parser.add_argument(
        "--profile", action="store_true", help="also cProfile a cold and a warm run (afterwards)"
    )
    parser.add_argument("--no-big", action="store_true", help="skip the big-file run")
    args = parser.parse_args()
    exit_on_sigterm()
    os.environ["PROFNET_QUIET"] = "1"
    naive_n, big_rows, warm_runs, startup_runs = (
        (50, 200_000, 2, 3) if args.quick else (200, 2_000_000, 3, 5)
    )

    print(machine_line("polars", "requests-cache", "profnet-sheets", load=True))
    print(
        f"setup: server in its own process (profnet-sheets sandbox); each measurement on a fresh "
        f"temporary cache directory (the warm runs reuse the cold one's); {ROWS} rows / {UNIQUE} "
        f"domains, latency {LATENCY_MS:g} ms, {WORKERS} workers; naive sample {naive_n} rows; "
        f"warm {warm_runs} runs; big file {big_rows} rows / {BIG_UNIQUE} keys at latency 0. "
        f"OVER = the limit is missed."
    )
    report = Report()
    errors: list[str] = []
    rows = make_rows(UNIQUE, ROWS)
    try:
        with sandbox_process(args.port) as server, fresh_dir("work") as work:
            base = server.base_url
            print(f"server: {base} (pid {server.process.pid})")
            source = work / "rows.csv"
            rows.frame().write_csv(source)
            startup = measure_startup(startup_runs)
            report_startup(report, startup)

            set_faults(base, latency_ms=LATENCY_MS)
            try:
                with fresh_dir("cold") as cache:
                    cold = cold_enrich(server, rows, cache)
                    report_cold(report, cold)
                    warm = warm_cli(base, source, cache, work, warm_runs)
                    naive = naive_loop(base, rows.values[:naive_n])
                    errors += [f"naive loop: {naive.failures} non-200"] if naive.failures else []
                    report_naive(report, naive, cold)
                    report_warm(report, warm, startup)
                    if args.profile:
                        profile_warm(base, source, cache, work)
                with fresh_dir("cold-cli") as cache:
                    report_cold_cli(report, cold_cli(base, source, cache, work), startup)
                if args.profile:
                    profile_cold(server, rows)
            finally:
                set_faults(base, latency_ms=0)

            if not args.no_big:
                with fresh_dir("big") as cache:
                    report_big(report, big_file(base, big_rows, work, cache), startup)
            errors += server.exit_errors()
    except (
        SandboxError,
        ChildError,
        ProfnetError,
        OSError,
        http.client.HTTPException,
        pl.exceptions.PolarsError,
    ) as error:
        errors.append(f"{type(error).__name__}: {error}")

    print(f"load at the end: {load_average()}")
    report.finish(errors)


if __name__ == "__main__":
    main()
