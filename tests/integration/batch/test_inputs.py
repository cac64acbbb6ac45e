"""Issue 15 end to end: keys that cannot be right cost nothing; the user's table comes back as
it was. enrich() and the CLI over loopback to a sandbox; credits read from /_sandbox/usage."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import openpyxl
import polars as pl
import pytest
import requests
import xlsxwriter

from profnet_sheets import Client
from profnet_sheets.batch import enrich, plan_enrichment
from profnet_sheets.batch.io import read_table
from profnet_sheets.sandbox import RunningSandbox, start_sandbox
from tests.integration.conftest import cli_env
from tests.integration.conftest import run_cli as run

pytestmark = pytest.mark.integration
KEY = "inputs-key"
REAL = ["stripe.com", "https://www.notion.so/about", "acme.io", "Jane <jane@figma.com>"]
PERSONAL = [
    "jane@gmail.com",
    "bob@yahoo.com",
    "x@hotmail.com",
    "y@outlook.com",
    "gmail.com",
    "yahoo.com",
    "hotmail.com",
    "outlook.com",
]
PLACEHOLDERS = ["N/A", "n/a", "-", "\u2014", "none", "null", "TBD", "#N/A", "?"]


@pytest.fixture(scope="module")
def sandbox() -> Iterator[RunningSandbox]:
    with start_sandbox(api_keys=(KEY,), credits=1_000_000, job_seconds=0, seed=5) as running:
        yield running


@pytest.fixture
def client(sandbox: RunningSandbox, tmp_path: Path) -> Iterator[Client]:
    requests.post(f"{sandbox.base_url}/_sandbox/reset", timeout=5).raise_for_status()
    with Client(api_key=KEY, base_url=sandbox.base_url, cache=str(tmp_path / "cache")) as made:
        yield made


@pytest.fixture
def env(sandbox: RunningSandbox, tmp_path: Path) -> dict[str, str]:
    requests.post(f"{sandbox.base_url}/_sandbox/reset", timeout=5).raise_for_status()
    return cli_env(sandbox.base_url, KEY, tmp_path)


def test_four_companies_among_personal_mail_and_placeholders_cost_four_credits(
    client: Client, sandbox: RunningSandbox
) -> None:
    sites = REAL + PERSONAL + PLACEHOLDERS
    frame = pl.DataFrame({"row": range(len(sites)), "Website": sites})
    plan = plan_enrichment(frame, "Website", "company", client=client)
    assert plan.credits == 4
    assert plan.summary().startswith(
        f"{len(sites)} rows: 4 to fetch, 0 already cached (free), 8 that cannot be looked up, "
        "9 blank; at most 4 credits"
    ), "every count is of rows"
    out = enrich(frame, "Website", "company", client=client, progress=False)
    assert sandbox.charged(KEY) == 4
    assert out["row"].to_list() == list(range(len(sites))), "every row kept, in order"
    assert out["Website"].to_list() == sites
    assert out["company_name"].null_count() == len(sites) - 4
    errors = dict(zip(sites, out["company_error"], strict=True))
    for personal in PERSONAL:
        assert "personal email domain" in errors[personal], personal
        assert "not a company" in errors[personal]
    for blank in PLACEHOLDERS:
        assert errors[blank] is None, f"{blank!r} is a blank, not an error"


def test_a_network_company_page_is_never_filled_with_the_networks_own_company(
    client: Client, sandbox: RunningSandbox
) -> None:
    sites = [
        "https://www.profnet.com/company/acme/",
        "de.profnet.com/company/acme/about",
        "https://www.linkedin.com/company/stripe/",
        "https://de.linkedin.com/company/stripe",
        "profnet.com",
        "https://www.profnet.com/",
    ]
    out = enrich(pl.DataFrame({"Website": sites}), "Website", "company", client=client)
    names = out["company_name"].to_list()
    assert names[:2] == ["Acme", "Acme"], "looked up as the page, on any of the network's hosts"
    assert names[2:] == [None] * 4
    assert all("profnet" not in str(name).lower() for name in names)
    errors = out["company_error"].to_list()
    assert "a page URL on linkedin.com, not a profnet.com URL" in errors[2]
    assert "add linkedin.com to the network hosts" in errors[2]
    assert "a page URL on de.linkedin.com" in errors[3]
    assert sandbox.charged(KEY) == 1, "one page, fetched once; the rest cost nothing"


def test_job_ids_and_urls_in_every_form_the_service_gives_are_one_lookup(
    client: Client, sandbox: RunningSandbox
) -> None:
    job = client.search_jobs(keyword="engineer")["jobs"][0]
    spent = sandbox.charged(KEY)
    forms = [job["job_id"], f"{job['job_id']}.0", job["job_url"], job["job_url"] + "apply/", "N/A"]
    out = enrich(pl.DataFrame({"job": forms}), "job", "job", client=client, progress=False)
    assert out["job_title"].to_list()[:4] == [job["title"]] * 4
    assert out["job_error"].to_list() == [None] * 5
    assert sandbox.charged(KEY) - spent == 1
    assert out.schema["job_posted_at"] == pl.Datetime("us", "UTC"), "a timestamp, not text"


def test_places_are_one_lookup_whatever_their_case(client: Client, sandbox: RunningSandbox) -> None:
    frame = pl.DataFrame({"City": ["Berlin", "berlin", " BERLIN ", "n/a"]})
    out = enrich(frame, "City", "geocode", client=client, progress=False)
    assert out["geocode_geo_id"].n_unique() == 2  # one place, and the blank
    assert sandbox.charged(KEY) == 1


def test_a_csvs_values_come_back_as_they_were_in_xlsx(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    source = tmp_path / "accounts.csv"
    source.write_text(
        "Account,Website,Delta,Phone,Zip,Big\n"
        "Stripe,stripe.com,-5,+1 555 0100,01234,123456789012345678901\n"
        "Acme,acme.io,3,=1+1,98765,9007199254740993\n",
        encoding="utf-8",
    )
    out = tmp_path / "accounts.xlsx"
    result = run(env, "enrich", str(source), "--kind", "company", "--out", str(out), "--yes")
    assert result.returncode == 0, result.stderr
    assert "Reading company keys from 'Website'" in result.stderr
    sheet = openpyxl.load_workbook(out).active
    assert sheet is not None
    header = [cell.value for cell in sheet[1]]
    row = dict(zip(header, list(sheet[2]), strict=True))
    assert row["Delta"].value == -5, "the CSV held the number -5: XLSX holds the number -5"
    assert row["Delta"].data_type == "n"
    assert row["Phone"].value == "+1 555 0100", "text, with no visible quote"
    assert row["Phone"].quotePrefix, "and it stays text when edited"
    assert row["Zip"].value == "01234"
    assert row["Big"].value == "123456789012345678901", "ids too long for a number stay exact"
    second = dict(zip(header, [cell.value for cell in sheet[3]], strict=True))
    assert second["Phone"] == "=1+1"
    assert second["Big"] == "9007199254740993", "above 2**53: exact, as text"
    assert header[6:8] == ["company_name", "company_profnet_url"], "no word twice"
    assert sheet.column_dimensions["G"].width > 8, "columns fitted"


def test_a_semicolon_csv_is_written_back_with_semicolons_and_counts_its_errors(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    source = tmp_path / "firmen.csv"
    source.write_bytes(
        "Firma;Webseite;Notiz\nMüller;stripe.com;a\nX;jane@gmail.com;b\nY;N/A;c\nZ;acme.io;d;extra\n".encode(
            "cp1252"
        )
    )
    out = tmp_path / "firmen-enriched.csv"
    result = run(env, "enrich", str(source), "--kind", "company", "--out", str(out), "--yes")
    assert result.returncode == 0, result.stderr
    assert "Warning: firmen.csv: not UTF-8: read as cp1252" in result.stderr
    assert "more fields than the header: kept in extra_1" in result.stderr
    assert "4 rows: 2 enriched, 1 with an error, 1 blank; 2 credits spent" in result.stderr
    lines = out.read_text(encoding="utf-8-sig").splitlines()
    assert lines[0].startswith("Firma;Webseite;Notiz;extra_1;company_name;")
    assert lines[1].startswith("Müller;stripe.com;a;;Stripe;")
    assert sandbox.charged(KEY) == 2


def test_a_csv_opening_with_excels_sep_line_is_read_and_written_back_with_it(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """Excel's `sep=;` line was read as the header (keys from a column named '', the real
    header paid for as a key): it names the delimiter, and the copy keeps it for Excel."""
    source = tmp_path / "eu.csv"
    source.write_bytes(b"sep=;\r\nCompany;Website\r\nAcme;acme.com\r\nGlobex;globex.io\r\n")
    out = tmp_path / "eu-enriched.csv"
    result = run(env, "enrich", str(source), "--kind", "company", "--out", str(out), "--yes")
    assert result.returncode == 0, result.stderr
    assert "Reading company keys from 'Website'" in result.stderr
    assert "2 rows: 2 enriched, 0 with an error, 0 blank; 2 credits spent" in result.stderr
    lines = out.read_bytes().decode("utf-8").split("\r\n")
    assert lines[0] == "sep=;"
    assert lines[1].startswith("Company;Website;company_name;")
    assert lines[2].startswith("Acme;acme.com;Acme;")
    assert sandbox.charged(KEY) == 2
    to_xlsx = run(
        env, "enrich", str(source), "--kind", "company", "--out", str(tmp_path / "eu.xlsx"), "--yes"
    )
    assert to_xlsx.returncode == 0, to_xlsx.stderr
    sheet = openpyxl.load_workbook(tmp_path / "eu.xlsx").active
    assert sheet is not None
    assert [cell.value for cell in sheet[1]][:3] == ["Company", "Website", "company_name"]


def test_a_workbook_with_a_title_and_an_empty_header_cell_comes_back_as_it_was(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """The title over the table is no header (keys from `__UNNAMED__1`, the header row paid
    for as a key, before); an empty header cell is written empty, never `__UNNAMED__1`."""
    source = tmp_path / "accounts.xlsx"
    workbook = xlsxwriter.Workbook(str(source))
    sheet = workbook.add_worksheet("Accounts")
    sheet.merge_range(0, 0, 0, 2, "Q3 target accounts")
    sheet.write_row(2, 0, ["Company", None, "Website"])
    sheet.write_row(3, 0, ["Acme", "x", "acme.com"])
    workbook.close()
    for out in (tmp_path / "out.xlsx", tmp_path / "out.csv"):
        result = run(env, "enrich", str(source), "--kind", "company", "--out", str(out), "--yes")
        assert result.returncode == 0, result.stderr
        assert "Reading company keys from 'Website'" in result.stderr
        assert "1 row: 1 enriched, 0 with an error, 0 blank" in result.stderr
        assert (
            "accounts.xlsx: the table's header is row 3: the 2 rows above it read as its title"
        ) in result.stderr, "said, as the header chosen"
    rows = [list(row)[:4] for row in openpyxl.load_workbook(tmp_path / "out.xlsx").active.values]
    assert rows[0][0] == "Q3 target accounts"
    assert rows[2] == ["Company", None, "Website", "company_name"]
    assert rows[3] == ["Acme", "x", "acme.com", "Acme"]
    lines = (tmp_path / "out.csv").read_text(encoding="utf-8-sig").splitlines()
    assert lines[0].startswith("Company,,Website,company_name,")
    assert sandbox.charged(KEY) == 1


def test_a_titled_sheet_whose_header_repeats_a_name_is_read_under_it_and_written_as_it_was(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """Helper 96: `Account, Website, Website` under a title was not taken for the header
    (its names were not all distinct): keys were read from `__UNNAMED__1`, the header row
    marked invalid, and the new columns' names written on the title row. A workbook's
    repeated header name is written back as it was, not as `Website_1`."""
    source = tmp_path / "dup.xlsx"
    workbook = xlsxwriter.Workbook(str(source))
    sheet = workbook.add_worksheet("Accounts")
    sheet.write(0, 0, "Q3 accounts")
    sheet.write_row(2, 0, ["Account", "Website", "Website"])
    sheet.write_row(3, 0, ["Acme", "acme.com", "acme.com"])
    workbook.close()
    out = tmp_path / "out.xlsx"
    result = run(env, "enrich", str(source), "--kind", "company", "--out", str(out), "--yes")
    assert result.returncode == 0, result.stderr
    assert "Reading company keys from 'Website'" in result.stderr
    assert "1 row: 1 enriched, 0 with an error, 0 blank" in result.stderr
    rows = [list(row)[:4] for row in openpyxl.load_workbook(out).active.values]
    assert rows[0][0] == "Q3 accounts"
    assert rows[2] == ["Account", "Website", "Website", "company_name"]
    assert rows[3] == ["Acme", "acme.com", "acme.com", "Acme"]
    assert sandbox.charged(KEY) == 1


def test_a_hidden_first_sheet_is_not_read_by_default_and_the_sheet_read_is_named(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """A new user's review: a hidden first sheet (a list of values) was read and paid for,
    the preview never named the sheet, and the output showed it."""
    source = tmp_path / "A.xlsx"
    workbook = xlsxwriter.Workbook(str(source))
    lists = workbook.add_worksheet("Lists")
    lists.write_column(0, 0, ["Site", "hidden-co.com"])
    accounts = workbook.add_worksheet("Accounts")
    accounts.write_column(0, 0, ["Site", "visible-co.com"])
    accounts.activate()
    lists.hide()
    workbook.add_worksheet("Notes").write(0, 0, "note")
    workbook.close()
    out = tmp_path / "out.xlsx"
    result = run(env, "enrich", str(source), "--kind", "company", "--out", str(out), "--yes")
    assert result.returncode == 0, result.stderr
    assert (
        "A.xlsx: reading the sheet 'Accounts' (the first one shown) of 3 sheets: choose "
        "another with --sheet." in result.stderr
    )
    assert "First keys as asked: visible-co.com." in result.stderr
    written = openpyxl.load_workbook(out)
    assert [(it.title, it.sheet_state) for it in written] == [
        ("Lists", "hidden"), ("Accounts", "visible"), ("Notes", "visible"),
    ]  # fmt: skip
    assert sandbox.charged(KEY) == 1


def test_a_workbook_with_column_groups_over_its_header_is_read_from_its_header(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """A new user's review: merged group cells over the header (`Account` over `Name` and
    `Website`) were read as the header: keys from `__UNNAMED__1`, the header row paid for as
    a key. The groups are kept above the table, as a title is."""
    source = tmp_path / "grouped.xlsx"
    workbook = xlsxwriter.Workbook(str(source))
    sheet = workbook.add_worksheet("Accounts")
    sheet.merge_range(0, 0, 0, 1, "Account")
    sheet.merge_range(0, 2, 0, 3, "Owner")
    sheet.write_row(1, 0, ["Name", "Website", "First", "Last"])
    sheet.write_row(2, 0, ["Acme", "acme.com", "Ann", "Lee"])
    sheet.write_row(3, 0, ["Globex", "globex.io", "Bo", "Ng"])
    workbook.close()
    out = tmp_path / "out.xlsx"
    result = run(env, "enrich", str(source), "--kind", "company", "--out", str(out), "--yes")
    assert result.returncode == 0, result.stderr
    assert "Reading company keys from 'Website'" in result.stderr
    assert "the 1 row above it read as its title or column groups" in result.stderr
    rows = [list(row)[:5] for row in openpyxl.load_workbook(out).active.values]
    assert rows[0][:4] == ["Account", None, "Owner", None]
    assert rows[1] == ["Name", "Website", "First", "Last", "company_name"]
    assert rows[2] == ["Acme", "acme.com", "Ann", "Lee", "Acme"]
    assert sandbox.charged(KEY) == 2


def test_the_users_columns_keep_each_cells_type_in_the_enriched_workbook(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """A column mixing numbers and text is read as text (`1035`, as Excel shows it), and its
    numbers, dates, true/false and formula values came back as text in the user's own sheet
    (SUM ignored them). The user's columns are written from the cells as they were."""
    source = tmp_path / "mixed.xlsx"
    workbook = xlsxwriter.Workbook(str(source))
    sheet = workbook.add_worksheet("S")
    sheet.merge_range(0, 0, 0, 3, "Accounts")
    sheet.write_row(2, 0, ["Website", "Mixed", "When", "Amount"])
    sheet.write_row(3, 0, ["acme.com", 4711, "n/a", 1200.5])
    sheet.write_datetime(
        3, 2, dt.datetime(2024, 1, 1), workbook.add_format({"num_format": "yyyy-mm-dd"})
    )
    sheet.write_row(4, 0, ["globex.io", "n/a", True, 99])
    sheet.write_formula(5, 3, "=D4+D5", None, 1299.5)
    sheet.write_row(5, 0, ["x.io", 12])
    workbook.close()
    out = tmp_path / "out.xlsx"
    done = run(env, "enrich", str(source), "--kind", "company", "--out", str(out), "--yes")
    assert done.returncode == 0, done.stderr
    rows = [list(row)[:5] for row in openpyxl.load_workbook(out).active.values]
    assert rows[0][0] == "Accounts"
    assert rows[2] == ["Website", "Mixed", "When", "Amount", "company_name"]
    assert rows[3] == ["acme.com", 4711, dt.datetime(2024, 1, 1), 1200.5, "Acme"]
    assert rows[4] == ["globex.io", "n/a", True, 99, "Globex"]
    assert rows[5] == ["x.io", 12, None, 1299.5, "X"], "a formula's value, as a number"
    assert sandbox.charged(KEY) == 3


def test_a_column_not_on_the_sheet_read_names_the_sheet_and_the_others(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """A workbook whose first sheet is notes: the error named neither the sheet read nor
    the one that holds the table."""
    source = tmp_path / "book.xlsx"
    workbook = xlsxwriter.Workbook(str(source))
    workbook.add_worksheet("Notes").write_column(0, 0, ["Read me", "hello"])
    workbook.add_worksheet("Accounts").write_row(0, 0, ["Account", "Website"])
    workbook.close()
    out = str(tmp_path / "out.xlsx")
    for more in ((), ("--column", "Website")):
        failed = run(env, "enrich", str(source), *more, "--kind", "company", "--out", out)
        assert failed.returncode == 1, failed.stderr
        assert failed.stderr.rstrip().endswith(
            "that is the sheet 'Notes', and the workbook has 'Accounts' too: choose one with "
            "--sheet"
        ), failed.stderr
    assert sandbox.charged(KEY) == 0


def test_a_sep_line_is_not_kept_where_a_bom_must_be_added(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """A cp1252 input is written as UTF-8 with a BOM, which Excel ignores after a `sep=`
    line (the accents garbled): the copy has the BOM and no sep line."""
    source = tmp_path / "firmen.csv"
    source.write_bytes("sep=;\r\nFirma;Webseite\r\nSociété;acme.com\r\n".encode("cp1252"))
    out = tmp_path / "out.csv"
    done = run(env, "enrich", str(source), "--kind", "company", "--out", str(out), "--yes")
    assert done.returncode == 0, done.stderr
    written = out.read_bytes()
    assert written.startswith(b"\xef\xbb\xbfFirma;Webseite;company_name;")
    assert "Société;acme.com;" in written.decode("utf-8-sig")


def test_the_cli_warns_about_a_column_that_mostly_cannot_be_keys(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    source = tmp_path / "people.csv"
    source.write_text("Name,Site\nAnna,stripe.com\nBo,not a site\nCy,nor this\n")
    args = ["enrich", str(source), "--column", "Name", "--kind", "company"]
    result = run(env, *args, "--out", str(tmp_path / "o.csv"), "--dry-run")
    assert result.returncode == 0, result.stderr
    assert "Warning: 3 of 3 non-blank rows of Name cannot be company keys" in result.stderr
    assert sandbox.charged(KEY) == 0


def test_small_things_a_new_users_review_found(
    env: dict[str, str], client: Client, sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """A column named in another case is suggested; `fields` given as one string is names,
    not letters; an .xlsm output is not listed as writable where it is refused."""
    source = tmp_path / "sites.csv"
    source.write_text("Name, Website\nStripe,stripe.com\n", encoding="utf-8")
    args = ["enrich", str(source), "--column", "website", "--kind", "company", "--dry-run"]
    wrong = run(env, *args, "--out", str(tmp_path / "o.csv"))
    assert wrong.returncode == 1
    assert "no column 'website'; did you mean ' Website'?" in wrong.stderr
    frame = pl.DataFrame({"Site": ["stripe.com"]})
    done = enrich(frame, "Site", "company", fields="company_name, industry", client=client)
    assert done.columns == ["Site", "company_name", "company_industry", "company_error"]
    odd = run(env, "enrich", str(source), "--column", "Name", "--kind", "company",
              "--out", str(tmp_path / "o.xls"))  # fmt: skip
    assert ".xlsm" not in odd.stderr, odd.stderr
    assert "supported: .csv" in odd.stderr


def test_prefix_enriches_an_enriched_file_again(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    source = tmp_path / "a.csv"
    source.write_text("Website\nstripe.com\n")
    first = tmp_path / "b.csv"
    assert run(env, "enrich", str(source), "--kind", "company", "--out", str(first)).returncode == 0
    again = run(env, "enrich", str(first), "--kind", "company", "--out", str(tmp_path / "c.csv"))
    assert again.returncode == 1
    assert "--prefix company2_" in again.stderr
    args = ["enrich", str(first), "--kind", "company", "--prefix", "again_"]
    fixed = run(env, *args, "--column", "Website", "--out", str(tmp_path / "c.csv"))
    assert fixed.returncode == 0, fixed.stderr
    header = (tmp_path / "c.csv").read_text(encoding="utf-8-sig").splitlines()[0].split(",")
    assert header[:3] == ["Website", "company_name", "company_profnet_url"]
    assert {"again_company_name", "again_industry", "again_error"} <= set(header)
    assert sandbox.charged(KEY) == 1


def test_several_columns_feed_a_profile_search(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    source = tmp_path / "people.csv"
    source.write_text("Who,Employer,Role,City\nAnna Schmidt,Acme,CTO,Berlin\n")
    out = tmp_path / "found.parquet"
    args = ["enrich", str(source), "--kind", "find_profile", "--out", str(out), "--yes"]
    columns = ["--column", "name=Who", "--column", "company=Employer", "--column", "title=Role"]
    result = run(env, *args, *columns, "--column", "location=City")
    assert result.returncode == 0, result.stderr
    found = pl.read_parquet(out)
    assert found["find_profile_full_name"][0] is not None
    bad = run(env, *args, "--column", "salary=Who")
    assert bad.returncode == 1
    assert "find_profile takes columns for name" in bad.stderr


def test_long_number_cells_among_text_are_refused_not_paid_as_other_ids(
    sandbox: RunningSandbox, client: Client, tmp_path: Path
) -> None:
    """A new user's review: a column mixing text and numbers is read as text, and a number
    cell beyond 2**53 came out as the double's digits (`123456789012345696` for
    123456789012345678): another company, paid and shown as enriched. It reads as Excel shows
    it (`1.23457E+17`) and is refused; a text cell's digits are the user's own and paid."""
    source = tmp_path / "mixed.xlsx"
    workbook = xlsxwriter.Workbook(str(source))
    sheet = workbook.add_worksheet()
    sheet.write_string(0, 0, "Company ID")
    sheet.write_string(1, 0, "acme.com")
    sheet.write_number(2, 0, 123456789012345678)
    sheet.write_number(3, 0, 9007199254740993)  # 2**53 + 1, held as 2**53
    sheet.write_number(4, 0, 1035)
    sheet.write_string(5, 0, "123456789012345678")
    workbook.close()
    before = sandbox.charged(KEY)
    table = read_table(source)
    out = enrich(table, "Company ID", "company", client=client, progress=False)
    errors = out.get_column("company_error").to_list()
    assert [error is not None for error in errors] == [False, True, True, False, False]
    assert "'1.23457E+17' is in scientific notation" in errors[1]
    assert "'9.0072E+15' is in scientific notation" in errors[2]
    assert sandbox.charged(KEY) - before == 3


def test_an_empty_sheet_asked_for_is_said_to_be_the_empty_one(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """Helper 96: `--sheet Hidden` on an empty sheet said `the file is empty`."""
    source = tmp_path / "two.xlsx"
    workbook = xlsxwriter.Workbook(str(source))
    workbook.add_worksheet("Accounts").write_column(0, 0, ["Website", "acme.com"])
    workbook.add_worksheet("Hidden")
    workbook.close()
    result = run(env, "enrich", str(source), "--sheet", "Hidden", "--kind", "company", "--dry-run")
    assert result.returncode != 0
    assert (
        "the sheet 'Hidden' is empty (no header row); give a table whose first row names its "
        "columns (the workbook has 'Accounts' too: --sheet)"
    ) in " ".join(result.stderr.split())
    assert sandbox.charged(KEY) == 0
