"""Processes as "machines" on one Redis and one API key, for tests and benchmarks: each with its
own cache folder and keys, all told to go at once; when each began and ended, and its rows."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

# One machine: its client made and its keys read before the go (imports are not the pace's),
# then one enrichment; it prints when it began and ended (wall clock: one computer here).
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
rate, spent, maybe = client.pace.view().rate, client.spent(), client.spent(uncertain=True)
core = client.pace.core
client.close()
print(json.dumps({"began": began, "ended": ended, "answered": out["company_error"].null_count(),
                  "rows": out.height, "rate": rate, "spent": spent, "maybe": maybe,
                  "known": core.known, "remeasured": core.remeasured}), flush=True)
"""


class MachineError(RuntimeError):
    """A machine's process did not start, or did not finish its enrichment."""


@dataclass(frozen=True)
class MachineRun:
    """One machine's enrichment: when it began and ended (unix time), its rows, those answered
    without an error, the rate its pace ended at (None: not paced), the credits its ledger
    recorded (`maybe` of them uncertain), the service's rate its pace learnt last (`known`) and
    how many times it measured that again (`remeasured`)."""

    began: float
    ended: float
    answered: int
    rows: int
    rate: float | None
    spent: int
    maybe: int
    known: float
    remeasured: int


@dataclass(frozen=True)
class TeamRun:
    """The machines' enrichments, started at one go."""

    machines: list[MachineRun]

    @property
    def wall_s(self) -> float:
        """From the first machine's start to the last one's end."""
        return max(m.ended for m in self.machines) - min(m.began for m in self.machines)

    @property
    def failed_rows(self) -> int:
        return sum(m.rows - m.answered for m in self.machines)

    @property
    def spent(self) -> int:
        """Credits the machines' ledgers recorded, sure and maybe."""
        return sum(m.spent for m in self.machines)

    @property
    def maybe(self) -> int:
        return sum(m.maybe for m in self.machines)

    def rates(self) -> str:
        """The rates the machines' paces ended at: `19.2/s, 19.5/s` (`unpaced` for none)."""
        return ", ".join("unpaced" if m.rate is None else f"{m.rate:.1f}/s" for m in self.machines)


def overlapping_keys(machine: int, shared: Sequence[str], own: int, prefix: str) -> list[str]:
    """A machine's keys: the `shared` ones every machine has and `own` of its own, in an order
    of its own."""
    keys = [*shared, *(f"{prefix}{machine}-{n}.io" for n in range(own))]
    random.Random(machine).shuffle(keys)
    return keys


def run_machines(
    base_url: str,
    redis_url: str,
    api_key: str,
    keys: Sequence[Sequence[str]],
    work: Path,
    timeout: float = 600,
) -> TeamRun:
    """One process per list of `keys`, each a machine (its folder under `work`) enriching its
    keys with a default Client on the Redis cache `redis_url`; all go once all are ready."""
    env = {**os.environ, "PROFNET_QUIET": "1"}
    workers = []
    try:
        for name, machine_keys in enumerate(keys):
            keys_file = work / f"keys{name}.json"
            keys_file.write_text(json.dumps(list(machine_keys)), encoding="utf-8")
            args = [base_url, redis_url, str(work / f"machine{name}"), str(keys_file), api_key]
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
            if worker.stdout.readline().strip() != "ready":
                raise MachineError(f"a machine did not start: {worker.communicate(timeout=30)[1]}")
        for worker in workers:  # all at once
            assert worker.stdin is not None
            worker.stdin.write("go\n")
            worker.stdin.flush()
        return TeamRun([_finished(worker, timeout) for worker in workers])
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
                worker.wait(timeout=10)


def _finished(worker: subprocess.Popen[str], timeout: float) -> MachineRun:
    out, err = worker.communicate(timeout=timeout)
    if worker.returncode != 0:
        raise MachineError(f"a machine exited {worker.returncode}: {err[-2000:]}")
    report = json.loads(out.strip().splitlines()[-1])
    return MachineRun(
        report["began"],
        report["ended"],
        report["answered"],
        report["rows"],
        report["rate"],
        report["spent"],
        report["maybe"],
        report["known"],
        report["remeasured"],
    )
