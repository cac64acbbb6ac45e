"""The search macros' pure logic: Filters rows -> a checked search, its cost line, safe rows."""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest

from profnet_sheets.client.spend import Budget, Quote, SpendPolicy
from profnet_sheets.errors import ArgumentError, InvalidParameter, NormalizationError
from profnet_sheets.excel import searches
from profnet_sheets.excel.searches import Cost, SearchRequest, read_filters
from profnet_sheets.spec import PriceTable, search_endpoint
from tests.unit.excel import workbook


def test_the_filters_a_sheet_may_hold_come_from_the_spec() -> None:
    for kind in ("leads", "companies"):
        rows = searches.filter_rows(kind)
        names = [name for name, _ in rows]
        assert names == [*search_endpoint(kind, "create").param_names, "enrich"]
        assert all(help_text for _, help_text in rows)


def test_rows_become_a_search_as_typed_in_cells() -> None:
    request = read_filters(
        "leads",
        [
            ["Title Keywords", "CTO; VP Engineering"],
            ["geo_codes", 103644278.0],
            ["  keywords ", "   "],  # left empty: not a filter
            [None, "stray note"],  # no name: ignored
            None,
            [],
            ["limit", 25.0],
            ["enrich", True],
        ],
    )
    assert request == SearchRequest(
        "leads",
        {"title_keywords": "CTO; VP Engineering", "geo_codes": 103644278.0, "limit": 25.0},
        enrich=True,
    )
    assert request.limit == 25


def test_a_growth_range_is_typed_as_min_comma_max() -> None:
    request = read_filters("companies", [["company_headcount_growth", "10, 50"]])
    assert request.filters == {"company_headcount_growth": ("10", "50")}
    assert request.limit == 100, "the spec's default"


def test_unknown_filters_are_named_with_the_valid_ones() -> None:
    with pytest.raises(ArgumentError) as caught:
        read_filters("leads", [["title", "CTO"], ["salary", 5]])
    assert "'title', 'salary'" in str(caught.value)
    assert "title_keywords" in str(caught.value)
    assert "enrich" in str(caught.value)


@pytest.mark.parametrize(
    ("rows", "parameter"),
    [
        ([["limit", 5]], "payload"),  # no filter at all: 50 credits for everything
        ([["keywords", "x"], ["limit", 5000]], "limit"),
        ([["keywords", "x"], ["sales_nav_url", "https://s/"]], "sales_nav_url"),
        ([["geo_codes", "Berlin"]], "geo_codes"),
    ],
)
def test_a_search_that_cannot_work_is_refused_before_it_is_paid(
    rows: list[list[object]], parameter: str
) -> None:
    with pytest.raises(InvalidParameter) as caught:
        read_filters("leads", rows)
    assert caught.value.parameter == parameter


def quoted(credits: int, budget_left: int | None) -> Quote:
    return SpendPolicy(PriceTable(), "the sandbox").quote(credits, Budget(budget_left))


def test_the_cost_line() -> None:
    cost = Cost("leads", 50, 100, 100, quoted(250, 1000))
    assert cost.total == 250
    assert cost.within_budget
    assert cost.line() == (
        "Lead search: at most 250 credits (the search 50, up to 100 for the results, up to "
        "100 for their details); budget left 1000."
    )
    reused = Cost("companies", 0, 10, 0, quoted(10, None))
    assert reused.line() == (
        "Company search: at most 10 credits (the search reused (free), up to 10 for the results)."
    )
    assert not Cost("leads", 50, 100, 0, quoted(150, 120)).within_budget


def test_rows_written_to_a_sheet_read_back_as_the_service_gave_them() -> None:
    text = [
        '=HYPERLINK("http://evil")',  # would run as a formula
        "1-10",  # company_size: a date once Excel has read it
        "11-50",
        "00123",  # an id with leading zeros: the number 123
        "12345678901234567890",  # a long id: a rounded number
        "-5",
        "TRUE",
        "'quoted'",
        "Ann",
    ]
    frame = pl.DataFrame(
        {
            "text": text,
            "score": list(range(len(text))),
            "skills": [["+1 trick", "SQL"], *[None] * (len(text) - 1)],
        }
    )
    sheet = workbook.Sheet("Results")
    sheet.range("A1").value = searches.sheet_rows(frame)
    table = sheet.table()
    assert table[0] == ["text", "score", "skills"]
    assert [row[0] for row in table[1:]] == text
    assert [row[1] for row in table[1:]] == list(range(len(text)))
    assert table[1][2] == "+1 trick; SQL"
    assert [row[2] for row in table[2:]] == [None] * (len(text) - 1), "empty stays empty"


def test_the_last_run_block_when_something_went_wrong() -> None:
    request = SearchRequest("leads", {})
    sheet = workbook.Sheet("Filters")
    sheet.range("E1").value = searches.summary(request, "#PROFNET! it failed", "-abc", "SANDBOX")
    assert sheet.table()[0][4:] == ["last run", "Lead search"]
    assert [row[4:] for row in sheet.table()[1:]] == [
        ["status", "#PROFNET! it failed"],
        ["request_id", "-abc"],
        ["data", "SANDBOX"],
    ]


@pytest.mark.parametrize("shown", ["#NAME?", "#N/A", " #ref! "])
def test_a_filter_showing_an_excel_error_is_refused_not_left_out(shown: str) -> None:
    with pytest.raises(ArgumentError) as caught:
        read_filters("leads", [["title_keywords", "CTO"], ["geo_codes", shown]])
    message = str(caught.value)
    assert message.startswith("Filters sheet: geo_codes shows the Excel error #")
    assert "nothing spent" in message
    assert ("Import Functions" in message) is (shown == "#NAME?")


@pytest.mark.parametrize(
    ("shown", "says"),
    [
        ("#N/A waiting...", "still calculating"),  # xlwings' text while a formula runs
        ("#PROFNET! not found: check the id", "the error of its formula"),
    ],
)
def test_a_filter_showing_a_formulas_text_error_is_not_searched_for(shown: str, says: str) -> None:
    with pytest.raises(ArgumentError) as caught:
        read_filters("leads", [["keywords", shown]])
    assert says in str(caught.value)
    assert "nothing spent" in str(caught.value)


def test_a_code_excel_made_a_date_says_so() -> None:
    with pytest.raises(NormalizationError, match="format the cell as Text"):
        read_filters("companies", [["company_headcounts", dt.datetime(2024, 1, 10)]])


def test_a_limit_too_large_is_not_called_an_id() -> None:
    with pytest.raises(InvalidParameter) as caught:
        read_filters("leads", [["keywords", "x"], ["limit", 1e20]])
    assert caught.value.parameter == "limit"
    assert " id" not in str(caught.value)
    assert "1 to 2500" in str(caught.value)


def test_one_credit_is_singular() -> None:
    assert Cost("leads", 0, 1, 0, quoted(1, None)).line() == (
        "Lead search: at most 1 credit (the search reused (free), up to 1 for the results)."
    )
