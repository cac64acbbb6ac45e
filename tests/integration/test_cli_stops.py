"""How a run of the command line stops, said out loud: a service that cannot be reached, and
signals (Ctrl-C once or twice, SIGTERM, SIGHUP). A real subprocess, real files, a sandbox on
loopback with latency so that calls are in flight."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest
import redis as redis_lib
import requests

from profnet_sheets.sandbox import RunningSandbox, start_sandbox
from tests.integration.conftest import CLI, cli_env
from tests.integration.conftest import run_cli as run
from tests.scripted_service import HOLD, Scripted, serving

pytestmark = pytest.mark.integration
KEY = "cli-stops-key"


@pytest.fixture(scope="module")
def sandbox() -> Iterator[RunningSandbox]:
    with start_sandbox(api_keys=(KEY,), credits=10_000_000, job_seconds=60) as running:
        yield running


@pytest.fixture
def env(sandbox: RunningSandbox, tmp_path: Path) -> dict[str, str]:
    requests.post(f"{sandbox.base_url}/_sandbox/reset", timeout=5).raise_for_status()
    requests.put(f"{sandbox.base_url}/_sandbox/faults", json={"latency_ms": 0}, timeout=5)
    return cli_env(sandbox.base_url, KEY, tmp_path)


def closed_port_url() -> str:
    """An address on loopback where nothing listens: a port bound, noted, closed."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def sites(tmp_path: Path, count: int) -> Path:
    path = tmp_path / "accounts.csv"
    path.write_text("Name,Site\n" + "".join(f"Co{i},co{i}.io\n" for i in range(count)))
    return path


def enrich_args(source: Path, out: Path, *more: str) -> list[str]:
    return [
        "enrich",
        str(source),
        "--column",
        "Site",
        "--kind",
        "company",
        "--out",
        str(out),
        "--yes",
        *more,
    ]


def test_an_unreachable_service_stops_the_run_with_its_own_exit_code(
    env: dict[str, str], tmp_path: Path
) -> None:
    url = closed_port_url()
    env = {**env, "PROFNET_BASE_URL": url, "PROFNET_BACKOFF": "0.01"}
    out = tmp_path / "out.csv"
    done = run(env, *enrich_args(sites(tmp_path, 300), out))
    assert done.returncode == 6, done.stderr
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("Service unreachable")]
    assert lines == [
        f"Service unreachable: the service at {url} could not be reached (no connection "
        "attempt got through): 300 rows not done. Check the network and the base URL "
        "with `uv run profnet-sheets check`, then run again; nothing was lost."
    ]
    written = pl.read_csv(out, infer_schema=False)
    assert written.height == 300
    assert set(written["company_error"]) == {
        "not fetched: the service could not be reached (check the network and the base URL: "
        "uv run profnet-sheets check; those done are free)"
    }


class Running:
    """The command line run as a subprocess, its stderr read as it comes."""

    def __init__(self, env: dict[str, str], *args: str) -> None:
        self.process = subprocess.Popen(
            [*CLI, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self.said = b""
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for chunk in iter(lambda: os.read(self.process.stderr.fileno(), 4096), b""):
            with self._lock:
                self.said += chunk

    def text(self) -> str:
        with self._lock:
            return self.said.decode(errors="replace")

    def wait_for(self, pattern: str, timeout: float = 60) -> re.Match[str]:
        """The first match of `pattern` in what the command said (waiting for it)."""
        deadline = time.monotonic() + timeout
        while (found := re.search(pattern, self.text())) is None:
            assert self.process.poll() is None, f"ended early: {self.text()}"
            assert time.monotonic() < deadline, f"never said {pattern!r}: {self.text()}"
            time.sleep(0.02)
        return found

    def signal(self, number: int) -> None:
        os.kill(self.process.pid, number)

    def end(self) -> tuple[int, str]:
        code = self.process.wait(timeout=120)
        self._reader.join(10)
        return code, self.text()


def started_enrich(env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path) -> Running:
    """An enrichment of 300 rows whose calls take 300 ms, 4 at a time: a few done, some under
    way (so a signal comes while calls are in flight and paid)."""
    requests.put(f"{sandbox.base_url}/_sandbox/faults", json={"latency_ms": 300}, timeout=5)
    source = sites(tmp_path, 300)
    running = Running(env, *enrich_args(source, tmp_path / "out.csv", "--concurrency", "4"))
    running.wait_for(r"enrich company: +\d+%\|[^|]*\| *(?:[4-9]|\d\d+)/300")
    return running


def not_done_said(said: str) -> int:
    found = re.search(r"Interrupted: ([\d,]+) rows? not done", said)
    assert found is not None, said
    return int(found.group(1).replace(",", ""))


def check_written(tmp_path: Path, said: str) -> None:
    """The output holds every row; the rows said not done are those marked so."""
    written = pl.read_csv(tmp_path / "out.csv", infer_schema=False)
    assert written.height == 300
    errors = written["company_error"].drop_nulls()
    marked = errors.filter(errors.str.starts_with("interrupted")).len()
    assert 0 < marked < 300
    assert written["company_name"].drop_nulls().len() == 300 - errors.len()
    assert not_done_said(said) == marked


def test_ctrl_c_twice_still_writes_what_was_done(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    running = started_enrich(env, sandbox, tmp_path)
    running.signal(signal.SIGINT)
    running.wait_for("Ctrl-C: stopping")
    running.signal(signal.SIGINT)  # as `uv run` forwarding it does, or an impatient user
    code, said = running.end()
    assert code == 130, said
    assert "Ctrl-C again: stopping already; what was done is being written" in said
    assert "Aborted" not in said
    assert "Traceback" not in said
    check_written(tmp_path, said)


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_sigterm_and_sighup_are_ctrl_c(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path, number: int
) -> None:
    running = started_enrich(env, sandbox, tmp_path)
    running.signal(number)
    code, said = running.end()
    assert code == 128 + number, said
    assert f"{signal.Signals(number).name}: stopping" in said
    assert "Traceback" not in said
    check_written(tmp_path, said)


def test_the_stop_is_said_on_its_own_line_not_on_the_bars(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """stderr is a pipe (not a terminal): the bar's line is cleared and ended first."""
    running = started_enrich(env, sandbox, tmp_path)
    running.signal(signal.SIGTERM)
    code, said = running.end()
    assert code == 128 + signal.SIGTERM, said
    before = said[: said.index("SIGTERM: stopping.")]
    shown = re.split(r"[\r\n]", before)[-1]
    assert shown == "", f"on the bar's line: {before[-80:]!r}"
    assert re.search(r"\r *\rSIGTERM: stopping\.", said), "the bar's line cleared first"


def test_search_under_ctrl_c_says_how_to_reattach(env: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "leads.csv"
    running = Running(
        env, "search", "leads", "--title-keywords", "CTO", "--limit", "10", "--out", str(out)
    )
    request_id = running.wait_for(r"leads search (\S+) \(re-attach with --request-id\)").group(1)
    running.signal(signal.SIGINT)
    code, said = running.end()
    assert code == 130, said
    assert (
        f"get its results with `uv run profnet-sheets search leads --request-id {request_id} "
        f"--out {out}`" in said
    )
    assert "Traceback" not in said


def until_charged(running: Running, sandbox: RunningSandbox, credits: int) -> None:
    """Wait until the sandbox has charged `credits` (it charges a call as it arrives)."""
    deadline = time.monotonic() + 60
    while sandbox.charged(KEY) < credits:
        assert running.process.poll() is None, running.text()
        assert time.monotonic() < deadline, running.text()
        time.sleep(0.02)


def test_ctrl_c_while_a_search_starts_lets_its_creation_finish_and_says_its_id(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """Before: the creation call was cut, paid (50) and its request id never said; the same
    command again paid for a new search."""
    requests.put(f"{sandbox.base_url}/_sandbox/faults", json={"latency_ms": 2500}, timeout=5)
    out, args = tmp_path / "leads.csv", ("--title-keywords", "CFO", "--limit", "10", "--yes")
    running = Running(env, "search", "leads", *args, "--out", str(out))
    until_charged(running, sandbox, 50)  # the creation arrived; its answer is 2.5 s away
    running.signal(signal.SIGINT)
    code, said = running.end()
    assert code == 130, said
    request_id = re.search(r"--request-id (\S+) --out", said)
    assert request_id is not None, said
    assert "(this search: 50 credits)" in said
    assert "(re-attach with --request-id)" not in said, "stopped as it started, not waiting"
    requests.put(f"{sandbox.base_url}/_sandbox/faults", json={"latency_ms": 0}, timeout=5)
    again = run(env, "search", "leads", *args, "--timeout", "0.5", "--out", str(out))
    assert "(reused, free)" in again.stderr, again.stderr
    assert f"leads search {request_id.group(1)} " in again.stderr
    assert sandbox.calls(KEY, endpoint="search-leads") == 1, "not paid twice"
    assert "Traceback" not in said + again.stderr


def test_ctrl_c_while_a_searchs_results_are_read_keeps_and_writes_the_pages_read(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """Before: the page under way was cut (paid, and paid again on re-attaching), nothing
    was written, and the search was said to go on at the service though it had completed."""
    out = tmp_path / "leads.csv"
    running = Running(
        env, "search", "leads", "--title-keywords", "CTO", "--limit", "100", "--yes",
        "--out", str(out),
    )  # fmt: skip
    request_id = running.wait_for(r"leads search (\S+) \(re-attach with --request-id\)").group(1)
    requests.put(f"{sandbox.base_url}/_sandbox/faults", json={"latency_ms": 3000}, timeout=5)
    requests.post(f"{sandbox.base_url}/_sandbox/clock", json={"advance": 61}, timeout=5)
    until_charged(running, sandbox, 50 + 25 + 25)  # the second page arrived, not answered
    running.signal(signal.SIGINT)
    code, said = running.end()
    assert code == 130, said
    assert pl.read_csv(out).height == 50, "the page under way finished, and was written"
    assert "50 leads written to" in said
    assert "Interrupted (Ctrl-C) while its results were read" in said
    assert f"--request-id {request_id} --out {out}" in said
    assert "goes on at the service" not in said
    assert sandbox.charged(KEY) == 100, "no page after the one under way"
    requests.put(f"{sandbox.base_url}/_sandbox/faults", json={"latency_ms": 0}, timeout=5)
    rest = run(env, "search", "leads", "--request-id", request_id, "--yes", "--out", str(out))
    assert rest.returncode == 0, rest.stderr
    assert pl.read_csv(out).height == 100
    assert sandbox.charged(KEY) == 150, "each page paid once"


@pytest.mark.parametrize(
    "args",
    [
        ("lookup", "company", "stripe.com", "--yes"),
        ("search", "leads", "--title-keywords", "CTO", "--yes", "--out"),
    ],
    ids=["lookup", "search"],
)
def test_every_paying_command_stops_on_an_unreachable_service_in_one_line(
    env: dict[str, str], tmp_path: Path, args: tuple[str, ...]
) -> None:
    url = closed_port_url()
    env = {**env, "PROFNET_BASE_URL": url}
    out = (str(tmp_path / "leads.csv"),) if args[-1] == "--out" else ()
    done = run(env, *args, *out)
    assert done.returncode == 6, done.stderr
    said = [line for line in done.stderr.splitlines() if url in line]
    not_done = "1 lookup" if args[0] == "lookup" else "1 search"
    assert len(said) == 1, done.stderr
    assert said[0].startswith(
        f"Service unreachable: the service at {url} could not be reached (no connection "
        f"attempt got through): {not_done} not done. Check the network and the base URL with "
        "`uv run profnet-sheets check`, then run again;"
    )
    assert "stopped buying" not in done.stderr
    assert "Traceback" not in done.stderr
    if args[0] == "lookup":  # before: "0 credits: cached", though no answer came at all
        assert "this lookup: 0 credits\n" in done.stderr
        assert "0 credits: cached" not in done.stderr


def test_a_lookup_whose_answers_were_lost_says_the_credits_possibly_spent(
    env: dict[str, str], sandbox: RunningSandbox
) -> None:
    """Every call went out and its answer was cut: the lookup said `nothing was lost` after
    `this lookup: 0 credits (+10 possibly)`. It says what may have been charged."""
    requests.put(f"{sandbox.base_url}/_sandbox/faults", json={"drop_rate": 1.0}, timeout=5)
    try:
        done = run(
            {**env, "PROFNET_BACKOFF": "0.01"},
            "lookup",
            "company",
            "q1.com",
            "q2.com",
            "q3.com",
            "--yes",
        )
    finally:
        requests.put(f"{sandbox.base_url}/_sandbox/faults", json={"drop_rate": 0.0}, timeout=5)
    assert done.returncode == 6, done.stderr
    # 10 lost in a row stop the run; the calls out meanwhile count too (3 at once)
    possibly = re.search(r"this lookup: 0 credits \(\+(\d+) possibly\)", done.stderr)
    assert possibly is not None, done.stderr
    assert 10 <= int(possibly[1]) <= 12
    assert f"no answer came for the {possibly[1]} credits possibly spent" in done.stderr
    assert "nothing was lost" not in done.stderr


def test_a_run_on_a_memory_cache_says_a_new_run_pays_again(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """Answers kept in memory only: `the 2 done are cached: not paid again` was false."""
    memory = {**env, "PROFNET_CACHE": "memory", "PROFNET_SPENDING_CAP": "2/day"}
    looked = run(memory, "lookup", "company", "m1.com", "m2.com", "m3.com", "--yes")
    assert "the 2 done are kept in memory only (PROFNET_CACHE): paid again next run" in (
        looked.stderr
    )
    out = tmp_path / "o.csv"
    enriched = run(
        {**memory, "PROFNET_SPENDING_CAP": "3/day"}, *enrich_args(sites(tmp_path, 3), out)
    )
    assert "kept in memory only (PROFNET_CACHE), so a run in another process pays them again" in (
        enriched.stderr
    )
    assert sandbox.charged(KEY) == 3, "the cap held across the two runs: 2, then 1"


@pytest.mark.parametrize(
    "args",
    [
        ("lookup", "company", "stripe.com", "--yes"),
        ("search", "leads", "--title-keywords", "CTO", "--yes", "--out"),
    ],
    ids=["lookup", "search"],
)
def test_every_paying_command_ends_out_of_credits_as_enrich_does(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path, args: tuple[str, ...]
) -> None:
    poor = "cli-stops-poor-key"
    requests.put(
        f"{sandbox.base_url}/_sandbox/keys", json={"key": poor, "credits": 0}, timeout=5
    ).raise_for_status()
    out = (str(tmp_path / "leads.csv"),) if args[-1] == "--out" else ()
    done = run({**env, "PROFNET_API_KEY": poor}, *args, *out)
    assert done.returncode == 4, done.stderr
    not_done = "1 lookup" if args[0] == "lookup" else "1 search"
    assert f"Out of credits: {not_done} not done. Top up and run again;" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("lookup", "company", "stripe.com", "acme.io", "--yes"),
        ("search", "leads", "--title-keywords", "CTO", "--yes", "--out"),
    ],
    ids=["lookup", "search"],
)
def test_every_paying_command_ends_on_a_refused_key_as_enrich_does(
    env: dict[str, str], tmp_path: Path, args: tuple[str, ...]
) -> None:
    out = (str(tmp_path / "leads.csv"),) if args[-1] == "--out" else ()
    if args[0] == "lookup":  # a value after the refused one that the cache holds: answered
        assert run(env, "lookup", "company", "acme.io").returncode == 0
    done = run({**env, "PROFNET_API_KEY": "not-a-key-it-knows"}, *args, *out)
    assert done.returncode == 7, done.stderr
    if args[0] == "lookup":
        assert json.loads(done.stdout)["acme.io"]["company_name"]
    not_done = "1 lookup" if args[0] == "lookup" else "1 search"
    assert (
        f"API key refused by the service: {not_done} not done. Check the key (PROFNET_API_KEY) "
        "with `uv run profnet-sheets check`, then run again;"
    ) in done.stderr
    assert "Traceback" not in done.stderr


def test_a_key_refused_mid_run_writes_every_row_and_ends_with_its_own_code(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """Before: Unauthorized ended enrich with exit 1 and no output (the rows paid before the
    key was revoked in the cache only)."""
    source = sites(tmp_path, 10)
    first = run(env, *enrich_args(source, tmp_path / "first.csv"))  # paid with the good key
    assert first.returncode == 0, first.stderr
    more = tmp_path / "more.csv"
    more.write_text(source.read_text() + "".join(f"New{i},new{i}.io\n" for i in range(5)))
    refused = {**env, "PROFNET_API_KEY": "revoked-key"}
    done = run(refused, *enrich_args(more, tmp_path / "out.csv"))
    assert done.returncode == 7, done.stderr
    written = pl.read_csv(tmp_path / "out.csv", infer_schema=False)
    assert written.height == 15
    assert written["company_name"].drop_nulls().len() == 10, "the cached rows, kept"
    assert set(written["company_error"].drop_nulls()) == {
        "not fetched: the service refused the API key (check it: uv run profnet-sheets check; "
        "those done are free)"
    }
    assert (
        "API key refused by the service: 5 rows not done. Check the key (PROFNET_API_KEY) with "
        "`uv run profnet-sheets check`, then run again; the 10 done are kept"
    ) in done.stderr
    assert sandbox.charged(KEY) == 10


def test_a_lookup_under_ctrl_c_finishes_the_call_under_way_and_prints_what_was_answered(
    env: dict[str, str], sandbox: RunningSandbox
) -> None:
    """Before: `Interrupted (Ctrl-C).` and no JSON; the call under way was cut, its answer paid
    for and lost (a re-run paid it again)."""
    assert run(env, "lookup", "company", "cached-ctrl.io").returncode == 0  # 1 credit
    requests.put(f"{sandbox.base_url}/_sandbox/faults", json={"latency_ms": 2500}, timeout=5)
    values = ("first-ctrl.io", "second-ctrl.io", "third-ctrl.io", "cached-ctrl.io")
    running = Running(env, "lookup", "company", *values, "--yes")
    deadline = time.monotonic() + 60
    while sandbox.charged(KEY) < 3:  # charged as it comes: the first answered, the second sent
        assert running.process.poll() is None, running.text()
        assert time.monotonic() < deadline, running.text()
        time.sleep(0.02)
    running.signal(signal.SIGINT)
    code, said = running.end()
    assert running.process.stdout is not None
    answers = json.loads(running.process.stdout.read())
    assert code == 130, said
    assert list(answers) == list(values)
    assert answers["first-ctrl.io"]["company_name"]
    assert answers["second-ctrl.io"]["company_name"], "the call under way finished"
    assert answers["third-ctrl.io"] == {
        "company_error": "interrupted: not fetched (run again; those done are free)"
    }
    assert answers["cached-ctrl.io"]["company_name"], "after the stop, what the cache holds"
    assert "this lookup: 2 credits" in said, said
    assert said.rstrip().endswith("Interrupted (Ctrl-C)."), said
    assert "Traceback" not in said
    again = run(env, "lookup", "company", *values[:2])
    assert again.returncode == 0, again.stderr
    assert "0 credits: cached" in again.stderr
    assert sandbox.charged(KEY) == 3, "nothing paid twice"


def test_lookup_takes_a_budget_and_says_where_to_raise_it(
    env: dict[str, str], sandbox: RunningSandbox
) -> None:
    """`lookup --budget` was no option (only PROFNET_BUDGET, which no message named)."""
    done = run(env, "lookup", "company", "b1.com", "b2.com", "b3.com", "--budget", "2", "--yes")
    assert done.returncode == 3, done.stderr
    assert (
        "Budget reached: 1 lookup not done. Raise the budget (--budget or PROFNET_BUDGET) "
        "and run again; the 2 done are cached: not paid again."
    ) in done.stderr
    assert sandbox.charged(KEY) == 2


def test_a_budget_given_on_the_command_line_wins_over_profnet_budget(
    env: dict[str, str], sandbox: RunningSandbox
) -> None:
    """A new user's review: `PROFNET_BUDGET=25 ... --budget 100` stopped at 25, saying
    `Raise the budget (--budget or PROFNET_BUDGET ...)`: the user had. An option given on
    the command line wins over the environment, as every other setting's (decision 503)."""
    before = sandbox.charged(KEY)
    values = ["w1.com", "w2.com", "w3.com", "w4.com"]
    done = run({**env, "PROFNET_BUDGET": "2"}, "lookup", "company", *values, "--budget", "3")
    assert done.returncode == 3, done.stderr
    assert sandbox.charged(KEY) - before == 3
    lower = run(
        {**env, "PROFNET_BUDGET": "9"}, "lookup", "company", "w5.com", "w6.com", "--budget", "1"
    )
    assert lower.returncode == 3, lower.stderr
    assert sandbox.charged(KEY) - before == 4


def test_ctrl_c_after_the_credits_ran_out_ends_out_of_credits(tmp_path: Path) -> None:
    """A review of decision 539: the command line said `Out of credits` but exited 130 when a
    Ctrl-C came while the calls under way after the 402 finished: the exit code says what
    ended the run (4), as its last line does."""
    scripted = Scripted()
    # The first call is held (the pace sends the second once 0.25 s pass without an answer),
    # the second meets the 402: the held one is under way after the credits ran out.
    scripted.answer("/get-company-details", HOLD, (402, {"message": "insufficient_credits"}))
    with serving(scripted):
        env = cli_env(scripted.base_url, KEY, tmp_path)
        source = sites(tmp_path, 2)
        running = Running(env, *enrich_args(source, tmp_path / "out.csv", "--concurrency", "2"))
        deadline = time.monotonic() + 60
        while scripted.times("/get-company-details") < 2:  # one held, the 402 given
            assert running.process.poll() is None, running.text()
            assert time.monotonic() < deadline, f"never asked twice: {running.text()}"
            time.sleep(0.02)
        running.signal(signal.SIGINT)
        running.wait_for("Ctrl-C: stopping")
        scripted.let_go.set()  # the call under way ends (its connection closed)
        code, said = running.end()
    assert code == 4, said
    assert "Out of credits: " in said
    assert "Traceback" not in said


def test_ctrl_c_does_not_wait_out_the_claim_of_a_killed_process(
    env: dict[str, str], sandbox: RunningSandbox, redis_url: str
) -> None:
    """A review: on a Redis cache, a process SIGKILLed during a call leaves its claim until the
    lease runs out (30 s); another process asking the same call waited, and a Ctrl-C waited
    with it. The wait for a claim gives up on Ctrl-C, as the wait for a turn does: nothing
    sent, the claim left to lapse."""
    connection = redis_lib.Redis.from_url(redis_url)
    requests.put(f"{sandbox.base_url}/_sandbox/faults", json={"latency_ms": 60_000}, timeout=5)
    env = {**env, "PROFNET_CACHE": redis_url}
    killed = Running(env, "lookup", "company", "claimed.io", "--yes")
    deadline = time.monotonic() + 60
    while sandbox.charged(KEY) < 1:  # charged as it arrives: its claim is taken
        assert killed.process.poll() is None, killed.text()
        assert time.monotonic() < deadline, killed.text()
        time.sleep(0.02)
    killed.signal(signal.SIGKILL)
    killed.end()
    claims = connection.keys("*:claim:*")
    assert claims, "the killed process's claim is left in Redis"
    waiting = Running(env, "lookup", "company", "claimed.io", "--yes")
    waiting.wait_for("waiting for another process that is fetching the same call")
    waiting.signal(signal.SIGINT)
    code, said = waiting.end()
    assert code == 130, said
    assert said.rstrip().endswith("Interrupted (Ctrl-C)."), said
    assert connection.keys("*:claim:*") == claims, "gave up before the claim lapsed"
    assert sandbox.charged(KEY) == 1, "nothing sent by the process that waited"
    assert "Traceback" not in said
