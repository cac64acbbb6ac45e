"""Faults a new user's review found after issue 22: search filters checked before paying, a
wrong base-URL path not read as "not found", re-attaching to a search priced as it is; the
real CLI in a subprocess against a sandbox (or a small server) on loopback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import polars as pl
import pytest

from profnet_sheets.client.client import Client
from profnet_sheets.errors import InvalidParameter
from profnet_sheets.sandbox import RunningSandbox
from profnet_sheets.spec.profile import API_KEY_HEADER
from tests.integration.cli.conftest import KEY
from tests.integration.cli.test_first_hour import errors, run
from tests.integration.client.conftest import serve, set_faults
from tests.integration.conftest import in_a_terminal, read_until

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("kind", ["leads", "companies"])
def test_a_sales_nav_url_that_is_not_a_url_is_refused_before_paying(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path, kind: str
) -> None:
    out = tmp_path / "found.csv"
    result = run(env, "search", kind, "--sales-nav-url", "notaurl", "--yes", "--out", str(out))
    assert result.returncode != 0
    (line,) = errors(result)
    assert "'notaurl' is not a search URL (--sales-nav-url)" in line
    assert "credits:" not in result.stderr.split("Error:")[0], "no cost preview for it"
    assert sandbox.charged(KEY) == 0
    assert not out.exists()


NGINX_404 = (
    "<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found"
    "</h1></center>\r\n<hr><center>nginx/1.24.0</center>\r\n</body>\r\n</html>\r\n"
)


class _Answers404(BaseHTTPRequestHandler):
    """A server answering every call alike (`answer`: a web server's 404 page at a wrong
    path, the service's JSON 404 saying a company is not known, a 200 with no data), asking
    for its key first (`asks_key`) as the service does, or not, as a gateway at a wrong
    path."""

    answer: tuple[int, str, str] = (404, "text/html", NGINX_404)
    asks_key = True

    def do_GET(self) -> None:
        keyless = API_KEY_HEADER.lower() not in {name.lower() for name in self.headers}
        status, kind, text = (
            (401, "application/json", json.dumps({"message": "unauthorized"}))
            if keyless and self.asks_key and self.answer[1] == "application/json"
            else self.answer
        )
        body = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


NOT_FOUND_JSON = (404, "application/json", json.dumps({"message": "not_found", "details": "No"}))
NO_DATA_JSON = (200, "application/json", json.dumps({"status": "ok", "data": None}))


@pytest.mark.parametrize(
    ("html", "asks_key"),
    [(True, True), (False, True), (False, False)],
    ids=["a web server's page", "the service's", "a gateway's JSON at a wrong path"],
)
def test_a_404_that_is_not_the_service_s_stops_and_a_spec_404_is_not_found(
    env: dict[str, str], tmp_path: Path, html: bool, asks_key: bool
) -> None:
    """A 404 page, or a JSON 404 `not_found` where the same comes without the key (a gateway
    at a wrong path, not the service, which asks for its key first), stops buying (exit 5);
    the service's own `not_found` is a row not found."""
    answer = _Answers404.answer if html else NOT_FOUND_JSON
    handler = type("Handler", (_Answers404,), {"answer": answer, "asks_key": asks_key})
    source = tmp_path / "many.csv"
    source.write_text("Site\n" + "".join(f"co{i}.io\n" for i in range(300)))
    out = tmp_path / "nf.csv"
    for server in serve(handler):
        url = server.base_url
        env = {**env, "PROFNET_BASE_URL": url, "PROFNET_CACHE": "memory"}
        args = ("--kind", "company", "--column", "Site", "--out", str(out), "--yes")
        result = run(env, "enrich", str(source), *args)
    assert "Traceback" not in result.stderr
    written = pl.read_csv(out, infer_schema=False)
    assert written.height == 300, "every row written"
    if asks_key and not html:
        assert result.returncode == 0, result.stderr
        assert set(written["company_error"]) == {"not found"}
        return
    assert result.returncode == 5, result.stderr
    assert "not found" not in set(written["company_error"])
    said = [line for line in result.stderr.splitlines() if url in line]
    assert len(said) == 1, result.stderr
    if not html:
        assert said[0].startswith(
            f"Stopped buying ({url} answered HTTP 404 not_found with the API key and without "
            "it, which the service never does (it asks for its key first): check the base URL "
            "(PROFNET_BASE_URL) and its path with `uv run profnet-sheets check`)"
        ), said
        return
    assert said[0].startswith(
        f"Stopped buying ({url} answered 3 calls in a row with HTTP 404 pages that are not the "
        "service's answers: check the base URL (PROFNET_BASE_URL) and its path with "
        "`uv run profnet-sheets check`)"
    )


def test_a_small_file_at_a_web_servers_wrong_path_stops_too(
    env: dict[str, str], tmp_path: Path
) -> None:
    """A new user's review: 4 rows at a web server's wrong path were all sent at once and
    all failed before the stop (3 pages in a row): `4 rows failed (the service failed ...):
    run again`, exit 8, which a script retries for ever. The stop comes first."""
    source = tmp_path / "four.csv"
    source.write_text("Site\n" + "".join(f"small{i}.io\n" for i in range(4)))
    for server in serve(_Answers404):
        env = {**env, "PROFNET_BASE_URL": server.base_url, "PROFNET_CACHE": "memory"}
        out = str(tmp_path / "out.csv")
        args = ("--kind", "company", "--column", "Site", "--out", out, "--yes")
        result = run(env, "enrich", str(source), *args)
    assert result.returncode == 5, result.stderr
    assert "pages that are not the service's answers" in result.stderr
    assert "4 rows not done" in result.stderr


def test_an_offline_run_says_which_rows_it_did_not_fetch(
    env: dict[str, str], tmp_path: Path
) -> None:
    """A new user's review: offline, rows not in the cache were counted `with an error`,
    like rows the service found nothing for, and nothing said to run online."""
    source = tmp_path / "new.csv"
    source.write_text("Site\nnew-a.io\nnew-b.io\n")
    out = str(tmp_path / "out.csv")
    args = ("--kind", "company", "--column", "Site", "--out", out)
    result = run({**env, "PROFNET_OFFLINE": "1"}, "enrich", str(source), *args)
    assert result.returncode == 0, result.stderr
    assert "at most 0 credits" in result.stderr
    assert (
        "2 rows not in the cache, not fetched: offline (PROFNET_OFFLINE). Run again online to "
        "fetch them"
    ) in result.stderr


@pytest.mark.parametrize("asks_key", [True, False], ids=["the service", "a gateway"])
def test_a_lookup_answered_with_no_data_is_not_found_or_a_wrong_path(
    env: dict[str, str], tmp_path: Path, asks_key: bool
) -> None:
    """A new user's review: `lookup` printed `null` and exited 0 for an answer with no data
    (enrich says `not found`); a gateway at a wrong path answering so was paid 1 credit a
    call."""
    handler = type("Handler", (_Answers404,), {"answer": NO_DATA_JSON, "asks_key": asks_key})
    for server in serve(handler):
        env = {**env, "PROFNET_BASE_URL": server.base_url, "PROFNET_CACHE_DIR": str(tmp_path)}
        result = run(env, "lookup", "company", "nobody.io", "--yes")
    assert "Traceback" not in result.stderr
    shown = json.loads(result.stdout)
    if asks_key:
        assert result.returncode == 1, result.stderr
        assert shown == {"nobody.io": {"company_error": "not found"}}
        assert "this lookup: 1 credit" in result.stderr
        return
    assert result.returncode == 5, result.stderr
    assert "answered HTTP 200 with no data with the API key and without it" in result.stderr
    assert "this lookup: 0 credits" in result.stderr


def test_a_place_nobody_found_is_not_found_as_enrich_says_it(
    env: dict[str, str], sandbox: RunningSandbox
) -> None:
    """A new user's review: `lookup geocode Narnia` printed `[]` and exited 0 (1 credit paid:
    the service charges a lookup that finds nothing), where enrich says `not found`."""
    result = run(env, "lookup", "geocode", "Narnia", "Berlin", "--yes")
    assert result.returncode == 1, result.stderr
    shown = json.loads(result.stdout)
    assert shown["Narnia"] == {"geocode_error": "not found"}
    assert shown["Berlin"], "a place found: its matches"
    assert "this lookup: 2 credits" in result.stderr
    assert "'Narnia': not found" in result.stderr


def _started_search(env: dict[str, str], sandbox: RunningSandbox, limit: int) -> str:
    """A lead search started by another process (paid: 50 credits), its request id."""
    with Client(api_key=KEY, base_url=env["PROFNET_BASE_URL"], cache="off") as client:
        job = client.search("leads", title_keywords=["CTO"], limit=limit)
    assert sandbox.charged(KEY) == 50
    return job.request_id


def test_re_attaching_says_what_the_results_not_read_cost(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    request_id = _started_search(env, sandbox, 30)
    out = tmp_path / "leads.csv"
    args = ("search", "leads", "--request-id", request_id, "--out", str(out))
    first = run(env, *args)
    assert first.returncode == 0, first.stderr
    assert (
        "leads search: At most 30 credits: the search is not paid again; up to 30 credits for "
        "its 30 results not read yet (1 per result)." in first.stderr
    )
    assert sandbox.charged(KEY) == 80
    again = run(env, *args)
    assert again.returncode == 0, again.stderr
    assert "Free: the search is not paid again and its 30 results are read already" in again.stderr
    assert sandbox.charged(KEY) == 80
    help_text = run(env, "search", "leads", "--help").stdout
    assert "(free)" not in help_text
    assert "its results not read yet are, per result" in " ".join(help_text.split())


def test_re_attaching_a_leads_id_as_a_company_search_says_which_command_reads_it(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    request_id = _started_search(env, sandbox, 5)
    out = str(tmp_path / "companies.csv")
    done = run(env, "search", "companies", "--request-id", request_id, "--out", out)
    assert done.returncode == 1, done.stderr
    assert (
        f"not found. The service said: Search request '{request_id}' not found. If it is a "
        f"leads search's id: `uv run profnet-sheets search leads --request-id {request_id} "
        "--out ...`. (this search: 0 credits)"
    ) in done.stderr
    assert sandbox.charged(KEY) == 50


def test_re_attaching_in_a_terminal_asks_before_paying_for_results(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    request_id = _started_search(env, sandbox, 20)
    out = tmp_path / "leads.csv"
    process, controller = in_a_terminal(
        env, "search", "leads", "--request-id", request_id, "--out", str(out)
    )
    seen = read_until(controller, "Spend up to 20 credits?")
    os.write(controller, b"n\n")
    seen += read_until(controller, "no credits spent.")
    process.wait(timeout=60)
    os.close(controller)
    assert "up to 20 credits for its 20 results not read yet" in seen
    assert "Nothing sent: no credits spent." in seen, "as a new search declined says"
    assert "Aborted" not in seen
    assert process.returncode == 1
    assert sandbox.charged(KEY) == 50, "no results page was read"
    assert not out.exists()


@pytest.mark.parametrize(
    "command",
    [
        ("enrich", "SOURCE", "--kind", "company", "--column", "Site"),
        ("search", "leads", "--title-keywords", "CTO", "--yes"),
        ("demo",),
    ],
    ids=["enrich", "search", "demo"],
)
def test_an_empty_out_is_refused_not_taken_for_a_dry_run(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path, command: tuple[str, ...]
) -> None:
    """An unset shell variable (`--out "$OUT"`): before, enrich exited 0 with nothing written."""
    source = tmp_path / "sites.csv"
    source.write_text("Site\nstripe.com\n")
    args = [str(source) if arg == "SOURCE" else arg for arg in command]
    result = run(env, *args, "--out", "")
    assert result.returncode == 2, result.stderr
    assert "Invalid value for '--out': is empty: name the file to write" in result.stderr
    assert sandbox.charged(KEY) == 0


def test_a_run_whose_rows_failed_on_the_service_exits_8_and_says_to_run_again(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """Every row's call failed (a 500 or 503, no retry): the run writes every row, marked, and
    no longer exits 0 as if it had succeeded (a scheduler saw success)."""
    source = tmp_path / "sites.csv"
    source.write_text("Site\nacme.com\nglobex.com\n", encoding="utf-8")
    out = tmp_path / "out.csv"
    set_faults(sandbox, fail_rate=1.0)
    try:
        result = run(
            {**env, "PROFNET_RETRIES": "0"}, "enrich", str(source), "--column", "Site",
            "--kind", "company", "--out", str(out),
        )  # fmt: skip
    finally:
        set_faults(sandbox, fail_rate=0.0)
    assert result.returncode == 8, result.stderr
    assert errors(result) == []
    assert "2 rows: 0 enriched, 2 with an error, 0 blank" in result.stderr
    assert "2 rows failed (the service failed or the connection was lost" in result.stderr
    assert "run again to try them again" in result.stderr
    marks = pl.read_csv(out)["company_error"].to_list()
    assert all(mark.startswith("service error: ") for mark in marks), marks


def test_a_service_slower_than_the_timeout_on_every_row_exits_6_not_8(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """A new user's review: 12 rows, a service slower than PROFNET_TIMEOUT: 10 paid calls in
    a row with no answer stop the run as unreachable, the last rows' retries refused for it.
    It said `12 rows failed ...: run again` and exited 8, where the guide says exit 6; every
    re-run paid 12 more (decision 489)."""
    out = tmp_path / "out.csv"
    result = _enrich_slowly(env, sandbox, tmp_path, 12, latency_ms=1500, timeout="0.5", out=out)
    assert result.returncode == 6, result.stderr
    assert "Service unreachable: " in result.stderr
    assert "slower than the timeout (PROFNET_TIMEOUT)" in result.stderr
    assert ": 12 rows not done." in result.stderr
    assert "run again to try them again" not in result.stderr
    assert len(pl.read_csv(out)) == 12


def test_a_run_whose_only_errors_are_the_datas_exits_0(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """Not found and invalid rows are answers about the data, not failures: exit 0."""
    source = tmp_path / "sites.csv"
    source.write_text("Site\nacme.com\nnot a domain\n", encoding="utf-8")
    result = run(
        env, "enrich", str(source), "--column", "Site", "--kind", "company",
        "--out", str(tmp_path / "out.csv"),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "1 with an error" in result.stderr
    assert "failed" not in result.stderr


@pytest.mark.parametrize("timeout", ["nan", "-1", "-0.5", "soon"])
def test_a_search_timeout_that_cannot_be_meant_is_refused_before_paying(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path, timeout: str
) -> None:
    """`--timeout nan` polled the status 6,588 times in 5 s; `-1` paid 50 credits first."""
    out = tmp_path / "found.csv"
    result = run(env, "search", "leads", "--title-keywords", "CTO", "--timeout", timeout,
                 "--yes", "--out", str(out))  # fmt: skip
    assert result.returncode == 2
    assert f"'{timeout}' is not a number of seconds, 0 or more, such as 600" in result.stderr
    assert sandbox.charged(KEY) == 0


@pytest.mark.parametrize("timeout", [float("nan"), -1.0])
def test_a_search_wait_that_cannot_be_meant_is_refused(
    env: dict[str, str], sandbox: RunningSandbox, timeout: float
) -> None:
    client = Client(api_key=KEY, base_url=sandbox.base_url, cache="memory")
    job = client.search_leads(title_keywords="CTO", limit=5)
    with pytest.raises(InvalidParameter, match="is not a number of seconds, 0 or more"):
        job.wait(timeout=timeout)
    assert sandbox.calls(KEY, endpoint="get-lead-search-status") == 0


def test_demo_runs_on_the_embedded_sandbox_even_with_a_service_configured(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """With PROFNET_API_KEY and PROFNET_BASE_URL set, `demo` paid 22 credits of that account
    without asking (it passed --yes to the configured service)."""
    limits = {"PROFNET_SPENDING_CAP": "1/day", "PROFNET_CACHE": str(tmp_path / "team")}
    result = run({**env, **limits}, "demo", "--out", str(tmp_path / "demo.xlsx"))
    assert result.returncode == 0, result.stderr
    assert "demo: on the built-in SANDBOX" in result.stderr
    assert "the service configured is not used" in result.stderr
    assert "no API key is configured" not in result.stderr, "one notice, a true one"
    assert "22 credits spent" in result.stderr
    assert sandbox.calls(KEY) == 0, "nothing reached the configured service"
    assert not (tmp_path / "team").exists(), "nor its cache"


def _enrich_slowly(
    env: dict[str, str],
    sandbox: RunningSandbox,
    tmp_path: Path,
    keys: int,
    *,
    latency_ms: int,
    timeout: str,
    out: Path,
) -> subprocess.CompletedProcess[str]:
    """`enrich` of `keys` new domains, the sandbox answering after `latency_ms`, the client
    waiting `timeout` seconds (PROFNET_TIMEOUT)."""
    source = tmp_path / "slow.csv"
    source.write_text("Site\n" + "".join(f"slow{n}.io\n" for n in range(keys)), encoding="utf-8")
    set_faults(sandbox, latency_ms=latency_ms)
    try:
        return run(
            {**env, "PROFNET_TIMEOUT": timeout}, "enrich", str(source), "--column", "Site",
            "--kind", "company", "--out", str(out), "--yes",
        )  # fmt: skip
    finally:
        set_faults(sandbox, latency_ms=0)


def test_a_service_slower_than_the_timeout_is_not_paid_again_and_again(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """Every answer came after PROFNET_TIMEOUT: 20 keys quoted `at most 20 credits` were
    charged 100 (each tried 5 times), exit 0. Now the run stops once 10 paid calls in a row
    got no answer, as for a service unreachable: their retries are never sent."""
    result = _enrich_slowly(
        env, sandbox, tmp_path, 20, latency_ms=900, timeout="0.3", out=tmp_path / "out.csv"
    )
    assert result.returncode == 6, result.stderr
    assert "none of 10 paid calls in a row was answered" in result.stderr
    assert "rows not done" in result.stderr
    charged = sandbox.charged(KEY)
    assert charged <= 20 + 4, f"{charged} charged for 20 keys"
    assert f"0 credits spent (+{charged} possibly)" in result.stderr
    marks = pl.read_csv(tmp_path / "out.csv")["company_error"].to_list()
    sent = [mark for mark in marks if mark.startswith("service error: ")]
    assert sent, "rows whose first attempt went out say so"
    assert all("may have been charged" in mark for mark in sent)
    rest = [mark for mark in marks if mark not in sent]
    assert all(mark.startswith("not fetched: no answer from the service at") for mark in rest)
    assert not any("could not be reached" in mark for mark in marks), marks


def test_a_search_with_places_by_name_is_asked_before_they_are_looked_up(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """Helper 95: `--geo-codes 'Munich; Madrid'` paid 2 credits before `Spend up to 60
    credits?`, and a no kept them spent. The search is now said and asked with its places
    first (what `--dry-run` says), and a no sends nothing."""
    out = tmp_path / "leads.csv"
    process, controller = in_a_terminal(
        env, "search", "leads", "--title-keywords", "CTO", "--geo-codes", "Munich; Madrid",
        "--limit", "10", "--out", str(out),
    )  # fmt: skip
    seen = read_until(controller, "Spend up to 62 credits?")
    os.write(controller, b"n\n")
    seen += read_until(controller, "no credits spent.")
    process.wait(timeout=60)
    os.close(controller)
    flat = " ".join(seen.split())
    assert "Looking up 2 places by name first (Munich, Madrid): 2 credits more" in flat
    assert "Nothing sent: no credits spent." in flat
    assert process.returncode == 1
    assert sandbox.charged(KEY) == 0, "no place paid before the yes"
    assert not out.exists()


def test_a_search_with_places_said_yes_to_is_not_asked_again(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """One yes covers the places and the search they quote: asked once."""
    out = tmp_path / "leads.csv"
    process, controller = in_a_terminal(
        env, "search", "leads", "--title-keywords", "CTO", "--geo-codes", "Berlin",
        "--limit", "10", "--out", str(out),
    )  # fmt: skip
    seen = read_until(controller, "Spend up to 61 credits?")
    os.write(controller, b"y\n")
    seen += read_until(controller, "__never__", timeout=60)
    process.wait(timeout=60)
    os.close(controller)
    assert process.returncode == 0, seen
    assert seen.count("Spend up to") == 1, seen
    assert "Spent before, looking up places by name: 1 credit." in " ".join(seen.split())
    assert sandbox.charged(KEY, "find-geocode-by-location") == 1
    assert out.exists()


def test_out_of_credits_while_a_searchs_results_are_read_writes_those_read(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """The 50 results paid for were cached but not written (a budget's cut wrote them)."""
    import requests

    keys = f"{sandbox.base_url}/_sandbox/keys"
    requests.put(keys, json={"key": KEY, "credits": 110}, timeout=5).raise_for_status()
    out = tmp_path / "leads.csv"
    try:
        result = run(env, "search", "leads", "--title-keywords", "CTO", "--limit", "200",
                     "--yes", "--out", str(out))  # fmt: skip
    finally:
        requests.put(keys, json={"key": KEY, "credits": 10_000_000}, timeout=5)
    assert result.returncode == 4, result.stderr
    assert pl.read_csv(out).height == 50, "two pages of 25 paid: 110 - 50 - 2 x 25 left 10"
    flat = " ".join(result.stderr.split())
    assert "50 leads written to" in flat
    assert (
        f"Out of credits: 1 search not done. Top up and run again; those read are in {out}" in flat
    )
    assert "--request-id" in flat
    assert sandbox.charged(KEY) == 50 + 50


def test_a_search_read_before_is_given_again_offline(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """PROFNET_OFFLINE=1 stopped at the status call (never cached), though its cost line said
    `Free: ... already read`; client.md promises a search's pages offline too."""
    args = ("search", "leads", "--title-keywords", "Offline", "--limit", "30", "--yes", "--out")
    assert run(env, *args, str(tmp_path / "online.csv")).returncode == 0
    before = sandbox.calls(KEY)
    offline = run({**env, "PROFNET_OFFLINE": "1"}, *args, str(tmp_path / "offline.csv"))
    assert offline.returncode == 0, offline.stderr
    assert pl.read_csv(tmp_path / "offline.csv").height == 30
    assert pl.read_csv(tmp_path / "offline.csv").equals(pl.read_csv(tmp_path / "online.csv"))
    assert sandbox.calls(KEY) == before, "nothing sent"
    never = run({**env, "PROFNET_OFFLINE": "1"}, "search", "leads", "--title-keywords", "Never",
                "--yes", "--out", str(tmp_path / "never.csv"))  # fmt: skip
    assert never.returncode == 1
    assert "offline, and this call is not in the cache" in never.stderr
    assert "PROFNET_OFFLINE unset" in never.stderr


@pytest.mark.parametrize("command", ["enrich", "lookup"])
def test_the_question_asks_what_the_budget_lets_the_run_spend(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path, command: str
) -> None:
    """A review: `--budget 3` for 5 keys asked `Spend up to 5 credits?` under a preview saying
    the run stops at 3: the question asks what may be spent, and says which limit stops it."""
    values = [f"asked{n}.io" for n in range(5)]
    source = tmp_path / "sites.csv"
    pl.DataFrame({"Site": values}).write_csv(source)
    out = str(tmp_path / "out.csv")
    enrich = ("enrich", str(source), "--kind", "company", "--column", "Site", "--out", out)
    args = enrich if command == "enrich" else ("lookup", "company", *values)
    process, controller = in_a_terminal(env, *args, "--budget", "3")
    seen = read_until(controller, "?")
    os.write(controller, b"n\n")
    seen += read_until(controller, "no credits spent.")
    process.wait(timeout=60)
    os.close(controller)
    assert "Spend up to 3 credits (the budget stops the run there)?" in seen, seen
    assert "5 credits?" not in seen
    assert sandbox.charged(KEY) == 0


@pytest.mark.parametrize("command", ["enrich", "lookup"])
def test_ctrl_c_at_the_question_ends_the_command_at_once_nothing_sent(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path, command: str
) -> None:
    """A review: Ctrl-C at enrich's question did nothing until Enter was pressed (polars'
    threads took the signal while the main thread waited for a line), and at lookup's it said
    `Ctrl-C: stopping. Calls under way finish` and then `Aborted!`, exit 1."""
    values = [f"unasked{n}.io" for n in range(3)]
    source = tmp_path / "sites.csv"
    pl.DataFrame({"Site": values}).write_csv(source)
    out = tmp_path / "out.csv"
    enrich = ("enrich", str(source), "--kind", "company", "--column", "Site", "--out", str(out))
    args = enrich if command == "enrich" else ("lookup", "company", *values)
    process, controller = in_a_terminal(env, *args)
    seen = read_until(controller, "?")
    process.send_signal(signal.SIGINT)
    seen += read_until(controller, "no credits spent.", timeout=20)
    code = process.wait(timeout=20)
    os.close(controller)
    said = " ".join(seen.split())
    assert "Nothing sent: no credits spent." in said, said
    assert code == 130, said
    for wrong in ("Calls under way finish", "Aborted!", "Traceback"):
        assert wrong not in said, said
    assert sandbox.calls(KEY) == 0
    assert not out.exists()


def test_a_service_failing_with_500s_and_503s_mixed_stops_the_run(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """Helper 95: every call answered a 500 or a 503 (half each): 100 keys were asked 500
    times (+245 credits possibly), each 503 starting the count of lost calls again. A 503 is
    neither done nor an answer: the run stops after 10 possibly charged ones, as for 500s."""
    source = tmp_path / "down.csv"
    source.write_text("Site\n" + "".join(f"down{n}.io\n" for n in range(100)), encoding="utf-8")
    set_faults(sandbox, fail_rate=1.0)
    try:
        result = run(
            env, "enrich", str(source), "--kind", "company", "--out", str(tmp_path / "o.csv"),
            "--yes",
        )  # fmt: skip
    finally:
        set_faults(sandbox, fail_rate=0.0)
    assert result.returncode == 6, result.stderr
    assert "none of 10 paid calls in a row was answered" in result.stderr
    calls = sandbox.calls(KEY)
    assert calls < 150, f"{calls} calls for 100 keys"


def test_a_placeholder_given_as_a_search_filter_is_refused_before_paying(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """Helper 96: `--title-keywords N/A` paid 55 credits for a search of the word `N/A`."""
    out = tmp_path / "na.csv"
    result = run(
        env, "search", "leads", "--title-keywords", "N/A", "--limit", "5", "--out", str(out),
        "--yes",
    )  # fmt: skip
    assert result.returncode != 0
    (line,) = errors(result)
    assert "'N/A' stands for no value: give --title-keywords a value, or leave it out" in line
    assert sandbox.charged(KEY) == 0
    assert not out.exists()


def test_lookup_profile_shows_skills_and_certifications_when_asked_and_pays_once(
    env: dict[str, str], sandbox: RunningSandbox
) -> None:
    """Helper 97: fetched at the same price (decision 596), skills and certifications were
    printed by a plain `lookup profile` too; they are shown when asked for."""
    url = "https://www.profnet.com/in/shown-as-asked/"
    shown = {}
    for flags in ((), ("--skills",), ("--skills", "--certifications")):
        result = run(env, "lookup", "profile", url, *flags, "--yes")
        assert result.returncode == 0, result.stderr
        shown[flags] = set(json.loads(result.stdout)[url])
    assert not {"skills", "certifications"} & shown[()]
    assert "skills" in shown[("--skills",)]
    assert "certifications" not in shown[("--skills",)]
    assert {"skills", "certifications"} <= shown[("--skills", "--certifications")]
    assert sandbox.charged(KEY) == 1
