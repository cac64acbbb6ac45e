"""What a new user meets in the first hour (issue 22): no column guessed into a paid run, a
spending cap used up said before anything, a search's budget, plain errors for odd inputs and
options; the real CLI in a subprocess against a sandbox on loopback."""

from __future__ import annotations

import gzip
import json
import os
import struct
import subprocess
import zlib
from pathlib import Path

import polars as pl
import pytest

from profnet_sheets.batch.marks import NOT_FETCHED
from profnet_sheets.client.client import Client
from profnet_sheets.sandbox import RunningSandbox
from profnet_sheets.spec import HEADCOUNT_CODES, company_size_label
from tests.integration.cli.conftest import KEY
from tests.integration.conftest import CLI, in_a_terminal, read_until

pytestmark = pytest.mark.integration
CRM = Path(__file__).parents[2] / "data" / "crm_export.csv"
CRM_COLUMNS = "'Account Name', 'Website', 'Created Date', 'Zip', 'Phone', 'Owner'"


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI with no terminal on stdin (as a script or a scheduler runs it)."""
    return subprocess.run(
        [*CLI, *args],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )


def errors(result: subprocess.CompletedProcess[str]) -> list[str]:
    """The `Error:` lines of a run; never a traceback."""
    assert "Traceback" not in result.stderr, result.stderr
    return [line for line in result.stderr.splitlines() if line.startswith("Error:")]


@pytest.mark.parametrize(
    "kind", ["profile", "profile_posts", "recommendations_received", "job", "post"]
)
def test_no_column_is_guessed_into_a_paid_run(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path, kind: str
) -> None:
    """A date (2023-09-08 is a valid profile slug) or a zip code (a valid job id) was paid for."""
    out = tmp_path / "out.csv"
    result = run(env, "enrich", str(CRM), "--kind", kind, "--out", str(out), "--yes")
    assert result.returncode == 1, result.stderr
    (line,) = errors(result)
    assert f"no column is named for {kind} keys" in line
    assert CRM_COLUMNS in line
    assert "--column" in line
    assert sandbox.charged(KEY) == 0
    assert not out.exists()
    named = run(env, "enrich", str(CRM), "--kind", kind, "--column", "Zip", "--dry-run")
    assert named.returncode == 0, named.stderr  # the user named it: read as asked


def test_the_preview_shows_the_column_chosen_and_its_first_keys_as_sent(
    env: dict[str, str], sandbox: RunningSandbox
) -> None:
    result = run(env, "enrich", str(CRM), "--kind", "headcount", "--dry-run")
    assert result.returncode == 0, result.stderr
    assert "Reading headcount keys from 'Website'" in result.stderr
    assert (
        "First keys as asked: https://www.profnet.com/company/stripe/, "
        "https://www.profnet.com/company/acme-gmbh/, https://www.profnet.com/company/notion/."
    ) in result.stderr
    assert sandbox.charged(KEY) == 0


def test_the_preview_marks_the_first_keys_the_cache_answers(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """`First keys as sent:` listed keys the cache answers, which are not sent."""
    first = tmp_path / "first.csv"
    pl.DataFrame({"Website": ["kept-a.io"]}).write_csv(first)
    out = str(tmp_path / "first-out.csv")
    assert run(env, "enrich", str(first), "--kind", "company", "--out", out).returncode == 0
    assert sandbox.charged(KEY) == 1
    both = tmp_path / "both.csv"
    pl.DataFrame({"Website": ["kept-a.io", "new-b.io"]}).write_csv(both)
    result = run(env, "enrich", str(both), "--kind", "company", "--dry-run")
    assert result.returncode == 0, result.stderr
    assert "First keys as asked: kept-a.io (cached, not sent), new-b.io." in result.stderr
    assert "as sent" not in result.stderr
    assert sandbox.charged(KEY) == 1


def test_a_spending_cap_used_up_is_said_in_the_preview(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    assert run(env, "config", "--spending-cap", "2/day").returncode == 0
    more = tmp_path / "more.csv"
    pl.DataFrame({"Website": [f"cap-{n}.io" for n in range(7)]}).write_csv(more)
    fits_in_part = run(env, "enrich", str(more), "--kind", "company", "--dry-run")
    assert "at most 7 credits" in fits_in_part.stderr
    assert "the spending cap 2/day has 2 left: the run may stop there" in fits_in_part.stderr
    assert fits_in_part.returncode == 0
    spent = tmp_path / "spent.csv"
    pl.DataFrame({"Website": ["cap-a.io", "cap-b.io"]}).write_csv(spent)
    out = str(spent.with_suffix(".xlsx"))
    assert run(env, "enrich", str(spent), "--kind", "company", "--out", out).returncode == 0
    assert sandbox.charged(KEY) == 2
    preview = run(env, "enrich", str(more), "--kind", "company", "--dry-run")
    assert "the spending cap 2/day has 0 left: nothing would be sent" in preview.stderr
    assert preview.returncode == 3, "a dry run says the run would send nothing"
    assert sandbox.charged(KEY) == 2


def test_a_budget_short_is_said_once_in_the_preview(env: dict[str, str], tmp_path: Path) -> None:
    more = tmp_path / "more.csv"
    pl.DataFrame({"Website": [f"short-{n}.io" for n in range(7)]}).write_csv(more)
    preview = run(env, "enrich", str(more), "--kind", "company", "--dry-run", "--budget", "5")
    said = (
        "at most 7 credits (rows with the same key are fetched once); the budget has 5 left: "
        "the run may stop there"
    )
    assert said in preview.stderr, preview.stderr
    assert "budget left" not in preview.stderr


def test_a_lookup_cut_by_a_limit_hands_over_what_was_done_and_exits_3(
    env: dict[str, str], sandbox: RunningSandbox
) -> None:
    env = {**env, "PROFNET_BUDGET": "1"}
    cut = run(env, "lookup", "company", "first-cut.io", "second-cut.io", "third-cut.io")
    assert "at most 3 credits; the budget has 1 left: the run may stop there" in cut.stderr
    answers = json.loads(cut.stdout)
    assert list(answers) == ["first-cut.io", "second-cut.io", "third-cut.io"], "every value"
    assert answers["first-cut.io"]["company_name"], "the answer paid for is shown"
    assert answers["third-cut.io"] == {"company_error": NOT_FETCHED}, "marked, not left out"
    assert "this lookup: 1 credit" in cut.stderr
    assert "Budget reached: 2 lookups not done" in cut.stderr, cut.stderr
    assert cut.returncode == 3
    assert "Traceback" not in cut.stderr
    assert sandbox.charged(KEY) == 1


def test_a_lookup_cut_by_a_limit_counts_a_value_given_twice_once(
    env: dict[str, str], sandbox: RunningSandbox
) -> None:
    """A review: `c.com d.com e.com c.com www.c.com` under a budget of 1 said `3 lookups not
    done` when d.com and e.com were the only ones (a value given twice counted twice)."""
    env = {**env, "PROFNET_BUDGET": "1"}
    values = ("c-twice.io", "d-twice.io", "e-twice.io", "c-twice.io", "www.c-twice.io")
    cut = run(env, "lookup", "company", *values)
    assert "Budget reached: 2 lookups not done" in cut.stderr, cut.stderr
    assert cut.returncode == 3


def test_search_takes_a_budget(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    out = tmp_path / "leads.csv"
    args = ("search", "leads", "--title-keywords", "CTO", "--limit", "30", "--out", str(out))
    refused = run(env, *args, "--budget", "79")
    assert refused.returncode == 3, refused.stderr
    (line,) = errors(refused)
    assert "may cost up to 80 credits, and the budget" in line
    assert "leaves 79; nothing was sent" in line
    assert sandbox.charged(KEY) == 0
    base_url = env["PROFNET_BASE_URL"]
    with Client(api_key=KEY, base_url=base_url, cache="off") as client:  # another process's
        job = client.search("leads", title_keywords=["CTO"], limit=30)
    assert sandbox.charged(KEY) == 50
    cut = run(
        env, "search", "leads", "--request-id", job.request_id, "--out", str(out), "--budget", "29"
    )
    assert cut.returncode == 3, cut.stderr
    assert (
        "Not read: the budget (--budget or PROFNET_BUDGET) leaves 29, and its first page may "
        "cost up to 30 credits (a page's size is known once one is read); nothing was sent. "
        "Raise it by 1 or more (so that it leaves 30), then run this again."
    ) in " ".join(cut.stderr.split())
    assert sandbox.charged(KEY) == 50, "no page the budget cannot pay for is read"
    assert not out.exists(), "nothing read: nothing written"
    whole = run(
        env, "search", "leads", "--request-id", job.request_id, "--out", str(out), "--budget", "30"
    )
    assert whole.returncode == 0, whole.stderr
    assert pl.read_csv(out).height == 30


def test_a_search_the_budget_refuses_is_not_asked_about_first(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    out = str(tmp_path / "leads.csv")
    args = ("search", "leads", "--title-keywords", "CTO", "--limit", "50", "--out", out)
    process, controller = in_a_terminal(env, *args, "--budget", "20")
    seen = read_until(controller, "\x00never\x00", timeout=120)  # until it ends
    code = process.wait(timeout=60)
    os.close(controller)
    assert "[y/N]" not in seen, seen
    assert "leaves 20; nothing was sent" in seen
    assert code == 3
    assert sandbox.charged(KEY) == 0


def test_search_with_a_request_id_refuses_filters(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    result = run(
        env,
        "search",
        "leads",
        "--request-id",
        "123",
        "--keywords",
        "cto",
        "--limit",
        "5",
        "--out",
        str(tmp_path / "x.csv"),
    )
    assert result.returncode == 2
    (line,) = errors(result)
    assert "leave out --keywords, --limit" in line
    assert len(result.stderr.strip().splitlines()) == 1
    assert sandbox.charged(KEY) == 0


def test_out_as_a_folder_a_dry_run_without_out_and_cache_clear_without_a_terminal(
    env: dict[str, str], tmp_path: Path
) -> None:
    source = tmp_path / "a.csv"
    source.write_text("Site\nstripe.com\n")
    folder = tmp_path / "results"
    folder.mkdir()
    as_folder = run(env, "enrich", str(source), "--kind", "company", "--out", str(folder))
    assert as_folder.returncode == 1
    (line,) = errors(as_folder)
    assert f"{folder}: is a folder" in line
    dry = run(env, "enrich", str(source), "--kind", "company", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "1 row: 1 to fetch" in dry.stderr
    no_out = run(env, "enrich", str(source), "--kind", "company")
    assert no_out.returncode == 2
    assert "--out" in no_out.stderr
    clear = run(env, "cache", "clear")
    assert clear.returncode == 1
    (line,) = errors(clear)
    assert "pass --yes" in line
    assert run(env, "cache", "clear", "--yes").returncode == 0


def test_a_kind_mistyped_is_answered_as_lookup_answers_it(
    env: dict[str, str], tmp_path: Path
) -> None:
    source = tmp_path / "a.csv"
    source.write_text("Site\nstripe.com\n")
    enrich = run(env, "enrich", str(source), "--kind", "companies", "--dry-run")
    lookup = run(env, "lookup", "companies", "stripe.com")
    assert enrich.returncode == lookup.returncode == 2
    for result in (enrich, lookup):
        assert "unknown kind 'companies': did you mean company?" in result.stderr


def _png() -> bytes:
    """A real PNG image (1 x 1 pixel, white), as an image editor writes it."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\xff\xff")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b'Site,Name\na.com,b"c\rd,extra\n', "not a readable CSV file (a field holds a quote"),
        (gzip.compress(b"Site\nstripe.com\n"), "is a gzip archive, not CSV text"),
        (_png(), "is a PNG image, not CSV text"),
        (struct.pack("<256I", *range(256)), "is binary data (control bytes, not text)"),
    ],
)
def test_an_odd_or_binary_csv_is_one_line(
    env: dict[str, str], tmp_path: Path, content: bytes, said: str
) -> None:
    source = tmp_path / "odd.csv"
    source.write_bytes(content)
    result = run(env, "enrich", str(source), "--kind", "company", "--column", "Site", "--dry-run")
    assert result.returncode == 1
    (line,) = errors(result)
    assert line.startswith(f"Error: {source}: ")
    assert said in line


def test_search_help_and_errors_name_the_options_a_user_types(env: dict[str, str]) -> None:
    leads = run(env, "search", "leads", "--help")
    assert "a --sales-nav-url" in leads.stdout
    assert "sales_nav_url" not in leads.stdout
    assert "(option 2)" not in leads.stdout
    both = run(
        env,
        "search",
        "leads",
        "--sales-nav-url",
        "https://example.com/s",
        "--keywords",
        "cto",
        "--out",
        "x.csv",
    )
    assert both.returncode == 1
    (line,) = errors(both)
    assert "give either --sales-nav-url or filters (--keywords)" in line
    companies = " ".join(run(env, "search", "companies", "--help").stdout.split())
    ranges = ", ".join(f"{code} {company_size_label(code)}" for code in HEADCOUNT_CODES)
    assert f"--company-headcounts TEXT Headcount codes A to H ({ranges})" in companies


@pytest.mark.parametrize(
    ("header", "kind"), [("Account ID", "company"), ("Job Level", "job"), ("Post Count", "post")]
)
def test_a_header_with_the_kinds_word_is_not_read_as_its_keys(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path, header: str, kind: str
) -> None:
    """The CRM's own ids, levels and counts were read as company, job and post ids, and paid."""
    table = tmp_path / "nums.csv"
    table.write_text(f"{header},Employees\n4521,50\n4522,200\n")
    out = tmp_path / "out.csv"
    result = run(env, "enrich", str(table), "--kind", kind, "--out", str(out), "--yes")
    assert result.returncode == 1, result.stderr
    (line,) = errors(result)
    assert f"no column is named for {kind} keys" in line
    assert f"'{header}', 'Employees'" in line
    assert sandbox.charged(KEY) == 0
    assert not out.exists()


def answered_in_a_terminal(env: dict[str, str], answer: str, *args: str) -> tuple[int, str]:
    """The CLI in a pseudo-terminal, `answer` typed at its prompt: its exit code and screen."""
    process, controller = in_a_terminal(env, *args)
    seen = read_until(controller, "credits? [y/N]:", timeout=120)
    os.write(controller, f"{answer}\n".encode())
    seen += read_until(controller, "\x00never\x00", timeout=60)  # until it ends
    code = process.wait(timeout=60)
    os.close(controller)
    return code, seen


@pytest.mark.parametrize("command", ["enrich", "search"])
def test_saying_no_at_the_prompt_says_nothing_was_sent(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path, command: str
) -> None:
    """A no printed click's `Aborted!` alone: nothing said of what was (not) sent."""
    out = tmp_path / "out.csv"
    if command == "enrich":
        table = tmp_path / "sites.csv"
        pl.DataFrame({"Website": ["no-a.io", "no-b.io"]}).write_csv(table)
        args: tuple[str, ...] = ("enrich", str(table), "--kind", "company")
    else:
        args = ("search", "leads", "--title-keywords", "CTO", "--limit", "30")
    code, seen = answered_in_a_terminal(env, "n", *args, "--out", str(out))
    assert "Spend up to" in seen
    assert "Nothing sent: no credits spent." in seen, seen
    assert "Aborted" not in seen
    assert "Traceback" not in seen
    assert code == 1
    assert sandbox.charged(KEY) == 0
    assert not out.exists()


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (
            "50",
            "--company-headcount-growth takes a range as MIN,MAX (percent), such as 10,50; "
            "got '50'",
        ),
        (
            "50,x",
            "--company-headcount-growth needs numbers for min and max, such as 10 and 50; "
            "got min '50', max 'x'",
        ),
    ],
)
def test_a_growth_range_refused_is_said_in_words(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path, given: str, said: str
) -> None:
    """`--company-headcount-growth 50` said `got ('50', '')`, a Python tuple."""
    out = str(tmp_path / "out.csv")
    result = run(env, "search", "companies", "--company-headcount-growth", given, "--out", out)
    assert result.returncode == 1, result.stderr
    (line,) = errors(result)
    assert said in line
    assert "('50'" not in line
    assert sandbox.charged(KEY) == 0


def test_a_search_refused_by_its_budget_names_the_option_typed(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """`the budget (budget=..., PROFNET_BUDGET) leaves 10`: the user typed --budget."""
    out = str(tmp_path / "leads.csv")
    args = ("search", "leads", "--title-keywords", "CTO", "--budget", "10", "--out", out)
    result = run(env, *args)
    assert result.returncode == 3, result.stderr
    (line,) = errors(result)
    assert "and the budget (--budget or PROFNET_BUDGET) leaves 10; nothing was sent" in line
    assert "budget=..." not in line
    assert sandbox.charged(KEY) == 0
