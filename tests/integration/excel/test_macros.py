"""The search macros end to end against the sandbox: their logic over HTTP, and the thin shell
driven through a small stand-in for an xlwings workbook."""

from __future__ import annotations

import re
from typing import Any

import pytest

from profnet_sheets import Client
from profnet_sheets.errors import SearchTimedOut
from profnet_sheets.excel import macros, searches, session
from profnet_sheets.excel.searches import read_filters
from profnet_sheets.excel.session import SessionConfig
from profnet_sheets.sandbox import start_sandbox
from profnet_sheets.spec import resources as r
from tests.integration.excel.conftest import Excel

pytestmark = pytest.mark.integration

_CELL = re.compile(r"([A-Z]+)([0-9]+)")


def _position(address: str) -> tuple[int, int]:
    match = _CELL.fullmatch(address)
    assert match, address
    column = 0
    for letter in match.group(1):
        column = column * 26 + ord(letter) - 64
    return int(match.group(2)), column


class Range:
    """A block of a Sheet, read and written as xlwings does (2-D lists for 2-D blocks)."""

    def __init__(self, sheet: Sheet, address: str) -> None:
        first, _, last = address.partition(":")
        self.sheet, self.top, self.bottom = sheet, _position(first), _position(last or first)

    @property
    def value(self) -> Any:
        (r1, c1), (r2, c2) = self.top, self.bottom
        rows = [
            [self.sheet.cells.get((r, c)) for c in range(c1, c2 + 1)] for r in range(r1, r2 + 1)
        ]
        return rows[0][0] if (r1, c1) == (r2, c2) else rows

    @value.setter
    def value(self, value: Any) -> None:
        rows = value if isinstance(value, list) else [[value]]
        for i, row in enumerate(rows):
            for j, cell in enumerate(row if isinstance(row, list) else [row]):
                self.sheet.cells[(self.top[0] + i, self.top[1] + j)] = cell

    def clear_contents(self) -> None:
        (r1, c1), (r2, c2) = self.top, self.bottom
        for key in [k for k in self.sheet.cells if r1 <= k[0] <= r2 and c1 <= k[1] <= c2]:
            del self.sheet.cells[key]


class Sheet:
    def __init__(self, name: str, rows: list[list[Any]] | None = None) -> None:
        self.name = name
        self.cells: dict[tuple[int, int], Any] = {}
        Range(self, "A1").value = rows or []

    def range(self, address: str) -> Range:
        return Range(self, address)

    def clear_contents(self) -> None:
        self.cells.clear()

    def table(self) -> list[list[Any]]:
        if not self.cells:
            return []
        height = max(r for r, _ in self.cells)
        width = max(c for _, c in self.cells)
        return [[self.cells.get((r, c)) for c in range(1, width + 1)] for r in range(1, height + 1)]


class Sheets(dict[str, Sheet]):
    def __getitem__(self, key: str | int) -> Sheet:
        if isinstance(key, int):
            return list(self.values())[key]
        return super().__getitem__(key)

    def add(self, name: str, after: Any = None) -> Sheet:
        self[name] = Sheet(name)
        return self[name]


class App:
    def __init__(self, answer: str = "ok") -> None:
        self.answer = answer
        self.prompts: list[str] = []
        self.bar: list[Any] = []

    def alert(self, prompt: str, title: str = "", buttons: str = "ok") -> str:
        self.prompts.append(prompt)
        return self.answer

    @property
    def status_bar(self) -> Any:
        return self.bar[-1] if self.bar else False

    @status_bar.setter
    def status_bar(self, value: Any) -> None:
        self.bar.append(value)


class Book:
    """Just what the macros use of an xlwings Book."""

    def __init__(self, filters: list[list[Any]], answer: str = "ok") -> None:
        self.app = App(answer)
        self.sheets = Sheets(Filters=Sheet("Filters", [["Filter", "Value"], *filters]))

    def report(self) -> dict[str, Any]:
        block = self.sheets["Filters"].range(macros.REPORT_CLEAR).value
        return {row[0]: row[1] for row in block if row[0] is not None}


LEADS = [["title_keywords", "CTO"], ["limit", 5.0], ["enrich", True]]


def test_a_lead_search_from_the_filters_sheet_to_the_results_sheet(excel: Excel) -> None:
    book = Book(LEADS)
    macros.lead_search(book)
    report = book.report()
    assert report["status"] == "completed: 5 results on the Results sheet", report
    assert report["credits spent"] == 50 + 5 + 5, "search, 5 leads, 5 profiles"
    assert excel.charged() == 60
    assert book.app.prompts == [
        "Lead search: at most 60 credits (the search 50, up to 5 for the "
        "results, up to 5 for their details). Run it?"
    ]
    table = book.sheets["Results"].table()
    assert table[0][: len(r.LEAD_ITEM.field_names)] == list(r.LEAD_ITEM.field_names)
    assert "profile_headline" in table[0]
    assert "profile_location" not in table[0], "no column twice"
    assert len(table) == 6
    assert all(row[1] == "CTO" for row in table[1:])
    assert any("completed 100%" in str(line) for line in book.app.bar)
    assert book.app.bar[-1] is False, "the status bar is handed back to Excel"

    again = Book(LEADS)
    macros.lead_search(again)
    assert again.sheets["Results"].table() == table
    assert excel.charged() == 60, "the same search again is free"
    assert again.report()["request_id"] == report["request_id"]


def test_cancel_over_budget_and_bad_filters_spend_nothing(excel: Excel) -> None:
    cancelled = Book(LEADS, answer="cancel")
    macros.lead_search(cancelled)
    assert cancelled.report()["status"] == "cancelled: nothing spent"
    assert "Results" not in cancelled.sheets
    bad = Book([["title_keywords", "CTO"], ["limit", 9999]])
    macros.lead_search(bad)
    assert bad.report()["status"].startswith("#PROFNET! invalid input: search-leads: 9999")
    unknown = Book([["salary", 5]])
    macros.company_search(unknown)
    assert "no filter 'salary'" in unknown.report()["status"]
    excel.start(budget=40)
    poor = Book(LEADS)
    macros.lead_search(poor)
    assert poor.report()["status"].endswith("budget left 40. Over the budget: not run.")
    assert poor.app.prompts == []
    assert excel.calls() == 0


def test_a_company_search_with_typed_filters(excel: Excel) -> None:
    book = Book(
        [
            ["company_headcounts", "B-C"],
            ["company_headcount_growth", "0, 50"],
            ["hiring_on_profnet", "yes"],
            ["limit", 4],
            ["enrich", "TRUE"],
        ]
    )
    macros.company_search(book)
    report = book.report()
    table = book.sheets["Results"].table()
    assert report["status"].startswith("completed"), report
    assert table[0][:2] == ["company_name", "profnet_url"]
    assert "company_founded" in table[0]
    assert "company_company_name" not in table[0]
    assert all(row[3] in ("11-50", "51-200") for row in table[1:])


def test_a_failed_search_says_so_with_its_request_id(excel: Excel) -> None:
    book = Book([["keywords", "sandbox-fail"]])
    macros.lead_search(book)
    report = book.report()
    assert report["status"].startswith("#PROFNET! The leads search")
    assert "failed" in report["status"]
    assert report["request_id"]


def test_the_logic_against_the_service_and_a_search_that_takes_long(
    excel: Excel, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = excel.clients[-1]
    request = read_filters("leads", [["title_keywords", "CTO"], ["limit", 3]])
    cost = searches.cost(client, request)
    assert (cost.search, cost.results, cost.enrichment) == (50, 3, 0)
    lines: list[str] = []
    done = searches.run(client, request, lines.append)
    assert done.frame.height == 3
    assert done.spent == 53
    assert lines[0].endswith("started")
    assert "reading 3 results" in lines[-1]
    again = searches.cost(client, request)
    assert (again.search, again.results) == (0, 0), "reused, and its results already read"

    with start_sandbox(api_keys=("slow",), job_seconds=600) as slow:
        slow_client = Client(api_key="slow", base_url=slow.base_url, cache="memory")
        session.install(slow_client, SessionConfig(budget=None))
        monkeypatch.setattr(searches, "WAIT_SECONDS", 0.0)
        with pytest.raises(SearchTimedOut):
            searches.run(slow_client, request, lines.append)
        book = Book([["title_keywords", "CTO"], ["limit", 3]])
        macros.lead_search(book)
        slow_client.close()
    report = book.report()
    assert "still processing" in report["status"]
    assert report["request_id"]
