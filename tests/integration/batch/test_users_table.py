"""The user's table back as it was (issue 22): the user's own cells come back as read (no `'`
before `+1 555 0100` or a text `-5`, `999` not `999.0`); only what the service returned is
escaped against formula injection; Parquet keeps the user's types."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path

import openpyxl
import polars as pl
import pytest
import requests
import xlsxwriter  # type: ignore[import-untyped]

from profnet_sheets import Client
from profnet_sheets.batch.escape import DANGEROUS
from profnet_sheets.batch.workflow import enrich_file
from profnet_sheets.sandbox import RunningSandbox, start_sandbox

pytestmark = pytest.mark.integration
KEY = "users-table-key"
HEADER = ["Name", "Phone", "Delta", "Amount", "Site", "Note"]
ROWS = [
    ["Stripe", "+1 555 0100", "-5", "999", "stripe.com", "=1+1"],
    ["Acme", "@acme", "abc", "1.5", "acme.io", "-x"],
    ["Linear", "0049 30 1234", "-0", "0.10", "linear.app", "@SUM(A1)"],
    ["Blank", "", "", "2e3", "", ""],
]


@pytest.fixture(scope="module")
def hostile() -> Iterator[RunningSandbox]:
    """Every free text of its answers may start like a formula."""
    with start_sandbox(api_keys=(KEY,), credits=10**9, seed=22) as running:
        answer = requests.put(f"{running.base_url}/_sandbox/hostile", json={"rate": 1.0}, timeout=5)
        answer.raise_for_status()
        yield running


@pytest.fixture
def client(hostile: RunningSandbox, tmp_path: Path) -> Iterator[Client]:
    with Client(api_key=KEY, base_url=hostile.base_url, cache=str(tmp_path / "cache")) as made:
        yield made


def enriched(client: Client, source: Path, target: Path) -> Path:
    run = enrich_file(client, source, target, "company", columns=["Site"])
    assert run is not None
    assert run.outcome.ending is None
    return run.path


def accounts_csv(folder: Path) -> Path:
    path = folder / "accounts.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows([HEADER, *ROWS])
    return path


def assert_added_columns_escaped(rows: list[list[str]]) -> None:
    """The service's text that starts like a formula is quoted (and some did: hostile)."""
    quoted = 0
    for row in rows:
        for cell in row[len(HEADER) :]:
            assert not cell.startswith(DANGEROUS), repr(cell)
            quoted += cell.startswith("'")
    assert quoted, "no hostile text reached the file: the test would prove nothing"


def test_csv_to_csv_gives_the_users_cells_back_as_written(client: Client, tmp_path: Path) -> None:
    out = enriched(client, accounts_csv(tmp_path), tmp_path / "out.csv")
    with out.open(encoding="utf-8-sig", newline="") as handle:
        header, *rows = list(csv.reader(handle))
    assert header[: len(HEADER)] == HEADER
    assert [row[: len(HEADER)] for row in rows] == ROWS, "not a `'`, not a `.0` added"
    assert_added_columns_escaped([header, *rows])


def test_csv_to_xlsx_writes_text_as_text_and_numbers_as_numbers(
    client: Client, tmp_path: Path
) -> None:
    out = enriched(client, accounts_csv(tmp_path), tmp_path / "out.xlsx")
    sheet = openpyxl.load_workbook(out).active
    assert sheet is not None
    values = [list(row) for row in sheet.iter_rows(values_only=True)]
    assert values[0][: len(HEADER)] == HEADER
    users = [row[: len(HEADER)] for row in values[1:]]
    assert [row[1] for row in users] == ["+1 555 0100", "@acme", "0049 30 1234", None]
    assert [row[2] for row in users] == ["-5", "abc", "-0", None], "a text column stays text"
    assert [row[3] for row in users] == [999, 1.5, 0.1, 2000], "a number column as numbers"
    assert [row[5] for row in users] == ["=1+1", "-x", "@SUM(A1)", None]
    assert sheet["B2"].quotePrefix, "text when edited, no `'` seen"
    assert sheet["F2"].quotePrefix
    for row in sheet.iter_rows():
        for cell in row:
            assert cell.data_type != "f", f"{cell.coordinate} is a formula"


def accounts_xlsx(folder: Path) -> Path:
    """A workbook as users have them: the table on a sheet named "Accounts" (not the first),
    a "Notes" sheet before it and a "Lists" sheet after it."""
    book = openpyxl.Workbook()
    notes = book.active
    assert notes is not None
    notes.title = "Notes"
    notes["A1"] = "Accounts to enrich before the call"
    notes["B3"] = 42
    notes["C4"] = date(2026, 11, 3)
    accounts = book.create_sheet("Accounts")
    accounts.append(HEADER)
    for row in ROWS:
        accounts.append([_typed(cell, column) for column, cell in enumerate(row)])
    for row in accounts.iter_rows(min_row=2):
        for cell in row:
            if isinstance(cell.value, str) and cell.value.startswith("="):
                cell.data_type = "s"  # text that looks like a formula, as typed after a `'`
    lists = book.create_sheet("Lists")
    lists.append(["Segment", "Owner"])
    lists.append(["=enterprise", "Jo"])
    lists["A2"].data_type = "s"
    corner = book.create_sheet("Corner")
    corner["C3"] = "here"
    corner.sheet_state = "hidden"
    path = folder / "accounts.xlsx"
    book.save(path)
    return path


def enriched_workbook(
    client: Client, source: Path, target: Path
) -> tuple[openpyxl.Workbook, list[str]]:
    """The sheet "Accounts" of `source` enriched into `target`: the workbook, what was said."""
    said: list[str] = []
    run = enrich_file(
        client, source, target, "company", columns=["Site"], sheet="Accounts", say=said.append
    )
    assert run is not None
    return openpyxl.load_workbook(run.path), said


def _typed(cell: str, column: int) -> object:
    if not cell:
        return None
    return float(cell) if HEADER[column] == "Amount" else cell


def test_xlsx_to_xlsx_keeps_the_users_cells_and_the_workbooks_sheets(
    client: Client, tmp_path: Path
) -> None:
    book, said = enriched_workbook(client, accounts_xlsx(tmp_path), tmp_path / "out.xlsx")
    assert book.sheetnames == ["Notes", "Accounts", "Lists", "Corner"], "names and order kept"
    assert book.active is not None
    assert book.active.title == "Accounts"
    sheet = book["Accounts"]
    values = [list(row) for row in sheet.iter_rows(values_only=True)]
    assert values[0][: len(HEADER)] == HEADER
    users = [row[: len(HEADER)] for row in values[1:]]
    assert [row[1] for row in users] == ["+1 555 0100", "@acme", "0049 30 1234", None]
    assert [row[2] for row in users] == ["-5", "abc", "-0", None]
    assert [row[3] for row in users] == [999, 1.5, 0.1, 2000]
    assert [row[5] for row in users] == ["=1+1", "-x", "@SUM(A1)", None]
    notes = book["Notes"]
    assert notes["A1"].value == "Accounts to enrich before the call"
    assert notes["B3"].value == 42, "where it was, a number"
    assert notes["C4"].value == datetime(2026, 11, 3), "a date"
    lists = book["Lists"]
    assert [list(row) for row in lists.iter_rows(values_only=True)] == [
        ["Segment", "Owner"],
        ["=enterprise", "Jo"],
    ]
    assert lists["A2"].data_type == "s", "text, never a formula"
    assert lists["A2"].quotePrefix
    assert book["Corner"]["C3"].value == "here", "a cell where it was, however far from A1"
    assert book["Corner"].sheet_state == "hidden"
    assert said[-1] == (
        "out.xlsx: the sheet 'Accounts' enriched; 'Notes', 'Lists', 'Corner' copied beside it "
        "as values (formatting not kept)."
    ), "no formula in the workbook: none said"


def shapes_xlsx(folder: Path) -> Path:
    """A workbook written as Excel writes one (formulas with their last values): the table on
    "Accounts" with a formula, and sheets of several shapes beside it."""
    path = folder / "shapes.xlsx"
    book = xlsxwriter.Workbook(str(path))
    day = book.add_format({"num_format": "yyyy-mm-dd"})
    moment = book.add_format({"num_format": "yyyy-mm-dd hh:mm"})
    accounts = book.add_worksheet("Accounts")
    accounts.write_row(0, 0, ["Site", "Seats", "Ten times"])
    accounts.write_row(1, 0, ["stripe.com", 3])
    accounts.write_formula(1, 2, "=B2*10", None, 30)
    budget = book.add_worksheet("Budget")  # a header row over typed columns
    budget.write_row(0, 0, ["Month", "Amount", "When"])
    budget.write_string(1, 0, "Jan")
    budget.write_number(1, 1, 1200)
    budget.write_datetime(1, 2, datetime(2024, 1, 5), day)
    budget.write_string(2, 0, "Feb")
    budget.write_number(2, 1, 99.5)
    budget.write_datetime(2, 2, datetime(2024, 2, 6, 14, 30), moment)
    budget.write_formula(3, 1, "=B2+B3", None, 1299.5)
    raw = book.add_worksheet("Raw")  # no header; a column mixing numbers, text and the rest
    raw.write_column(0, 1, [7, "0049 30", "1200", True])
    raw.write_string(4, 1, "=not a formula")
    raw.write_datetime(5, 1, datetime(2026, 11, 3), day)
    book.add_worksheet("Empty")
    book.close()
    return path


def test_xlsx_to_xlsx_keeps_each_cells_type_and_says_which_formulas_became_values(
    client: Client, tmp_path: Path
) -> None:
    book, said = enriched_workbook(client, shapes_xlsx(tmp_path), tmp_path / "out.xlsx")
    assert book.sheetnames == ["Accounts", "Budget", "Raw", "Empty"]
    assert book["Accounts"]["C2"].value == 30
    values = [list(row) for row in book["Budget"].iter_rows(values_only=True)]
    assert values == [
        ["Month", "Amount", "When"],
        ["Jan", 1200, datetime(2024, 1, 5)],
        ["Feb", 99.5, datetime(2024, 2, 6, 14, 30)],
        [None, 1299.5, None],
    ], "numbers as numbers, dates as dates"
    assert book["Budget"]["C2"].is_date
    assert book["Budget"]["C2"].number_format == "yyyy-mm-dd"
    assert book["Budget"]["C3"].number_format == "yyyy-mm-dd hh:mm:ss"
    raw = [row[1] for row in book["Raw"].iter_rows(values_only=True)]
    assert raw == [7, "0049 30", "1200", True, "=not a formula", datetime(2026, 11, 3)]
    assert book["Raw"]["B3"].data_type == "s", "text that reads as a number stays text"
    assert book["Raw"]["B5"].data_type == "s"
    assert book["Raw"]["B5"].quotePrefix
    assert book["Raw"]["A1"].value is None, "a cell where it was"
    assert list(book["Empty"].iter_rows(values_only=True)) in ([], [(None,)])
    assert said[-1] == (
        "out.xlsx: the sheet 'Accounts' enriched; 'Budget', 'Raw', 'Empty' copied beside it "
        "as values (formatting not kept); formulas written as their last values in "
        "'Accounts', 'Budget'."
    )


def test_parquet_keeps_the_users_types(client: Client, tmp_path: Path) -> None:
    source = tmp_path / "accounts.parquet"
    frame = pl.DataFrame(
        {
            "Site": ["stripe.com", "acme.io", None],
            "Seats": pl.Series([3, None, 999], dtype=pl.Int16),
            "Since": [date(2020, 1, 2), None, date(2024, 5, 6)],
            "Tags": [["a", "b"], [], None],
            "Phone": ["+1 555 0100", "-5", "=1+1"],
        }
    )
    frame.write_parquet(source)
    out = enriched(client, source, tmp_path / "out.parquet")
    back = pl.read_parquet(out)
    assert back.select(frame.columns).schema == frame.schema
    assert back.select(frame.columns).equals(frame)


def test_csv_to_csv_keeps_the_bom_line_ends_and_header_as_they_were(
    client: Client, tmp_path: Path
) -> None:
    """No BOM added to a file that had none, CRLF kept, `Site,,Site` written as it was;
    a BOM and LF kept too; streamed or read whole alike."""
    for name, text in [
        ("crlf.csv", "Site,,Site\r\nstripe.com,a,b\r\nacme.io,,c\r\n"),
        ("bom.csv", "\ufeffSite;Note\nstripe.com;x\n"),
        ("ragged.csv", "Site,,Site\r\nstripe.com,a,b,extra\r\n"),  # read whole
    ]:
        source = tmp_path / name
        source.write_bytes(text.encode("utf-8"))
        data = enriched(client, source, tmp_path / f"out-{name}").read_bytes()
        header, first = data.split(b"\n")[:2]
        want = text.encode("utf-8").split(b"\n")[0]
        assert header.startswith(want.rstrip(b"\r") + (b"," if "," in text else b";")), header
        assert header.endswith(b"\r") == want.endswith(b"\r"), "line ends kept"
        assert first.startswith(b"stripe.com"), first
        assert data.startswith(b"\xef\xbb\xbf") == text.startswith("\ufeff"), "BOM as it was"


def test_csv_with_old_mac_line_ends_comes_back_with_them(client: Client, tmp_path: Path) -> None:
    """A file whose lines end in CR alone (old Mac, read whole): its copy is written, with
    CR alone too, and a quoted CR inside a cell is not taken for the line end. Its header
    used to be read after the run had paid, and raised then: nothing written."""
    source = tmp_path / "mac.csv"
    source.write_bytes(b'Name,Site\rStripe,stripe.com\r"Wise\rLtd",wise.com\r')
    data = enriched(client, source, tmp_path / "out.csv").read_bytes()
    lines = data.split(b"\r")
    assert lines[0].startswith(b"Name,Site,company_name,"), lines[0]
    assert lines[1].startswith(b"Stripe,stripe.com,"), lines[1]
    assert b"\n" not in lines[0], "the copy's line ends are the input's"
    assert data.endswith(b"\r")


def test_a_sheet_or_an_encoding_the_file_cannot_use_is_said_unused(
    client: Client, tmp_path: Path
) -> None:
    """Helper 93: `--sheet` on a CSV and `--encoding` on a Parquet file were silently left
    unused."""
    source = tmp_path / "in.csv"
    source.write_text("Site\nstripe.com\n")
    said: list[str] = []
    enrich_file(client, source, None, "company", columns=["Site"], sheet="2", say=said.append)
    assert "Warning: in.csv is no workbook: --sheet '2' is left unused." in said
    parquet = tmp_path / "in.parquet"
    pl.DataFrame({"Site": ["stripe.com"]}).write_parquet(parquet)
    said.clear()
    enrich_file(
        client, parquet, None, "company", columns=["Site"], encoding="cp1252", say=said.append
    )
    assert "Warning: in.parquet is no text file: --encoding 'cp1252' is unused." in said


def test_csv_not_in_utf8_comes_back_in_utf8_with_a_bom_said(client: Client, tmp_path: Path) -> None:
    source = tmp_path / "latin.csv"
    source.write_bytes("Site,Ville\r\nstripe.com,Orléans\r\nacme.io,Besançon\r\n".encode("cp1252"))
    said: list[str] = []
    run = enrich_file(
        client, source, tmp_path / "out.csv", "company", columns=["Site"], say=said.append
    )
    assert run is not None
    data = run.path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbfSite,Ville,")
    assert "Orléans".encode() in data
    assert b"\r\n" in data
    assert said[-1] == "out.csv: written as UTF-8 with a BOM (the input was not UTF-8)."


def test_formulas_no_program_calculated_are_warned_of_before_paying(
    client: Client, tmp_path: Path
) -> None:
    """openpyxl saves formulas with no value: every reader sees them blank, and they were
    written back blank with no word said (the user's formulas lost)."""
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["Name", "Site"])
    sheet.append(["Acme", '=LOWER("ACME.COM")'])
    sheet.append(["Stripe", "stripe.com"])
    path = tmp_path / "written.xlsx"
    book.save(path)
    said: list[str] = []
    run = enrich_file(
        client, path, None, "company", columns=["Site"], say=said.append
    )  # a preview: the warning comes before anything is paid
    assert run is None
    assert said[0] == (
        "Warning: written.xlsx: formula cells with no value saved (1 in 'Sheet'): the file was "
        "never calculated (a program wrote it), so they read as blank and are written blank. "
        "Open and save it in Excel or LibreOffice first, then run again."
    )
    _, calculated = enriched_workbook(client, shapes_xlsx(tmp_path), tmp_path / "out.xlsx")
    assert not any(line.startswith("Warning") for line in calculated), "values saved: no word"
