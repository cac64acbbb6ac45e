"""Every benchmark still runs end to end (--quick): its figures are not judged here, only that
it measures without errors and prints its summary (timings belong in bench/, not in tests)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration
BENCH = Path(__file__).resolve().parents[2] / "bench"
SCRIPTS = sorted(path.name for path in BENCH.glob("*.py") if path.name != "harness.py")


def test_every_benchmark_is_covered_here() -> None:
    assert SCRIPTS == [
        "batch_enrich.py",
        "client_cache.py",
        "excel_udfs.py",
        "lite.py",
        "money_core.py",
        "sandbox_overhead.py",
        "store_threads.py",
        "throughput.py",
    ]


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_benchmark_runs_without_errors(script: str) -> None:
    _runs_without_errors(script, "--quick")


def test_the_team_pace_benchmark_runs_without_errors() -> None:
    """throughput.py's processes on one Redis (a server of its own, as the tests find one)."""
    _runs_without_errors("throughput.py", "--quick", "--processes", "1,2", "--rates", "20")


def test_the_pace_under_faults_benchmark_runs_without_errors() -> None:
    """throughput.py's runs without and with issue 24's fault mix."""
    _runs_without_errors("throughput.py", "--quick", "--faults")


def _runs_without_errors(script: str, *args: str) -> None:
    env = {**os.environ, "PROFNET_QUIET": "1"}
    result = subprocess.run(
        [sys.executable, str(BENCH / script), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=BENCH,
        timeout=600,
        check=False,
    )
    summary = [line for line in result.stdout.splitlines() if line.startswith("summary:")]
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert len(summary) == 1, result.stdout[-3000:]
    assert summary[0].endswith("exit 0")
