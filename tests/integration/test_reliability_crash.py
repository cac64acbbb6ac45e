"""Crashes: the CLI killed with SIGKILL (no cleanup, no handler runs), then run again.

The sandbox serves from a thread of the test process, so it outlives the killed CLI and its
usage is the truth about what was charged. Figures are printed (`pytest -s`) and recorded in
docs/reliability.md.

The one unavoidable double charge: the service charges a call when it does the work, and the
answer travels back afterwards. A call answered by the service but not yet saved in the cache
when the process dies was paid for, and its answer died with the process; the re-run pays for
it again. At most one call per worker can be in that window, so the double charge is measured
(charged before the re-run minus answers saved) and bounded by the concurrency.
"""

from __future__ import annotations

import random
import re
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import polars as pl
import pytest
import requests

from profnet_sheets.sandbox import RunningSandbox, start_sandbox
from tests.integration.client.conftest import set_faults
from tests.integration.conftest import CLI, cli_env, run_cli

pytestmark = pytest.mark.integration
KEY = "reliability-crash-key"
UNIQUE = 400
ROWS = 1_200
CONCURRENCY = 8
JOB_SECONDS = 600.0  # a lead search takes ten minutes: the CLI is surely still polling
LEADS = 30


@pytest.fixture(scope="module")
def sandbox() -> Iterator[RunningSandbox]:
    with start_sandbox(api_keys=(KEY,), credits=10_000_000, job_seconds=JOB_SECONDS) as running:
        yield running


@pytest.fixture
def env(sandbox: RunningSandbox, tmp_path: Path) -> Iterator[dict[str, str]]:
    requests.post(f"{sandbox.base_url}/_sandbox/reset", timeout=5).raise_for_status()
    yield cli_env(sandbox.base_url, KEY, tmp_path)
    set_faults(sandbox, latency_ms=0)


def wait_for(condition: Callable[[], bool], what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


def kill(process: subprocess.Popen[str]) -> None:
    """SIGKILL: the process gets no chance to save, flush or clean up anything."""
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    assert process.returncode == -signal.SIGKILL


def settled_charge(sandbox: RunningSandbox) -> int:
    """The server's charge once calls the dead process left in flight have been served."""
    last = sandbox.charged(KEY)
    while True:
        time.sleep(0.3)
        now = sandbox.charged(KEY)
        if now == last:
            return now
        last = now


def saved_answers(cache_dir: Path) -> int:
    """Answers the killed process had saved in its SQLite cache (what a re-run finds)."""
    (path,) = cache_dir.glob("*-answers.sqlite")
    with sqlite3.connect(path) as db:
        count: int = db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
    db.close()
    return count


def accounts(tmp_path: Path) -> tuple[Path, list[str], list[int]]:
    """ROWS rows over UNIQUE companies, each written in a few ways, shuffled: the file, its
    Site column and each row's company."""
    rng = random.Random(1)
    companies = [i % UNIQUE for i in range(ROWS)]
    rng.shuffle(companies)
    sites = [
        rng.choice([f"crash{c}.io", f"https://www.crash{c}.io/", f"CRASH{c}.IO"]) for c in companies
    ]
    path = tmp_path / "accounts.csv"
    pl.DataFrame({"Row": range(ROWS), "Site": sites}).write_csv(path)
    return path, sites, companies


def test_an_enrichment_killed_half_way_resumes_and_pays_only_for_the_rest(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """Proves: SIGKILL half way leaves no half-written output and a readable cache; the re-run
    completes every row, finds every answer the dead run saved (free), and the server's total
    is the unique keys plus only the calls that died in flight (at most one per worker)."""
    source, sites, companies = accounts(tmp_path)
    out = tmp_path / "enriched.parquet"
    args = ["enrich", str(source), "--column", "Site", "--kind", "company", "--out", str(out)]
    args += ["--concurrency", str(CONCURRENCY), "--yes"]
    set_faults(sandbox, latency_ms=40)
    process = subprocess.Popen(
        [*CLI, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True
    )
    wait_for(lambda: sandbox.charged(KEY) >= UNIQUE // 2, "half of the companies")
    kill(process)
    paid_before = settled_charge(sandbox)
    saved = saved_answers(tmp_path / "cache")
    died_in_flight = paid_before - saved

    assert not out.exists(), "no half-written output"
    assert 0 < saved < UNIQUE, "killed half way"
    assert 0 <= died_in_flight <= CONCURRENCY, "only calls in flight can be lost"
    # With no spending cap too, the calls under way are in the ledger: as in flight now, as
    # possibly spent once their lease has passed (before: not at all, `credits` said less).
    shown = run_cli(env, "credits").stdout
    recorded = int(re.search(r"^total: ([\d,]+) credits?", shown, re.M).group(1))  # type: ignore[union-attr]
    held = re.search(r"^in flight: (\d+) credits? held by calls under way", shown, re.M)
    assert held is not None, shown
    assert 0 < int(held.group(1)) <= CONCURRENCY
    assert recorded + int(held.group(1)) >= paid_before, shown

    set_faults(sandbox, latency_ms=0)
    started = time.perf_counter()
    rerun = run_cli(env, *args)
    elapsed = time.perf_counter() - started
    assert rerun.returncode == 0, rerun.stderr
    assert f"at most {UNIQUE - saved} credits (rows with the same key" in rerun.stderr
    result = pl.read_parquet(out)
    assert result.height == ROWS
    assert result["Row"].to_list() == list(range(ROWS)), "in input order, still numbers"
    assert result["Site"].to_list() == sites
    assert result["company_error"].null_count() == ROWS, "every row has its data"
    assert result["company_profnet_url"].to_list() == [
        f"https://www.profnet.com/company/crash{c}-io/" for c in companies
    ], "each row holds its own company"
    total = sandbox.charged(KEY)
    print(
        f"\ncrash: {ROWS} rows, {UNIQUE} unique; killed at {paid_before} charged, {saved} saved, "
        f"{died_in_flight} died in flight; re-run paid {total - paid_before} in {elapsed:.1f} s; "
        f"total {total}"
    )
    assert total - paid_before == UNIQUE - saved, "the re-run paid only for what was not saved"
    assert total == UNIQUE + died_in_flight


@pytest.mark.parametrize("reattach", ["same command", "--request-id"])
def test_a_lead_search_killed_while_polling_is_reattached_without_a_new_search(
    reattach: str, env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """Proves, for both ways back (running the same search again, which reuses it; or
    --request-id): after SIGKILL while polling, the search completes, its results are written,
    and the server charged exactly one search creation and each result once."""
    out = tmp_path / "leads.csv"
    search = ["search", "leads", "--title-keywords", "CTO", "--limit", str(LEADS)]
    log = tmp_path / "stderr.txt"
    with log.open("w") as stderr:
        process = subprocess.Popen(
            [*CLI, *search, "--out", str(out)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            text=True,
        )
        wait_for(lambda: sandbox.calls(KEY, "get-lead-search-status") >= 1, "the CLI to poll")
        kill(process)
    request_id = log.read_text().split("leads search ")[1].split()[0]
    polls_before = sandbox.calls(KEY, "get-lead-search-status")
    assert not out.exists()
    assert sandbox.calls(KEY, "search-leads") == 1

    requests.post(
        f"{sandbox.base_url}/_sandbox/clock", json={"advance": JOB_SECONDS}, timeout=5
    ).raise_for_status()
    again = search if reattach == "same command" else ["search", "leads"]
    if reattach == "--request-id":
        again = [*again, "--request-id", request_id]
    rerun = run_cli(env, *again, "--out", str(out))

    assert rerun.returncode == 0, rerun.stderr
    assert f"leads search {request_id}" in rerun.stderr, "the same search, not a new one"
    assert pl.read_csv(out).height == LEADS
    spent = sandbox.usage(KEY)["calls"]
    print(
        f"\nsearch killed after {polls_before} status polls, re-attached by {reattach}: "
        f"{spent['search-leads']['calls']} creation, {sandbox.charged(KEY)} credits in all"
    )
    assert spent["search-leads"] == {"calls": 1, "credits": 50, "errors": 0}
    assert sandbox.charged(KEY) == 50 + LEADS, "one creation, each result once"


def test_a_search_killed_while_it_is_started_is_not_started_again_unasked(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """SIGKILL after the service took (and charged) a search's creation, before its answer
    came back: the request id died with the process. Run again from a script (no terminal),
    the search is not started again: the CLI says it may have been started and charged, and
    how to go on; with --yes it is started anew (paid again, as said), then reused."""
    out = tmp_path / "leads.csv"
    search = ["search", "leads", "--title-keywords", "VP Sales", "--limit", str(LEADS)]
    set_faults(sandbox, latency_ms=60_000)  # the answer leaves a minute after the work
    process = subprocess.Popen(
        [*CLI, *search, "--out", str(out)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    wait_for(lambda: sandbox.calls(KEY, "search-leads") >= 1, "the search to be started")
    kill(process)
    set_faults(sandbox, latency_ms=0)
    assert sandbox.charged(KEY) == 50

    rerun = run_cli(env, *search, "--out", str(out))

    assert rerun.returncode == 1, rerun.stderr
    assert "The same search was sent at " in rerun.stderr
    assert "may have started it and charged 50 credits (counted as possibly spent)" in (
        rerun.stderr
    )
    assert "run this again with --yes to start it anew" in rerun.stderr
    assert sandbox.calls(KEY, "search-leads") == 1, "nothing sent"
    assert not out.exists()

    anew = subprocess.Popen(
        [*CLI, *search, "--yes", "--out", str(out)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for(lambda: sandbox.calls(KEY, "search-leads") == 2, "the search to be started anew")
    requests.post(
        f"{sandbox.base_url}/_sandbox/clock", json={"advance": JOB_SECONDS}, timeout=5
    ).raise_for_status()
    _, said = anew.communicate(timeout=120)

    assert anew.returncode == 0, said
    assert pl.read_csv(out).height == LEADS
    reused = run_cli(env, *search, "--out", str(tmp_path / "again.csv"))
    assert reused.returncode == 0, reused.stderr
    assert "The same search was sent" not in reused.stderr
    assert sandbox.calls(KEY, "search-leads") == 2


def test_a_search_another_live_run_is_starting_is_reused_not_refused(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """A review: a second script started while the first was still starting the same search
    was told it may have been charged, and refused (exit 1). The first is alive (its claim
    held): the second waits for its answer and reuses the search, free."""
    search = ["search", "leads", "--title-keywords", "CFO", "--limit", str(LEADS)]
    set_faults(sandbox, latency_ms=8_000)  # the second quotes while the first waits for it
    runs = []
    for name in ("first", "second"):
        if runs:  # the second once the first's start is at the service
            wait_for(lambda: sandbox.calls(KEY, "search-leads") >= 1, "the first start")
        runs.append(
            subprocess.Popen(
                [*CLI, *search, "--out", str(tmp_path / f"{name}.csv")],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    wait_for(lambda: sandbox.calls(KEY, "get-lead-search-status") >= 1, "the first to poll")
    set_faults(sandbox, latency_ms=0)
    requests.post(
        f"{sandbox.base_url}/_sandbox/clock", json={"advance": JOB_SECONDS}, timeout=5
    ).raise_for_status()
    said = [run.communicate(timeout=120)[1] for run in runs]

    assert [run.returncode for run in runs] == [0, 0], said
    assert "The same search was sent" not in said[1], said[1]
    assert "leads search: At most" in said[1], "quoted while the first was under way"
    assert sandbox.calls(KEY, "search-leads") == 1, "one start, reused by the second"
    assert sandbox.charged(KEY) == 50 + LEADS, "one start, each result once between them"
    assert pl.read_csv(tmp_path / "second.csv").height == LEADS
