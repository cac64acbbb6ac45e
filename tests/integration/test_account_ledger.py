"""The account, not the URL's spelling, owns the ledger and the spending cap; a killed run's
calls in flight count as possibly spent; a price of 0 is meant, or refused.

The sandbox serves from a thread of the test process: its usage is the truth about what was
charged, whatever the clients' ledgers say."""

from __future__ import annotations

import json
import logging
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest

from profnet_sheets import BudgetExceeded, Client
from profnet_sheets.batch.workflow import EXIT_BUDGET, Enrichment
from profnet_sheets.client.account import former_service_name
from profnet_sheets.client.ledger import Ledger
from profnet_sheets.errors import ConfigurationError
from profnet_sheets.excel import formulas, session
from profnet_sheets.excel.session import SessionConfig
from profnet_sheets.sandbox import RunningSandbox, start_sandbox
from tests.integration.client.conftest import set_faults
from tests.integration.conftest import CLI, cli_env, run_cli
from tests.integration.test_reliability_crash import kill, wait_for

pytestmark = pytest.mark.integration
KEY = "account-ledger-key"
CAP = 20
DETAILS = "get-company-details"


@pytest.fixture
def sandbox() -> Iterator[RunningSandbox]:
    with start_sandbox(api_keys=(KEY,), credits=1_000_000, job_seconds=0.0, seed=5) as running:
        yield running


def spellings(base_url: str) -> list[str]:
    """One service, written four ways a user may write it."""
    assert base_url.startswith("http://127.0.0.1:")
    return [
        base_url,
        base_url.replace("127.0.0.1", "localhost"),
        base_url.replace("http://", "HTTP://"),
        base_url + "/.",
    ]


def spend(client: Client, prefix: str, calls: int) -> int:
    """Ask for `calls` paid lookups (1 credit each); how many the client let through."""
    done = 0
    for n in range(calls):
        try:
            client.get_company_details(domain=f"{prefix}{n}.io")
        except BudgetExceeded:
            continue
        done += 1
    return done


def test_four_spellings_of_one_service_share_one_cap(
    sandbox: RunningSandbox, tmp_path: Path
) -> None:
    done = 0
    for n, base_url in enumerate(spellings(sandbox.base_url)):
        with Client(
            api_key=KEY, base_url=base_url, cache_dir=tmp_path, spending_cap=f"{CAP}/day"
        ) as client:
            done += spend(client, f"spelling{n}-", CAP)
    assert sandbox.charged(KEY) == CAP, "one account, one cap: not one per spelling"
    assert done == CAP
    assert len(list(tmp_path.glob("*-ledger.sqlite"))) == 1


@pytest.mark.parametrize("cache", ["memory", "off"])
def test_the_cap_counts_across_runs_whether_answers_are_cached_or_not(
    sandbox: RunningSandbox, tmp_path: Path, cache: str
) -> None:
    """With answers kept in memory or not at all, the ledger stayed in memory too: a cap of
    20/day let each run spend 20. The spend is an account, kept on disk whatever the cache."""
    done = 0
    for run in range(3):
        with Client(
            api_key=KEY,
            base_url=sandbox.base_url,
            cache=cache,
            cache_dir=tmp_path,
            spending_cap=f"{CAP}/day",
        ) as client:
            done += spend(client, f"run{run}-", CAP)
            assert client.spent() == min(CAP, done)
    assert done == CAP
    assert sandbox.charged(KEY) == CAP
    assert not list(tmp_path.glob("*-answers.sqlite")), "no answer kept on disk"


def test_a_cap_whose_ledger_cannot_be_written_refuses_to_start(
    sandbox: RunningSandbox, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    with pytest.raises(ConfigurationError, match="set PROFNET_CACHE_DIR to a folder you can"):
        Client(
            api_key=KEY,
            base_url=sandbox.base_url,
            cache="memory",
            cache_dir=blocked,
            spending_cap=CAP,
        )
    with caplog.at_level(logging.WARNING, "profnet_sheets"):
        client = Client(api_key=KEY, base_url=sandbox.base_url, cache="memory", cache_dir=blocked)
    with client:
        assert spend(client, "nocap-", 2) == 2
    assert "kept in memory, for this run only" in caplog.text
    assert sandbox.charged(KEY) == 2


def test_spend_in_a_ledger_of_an_older_spelling_still_counts(
    sandbox: RunningSandbox, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An earlier version named the ledger after the URL as typed: what it recorded counts
    toward the cap (copied once, and said), not forgotten."""
    typed = sandbox.base_url  # 127.0.0.1: its canonical name is localhost's
    former = former_service_name(typed)
    old = Ledger(tmp_path / f"{former}-ledger.sqlite")
    old.record(former, "fingerprint", "get-company-details", 15, None)
    old.close()
    with caplog.at_level(logging.WARNING, "profnet_sheets"):
        client = Client(api_key=KEY, base_url=typed, cache_dir=tmp_path, spending_cap=CAP)
    assert "1 spend record(s)" in caplog.text, caplog.text
    with client:
        assert spend(client, "after-", CAP) == CAP - 15
    with Client(api_key=KEY, base_url=typed, cache_dir=tmp_path, spending_cap=CAP) as again:
        assert again.spent() == CAP, "the older ledger's rows are copied once"
        assert spend(again, "again-", 5) == 0
    assert sandbox.charged(KEY) == CAP - 15


def test_a_run_killed_with_calls_in_flight_leaves_them_counted(
    sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """SIGKILL with CAP calls in flight (the sandbox answers them after the kill, and charges
    them); once their reservations' lease is over, a new run under the same cap pays nothing
    more: the dead run's calls count as possibly spent."""
    env = cli_env(sandbox.base_url, KEY, tmp_path)
    env.update(
        PROFNET_SPENDING_CAP=str(CAP),
        # A short lease (one attempt of at most 5 s, no waits): the test waits it out.
        PROFNET_DEADLINE="5",
        PROFNET_RETRIES="0",
        PROFNET_RETRY_AFTER_CAP="0",
        PROFNET_MAX_BACKOFF="0",
        PROFNET_RATE_LIMIT="1000/s",  # told: no slow start, all in flight at once
    )
    source = tmp_path / "first.csv"
    pl.DataFrame({"Site": [f"killed{n}.io" for n in range(CAP)]}).write_csv(source)
    args = ["enrich", "--column", "Site", "--kind", "company", "--yes"]
    args += ["--concurrency", str(CAP)]
    set_faults(sandbox, latency_ms=4000)
    process = subprocess.Popen(
        [*CLI, *args[:1], str(source), *args[1:], "--out", str(tmp_path / "first.parquet")],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    cache = tmp_path / "cache"
    # The sandbox charges a call on arrival and answers it 4 s later: all CAP are in flight.
    wait_for(lambda: sandbox.charged(KEY) >= CAP, "every call in flight")
    assert _reserved(cache)[0] == CAP
    kill(process)
    held = run_cli(env, "credits")
    lease_over = _reserved(cache)[1]
    at = datetime.fromtimestamp(lease_over, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    assert held.stdout.startswith("Nothing spent yet; calls under way are listed below.\n")
    assert (
        f"in flight: {CAP} credits held by calls under way until {at} at the latest (those of "
        "a process that stopped then count as possibly spent)" in held.stdout
    ), held.stdout
    wait_for(lambda: time.time() > lease_over, "the dead run's lease to end")

    set_faults(sandbox, latency_ms=0)
    again = tmp_path / "again.csv"
    pl.DataFrame({"Site": [f"again{n}.io" for n in range(CAP)]}).write_csv(again)
    rerun = run_cli(env, args[0], str(again), *args[1:], "--out", str(tmp_path / "again.parquet"))
    assert sandbox.charged(KEY) <= CAP, rerun.stderr
    credits = run_cli(env, "credits")
    assert f"(+{CAP} possibly)" in credits.stdout, credits.stdout
    table = credits.stdout.splitlines()
    assert table[0].split() == ["day", "endpoint", "calls", "credits", "possibly"]
    assert table[1].split()[1:] == [DETAILS, str(CAP), "0", str(CAP)], "a row of their own"


def _reserved(cache: Path) -> tuple[int, float]:
    """How many reservations the ledger holds, and when the last one's lease ends."""
    found = list(cache.glob("*-ledger.sqlite"))
    if not found:
        return 0, 0.0
    db = sqlite3.connect(found[0], timeout=30)
    try:
        count, until = db.execute("SELECT COUNT(*), MAX(until) FROM reserved").fetchone()
    except sqlite3.OperationalError:  # being made
        return 0, 0.0
    finally:
        db.close()
    return int(count), float(until or 0.0)


def test_a_price_of_0_for_a_paid_endpoint_is_refused_on_load(
    sandbox: RunningSandbox, tmp_path: Path
) -> None:
    env = cli_env(sandbox.base_url, KEY, tmp_path)
    env["PROFNET_PRICES"] = json.dumps({"get-company-details": 0})
    result = run_cli(env, "lookup", "company", "stripe.com", "--yes")
    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert "get-company-details" in lines[0]
    assert "PROFNET_FREE_ON_PLAN" in lines[0]
    assert "Traceback" not in result.stderr
    assert sandbox.charged(KEY) == 0


def test_an_endpoint_free_on_the_plan_says_so(sandbox: RunningSandbox, tmp_path: Path) -> None:
    env = cli_env(sandbox.base_url, KEY, tmp_path)
    env["PROFNET_PRICES"] = json.dumps({"get-company-details": 0})
    env["PROFNET_FREE_ON_PLAN"] = "get-company-details"
    result = run_cli(env, "lookup", "company", "stripe.com", "--yes")
    assert result.returncode == 0, result.stderr
    assert "get-company-details is free on your plan" in result.stderr
    assert "cached" not in result.stderr.splitlines()[-1]
    check = run_cli(env, "check")
    assert "free on your plan (the spec: 1)" in check.stdout + check.stderr


def test_a_search_free_on_the_plan_says_so(sandbox: RunningSandbox, tmp_path: Path) -> None:
    env = cli_env(sandbox.base_url, KEY, tmp_path)
    env["PROFNET_PRICES"] = json.dumps({"search-leads": 0, "get-lead-results": 0})
    env["PROFNET_FREE_ON_PLAN"] = "search-leads, get-lead-results"
    out = tmp_path / "leads.csv"
    search = ["search", "leads", "--title-keywords", "CTO", "--limit", "5", "--out", str(out)]
    result = run_cli(env, *search, "--yes")
    assert result.returncode == 0, result.stderr
    assert "0 credits: search-leads is free on your plan" in result.stderr
    assert "reused" not in result.stderr


def test_calls_waiting_for_their_turn_hold_nothing_under_the_cap(
    sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """16 calls at once, 4 let in flight by the pace: the cap holds the 4 sent, not 16 (a
    killed process's holds turn into possibly spent: they should be calls that went out)."""
    from concurrent.futures import ThreadPoolExecutor

    set_faults(sandbox, latency_ms=3000)
    client = Client(
        api_key=KEY,
        base_url=sandbox.base_url,
        cache_dir=tmp_path,
        spending_cap="100/day",
        concurrency=4,
    )
    with client, ThreadPoolExecutor(16) as pool:
        done = [pool.submit(client.get_company_details, domain=f"turn{n}.io") for n in range(16)]
        wait_for(lambda: sandbox.charged(KEY) >= 4, "the first calls to arrive")
        assert client.ledger.in_flight(client.service) == 4, "held by the calls sent only"
        set_faults(sandbox, latency_ms=0)
        assert all(future.result(timeout=60) for future in done)
        assert client.ledger.in_flight(client.service) == 0
    assert sandbox.charged(KEY) == 16


def test_a_call_the_cap_refuses_takes_no_turn_in_the_pace(
    sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """The cap is asked before the call waits for its turn (the hold, at the turn, asks
    again): rows past a cap are marked at once, not one pace slot each."""
    with Client(
        api_key=KEY, base_url=sandbox.base_url, cache_dir=tmp_path, spending_cap="1/day"
    ) as client:
        client.get_company_details(domain="first.io")
        for n in range(5):
            with pytest.raises(BudgetExceeded, match="spending cap of 1/day"):
                client.get_company_details(domain=f"refused{n}.io")
        assert client.pace.view().calls == 1, "only the call sent took a turn"
        assert client.spent() == 1
    assert sandbox.charged(KEY) == 1


def said_of_rows(client: Client, aside: str) -> None:
    """A review of decision 532: rows a cap that cannot be kept left undone said `spending cap
    reached ... raise the cap, or wait for its next period`, in a file's error column, an
    enrichment's last line and an Excel range alike: what to do is to check the spend and
    delete the file set aside, named last (a cell's text is cut short at its end)."""
    frame = pl.DataFrame({"site": ["rows-a.io", "rows-b.io"]})
    result, outcome = Enrichment(client, frame, "site", "company").run(progress=False)
    assert isinstance(result, pl.DataFrame)
    errors = result["company_error"].to_list()
    assert all(error.startswith("spending cap cannot be kept: not fetched") for error in errors)
    assert all(error.endswith(f": {aside}") for error in errors), errors
    advice = outcome.advice()
    assert advice is not None
    assert advice.startswith("Spending cap cannot be kept: 2 rows not done."), advice
    assert f"set aside unreadable as {aside}" in advice
    assert outcome.exit_code == EXIT_BUDGET
    session.install(client, SessionConfig(None, False, "the test"))
    try:
        cells = formulas.company([["rows-a.io"], ["rows-b.io"]], "company_name")
    finally:
        session.reset()
    assert isinstance(cells, list)
    for (cell,) in cells:
        assert cell.startswith("#PROFNET! the spending cap cannot be kept"), cell
        assert "check the spend with the service, then delete that file" in cell


@pytest.mark.parametrize("damage", ["garbage", "emptied"])
def test_a_ledger_set_aside_unreadable_keeps_the_cap_of_its_period_until_its_file_goes(
    sandbox: RunningSandbox, tmp_path: Path, damage: str
) -> None:
    """A review: a ledger overwritten with garbage was set aside and a new one started, and
    the cap of 5/day let 5 more be bought the same day (10 charged). What was spent before is
    unknown: the cap leaves nothing in that period, said with the file, until the user deletes
    it (decision 532)."""
    cap = "5/day"

    def client() -> Client:
        return Client(api_key=KEY, base_url=sandbox.base_url, cache_dir=tmp_path, spending_cap=cap)

    with client() as first:
        assert spend(first, "before-", 8) == 5
    (ledger,) = tmp_path.glob("*-ledger.sqlite")
    for companion in tmp_path.glob("*-ledger.sqlite-*"):
        companion.unlink()
    ledger.write_bytes(b"not a ledger" * 100 if damage == "garbage" else b"")
    with client() as second:
        (aside,) = tmp_path.glob(f"{ledger.name}.unreadable-*")
        quoted = second.quote(1)
        assert quoted.cap_left == 0
        assert quoted.short is not None
        assert f"set aside unreadable as {aside}" in quoted.short.preview(), "previews say why"
        with pytest.raises(BudgetExceeded) as refused:
            second.get_company_details(domain="after-0.io")
        said = str(refused.value)
        assert f"could not be read and was set aside as {aside}" in said
        assert "delete that file to count from zero" in said
        assert sandbox.charged(KEY) == 5, "nothing bought on a cap it cannot keep"
        refusal = second.quote(3).refusal("This run")
        assert refusal is not None
        assert refusal.unknown == str(aside), "previews' errors carry the file, as calls' do"
        assert f"set aside unreadable as {aside}" in str(refusal)
        said_of_rows(second, str(aside))
        assert sandbox.charged(KEY) == 5
        aside.unlink()  # checked with the service: counted from zero
        assert spend(second, "after-", 8) == 5
    assert sandbox.charged(KEY) == 10
