"""Formula injection (issue 7): with hostile text planted in the sandbox's answers (every free
text starting with `=`, `+`, `-`, `@`, tab, CR, LF or NUL: `PUT /_sandbox/hostile`), every
export path writes it as text a spreadsheet will not run:

- the command line: `enrich` to CSV and XLSX, `search leads|companies` to CSV and XLSX;
- the notebook forms: a search form's and EnrichForm's CSV and XLSX exports;
- the Excel search macros writing the Results sheet and the Last run block (through the
  workbook stand-in that turns what is written into what Excel would hold).

Policy (decisions #48, batch/io.py): in CSV and XLSX every string, nested ones and headers
included, that starts with one of those characters gets a leading `'`; XLSX cells are always
written as strings, never formulas. Parquet is data, not a spreadsheet: it keeps the service's
text exactly (checked here too). Formula results in Excel are not escaped (decisions #79).
"""

from __future__ import annotations

import csv
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import openpyxl
import polars as pl
import pytest
import requests

from profnet_sheets import Client
from profnet_sheets.batch.io import escape_formula
from profnet_sheets.excel import macros, session
from profnet_sheets.excel.session import SessionConfig
from profnet_sheets.sandbox import RunningSandbox, start_sandbox
from profnet_sheets.sandbox.hostile import PREFIXES
from profnet_sheets.widgets import EnrichForm, LeadSearchForm
from tests.integration.excel.test_macros import Book
from tests.integration.test_reliability_input import Cli, assert_clean
from tests.unit.excel.workbook import Formula
from tests.unit.test_batch_io import ooxml_unescape

pytestmark = pytest.mark.integration
KEY = "reliability-injection-key"
DANGEROUS = (*PREFIXES, "\0")
DOMAINS = ["stripe.com", "acme.io", "notion.so", "figma.com", "linear.app", "vercel.com"]
PROFILES = [f"https://www.profnet.com/in/person-{number}/" for number in range(6)]


@pytest.fixture(scope="module")
def hostile() -> Iterator[RunningSandbox]:
    with start_sandbox(api_keys=(KEY,), credits=10**9, job_seconds=0.0, seed=21) as running:
        set_hostile(running, 1.0)
        yield running


def set_hostile(sandbox: RunningSandbox, rate: object) -> requests.Response:
    return requests.put(f"{sandbox.base_url}/_sandbox/hostile", json={"rate": rate}, timeout=5)


@pytest.fixture
def client(hostile: RunningSandbox, tmp_path: Path) -> Iterator[Client]:
    with Client(api_key=KEY, base_url=hostile.base_url, cache=str(tmp_path / "cache")) as made:
        yield made


def strings(value: object) -> Iterator[str]:
    """Every string in a JSON answer."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def assert_safe(cells: Iterable[object]) -> Counter[str]:
    """No text cell starts like a formula; the planted ones are there, quoted. Returns how many
    quoted cells each dangerous first character had (proof hostile text reached the file)."""
    seen: Counter[str] = Counter()
    for cell in cells:
        if not isinstance(cell, str):
            continue
        assert not cell.startswith(DANGEROUS), repr(cell[:60])
        if cell.startswith("'") and cell[1:].startswith(DANGEROUS):
            seen[cell[1]] += 1
    assert seen, "no hostile text reached this export: the test would prove nothing"
    return seen


def csv_cells(path: Path) -> list[str]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        return [cell for row in csv.reader(handle) for cell in row]


def xlsx_cells(path: Path) -> list[object]:
    """Every cell's value as Excel's formula bar shows it (`_x000D_` escapes decoded; a cell
    with Excel's quote prefix as `'` + its text: it stays text when edited, and the `'` is
    not part of its value); no cell is a formula."""
    book = openpyxl.load_workbook(path)
    values: list[object] = []
    for sheet in book.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                assert cell.data_type != "f", f"{path.name}!{cell.coordinate} is a formula"
                value = cell.value
                if isinstance(value, str):
                    value = ooxml_unescape(value)
                    value = "'" + value if cell.quotePrefix else value
                values.append(value)
    return values


def assert_exports_safe(paths: Iterable[Path]) -> Counter[str]:
    seen: Counter[str] = Counter()
    for path in paths:
        cells = csv_cells(path) if path.suffix == ".csv" else xlsx_cells(path)
        seen += assert_safe(cells)
    return seen


# -- the hostile sandbox ---------------------------------------------------------------------


def every_answer(client: Client) -> dict[str, Any]:
    """An answer of each of the 20 endpoints, every id taken from an earlier answer."""
    got: dict[str, Any] = {}

    def ask(endpoint: str, /, **params: Any) -> Any:
        got[endpoint] = client.call(endpoint, params)
        return got[endpoint]

    company = ask("get-company-details", domain="stripe.com")
    ask("find-custom-headcount", profnet_url=company["profnet_url"])
    ask("get-company-posts", profnet_url=company["profnet_url"])
    posts = ask("search-posts", keyword="python")
    ask("get-post-details", urn=posts["posts"][0]["urn"])
    jobs = ask("search-jobs", keyword="engineer")
    ask("get-job-details", job_id=jobs["jobs"][0]["job_id"])
    ask("find-geocode-by-location", location="Berlin")
    ask("google-schools", school_name="Stanford")
    ask("google-full-profiles", name="Anna Schmidt")
    for kind, filters in (
        ("lead", {"title_keywords": ["CTO"], "limit": 5}),
        ("company", {"company_headcounts": ["C"], "limit": 5}),
    ):
        request_id = ask(f"search-{kind.replace('company', 'companie')}s", **filters)["request_id"]
        ask(f"get-{kind}-search-status", request_id=request_id)
        ask(f"get-{kind}-results", request_id=request_id)
    lead = got["get-lead-results"]["results"][0]["profnet_url"]
    ask("get-profile-details", profnet_url=lead, include_skills=True, include_certifications=True)
    ask("get-profile-posts", profnet_url=lead)
    ask("get-recommendations-received", profnet_url=lead)
    ask("get-recommendations-given", profnet_url=lead)
    assert len(got) == 20
    return got


def test_off_by_default_and_set_through_its_control(tmp_path: Path) -> None:
    with start_sandbox(api_keys=(KEY,), job_seconds=0.0) as plain:
        assert requests.get(f"{plain.base_url}/_sandbox/hostile", timeout=5).json() == {"rate": 0}
        with Client(api_key=KEY, base_url=plain.base_url, cache="memory") as client:
            answers = every_answer(client)
        assert not [text for text in strings(answers) if text.startswith(DANGEROUS)]
        for bad in (2, -1, "0.5", None, True):
            assert set_hostile(plain, bad).status_code == 400
        refused = requests.put(f"{plain.base_url}/_sandbox/hostile", json={"rat": 1}, timeout=5)
        assert refused.status_code == 400
        assert set_hostile(plain, 0.25).json() == {"rate": 0.25}


def test_every_endpoint_answers_hostile_text_and_its_ids_still_work(client: Client) -> None:
    """Ids, URLs and enumerations are never planted: each answer's ids fed the next call."""
    answers = every_answer(client)
    first = Counter(text[0] for text in strings(answers) if text and text.startswith(DANGEROUS))
    assert set(first) == set(PREFIXES), "every dangerous first character is planted"
    # Answers with no free text: a job's creation and status, a headcount (a URL, ids, a number).
    textless = {
        "search-leads",
        "search-companies",
        "get-lead-search-status",
        "get-company-search-status",
        "find-custom-headcount",
    }
    for name, answer in answers.items():
        planted = any(text.startswith(DANGEROUS) for text in strings(answer))
        assert planted == (name not in textless), name


def test_the_same_seed_and_rate_plant_the_same_text(hostile: RunningSandbox) -> None:
    with start_sandbox(api_keys=(KEY,), job_seconds=0.0, seed=21, hostile_rate=1.0) as twin:
        for base_url in (hostile.base_url, twin.base_url):
            with Client(api_key=KEY, base_url=base_url, cache="memory") as client:
                company = client.get_company_details(domain="acme.io")
                places = client.find_geocode_by_location(location="Munich")
            if base_url == hostile.base_url:
                expected = (company, places)
        assert (company, places) == expected


# -- the command line ------------------------------------------------------------------------


@pytest.fixture
def cli(hostile: RunningSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Cli:
    monkeypatch.chdir(tmp_path)
    return Cli(hostile, tmp_path, KEY)


def test_cli_enrich_writes_hostile_answers_as_text(cli: Cli, tmp_path: Path) -> None:
    companies = tmp_path / "companies.csv"
    pl.DataFrame({"Site": DOMAINS}).write_csv(companies)
    people = tmp_path / "people.csv"
    pl.DataFrame({"Profile": PROFILES}).write_csv(people)
    written = []
    for source, column, kind in ((companies, "Site", "company"), (people, "Profile", "profile")):
        for suffix in (".csv", ".xlsx", ".parquet"):
            out = tmp_path / f"{kind}{suffix}"
            result = cli(
                "enrich", str(source), "--column", column, "--kind", kind, "--out", str(out)
            )
            assert_clean(result, fuzzed=False)
            assert result.exit_code == 0, result.output
            written.append(out)
    seen = assert_exports_safe(path for path in written if path.suffix != ".parquet")
    assert set(seen) == set(PREFIXES), "every dangerous character, escaped"
    raw = pl.read_parquet(tmp_path / "company.parquet")
    names = raw["company_name"].to_list()
    assert all(name.startswith(PREFIXES) for name in names), "Parquet keeps the text as it came"
    escaped = pl.read_csv(tmp_path / "company.csv", infer_schema=False)
    assert escaped["company_name"].to_list() == [escape_formula(name) for name in names]


def test_cli_search_exports_write_hostile_results_as_text(cli: Cli, tmp_path: Path) -> None:
    written = []
    for kind, filters in (
        ("leads", ["--title-keywords", "CTO", "--limit", "40"]),
        ("companies", ["--company-headcounts", "B,C", "--limit", "40"]),
    ):
        for suffix in (".csv", ".xlsx"):
            out = tmp_path / f"{kind}{suffix}"
            result = cli("search", kind, *filters, "--out", str(out))
            assert result.exit_code == 0, result.output
            written.append(out)
    assert set(assert_exports_safe(written)) == set(PREFIXES)


# -- the notebook forms ----------------------------------------------------------------------


def test_the_forms_exports_write_hostile_text_as_text(client: Client, tmp_path: Path) -> None:
    search = LeadSearchForm(client)
    search.fill(title_keywords=["CTO"], limit=30)
    search.search(wait=True)
    search.enrich(wait=True)  # the profiles: nested experience and education as JSON text
    assert search.enriched is not None, search.feedback.error_text
    enrich = EnrichForm(pl.DataFrame({"Site": DOMAINS}), client=client)
    enrich.column.value = "Site"
    enrich.run(wait=True)
    assert enrich.result is not None, enrich.feedback.error_text
    written = []
    for form, name in ((search, "leads"), (enrich, "companies")):
        form.export.name.value = str(tmp_path / name)
        written += [form.export.export(".csv"), form.export.export(".xlsx")]
    assert set(assert_exports_safe(written)) == set(PREFIXES)


# -- the Excel macros ------------------------------------------------------------------------


@pytest.fixture
def excel(client: Client) -> Iterator[None]:
    session.install(client, SessionConfig(budget=None))
    yield
    session.reset()


@pytest.mark.usefixtures("excel")
@pytest.mark.parametrize(
    ("macro", "filters"),
    [
        (macros.lead_search, [["title_keywords", "CTO"], ["limit", 25.0], ["enrich", True]]),
        (macros.company_search, [["company_headcounts", "B-C"], ["limit", 25], ["enrich", True]]),
    ],
    ids=["leads", "companies"],
)
def test_the_search_macros_write_hostile_text_as_text(macro: Any, filters: list[list[Any]]) -> None:
    """The workbook stand-in (tests/unit/excel/workbook.py) turns what a macro writes into what
    Excel would hold: text Excel would take for a formula becomes a `Formula`. None may; the
    planted text must be there, verbatim, as text (the macros write it with a leading `'`,
    which Excel keeps out of the value)."""
    book = Book(filters)
    macro(book)
    report = book.report()
    assert str(report["status"]).startswith("completed"), report
    results = book.sheets["Results"].table()
    assert len(results) == 26
    last_run = book.sheets["Filters"].range(macros.REPORT_CLEAR).value
    written = [cell for row in [*results, *last_run] for cell in row]
    assert not [cell for cell in written if isinstance(cell, Formula)], "Excel would run these"
    planted = Counter(
        cell[0] for cell in written if isinstance(cell, str) and cell.startswith(DANGEROUS)
    )
    assert set(planted) == set(PREFIXES), "the hostile text arrived, as text"
