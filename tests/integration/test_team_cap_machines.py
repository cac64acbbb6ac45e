"""Three "machines" (processes with their own cache and config folders) on one Redis and one
API key: a team cap holds for all of them together, and a Redis that dies under them loses
nothing that was paid."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest
import redis
import requests

from profnet_sheets.client.account import service_name
from profnet_sheets.client.ledger import Ledger
from profnet_sheets.client.team_ledger import TeamLedger
from profnet_sheets.sandbox import RunningSandbox, start_sandbox

from ..conftest import RedisServer
from .conftest import CLI, cli_env

pytestmark = pytest.mark.integration
KEY = "team-key"
MACHINES = ("laptop-ana", "notebook-server", "nightly-job")


@pytest.fixture
def sandbox() -> Iterator[RunningSandbox]:
    with start_sandbox(api_keys=(KEY,), credits=1_000_000, job_seconds=0.0, seed=9) as running:
        yield running


def _start_machines(
    sandbox: RunningSandbox, cache: str, work: Path, rows: int, cap: str, concurrency: int
) -> dict[str, subprocess.Popen[str]]:
    """Each machine's `enrich` of `rows` domains of its own, started at once, on the Redis
    `cache` with the spending cap `cap`."""
    started = {}
    for machine in MACHINES:
        home = work / machine
        home.mkdir(parents=True)
        source = home / "in.csv"
        pl.DataFrame({"domain": [f"{machine}-{n}.io" for n in range(rows)]}).write_csv(source)
        env = cli_env(sandbox.base_url, KEY, home)
        env.update(
            PROFNET_CACHE=cache,
            PROFNET_SPENDING_CAP=cap,
            PROFNET_MACHINE=machine,
            PROFNET_QUIET="1",
        )
        started[machine] = subprocess.Popen(
            [*CLI, "enrich", str(source), "--column", "domain", "--kind", "company",
             "--out", str(home / "out.csv"), "--concurrency", str(concurrency), "--yes"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
    return started


def _preview(process: subprocess.Popen[str]) -> str:
    """The first line a machine says: its run's cost, once it opened the Redis (to spend)."""
    assert process.stderr is not None
    return process.stderr.readline()


def _ended(started: dict[str, subprocess.Popen[str]]) -> dict[str, str]:
    """What each machine said on stderr, once it ended."""
    return {machine: process.communicate(timeout=120)[1] for machine, process in started.items()}


# One machine: each line read names a run's folder; it enriches 50 domains of its own there,
# through the public API, on the Redis and under the cap of its environment, and says how
# many rows were answered. It stays up between runs: the ten runs cost one start each.
MACHINE = """
import os, sys
import polars as pl
from profnet_sheets import Client
from profnet_sheets.batch import enrich

name = os.environ["PROFNET_MACHINE"]
for line in sys.stdin:
    folder = line.strip()
    domains = pl.DataFrame({"domain": [f"{name}-{n}.io" for n in range(50)]})
    with Client(cache_dir=folder) as client:
        out = enrich(domains, "domain", "company", client=client, concurrency=4, progress=False)
    print(out["company_error"].null_count(), flush=True)
"""


def test_three_machines_on_one_redis_spend_exactly_the_team_cap(
    sandbox: RunningSandbox, killable_redis: RedisServer, tmp_path: Path
) -> None:
    """Cap 20/day, each machine asked to spend 50 at once: exactly 20 charged, 10 runs out of
    10 (each run on an empty Redis and a sandbox reset)."""
    server = redis.Redis.from_url(killable_redis.url)
    machines = {}
    for machine in MACHINES:
        env = cli_env(sandbox.base_url, KEY, tmp_path / machine)
        env.update(
            PROFNET_CACHE=killable_redis.url,
            PROFNET_SPENDING_CAP="20/day",
            PROFNET_MACHINE=machine,
            PROFNET_QUIET="1",
        )
        machines[machine] = subprocess.Popen(
            [sys.executable, "-c", MACHINE],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
    charged = []
    try:
        for run in range(10):
            server.flushdb()
            requests.post(f"{sandbox.base_url}/_sandbox/reset", timeout=5).raise_for_status()
            for machine, process in machines.items():
                assert process.stdin is not None
                process.stdin.write(f"{tmp_path / machine / f'run{run}'}\n")
                process.stdin.flush()
            answered = [int(_line_of(process)) for process in machines.values()]
            charged.append(sandbox.charged(KEY))
            assert sum(answered) == charged[-1], answered
    finally:
        for process in machines.values():
            process.kill()
            process.wait(timeout=10)
    assert charged == [20] * 10


def _each_paid(team: TeamLedger) -> bool:
    """Whether every machine has paid for a row today, as the team's Redis counts it."""
    paid = {spend.machine for spend in team.team_spend(days=1) if spend.sure}
    return set(MACHINES) <= paid


def _line_of(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line, f"the machine ended (exit code {process.wait(timeout=10)})"
    return line


def test_a_redis_killed_under_three_machines_loses_nothing_paid(
    sandbox: RunningSandbox, killable_redis: RedisServer, tmp_path: Path
) -> None:
    """Every row written (answered or marked), what the sandbox charged is what the rows hold
    (or what a machine said may have been charged), each machine said why it stopped once."""
    # Rows enough, and slow enough, that no machine is done before Redis dies (an audit: at
    # 300 rows and 20 ms one finished first, 2 runs in 12, with no row marked).
    requests.put(
        f"{sandbox.base_url}/_sandbox/faults", json={"latency_ms": 100}, timeout=5
    ).raise_for_status()
    rows = 900
    started = _start_machines(sandbox, killable_redis.url, tmp_path, rows, "100000/day", 3)
    previews = {machine: _preview(process) for machine, process in started.items()}
    team = TeamLedger(
        Ledger(None),
        redis.Redis.from_url(killable_redis.url),
        service_name(sandbox.base_url),
        "observer",
        killable_redis.url,
    )
    # Each machine under way (it has paid for a row): under load, two machines could pay 60
    # while the third still quoted its run, which a dead Redis then refuses with nothing sent.
    while any(it.poll() is None for it in started.values()) and (
        sandbox.charged(KEY) < 60 or not _each_paid(team)
    ):
        time.sleep(0.02)  # waits for the machines to be under way; bounds nothing
    team.close()
    killable_redis.kill()  # SIGKILL: the team's Redis dies under the three machines
    said = {machine: previews[machine] + text for machine, text in _ended(started).items()}
    answered = 0
    for machine in MACHINES:
        assert (tmp_path / machine / "out.csv").exists(), said[machine]
        out = pl.read_csv(tmp_path / machine / "out.csv")
        assert out.height == rows, f"{machine}: every row is written, answered or marked"
        errors = out["company_error"]
        answered += errors.null_count()
        paid_here = errors.null_count() > 0
        marked = errors.drop_nulls()
        assert marked.len() > 0, f"{machine} stopped buying: {said[machine]}"
        stopped = [it for it in said[machine].splitlines() if "stopped buying" in it.lower()]
        assert len(stopped) == 1, said[machine]
        assert "Traceback" not in said[machine]
        assert "will not be paid again" not in said[machine], "the cache that held them died"
        if paid_here:
            assert "comes back" in said[machine], "a re-run is free only if the cache is back"
        else:  # its turn had not come when Redis died (the team's pace): it paid nothing
            assert "nothing was lost" in said[machine], said[machine]
    assert sandbox.charged(KEY) == answered, said
