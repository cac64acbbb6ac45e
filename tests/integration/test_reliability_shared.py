"""Two processes (think Excel and a notebook) enriching overlapping keys through one cache.

Both start at once on lists whose first 200 keys are the same, in the same order, so that
without claims across processes most of those would be bought twice. Through one SQLite
cache and through one Redis: no error, no "database is locked", and the service charges each
distinct key once.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest
import requests

from profnet_sheets.sandbox import RunningSandbox, start_sandbox

pytestmark = pytest.mark.integration
KEY = "shared-cache-key"
SHARED = [f"shared{i}.io" for i in range(200)]
ONLY = {
    "excel": [f"excel{i}.io" for i in range(100)],
    "notebook": [f"nb{i}.io" for i in range(100)],
}


@pytest.fixture(scope="module")
def sandbox() -> Iterator[RunningSandbox]:
    with start_sandbox(api_keys=(KEY,), credits=1_000_000, seed=5) as running:
        requests.put(
            f"{running.base_url}/_sandbox/faults", json={"latency_ms": 30}, timeout=5
        ).raise_for_status()
        yield running


def _enrich_at_once(sandbox: RunningSandbox, cache: str, work: Path) -> dict[str, pl.DataFrame]:
    """Both processes' enrich commands, started together; their outputs."""
    requests.post(f"{sandbox.base_url}/_sandbox/reset", timeout=5).raise_for_status()
    env = {
        **os.environ,
        "PROFNET_API_KEY": KEY,
        "PROFNET_BASE_URL": sandbox.base_url,
        "PROFNET_CACHE": cache,
        "PROFNET_CACHE_DIR": str(work / "cache-dir"),
        "PROFNET_QUIET": "1",
    }
    processes = {}
    for name, own in ONLY.items():
        source = work / f"{name}.csv"
        pl.DataFrame({"domain": SHARED + own}).write_csv(source)
        processes[name] = subprocess.Popen(
            [sys.executable, "-m", "profnet_sheets", "enrich", str(source), "--column",
             "domain", "--kind", "company", "--out", str(work / f"{name}.parquet"),
             "--concurrency", "8", "--yes"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
    outputs = {}
    for name, process in processes.items():
        _, stderr = process.communicate(timeout=120)
        assert process.returncode == 0, stderr
        assert "locked" not in stderr.lower(), stderr
        outputs[name] = pl.read_parquet(work / f"{name}.parquet")
    return outputs


def _check(outputs: dict[str, pl.DataFrame], sandbox: RunningSandbox) -> None:
    for name, out in outputs.items():
        assert out.height == len(SHARED) + len(ONLY[name])
        assert out["company_error"].null_count() == out.height, "every row has its company"
        assert out["company_name"].null_count() == 0
    distinct = len(SHARED) + sum(len(own) for own in ONLY.values())
    calls, credits = sandbox.calls(KEY, "get-company-details"), sandbox.charged(KEY)
    assert (calls, credits) == (distinct, distinct), (
        f"{calls - distinct} keys were bought twice by the racing processes"
    )


def test_two_processes_on_one_sqlite_cache_pay_each_key_once(
    sandbox: RunningSandbox, tmp_path: Path
) -> None:
    outputs = _enrich_at_once(sandbox, str(tmp_path / "shared-cache"), tmp_path)
    _check(outputs, sandbox)


def test_two_processes_on_one_redis_cache_pay_each_key_once(
    sandbox: RunningSandbox, tmp_path: Path, redis_url: str
) -> None:
    outputs = _enrich_at_once(sandbox, redis_url, tmp_path)
    _check(outputs, sandbox)
