"""A search and the spending cap from the CLI: a search started within the cap keeps its
results' room while it runs (another run spending meanwhile gets only what is left beside it,
decision 466); a search read later by its request id that the cap no longer leaves room for
is cut, and the stop names the cap (not a budget no one set) and how to read the rest later
without paying the search again."""

from __future__ import annotations

import csv
import signal
import subprocess
import time
from pathlib import Path

import polars as pl
import pytest
import requests

from profnet_sheets import BudgetExceeded, Client
from profnet_sheets.sandbox import RunningSandbox, start_sandbox
from tests.integration.conftest import CLI, cli_env, run_cli

pytestmark = pytest.mark.integration
KEY = "cut-by-cap-key"


def _search_created(
    sandbox: RunningSandbox, env: dict[str, str], out: Path
) -> subprocess.Popen[str]:
    """`search leads` (limit 40) started, once its creation is paid (its job not done yet)."""
    args = ["search", "leads", "--title-keywords", "CTO", "--limit", "40", "--yes"]
    search = subprocess.Popen(
        [*CLI, *args, "--out", str(out)], env=env, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 60
    while sandbox.charged(KEY) < 50 and time.monotonic() < deadline:
        time.sleep(0.05)
    return search


def test_another_run_spends_beside_a_running_search_not_its_results_room(
    tmp_path: Path,
) -> None:
    with start_sandbox(api_keys=(KEY,), credits=100_000, job_seconds=3.0) as sandbox:
        env = {**cli_env(sandbox.base_url, KEY, tmp_path), "PROFNET_SPENDING_CAP": "100/day"}
        out = tmp_path / "leads.csv"
        search = _search_created(sandbox, env, out)
        cache = tmp_path / "cache"
        with Client(
            api_key=KEY, base_url=sandbox.base_url, cache_dir=cache, spending_cap="100/day"
        ) as other:  # another run on the same ledger spends what the cap leaves beside it
            for n in range(10):
                other.get_company_details(domain=f"other{n}.io")
            with pytest.raises(BudgetExceeded, match="cap of 100/day"):
                other.get_company_details(domain="one-more.io")
        _, said = search.communicate(timeout=120)
        assert search.returncode == 0, said
        charged = sandbox.charged(KEY)
    with out.open(newline="", encoding="utf-8") as read:
        assert len(list(csv.DictReader(read))) == 40
    assert charged == 100, "the search's 50 and 40 results, the other run's 10"


def test_a_re_attach_the_cap_cannot_read_a_page_of_is_not_asked_nor_sent(
    tmp_path: Path,
) -> None:
    """A new user's review: the re-attach quoted and asked for 40, then read nothing ("Spending
    cap reached"): with no page read yet, the first may hold every result."""
    with start_sandbox(api_keys=(KEY,), credits=100_000, job_seconds=0.0) as sandbox:
        env = cli_env(sandbox.base_url, KEY, tmp_path)
        with Client(api_key=KEY, base_url=sandbox.base_url, cache_dir=tmp_path / "cache") as c:
            request_id = c.search_leads(title_keywords="CTO", limit=40).request_id  # 50 paid
        env["PROFNET_SPENDING_CAP"] = "60/day"  # 10 left: the first page may cost up to 40
        out = str(tmp_path / "leads.csv")
        done = run_cli(env, "search", "leads", "--request-id", request_id, "--out", out)
        charged = sandbox.charged(KEY)
    assert done.returncode == 3, done.stderr
    flat = " ".join(done.stderr.split())
    assert (
        "Not read: the spending cap 60/day (PROFNET_SPENDING_CAP) leaves 10, and its first page "
        "may cost up to 40 credits (a page's size is known once one is read); nothing was "
        "sent. Raise it by 30 or more (so that it leaves 40), then run this again." in flat
    ), flat
    assert "Spend up to" not in flat, "not asked"
    assert charged == 50, "the search's creation only: no result paid"


def test_results_the_cap_leaves_no_room_for_say_the_cap_and_the_request_id(
    tmp_path: Path,
) -> None:
    with start_sandbox(api_keys=(KEY,), credits=100_000, job_seconds=0.0) as sandbox:
        env = cli_env(sandbox.base_url, KEY, tmp_path)

        def first_page_only(read: int, expected: int) -> None:
            raise KeyboardInterrupt

        with Client(api_key=KEY, base_url=sandbox.base_url, cache_dir=tmp_path / "cache") as c:
            job = c.search_leads(title_keywords="CTO", limit=40)  # 50 paid
            with pytest.raises(KeyboardInterrupt):
                job.results(on_page=first_page_only)  # 25 paid, read and cached
        env["PROFNET_SPENDING_CAP"] = "80/day"  # 5 left: the next page may cost 15
        out = str(tmp_path / "leads.csv")
        again = ["--request-id", job.request_id, "--yes", "--out", out]
        done = run_cli(env, "search", "leads", *again)
        charged = sandbox.charged(KEY)
    assert done.returncode == 3, done.stderr
    flat = " ".join(done.stderr.split())
    assert "25 leads written to" in flat, flat
    assert "Spending cap reached (" in flat, flat
    assert "raise the spending cap (PROFNET_SPENDING_CAP) or wait for its next period" in flat
    assert "--request-id" in flat
    assert "the search is not paid again" in flat
    assert "raise --budget" not in flat
    assert charged == 75, "the search and its first page: nothing more"


def test_a_search_stopped_while_it_runs_keeps_its_results_room_for_its_re_attach(
    tmp_path: Path,
) -> None:
    """A new user's review: Ctrl-C during the wait gave the room back, another run spent it,
    and the re-attach the message advised was refused (paid, and no room to read it)."""
    with start_sandbox(api_keys=(KEY,), credits=100_000, job_seconds=4.0) as sandbox:
        env = {**cli_env(sandbox.base_url, KEY, tmp_path), "PROFNET_SPENDING_CAP": "90/day"}
        out = tmp_path / "leads.csv"
        search = _search_created(sandbox, env, out)
        search.send_signal(signal.SIGINT)  # the search created (paid), its job not done
        _, said = search.communicate(timeout=60)
        assert search.returncode == 130, said
        flat = " ".join(said.split())
        assert (
            "Its results' room under the spending cap stays set aside for 10 minutes: read them "
            "by then and no other run takes it." in flat
        ), flat
        request_id = flat.split("--request-id ")[1].split()[0]
        cache = tmp_path / "cache"
        with (
            Client(
                api_key=KEY, base_url=sandbox.base_url, cache_dir=cache, spending_cap="90/day"
            ) as other,
            pytest.raises(BudgetExceeded),
        ):
            other.get_company_details(domain="other.io")
        again = ["--request-id", request_id, "--yes", "--out", str(out)]
        done = run_cli(env, "search", "leads", *again)  # waits for its job, then reads it
        assert done.returncode == 0, done.stderr
        charged = sandbox.charged(KEY)
    with out.open(newline="", encoding="utf-8") as read:
        assert len(list(csv.DictReader(read))) == 40
    assert charged == 90


def test_a_search_that_timed_out_says_the_command_that_reads_it(tmp_path: Path) -> None:
    with start_sandbox(api_keys=(KEY,), credits=100_000, job_seconds=30.0) as sandbox:
        env = cli_env(sandbox.base_url, KEY, tmp_path)
        out = str(tmp_path / "leads.csv")
        args = ["--title-keywords", "CTO", "--limit", "40", "--timeout", "1", "--yes"]
        done = run_cli(env, "search", "leads", *args, "--out", out)
    assert done.returncode == 1, done.stderr
    flat = " ".join(done.stderr.split())
    assert "Read its results once it is done with `uv run profnet-sheets search leads" in flat
    assert f"--out {out}` (the search is not paid again)." in flat


def test_a_budget_keeps_a_searchs_results_room_from_the_clients_other_calls(
    tmp_path: Path,
) -> None:
    """A notebook's client with a budget of 120 starts a search of 60 results (50 + 60 fit),
    then looks companies up while it runs. Before: the lookups took the results' room and the
    paid search's pages were refused (`may cost 60 credits and only 50 ... are left`). Now
    the lookups get what is left beside it (decision 476)."""
    with start_sandbox(api_keys=(KEY,), credits=100_000, job_seconds=0.5) as sandbox:
        with Client(
            api_key=KEY, base_url=sandbox.base_url, cache_dir=tmp_path / "cache", budget=120
        ) as client:
            job = client.search_leads(title_keywords="CTO", limit=60)
            assert client.quote(1).left == 10
            for n in range(10):
                client.get_company_details(domain=f"beside{n}.io")
            with pytest.raises(BudgetExceeded, match="60 more set aside for the results"):
                client.get_company_details(domain="one-more.io")
            assert len(job.results()) == 60
            assert (client.budget.spent, client.budget.reserved) == (120, 0)
            again = client.search_leads(title_keywords="CTO", limit=60)
            assert len(again.results()) == 60, "run again: reused, its pages read, free"
        assert sandbox.charged(KEY) == 120


def test_a_page_the_service_fails_mid_read_writes_what_was_read(tmp_path: Path) -> None:
    """A review of decision 491: a page failing still after its retries (a 500) ended the
    reading with nothing written, though pages were paid and read. Now what was read is
    written and the line says the error, what was written, and how to read the rest (exit 1:
    the service failed; no stop of the run)."""
    with start_sandbox(api_keys=(KEY,), credits=100_000, job_seconds=0) as sandbox:
        env = {**cli_env(sandbox.base_url, KEY, tmp_path), "PROFNET_BACKOFF": "0.01"}
        out = tmp_path / "leads.csv"
        faults = f"{sandbox.base_url}/_sandbox/faults"
        requests.put(faults, json={"latency_ms": 300}, timeout=5).raise_for_status()
        args = ["search", "leads", "--title-keywords", "CTO", "--limit", "300", "--yes"]
        search = subprocess.Popen(
            [*CLI, *args, "--out", str(out)], env=env, stderr=subprocess.PIPE, text=True
        )
        deadline = time.monotonic() + 60
        while sandbox.charged(KEY) < 50 + 50 and time.monotonic() < deadline:
            time.sleep(0.05)  # the search and two pages paid: the service fails from now
        requests.put(faults, json={"fail_rate": 1.0}, timeout=5).raise_for_status()
        _, said = search.communicate(timeout=120)
        charged = sandbox.charged(KEY)
    said = " ".join(said.split())
    assert search.returncode == 1, said
    assert "Traceback" not in said
    read = len(pl.read_csv(out))
    assert 50 <= read < 300
    assert charged == 50 + read, "every result paid is in the output"
    assert f"The {read} read are in {out} (this search: " in said
    assert "the service failed with HTTP 500" in said
