"""Benchmark the PROFNET_* formulas in xlwings Lite (Pyodide under Node) beside desktop Python.

1. A warm formula call: =PROFNET_COMPANY(A1) for a company already fetched, repeated: µs per
   call under Pyodide (the Lite function awaited, and through xlwings' dispatcher as Lite
   calls it) beside the desktop UDF in this process (informational: the ratio).
2. A cold range of 50 new keys, sandbox latency 500 ms, the client's in-flight limit 8: under
   Pyodide (the Lite function through the dispatcher, the browser's fetch) and on desktop (the
   UDF, the batch engine's threads), each against the bound 50 / 8 x 0.5 s = 3.125 s, limit
   1.2x; each pays exactly 50 credits. Each runs after an untimed warm-up that fetches one
   key through a range (the imports of a range's path and a paid call's, first connections:
   what an Excel session has done before its first range of new keys).
3. The core wheel (`uv build`): its size, and the time to load Pyodide and to install the
   wheel with its requirements offline (micropip, pure-Python wheels) under Node.
Node with the npm package `pyodide` (tests/pyodide/package.json) is needed; the first run
downloads it and the wheels (kept in ~/.cache/profnet-sheets-tests).
"""

from __future__ import annotations

import http.client
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from harness import (
    API_KEY,
    Report,
    SandboxError,
    Usage,
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

from profnet_sheets import ProfnetError
from profnet_sheets.excel import session, udfs
from profnet_sheets.excel.lite_template import write
from profnet_sheets.excel.session import SessionConfig
from tests.pyodide.harness import HERE, install_pyodide, pure_wheels, run_in_pyodide
from tests.pyodide.test_lite_in_pyodide import XLWINGS
from tests.wheels import build_wheel

KEYS = 50
LATENCY_MS = 500.0
IN_FLIGHT = 8
BOUND_S = KEYS / IN_FLIGHT * LATENCY_MS / 1000  # 3.125 s: the latency-bound time
LIMIT_RATIO = 1.2
PROBE = HERE / "lite_probe.py"


class Pyodide:
    """Pyodide under Node with our wheel and its requirements, running the Lite probe."""

    def __init__(self, dist: Path) -> None:
        self.wheel = build_wheel(dist)
        self.node = install_pyodide()
        self.wheels = pure_wheels(self.wheel, XLWINGS)

    def probe(self, base_url: str, folder: Path, **env: str) -> tuple[dict[str, Any], Any]:
        """The probe's JSON and Node's timings (ms to load Pyodide, to install the wheels)."""
        template = folder / "template"
        if not template.exists():
            write(template)
        told = {
            "PROFNET_LITE_TEMPLATE": str(template),
            "PROFNET_API_KEY": API_KEY,
            "PROFNET_BASE_URL": base_url,
            "PROFNET_CACHE_DIR": str(folder / "cache"),
            "PROFNET_CONCURRENCY": str(IN_FLIGHT),
            "PROFNET_EXCEL_BUDGET": "none",
            "XLWINGS_LICENSE_KEY": "noncommercial",  # xlwings' server module asks (tests only)
            **env,
        }
        os.environ["PYODIDE_TIMINGS"] = "1"
        done = run_in_pyodide(self.node, PROBE, self.wheel, self.wheels, told, folder)
        said: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        return said, json.loads(done.stderr.strip().splitlines()[-1])


def desktop_warm_us(base_url: str, cache: Path, repeat: int) -> float:
    """µs per warm =PROFNET_COMPANY(A1) on desktop (the cell fetched first, untimed)."""
    client = make_client(base_url, cache, IN_FLIGHT)
    session.install(client, SessionConfig(budget=None))
    try:
        udfs.PROFNET_COMPANY([["warm.io"]])
        started = time.perf_counter()
        for _ in range(repeat):
            udfs.PROFNET_COMPANY([["warm.io"]])
        return (time.perf_counter() - started) / repeat * 1e6
    finally:
        session.reset()
        client.close()


def desktop_range(base_url: str, cache: Path, keys: list[str]) -> tuple[float, Usage]:
    """Seconds for =PROFNET_COMPANY over new keys on desktop, and what the server counted."""
    client = make_client(base_url, cache, IN_FLIGHT)
    session.install(client, SessionConfig(budget=None))
    try:
        # untimed: the imports of a range's path and a paid call's, the first connections
        udfs.PROFNET_COMPANY([["warm-up.io"], ["warm-up.io"]], "company_name")
        before = usage(base_url)
        started = time.perf_counter()
        out = udfs.PROFNET_COMPANY([[key] for key in keys], "company_name")
        wall = time.perf_counter() - started
        assert isinstance(out, list), out
        assert len(out) == len(keys), out
        return wall, usage(base_url) - before
    finally:
        session.reset()
        client.close()


def _loaded(text: str) -> str:
    return f"{text}; load average {load_average()}"


def warm(report: Report, pyodide: Pyodide, base_url: str, repeat: int) -> dict[str, Any]:
    with fresh_dir("lite-warm") as folder:
        said, timings = pyodide.probe(
            base_url,
            folder,
            PROFNET_LITE_SCENARIO="warm",
            PROFNET_LITE_KEYS="warm.io",
            PROFNET_REPEAT=str(repeat),
        )
    with fresh_dir("desktop-warm") as cache:
        desktop = desktop_warm_us(base_url, cache, repeat)
    lite = said["warm_us"]
    report.info("warm_call_pyodide_us", lite["function"], "us", "; the Lite function awaited")
    report.info("warm_call_pyodide_dispatcher_us", lite["dispatcher"], "us", "; as Lite calls it")
    report.info("warm_call_desktop_us", desktop, "us", "; the UDF in CPython, this process")
    report.info("warm_call_pyodide_vs_desktop", lite["function"] / desktop, "x")
    report.detail(_loaded(f"{repeat} calls of one cell already fetched, each"))
    return dict(timings)


def cold(report: Report, pyodide: Pyodide, base_url: str) -> None:
    keys = [f"lite-{n}.io" for n in range(KEYS)]
    set_faults(base_url, latency_ms=LATENCY_MS)
    try:
        with fresh_dir("lite-range") as folder:
            before = usage(base_url)
            said, _ = pyodide.probe(
                base_url, folder, PROFNET_LITE_SCENARIO="range", PROFNET_LITE_KEYS=",".join(keys)
            )
            spent = usage(base_url) - before
        with fresh_dir("desktop-range") as cache:
            desktop, desktop_spent = desktop_range(base_url, cache, [f"d-{key}" for key in keys])
    finally:
        set_faults(base_url, latency_ms=0)
    lite = float(said["seconds"])
    report.ratio_line(f"range_{KEYS}_cold_pyodide", lite, "s", BOUND_S, LIMIT_RATIO)
    report.detail(
        _loaded(
            f"=PROFNET_COMPANY over {KEYS} new keys in Pyodide (dispatcher, pyfetch), latency "
            f"{LATENCY_MS:g} ms, in-flight limit {IN_FLIGHT}: ideal {KEYS} / {IN_FLIGHT} x "
            f"{LATENCY_MS / 1000:g} s"
        )
    )
    report.exact("range_credits_pyodide", spent.credits_charged, KEYS + 1, "credits")
    report.detail("the keys, and the untimed warm-up's one key (the desktop's is not counted)")
    report.ratio_line(f"range_{KEYS}_cold_desktop", desktop, "s", BOUND_S, LIMIT_RATIO)
    report.detail(_loaded("the same on desktop (the UDF, the batch engine's threads)"))
    report.exact("range_credits_desktop", desktop_spent.credits_charged, KEYS, "credits")
    report.info("range_pyodide_vs_desktop", lite / desktop, "x")


def main() -> None:
    parser = make_parser(__doc__, "fewer warm calls (smoke run)")
    args = parser.parse_args()
    exit_on_sigterm()
    os.environ["PROFNET_QUIET"] = "1"
    repeat = 200 if args.quick else 2_000
    print(machine_line("requests-cache", "profnet-sheets", load=True, tail="; Pyodide 314.0.7"))
    print(
        "setup: server in its own process (profnet-sheets sandbox); the Lite template's "
        "functions in Pyodide under Node (the core wheel installed offline, xlwings' "
        "dispatcher, the browser's fetch); desktop: the UDFs in this process. OVER = limit missed."
    )
    report = Report()
    errors: list[str] = []
    try:
        with fresh_dir("lite-dist") as dist, sandbox_process(args.port) as server:
            print(f"server: {server.base_url} (pid {server.process.pid})")
            pyodide = Pyodide(dist)
            timings = warm(report, pyodide, server.base_url, repeat)
            cold(report, pyodide, server.base_url)
            size = pyodide.wheel.stat().st_size / 1024
            report.info("core_wheel_kb", size, "KiB", f"; {pyodide.wheel.name}")
            report.info("pyodide_load_ms", timings["load_ms"], "ms", "; Node, the npm package")
            report.info(
                "core_install_ms",
                timings["install_ms"],
                "ms",
                f"; micropip and {len(pyodide.wheels)} wheels with ours, offline",
            )
            errors += server.exit_errors()
    except (
        SandboxError,
        ProfnetError,
        OSError,
        http.client.HTTPException,
        AssertionError,
        pytest.fail.Exception,
    ) as error:
        errors.append(f"{type(error).__name__}: {error}")
    print(f"load at the end: {load_average()}")
    report.finish(errors)


if __name__ == "__main__":
    main()
