"""The batch commands as a user runs them (subprocess), against a sandbox on loopback."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest
import requests

from profnet_sheets import BudgetExceeded, Client
from profnet_sheets.batch.marks import CAP_IN_ALL_NOT_FETCHED
from profnet_sheets.batch.workflow import Enrichment
from profnet_sheets.excel import formulas, session
from profnet_sheets.excel.session import SessionConfig
from profnet_sheets.sandbox import RunningSandbox, start_sandbox
from tests.integration.conftest import CLI, cli_env
from tests.integration.conftest import run_cli as run

pytestmark = pytest.mark.integration
KEY = "cli-batch-key"


@pytest.fixture(scope="module")
def sandbox() -> Iterator[RunningSandbox]:
    with start_sandbox(api_keys=(KEY,), credits=10_000_000, job_seconds=0.5) as running:
        yield running


@pytest.fixture
def env(sandbox: RunningSandbox, tmp_path: Path) -> dict[str, str]:
    requests.post(f"{sandbox.base_url}/_sandbox/reset", timeout=5).raise_for_status()
    requests.put(f"{sandbox.base_url}/_sandbox/faults", json={"latency_ms": 0}, timeout=5)
    return cli_env(sandbox.base_url, KEY, tmp_path)


def accounts(tmp_path: Path, count: int = 0) -> Path:
    rows = [
        "Name,Site",
        "Stripe,https://www.stripe.com/",
        'Formula,=HYPERLINK("http://x")',
        "Blank,",
        "Acme,acme.io",
        "Stripe again,stripe.com",
    ]
    rows += [f"Co{i},co{i}.io" for i in range(count)]
    path = tmp_path / "accounts.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def test_enrich_previews_then_writes_a_safe_xlsx(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    source = accounts(tmp_path)
    preview = run(
        env,
        "enrich",
        str(source),
        "--column",
        "Site",
        "--kind",
        "company",
        "--out",
        str(tmp_path / "x.xlsx"),
        "--dry-run",
    )
    assert preview.returncode == 0, preview.stderr
    assert "5 rows: 3 to fetch, 0 already cached (free), 1 that cannot be looked up, 1 blank;" in (
        preview.stderr
    )
    assert "at most 2 credits" in preview.stderr
    assert sandbox.charged(KEY) == 0
    out = tmp_path / "accounts-enriched.xlsx"
    result = run(
        env,
        "enrich",
        str(source),
        "--column",
        "Site",
        "--kind",
        "company",
        "--out",
        str(out),
        "--fields",
        "company_name,industry",
    )
    assert result.returncode == 0, result.stderr
    assert "2 credits spent" in result.stderr
    import openpyxl

    sheet = openpyxl.load_workbook(out).active
    assert sheet is not None
    values = list(sheet.iter_rows(values_only=True))
    assert values[0] == (
        "Name",
        "Site",
        "company_name",
        "company_industry",
        "company_error",
    )
    assert len(values) == 6, "every input row, in order"
    assert values[2][1] == '=HYPERLINK("http://x")', "a formula in a cell stays text, as typed"
    assert sheet["B3"].quotePrefix, "with Excel's invisible quote prefix"
    for row in sheet.iter_rows():
        for cell in row:
            assert cell.data_type != "f"
    again = run(
        env,
        "enrich",
        str(source),
        "--column",
        "Site",
        "--kind",
        "company",
        "--out",
        str(tmp_path / "again.csv"),
    )
    assert again.returncode == 0, again.stderr
    assert "0 credits spent" in again.stderr
    assert sandbox.charged(KEY) == 2


def test_enrich_with_a_budget_marks_what_it_did_not_fetch(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    source = accounts(tmp_path, count=5)
    out = tmp_path / "out.parquet"
    result = run(
        env,
        "enrich",
        str(source),
        "--column",
        "Site",
        "--kind",
        "company",
        "--out",
        str(out),
        "--budget",
        "3",
        "--concurrency",
        "1",
    )
    assert result.returncode == 3, "a run the budget cut short says so in its exit code"
    assert "Budget reached: 4 rows not done" in result.stderr
    assert "3 credits spent" in result.stderr
    frame = pl.read_parquet(out)
    assert frame.height == 10
    assert frame["company_error"].str.starts_with("budget reached").sum() == 4
    assert sandbox.charged(KEY) == 3


def test_a_run_the_spending_cap_cut_says_the_cap_not_the_budget(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """Before: the last line said "Budget reached ... Raise the budget" while its rows said
    "spending cap reached"."""
    env = {**env, "PROFNET_SPENDING_CAP": "3/day"}
    source = accounts(tmp_path, count=5)
    out = tmp_path / "out.parquet"
    args = ["--column", "Site", "--kind", "company", "--concurrency", "1", "--yes"]
    result = run(env, "enrich", str(source), *args, "--out", str(out))
    assert result.returncode == 3, result.stderr
    assert (
        "Spending cap reached: 4 rows not done. Raise the spending cap (PROFNET_SPENDING_CAP, "
        "or `uv run profnet-sheets config --spending-cap ...`), "
        "or run again once its period has passed;" in result.stderr
    )
    assert "Budget reached" not in result.stderr
    looked_up = run(env, "lookup", "company", "capped-one.io", "--yes")
    assert looked_up.returncode == 3, looked_up.stderr
    assert "Spending cap reached: 1 lookup not done." in looked_up.stderr
    assert sandbox.charged(KEY) == 3


@pytest.mark.parametrize(("option", "value"), [("--concurrency", "0"), ("--budget", "-3")])
def test_an_impossible_count_is_refused_before_anything_is_read_or_paid(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path, option: str, value: str
) -> None:
    source = accounts(tmp_path, count=2)
    args = ["enrich", str(source), "--column", "Site", "--kind", "company", option, value]
    result = run(env, *args, "--out", str(tmp_path / "out.csv"), "--yes")
    assert result.returncode == 2
    assert option in result.stderr
    assert value in result.stderr
    assert not (tmp_path / "out.csv").exists()
    assert sandbox.charged(KEY) == 0


def test_ctrl_c_saves_what_is_done_and_a_rerun_pays_for_the_rest(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    requests.put(f"{sandbox.base_url}/_sandbox/faults", json={"latency_ms": 100}, timeout=5)
    source = accounts(tmp_path, count=40)
    out = tmp_path / "out.csv"
    args = [
        "enrich",
        str(source),
        "--column",
        "Site",
        "--kind",
        "company",
        "--out",
        str(out),
        "--concurrency",
        "1",
        "--yes",
    ]
    process = subprocess.Popen(
        [*CLI, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 30
    while sandbox.charged(KEY) < 5 and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "Interrupted" in stderr
    partial = pl.read_csv(out, infer_schema=False)
    done = partial["company_name"].drop_nulls().len()
    assert 0 < done < 42
    paid = sandbox.charged(KEY)
    requests.put(f"{sandbox.base_url}/_sandbox/faults", json={"latency_ms": 0}, timeout=5)
    rerun = run(env, *args)
    assert rerun.returncode == 0, rerun.stderr
    assert sandbox.charged(KEY) == 42, f"paid {paid} before, then only the rest"
    assert pl.read_csv(out, infer_schema=False)["company_error"].null_count() == 44


def test_lookup_prints_json(env: dict[str, str]) -> None:
    url = "https://www.stripe.com/about"
    result = run(env, "lookup", "company", url)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)[url]["company_name"] == "Stripe"
    # Each answer under the value it answers, as typed, in the order given.
    many = run(env, "lookup", "geocode", "Berlin", "san francisco")
    places = json.loads(many.stdout)
    assert list(places) == ["Berlin", "san francisco"]
    assert "Berlin" in places["Berlin"][0]["name"]
    assert "San Francisco" in places["san francisco"][0]["name"]
    bad = run(env, "lookup", "company", "not a domain")
    assert bad.returncode == 1
    assert "not a domain" in bad.stderr
    assert "Traceback" not in bad.stderr
    # Helper 93: only the first was named; each fix met the next.
    several = run(env, "lookup", "company", "stripe.com", "2023-09-08", "jane@gmail.com", "hello")
    assert several.returncode == 1
    said = several.stderr
    assert (
        said.splitlines()[-1]
        == "Error: 3 values cannot be looked up (said above); nothing was sent."
    )
    assert all(f"'{value}': " in said for value in ("2023-09-08", "jane@gmail.com", "hello"))


def test_search_writes_results_and_reattaches_for_free(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    out = tmp_path / "leads.csv"
    result = run(
        env, "search", "leads", "--title-keywords", "CTO", "--limit", "30", "--out", str(out)
    )
    assert result.returncode == 0, result.stderr
    assert pl.read_csv(out).height == 30
    assert "leads search: At most 80 credits: 50 credits to start the search" in result.stderr
    assert "this search: 80 credits." in result.stderr, "its own spend, not the ledger's"
    request_id = result.stderr.split("leads search ")[1].split()[0]
    assert sandbox.charged(KEY) == 50 + 30
    again = run(
        env, "search", "leads", "--request-id", request_id, "--out", str(tmp_path / "b.xlsx")
    )
    assert again.returncode == 0, again.stderr
    assert "0 credits: re-attached." in again.stderr
    assert sandbox.charged(KEY) == 80
    reused = run(
        env, "search", "leads", "--title-keywords", "CTO", "--limit", "30", "--out", str(out)
    )
    assert "leads search: Free: the same search ran" in reused.stderr
    assert "0 credits: reused." in reused.stderr
    assert sandbox.charged(KEY) == 80
    companies = run(
        env,
        "search",
        "companies",
        "--company-headcounts",
        "B,C",
        "--company-headcount-growth",
        "0,50",
        "--limit",
        "5",
        "--out",
        str(tmp_path / "c.parquet"),
    )
    assert companies.returncode == 0, companies.stderr
    bad = run(env, "search", "leads", "--out", str(out))
    assert bad.returncode == 1
    assert "at least one filter" in bad.stderr


def test_credits_and_cache(env: dict[str, str], tmp_path: Path) -> None:
    run(env, "lookup", "company", "stripe.com")
    credits = run(env, "credits")
    assert "get-company-details" in credits.stdout
    assert "total: 1 credit" in credits.stdout
    info = run(env, "cache", "info")
    assert "answers: 1" in info.stdout
    cleared = run(env, "cache", "clear", "--yes")
    assert cleared.returncode == 0
    assert "answers: 0" in run(env, "cache", "info").stdout


def test_out_of_credits_stops_at_once_keeps_what_was_done_and_says_so(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    keys = f"{sandbox.base_url}/_sandbox/keys"
    requests.put(keys, json={"key": KEY, "credits": 3}, timeout=5).raise_for_status()
    try:
        out_of_credits(env, sandbox, tmp_path)
    finally:
        requests.put(keys, json={"key": KEY, "credits": 10_000_000}, timeout=5)


def out_of_credits(env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path) -> None:
    source = tmp_path / "domains.csv"
    pl.DataFrame({"website": [f"credit{n}.io" for n in range(10)]}).write_csv(source)
    out = tmp_path / "out.csv"
    command = ["enrich", str(source), "--kind", "company", "--out", str(out)]
    result = run(env, *command, "--concurrency", "1", "--yes")
    assert result.returncode == 4, result.stderr
    assert "Out of credits: 7 rows not done. Top up and run again" in result.stderr
    assert "the 3 done are kept and will not be paid again" in result.stderr
    assert "Traceback" not in result.stderr
    frame = pl.read_csv(out)
    assert frame.height == 10, "every row kept"
    assert frame["company_name"].is_not_null().sum() == 3
    assert sandbox.charged(KEY) == 3
    assert sandbox.calls(KEY, "get-company-details") <= 4, "stopped sending at the first 402"


def test_the_output_is_checked_before_anything_is_paid(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    source = accounts(tmp_path, count=3)
    same = run(env, "enrich", str(source), "--kind", "company", "--out", str(source), "--yes")
    assert same.returncode == 1
    assert "is the input file" in same.stderr
    assert "-enriched" in same.stderr, "a name is suggested"
    unwritable = Path("/proc/profnet-out.csv")  # a folder nobody can write in, root neither
    denied = run(env, "enrich", str(source), "--kind", "company", "--out", str(unwritable))
    assert denied.returncode == 1
    assert "cannot be written" in denied.stderr
    assert "nothing was paid" in denied.stderr
    assert sandbox.charged(KEY) == 0


def test_values_too_long_for_a_url_are_marked_and_the_rest_is_done(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """Five cells of 70,000 characters: each the service's server would answer with a page
    that is not the service's, and three in a row stopped the whole run blaming the base URL
    (helper 93). They are refused for free and marked; every other row is done."""
    places = ["Berlin", "Paris", "London", "Madrid", "Rome"]
    source = tmp_path / "places.csv"
    source.write_text("\n".join(["City", *(c * 70_000 for c in "abcde"), *places]) + "\n")
    out = tmp_path / "out.csv"
    done = run(
        env,
        "enrich",
        str(source),
        "--column",
        "City",
        "--kind",
        "geocode",
        "--out",
        str(out),
        "--yes",
    )
    assert done.returncode == 0, done.stderr
    assert "5 that cannot be looked up" in done.stderr
    assert "base URL" not in done.stderr
    rows = out.read_text().splitlines()[1:]
    assert all("too long to send in a URL" in row for row in rows[:5])
    assert all(",CITY," in row for row in rows[5:]), rows[5:]
    assert sandbox.charged(KEY) == len(places)


def test_cells_that_name_nothing_are_not_paid_as_places_schools_or_people(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """Helper 93: a column of dates, numbers, true/false, e-mails and page URLs was paid as
    places (5 credits, every row `not found`), schools (`Jane@Acme.Com`, "enriched") and
    people. Each is refused for free and marked; the real names are looked up."""
    junk = ["2023-09-08", "-5", "TRUE", "jane@acme.com", "https://www.profnet.com/in/anna/"]
    junk += ["12:30", "Q3 2024", "Yes", "50%", "stripe.com"]  # helper 94
    for kind, real, columns in [
        ("geocode", "Berlin", ["--column", "Value"]),
        ("school", "Stanford University", ["--column", "Value"]),
        ("find_profile", "Anna Schmidt", ["--column", "name=Value"]),
    ]:
        source = tmp_path / f"{kind}.csv"
        source.write_text("\n".join(["Value", *junk, real]) + "\n")
        before = sandbox.charged(KEY)
        out = tmp_path / f"{kind}-out.csv"
        done = run(env, "enrich", str(source), "--kind", kind, *columns, "--out", str(out), "--yes")
        said = " ".join(done.stderr.split())
        assert done.returncode == 0, said
        assert f"{len(junk)} that cannot be looked up" in said, said
        assert sandbox.charged(KEY) - before == 1, kind
        rows = out.read_text().splitlines()[1:]
        assert all("invalid input" in row for row in rows[: len(junk)]), rows


def test_file_names_and_dotted_names_are_not_paid_as_companies(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """Helper 93: `report.pdf`, `logo.png`, `john.smith`, `acme.local` were paid (4 credits)
    and "enriched" as Report Pdf, John Smith... No top-level domain: never sent."""
    source = tmp_path / "d.csv"
    source.write_text("Website\nreport.pdf\nlogo.png\njohn.smith\nacme.local\nstripe.com\n")
    out = tmp_path / "d-out.csv"
    done = run(env, "enrich", str(source), "--kind", "company", "--out", str(out), "--yes")
    said = " ".join(done.stderr.split())
    assert done.returncode == 0, said
    assert "4 that cannot be looked up" in said
    assert sandbox.charged(KEY) == 1
    rows = out.read_text().splitlines()[1:]
    assert "ends in .pdf, which is no top-level domain" in rows[0]


def test_the_spending_cap_is_kept_shown_and_holds_across_runs(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    saved = run(env, "config", "--spending-cap", "4/day")
    assert saved.returncode == 0, saved.stderr
    assert "spending cap: 4/day" in saved.stdout
    for attempt in range(2):  # two runs, one after another: the cap holds for both
        source = tmp_path / f"run{attempt}.csv"
        pl.DataFrame({"website": [f"cap{attempt}-{n}.io" for n in range(3)]}).write_csv(source)
        run(env, "enrich", str(source), "--kind", "company", "--out", str(tmp_path / "o.csv"))
    assert sandbox.charged(KEY) == 4
    shown = run(env, "credits")
    assert "spending cap: 4/day for every run on this computer's ledger" in shown.stdout
    assert "(the config file: config --spending-cap;" in shown.stdout, "where it is set"
    assert "0 left" in shown.stdout
    bad = run(env, "config", "--spending-cap", "5/week")
    assert bad.returncode == 1
    assert "a day, a month or in all" in bad.stderr


def test_a_cap_in_all_is_said_so_and_has_no_next_period_to_wait_for(
    env: dict[str, str], sandbox: RunningSandbox
) -> None:
    """A review: `config --spending-cap 5` showed `spending cap: 5`, and its refusal said to
    wait for its next period, which a cap in all never has."""
    saved = run(env, "config", "--spending-cap", "5")
    assert saved.returncode == 0, saved.stderr
    assert "spending cap: 5 in all" in saved.stdout
    shown = run(env, "credits")
    assert "spending cap: 5 in all for every run on this computer's ledger" in shown.stdout
    done = run(env, "lookup", "company", *[f"all{n}.io" for n in range(7)], "--yes")
    assert done.returncode == 3, done.stderr
    assert sandbox.charged(KEY) == 5
    said = " ".join(done.stderr.split())
    assert "the spending cap 5 in all has 5 left" in said, said
    assert "Raise the spending cap (PROFNET_SPENDING_CAP, or `uv run profnet-sheets config " in said
    assert "period" not in said, said
    assert "period" not in done.stdout, "nor do its rows, nor cells (a review of decision 547)"
    assert done.stdout.count(CAP_IN_ALL_NOT_FETCHED) == 2, done.stdout

    def capped() -> Client:
        return Client(
            api_key=env["PROFNET_API_KEY"],
            base_url=env["PROFNET_BASE_URL"],
            cache_dir=env["PROFNET_CACHE_DIR"],
            spending_cap="5",
        )

    client = capped()
    with client, pytest.raises(BudgetExceeded) as refused:
        client.get_company_details(domain="all-more.io")
    assert "the spending cap of 5 in all are left" in str(refused.value)
    assert "period" not in str(refused.value)
    assert not refused.value.renews
    with capped() as client:
        frame = pl.DataFrame({"site": ["all0.io", "all-row.io"]})
        result, _ = Enrichment(client, frame, "site", "company").run(progress=False)
        assert isinstance(result, pl.DataFrame)
        assert result["company_error"].to_list() == [None, CAP_IN_ALL_NOT_FETCHED]
        session.install(client, SessionConfig(None, False, "the test"))
        try:
            cells = formulas.company([["all-row.io"], ["all-cell.io"]], "company_name")
            one = formulas.company("all-one.io", "company_name")
        finally:
            session.reset()
    assert isinstance(cells, list)
    assert isinstance(one, str)
    for cell in [*(row[0] for row in cells), one]:
        assert cell.startswith("#PROFNET! the spending cap is reached"), cell
        assert "period" not in cell, cell
    assert sandbox.charged(KEY) == 5


def test_lookup_shows_its_cost_first_and_ends_with_its_own_spend(
    env: dict[str, str], sandbox: RunningSandbox
) -> None:
    first = run(env, "lookup", "company", "costly.io", "cheap.io")
    assert first.returncode == 0, first.stderr
    assert "2 lookups: 0 cached (free); at most 2 credits." in first.stderr
    assert "this lookup: 2 credits" in first.stderr
    again = run(env, "lookup", "company", "costly.io")
    assert "1 lookup: 1 cached (free); at most 0 credits." in again.stderr
    assert "0 credits: cached" in again.stderr
    assert sandbox.charged(KEY) == 2


def test_search_takes_place_names_for_location_filters(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    out = tmp_path / "berlin.csv"
    result = run(
        env, "search", "leads", "--title-keywords", "CTO", "--geo-codes", "Berlin",
        "--limit", "5", "--out", str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "geo_codes: Berlin" in result.stderr, "the place chosen is said"
    nowhere = run(env, "search", "leads", "--geo-codes", "Qwxzzy", "--out", str(out))
    assert nowhere.returncode == 1
    assert "No place called 'Qwxzzy'" in nowhere.stderr
    # A new user's review: the place's lookup is paid, and said so.
    assert "(this search: 1 credit, places looked up; nothing started)." in nowhere.stderr


def test_a_place_s_name_with_commas_is_one_place_and_geo_ids_may_be_numbers(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """Helper 92: the service's own name `Berlin, Berlin, Germany` pasted back was split on
    its commas, and the search (paid) ran on Berlin or all of Germany. A comma separates geo
    ids only; `605862502.0` (a spreadsheet's number) is a geo id, not a name to look up."""
    out = tmp_path / "berlin.csv"
    args = ["search", "leads", "--title-keywords", "CTO", "--limit", "3", "--dry-run"]
    named = run(env, *args, "--geo-codes", "Berlin, Berlin, Germany")
    assert named.returncode == 0, named.stderr
    assert "Looking up 1 place by name first (Berlin, Berlin, Germany)" in named.stderr
    result = run(
        env, "search", "leads", "--title-keywords", "CTO", "--limit", "3", "--out", str(out),
        "--yes", "--geo-codes", "Berlin, Berlin, Germany",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    chosen = next(line for line in result.stderr.splitlines() if line.startswith("geo_codes:"))
    assert chosen.count("=") == 1, chosen
    assert "(country)" not in chosen
    before = sandbox.charged(KEY)
    ids = run(env, *args, "--geo-codes", "605862502.0, 429572983")
    assert ids.returncode == 0, ids.stderr
    assert "by name" not in ids.stderr
    assert sandbox.charged(KEY) == before, "nothing looked up"
    mixed = run(env, *args, "--geo-codes", "605862502, Berlin")  # helper 94: paid, not found
    assert mixed.returncode == 1
    assert "holds geo ids and a name: separate places with semicolons" in mixed.stderr
    assert sandbox.charged(KEY) == before
