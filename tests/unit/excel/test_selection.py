"""The Enrich selection and Freeze as values macros' logic over cell values, without Excel."""

from __future__ import annotations

from typing import Any

import pytest

from profnet_sheets.batch.kinds import KINDS
from profnet_sheets.errors import ArgumentError
from profnet_sheets.excel import selection


def test_settings_name_a_kind_and_its_fields() -> None:
    request = selection.read_settings(
        [["Setting", "Value"], ["Kind", " Company "], ["fields", "Company Name, industry"]]
    )
    assert request.kind is KINDS["company"]
    assert request.header == ["company_name", "industry"]
    everything = selection.read_settings([["kind", "geocode"], ["fields", None]])
    assert everything.fields == list(KINDS["geocode"].output.field_names)
    assert [name for name, _ in selection.setting_rows()] == ["kind", "fields"]


@pytest.mark.parametrize(
    ("rows", "says"),
    [
        ([["kind", None]], "choose a kind beside 'kind'"),
        ([["kind", "companies"]], r"unknown kind 'companies': did you mean company\? use one of"),
        ([["kind", "#NAME?"]], "kind shows #NAME?"),
        ([["kind", "company"], ["fields", "revenue"]], "Enrich selection has no field 'revenue'"),
        ([["kind", "company"], ["fields", "#N/A"]], "fields shows #N/A"),
    ],
)
def test_settings_that_cannot_work_say_what_to_fix(rows: list[list[Any]], says: str) -> None:
    with pytest.raises(ArgumentError, match=says):
        selection.read_settings(rows)


def test_placement_beside_the_selection_under_a_header() -> None:
    below = selection.place(2, 2, 20, 1, last_used_row=21)  # B2:B21, header in row 1
    assert (below.header_row, below.first_row, below.last_row) == (1, 2, 21)
    assert below.keys == "B2:B21"
    assert below.target(3) == "C1:E21"
    assert below.target_cell == "C1"
    with_header = selection.place(1, 1, 1_048_576, 1, last_used_row=6)  # column A, whole
    assert (with_header.header_row, with_header.first_row, with_header.last_row) == (1, 2, 6)
    assert with_header.keys == "A2:A6"
    assert selection.address(3, 28) == "AB3"


@pytest.mark.parametrize(
    ("args", "says"),
    [((2, 2, 5, 2, 9), "select one column of keys"), ((1, 1, 1, 1, 1), "no keys selected")],
)
def test_a_selection_that_cannot_be_enriched(args: tuple[int, ...], says: str) -> None:
    with pytest.raises(ArgumentError, match=says):
        selection.place(*args)


def test_values_go_only_over_empty_cells_or_an_earlier_run() -> None:
    request = selection.read_settings([["kind", "company"], ["fields", "industry, website"]])
    selection.check_free([[None, None], [None, ""]], request, "C1:D2")
    selection.check_free([["industry", "website"], ["Software", "x"]], request, "C1:D2")
    with pytest.raises(ArgumentError, match=r"C1:D2, where the values go, is not empty: insert 2"):
        selection.check_free([[None, None], ["notes", None]], request, "C1:D2")


@pytest.mark.parametrize(
    ("formula", "calls"),
    [
        ('=PROFNET_COMPANY(A2, "industry")', True),
        ("=profnet_company(A2)", True),
        ("=SUM(PROFNET_HEADCOUNT(B2:B9))", True),
        ('="PROFNET_COMPANY(A2)"', False),  # a text naming one
        ("PROFNET_COMPANY(A2)", False),  # a value, not a formula
        ("=SUM(A1:A3)", False),
        (12.0, False),
        (None, False),
    ],
)
def test_which_formulas_are_profnet_formulas(formula: Any, calls: bool) -> None:
    assert selection.calls_profnet(formula) is calls


def test_the_profnet_cells_of_a_selection() -> None:
    formulas = [["=PROFNET_JOB(A2)", "x"], ["", "=PROFNET_GEOCODE(B1)"]]
    assert selection.profnet_cells(3, 2, formulas) == [(3, 2), (4, 3)]
    assert selection.profnet_cells(1, 1, "=PROFNET_CREDITS()") == [(1, 1)]


def test_freeze_writes_answers_as_values_and_keeps_errors_as_formulas() -> None:
    frozen = selection.freeze(
        {
            "C1": [["company_name", "size"], ["Acme", "1-10"], ["=x", 12.0]],
            "E1": [["#PROFNET! the budget of this Excel session is spent"]],
            "F1": [["#N/A waiting..."]],
            "G1": [["#NAME?"]],
            "H1": [[None]],
        }
    )
    assert frozen.blocks == [
        ("C1", [["'company_name", "'size"], ["'Acme", "'1-10"], ["'=x", 12.0]]),
        ("H1", [[None]]),
    ]
    assert [where for where, _ in frozen.kept] == ["E1", "F1", "G1"]
    assert frozen.cells == 7
    assert frozen.prompt().startswith(
        "Freeze as values: replace 2 PROFNET_ formulas (7 cells) by the values they show?"
    )
    assert "F1 (still calculating)" in frozen.line()
    assert selection.freeze({}).line().startswith("Freeze as values: no PROFNET_ formula")
