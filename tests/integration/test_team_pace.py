"""Three processes ("machines": their own cache folders) on one Redis and one key go at one pace:
a sandbox limit of 20 calls/s the clients are not told, keys with heavy overlap between them.
Each key is paid once; together they keep to the limit (>= 0.9 of the bound) with few 429s.
(The issue's 2,000 keys scaled down to 480 distinct ones, the overlap kept.)"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from profnet_sheets.sandbox import RunningSandbox, start_sandbox

pytestmark = pytest.mark.integration
KEY = "team-pace-key"
LIMIT = 20.0
SHARED = [f"team{i}.io" for i in range(300)]  # every process has these...
OWN = 60  # ...and this many of its own
PROCESSES = 3
LATENCY_MS, JITTER_MS = 100, 100

# One process: its client made and its keys read before the go (imports are not the pace's),
# then one enrichment; it prints when it began and ended (wall clock: one machine here).
WORKER = """
import json, sys, time
import polars as pl
from profnet_sheets import Client
from profnet_sheets.batch import enrich
base_url, cache, cache_dir, keys_file = sys.argv[1:5]
keys = json.loads(open(keys_file).read())
client = Client(api_key=sys.argv[5], base_url=base_url, cache=cache, cache_dir=cache_dir)
print("ready", flush=True)
sys.stdin.readline()
began = time.time()
out = enrich(pl.DataFrame({"site": keys}), "site", "company", client=client, progress=False)
ended = time.time()
core = client.pace.core
client.close()
print(json.dumps({"began": began, "ended": ended, "errors": out["company_error"].null_count(),
                  "rows": out.height, "known": core.known, "remeasured": core.remeasured}),
      flush=True)
"""


@pytest.fixture(scope="module")
def sandbox() -> Iterator[RunningSandbox]:
    with start_sandbox(api_keys=(KEY,), credits=1_000_000, seed=7) as running:
        yield running


def _keys(name: int) -> list[str]:
    """A process's keys: the shared ones and its own, in an order of its own."""
    keys = SHARED + [f"own{name}-{i}.io" for i in range(OWN)]
    random.Random(name).shuffle(keys)
    return keys


def test_three_processes_on_one_redis_go_at_one_pace(
    sandbox: RunningSandbox, tmp_path: Path, redis_url: str
) -> None:
    requests.post(f"{sandbox.base_url}/_sandbox/reset", timeout=5).raise_for_status()
    requests.put(
        f"{sandbox.base_url}/_sandbox/faults",
        json={
            "rate_limit": LIMIT,
            "limit_retry_after": True,
            "latency_ms": LATENCY_MS,
            "latency_jitter_ms": JITTER_MS,
        },
        timeout=5,
    ).raise_for_status()
    env = {**os.environ, "PROFNET_QUIET": "1"}
    workers = []
    for name in range(PROCESSES):
        keys_file = tmp_path / f"keys{name}.json"
        keys_file.write_text(json.dumps(_keys(name)), encoding="utf-8")
        machine = tmp_path / f"machine{name}"
        args = [sandbox.base_url, redis_url, str(machine), str(keys_file), KEY]
        workers.append(
            subprocess.Popen(
                [sys.executable, "-c", WORKER, *args],
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    for worker in workers:
        assert worker.stdout is not None
        assert worker.stdout.readline().strip() == "ready", worker.communicate(timeout=30)[1]
    for worker in workers:  # all at once
        assert worker.stdin is not None
        worker.stdin.write("go\n")
        worker.stdin.flush()
    reports = []
    for worker in workers:
        out, err = worker.communicate(timeout=180)
        assert worker.returncode == 0, err
        reports.append(json.loads(out.strip().splitlines()[-1]))
    assert all(report["errors"] == report["rows"] for report in reports), "every row enriched"
    distinct = len(SHARED) + PROCESSES * OWN
    counted = sandbox.counted("get-company-details", KEY)
    assert counted["credits"] == distinct, "each key paid once, by one of the processes"
    wall = max(r["ended"] for r in reports) - min(r["began"] for r in reports)
    bound = distinct / LIMIT + (LATENCY_MS + JITTER_MS) / 1000
    ratio, refused = bound / wall, counted["errors"] / counted["calls"]
    print(
        f"team pace: {counted['calls']} calls, {counted['errors']} 429s ({refused:.1%}), "
        f"{ratio:.2f} of the bound ({wall:.1f} s for {bound:.1f} s); learnt "
        + ", ".join(f"{r['known']:.1f}/s (measured again {r['remeasured']}x)" for r in reports)
        + f"; load {os.getloadavg()}"
    )
    assert refused <= 0.02, f"{counted['errors']} of {counted['calls']} calls answered 429"
    assert ratio >= 0.9, f"together {ratio:.2f} of the bound ({wall:.1f} s for {bound:.1f} s)"
