"""The search macros end to end against the sandbox: their logic over HTTP, and the thin shell
driven through a small stand-in for an xlwings workbook."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from profnet_sheets import Client
from profnet_sheets.errors import SearchTimedOut
from profnet_sheets.excel import formulas, macros, searches, session
from profnet_sheets.excel.searches import read_filters
from profnet_sheets.excel.session import SessionConfig
from profnet_sheets.sandbox import start_sandbox
from profnet_sheets.spec import resources as r
from tests.integration.client.conftest import set_faults
from tests.integration.excel.conftest import Excel
from tests.unit.excel import workbook
from tests.unit.excel.workbook import ExcelError

pytestmark = pytest.mark.integration


class Book(workbook.Book):
    """A workbook with a Filters sheet holding `filters` under its header row."""

    def __init__(self, filters: list[list[Any]], answer: str = "ok") -> None:
        super().__init__({"Filters": [["Filter", "Value"], *filters]}, answer)

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
    assert poor.report()["status"].endswith("budget left 40. Over the budget (40 left): not run.")
    assert poor.app.prompts == []
    assert excel.calls() == 0


def test_a_search_whose_start_lost_its_answer_says_so_when_asked_again(excel: Excel) -> None:
    """The creation went out and its answer was cut: the macro's question before running
    the same search again says it may have been started and charged already."""
    set_faults(excel.sandbox, drop_rate=1.0)
    cut = Book(LEADS)
    macros.lead_search(cut)
    assert cut.report()["status"].startswith("#PROFNET!"), cut.report()
    set_faults(excel.sandbox, drop_rate=0.0)
    again = Book(LEADS, answer="cancel")
    macros.lead_search(again)
    [prompt] = again.app.prompts
    assert "The same search was sent at " in prompt
    assert "may have started it and charged 50 credits (counted as possibly spent)" in prompt
    assert prompt.endswith("Run it?")
    assert excel.calls() == 0, "the sandbox cut the first before its work; nothing since"


def test_a_search_over_the_spending_cap_names_the_cap(excel: Excel) -> None:
    """A code review: `Over the budget: not run.` for a search the spending cap refused."""
    excel.start(spending_cap="60/day")  # 50 to start it, 5 results, their 5 details
    first = Book(LEADS)
    macros.lead_search(first)
    assert excel.charged() == 60
    excel.start(spending_cap="59/day")
    poor = Book([["title_keywords", "VP"], ["limit", 10]])
    macros.lead_search(poor)
    assert poor.report()["status"].endswith("Over the spending cap 59/day (0 left): not run."), (
        poor.report()["status"]
    )
    assert excel.charged() == 60


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
    assert "company_company_name" not in table[0], "the search's own fields are not fetched again"
    assert table[0].count("company_name") == 1
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


@pytest.mark.parametrize(
    ("shown", "says"),
    [("#NAME?", "Import Functions"), ("#N/A", "fix the cell, or clear it")],
)
def test_a_filter_showing_an_excel_error_stops_the_search(
    excel: Excel, shown: str, says: str
) -> None:
    # The lead search template's geo_codes is =PROFNET_GEOCODE("Berlin"): #NAME? on macOS or
    # before Import Functions. Read as empty, the search would run without it: wider, paid.
    book = Book([["title_keywords", "CTO"], ["geo_codes", ExcelError(shown)], ["limit", 5]])
    macros.lead_search(book)
    status = book.report()["status"]
    assert status.startswith(f"#PROFNET! Filters sheet: geo_codes shows the Excel error {shown}")
    assert "not run (nothing spent)" in status
    assert says in status
    assert book.app.prompts == []
    assert "Results" not in book.sheets
    assert excel.calls() == 0


def test_results_are_written_so_that_excel_keeps_them_as_text(excel: Excel) -> None:
    book = Book([["company_headcounts", "A-C"], ["limit", 10]])
    macros.company_search(book)
    assert book.report()["status"].startswith("completed"), book.report()
    table = book.sheets["Results"].table()
    column = table[0].index("company_size")
    sizes = {row[column] for row in table[1:]}
    assert sizes, table
    assert sizes <= {"1-10", "11-50", "51-200"}, "1-10 and 11-50 stay text, not dates"
    assert not any(
        isinstance(cell, workbook.Formula | dt.datetime) for row in table for cell in row
    )
    assert isinstance(book.report()["request_id"], str)


def test_the_last_run_block_says_where_the_data_comes_from(excel: Excel) -> None:
    book = Book([["salary", 5]])
    macros.lead_search(book)
    assert book.report()["data"] == "the service at 127.0.0.1"
    sandboxed = Client(cache="memory")  # no key, no base URL: the embedded sandbox
    session.install(sandboxed, SessionConfig(budget=None))
    book = Book([["salary", 5]])
    macros.lead_search(book)
    sandboxed.close()
    assert book.report()["data"].startswith("SANDBOX: synthetic data")
    assert "profnet-sheets config --api-key" in book.report()["data"]


def test_the_last_run_block_tells_maybe_charged_credits_apart(excel: Excel) -> None:
    """Connections cut while adding each result's details: those calls may have been charged
    (the service says not). 'credits spent' is what was charged for sure, the rest apart."""
    plain = [["title_keywords", "Founder"], ["limit", 20.0]]
    macros.lead_search(Book(plain))
    before = excel.charged()
    set_faults(excel.sandbox, drop_rate=0.3)
    book = Book([*plain, ["enrich", True]])
    macros.lead_search(book)
    report = book.report()
    assert report["status"].startswith("completed"), report
    assert report["credits spent"] == excel.charged() - before
    assert report["credits possibly spent"] > 0, report
    # the session's credits, too, say sure and maybe apart (decision 482)
    spent, _, _, maybe = formulas.credits()[0]
    assert spent == excel.charged()
    possibly = int(report["credits possibly spent"])
    assert maybe == f"+{possibly} possibly spent (answers lost after they went out)"


def test_a_search_out_of_credits_while_reading_says_its_id_and_spend(excel: Excel) -> None:
    """Before: the Last run block said only the 402, with no request id and nothing of the 50
    credits its creation was charged (decision 483)."""
    import requests

    from tests.integration.excel.conftest import KEY

    keys = f"{excel.sandbox.base_url}/_sandbox/keys"
    requests.put(keys, json={"key": KEY, "credits": 70}, timeout=5).raise_for_status()
    filters = [["title_keywords", "Engineer"], ["limit", 40.0]]
    book = Book(filters)
    macros.lead_search(book)
    report = book.report()
    assert "out of credits" in report["status"]
    assert report["request_id"], report
    assert report["credits spent"] == 50 == excel.charged()
    assert report["next"].startswith("once the cause above is dealt with, run the search again")
    requests.put(keys, json={"key": KEY, "credits": 1000}, timeout=5).raise_for_status()
    again = Book(filters)
    macros.lead_search(again)
    assert again.report()["status"] == "completed: 40 results on the Results sheet"
    assert again.report()["request_id"] == report["request_id"], "reused, free"
    assert excel.charged() == 90


def test_a_search_that_failed_at_the_service_is_not_said_to_be_reused_free(excel: Excel) -> None:
    """A review of decision 483: a failed search is forgotten, its next run paid again."""
    book = Book([["keywords", "sandbox-fail"], ["limit", 5.0]])
    macros.lead_search(book)
    report = book.report()
    assert "failed at the service" in report["status"], report
    assert report["credits spent"] == 50
    assert "next" not in report


def test_a_search_whose_details_ran_out_of_credits_says_it_stopped(excel: Excel) -> None:
    """A new user's review: with 63 credits for a search of 10 leads and their details, the
    Last run block said `completed: 10 results on the Results sheet`; 7 rows had no
    details, said only in their last column."""
    import requests

    from tests.integration.excel.conftest import KEY

    keys = f"{excel.sandbox.base_url}/_sandbox/keys"
    requests.put(keys, json={"key": KEY, "credits": 63}, timeout=5).raise_for_status()
    book = Book([["title_keywords", "CTO"], ["limit", 10.0], ["enrich", True]])
    macros.lead_search(book)
    report = book.report()
    assert report["status"].startswith(
        "stopped: 7 of 10 results without their details (out of credits"
    ), report
    assert report["status"].endswith("all on the Results sheet")
    assert report["credits spent"] == 63 == excel.charged()
    assert report["next"].startswith("once the cause above is dealt with, run the search again")
