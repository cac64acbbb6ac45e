"""The search macros' pure logic: Filters rows -> a checked search, its cost line, safe rows."""

from __future__ import annotations

import polars as pl
import pytest

from profnet_sheets.errors import InvalidParameter
from profnet_sheets.excel import searches
from profnet_sheets.excel.messages import ArgumentError
from profnet_sheets.excel.searches import Cost, SearchRequest, read_filters
from profnet_sheets.spec import search_endpoint


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


def test_the_cost_line() -> None:
    cost = Cost("leads", 50, 100, 100, 1000)
    assert cost.total == 250
    assert cost.within_budget
    assert cost.line() == (
        "Lead search: at most 250 credits (the search 50, up to 100 for the results, up to "
        "100 for their details); budget left 1000."
    )
    reused = Cost("companies", 0, 10, 0, None)
    assert reused.line() == (
        "Company search: at most 10 credits (the search reused (free), up to 10 for the results)."
    )
    assert not Cost("leads", 50, 100, 0, 120).within_budget


def test_rows_for_the_sheet_are_escaped_against_formula_injection() -> None:
    frame = pl.DataFrame(
        {
            "name": ['=HYPERLINK("http://evil")', "Ann"],
            "score": [1, 2],
            "skills": [["+1 trick", "SQL"], None],
        }
    )
    rows = searches.sheet_rows(frame)
    assert rows[0] == ["name", "score", "skills"]
    assert rows[1] == ['\'=HYPERLINK("http://evil")', 1, "'+1 trick; SQL"]
    assert rows[2] == ["Ann", 2, ""]


def test_the_last_run_block_when_something_went_wrong() -> None:
    request = SearchRequest("leads", {})
    rows = searches.summary(request, "#PROFNET! it failed", "-abc")
    assert rows == [
        ["last run", "Lead search"],
        ["status", "#PROFNET! it failed"],
        ["request_id", "'-abc"],
    ]
