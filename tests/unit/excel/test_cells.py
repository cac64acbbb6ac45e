"""Excel values <-> Python: keys, ranges and their shape, cell values out, #PROFNET! text."""

from __future__ import annotations

import datetime as dt
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from profnet_sheets.errors import NormalizationError
from profnet_sheets.excel import cells

FAST = settings(max_examples=200, deadline=None)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (12345.0, "12345"),
        (12345, "12345"),
        (1.5, "1.5"),
        ("  acme.com \u00a0", "acme.com"),
        ("\u200bstripe.com\ufeff", "stripe.com"),  # zero-width leftovers of a paste
        (None, None),
        ("", None),
        ("   ", None),
        (math.nan, None),
        (2.0**53 - 1, str(2**53 - 1)),
    ],
)
def test_key_cells_become_text(value: object, expected: str | None) -> None:
    assert cells.key(value, "company") == expected


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("#N/A", "#N/A"),
        ("  #VALUE! ", "#VALUE!"),
        (-2146826246, "#N/A"),  # COM's code for #N/A
        (-2146826265, "#REF!"),
        (True, "true/false"),
        (dt.datetime(2024, 1, 2), "date"),
        (dt.date(2024, 1, 2), "date"),
        (1.2345678901234567e18, "Excel has rounded it"),
        (2.0**53, "Excel has rounded it"),  # 2**53 + 1 too: a new user's review
        (["a"], "list"),
    ],
)
def test_cells_that_cannot_be_keys_say_what_to_do(value: object, says: str) -> None:
    with pytest.raises(NormalizationError) as caught:
        cells.key(value, "company")
    assert says in str(caught.value)
    assert caught.value.parameter == "company"


def test_clean_turns_com_error_codes_into_their_text_at_any_depth() -> None:
    assert cells.clean([[1.0, -2146826273], ["x", None]]) == [[1.0, "#VALUE!"], ["x", None]]
    assert cells.clean(True) is True
    assert cells.clean(-5) == -5


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        ("", None),
        (True, True),
        (False, False),
        (1.0, True),
        (0.0, False),
        ("yes", True),
        ("FALSE", False),
    ],
)
def test_flags(value: object, expected: bool | None) -> None:
    assert cells.flag(value, "header") is expected


def test_a_flag_from_an_error_cell_is_refused() -> None:
    with pytest.raises(NormalizationError, match="#N/A"):
        cells.flag("#N/A", "header")


def test_names_from_text_or_ranges_in_order_once() -> None:
    assert cells.names("company_name, industry;founded", "fields") == [
        "company_name",
        "industry",
        "founded",
    ]
    assert cells.names([["a", "b"], [None, "a"]], "fields") == ["a", "b"]
    assert cells.names(None, "fields") == []
    assert cells.names("  ", "fields") == []


def test_grid_shapes() -> None:
    scalar = cells.grid("a")
    assert (scalar.cells, scalar.rows, scalar.cols, scalar.is_range) == (("a",), 1, 1, False)
    assert scalar.single
    column = cells.grid(["a", "b", None])  # 1-D: a column
    assert (column.rows, column.cols, column.single) == (3, 1, False)
    block = cells.grid([["a", "b"], ["c"]])  # ragged rows padded
    assert block.cells == ("a", "b", "c", None)
    assert (block.rows, block.cols) == (2, 2)
    assert block.shape([1, 2, 3, 4]) == [[1, 2], [3, 4]]
    one = cells.grid([["a"]])
    assert one.single
    assert one.is_range
    for empty in ([], [[]], [[], []]):  # as one blank cell (or a column of them)
        assert set(cells.grid(empty).cells) == {None}
    assert cells.grid([[], []]).shape([1, 2]) == [[1], [2]]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, ""),
        ("Acme", "Acme"),
        (7, 7),
        (2**60, str(2**60)),
        (1.5, 1.5),
        (math.inf, ""),
        (True, True),
        (["a", "b"], "a; b"),
        ([1, None, "x"], "1; x"),
        ([], ""),
        ({"b": 1, "a": "x"}, '{"a": "x", "b": 1}'),
        ([{"title": "CTO"}], '[{"title": "CTO"}]'),
    ],
)
def test_values_out(value: object, expected: object) -> None:
    assert cells.cell(value) == expected


def test_long_text_is_cut_to_what_a_cell_holds() -> None:
    out = cells.cell("x" * 40_000)
    assert isinstance(out, str)
    assert len(out) == cells.MAX_CELL_TEXT
    assert out.endswith("\u2026")
    nested = cells.cell([{"text": "y" * 40_000}])
    assert isinstance(nested, str)
    assert len(nested) == cells.MAX_CELL_TEXT


def test_error_text_is_one_short_line_with_the_prefix() -> None:
    text = cells.error_text("first line\nsecond   line " + "z" * 1000)
    assert text.startswith("#PROFNET! first line second line")
    assert "\n" not in text
    assert len(text) <= len(cells.ERROR_PREFIX) + 1 + cells.MAX_ERROR_TEXT
    assert cells.is_error_text(text)
    assert not cells.is_error_text("fine")


def test_rows_or_value() -> None:
    assert cells.rows_or_value([["x"]]) == "x"
    assert cells.rows_or_value([]) == ""
    assert cells.rows_or_value([["a", "b"]]) == [["a", "b"]]
    assert cells.rows_or_value([["name"], ["Ann"]], 1) == [["name"], ["Ann"]]


@pytest.mark.parametrize("header", [["headline"], ["urn", "text"]])
def test_a_header_with_nothing_under_it_is_an_empty_answer(header: list[str]) -> None:
    # One field and no results: the lone header would read as a value ("headline").
    assert cells.rows_or_value([header], 1) == ""


@pytest.mark.parametrize(("value", "blank"), [(0, True), (0.0, True), (-0.0, True), (7.0, False)])
def test_a_zero_in_a_key_position_is_blank(value: float, blank: bool) -> None:
    # =A1 of an empty A1 gives 0: not a paid lookup of company "0" (no real id is 0).
    assert (cells.lookup_key(value, "company") is None) is blank
    assert cells.lookup_key("0", "company") == "0", "typed as text, it is what was asked"
    with pytest.raises(NormalizationError):
        cells.lookup_key(False, "company")  # FALSE is not a zero: refused, as by key()


@pytest.mark.parametrize(
    ("value", "blank"),
    [(None, True), ("  ", True), (math.nan, True), ("#N/A", False), (0, False), (1e20, False)],
)
def test_blank(value: object, blank: bool) -> None:
    assert cells.blank(value) is blank


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("1-10", "'1-10"),
        ("=HYPERLINK(1)", "'=HYPERLINK(1)"),
        ("'quoted", "''quoted"),  # Excel takes one leading ' off: the value stays 'quoted
        ("", ""),
        (7, 7),
        (1.5, 1.5),
        (True, True),
    ],
)
def test_literal_text_for_a_macros_write(value: cells.CellValue, written: object) -> None:
    assert cells.literal(value) == written


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(),
    st.sampled_from(sorted(cells.EXCEL_ERROR_CODES)),
    st.datetimes(),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=12,
)


@FAST
@given(value=VALUES)
def test_any_value_becomes_one_excel_cell(value: object) -> None:
    out = cells.cell(value)
    assert isinstance(out, str | int | float | bool)
    if isinstance(out, str):
        assert len(out) <= cells.MAX_CELL_TEXT
        json.dumps(out)
    if isinstance(out, int) and not isinstance(out, bool):
        assert abs(out) <= 2**53
    if isinstance(out, float):
        assert math.isfinite(out)


@FAST
@given(value=VALUES)
def test_a_key_is_text_none_or_a_clear_refusal(value: object) -> None:
    try:
        out = cells.key(value, "company")
    except NormalizationError as error:
        out = str(error)  # a refusal says something
    assert out is None or (isinstance(out, str) and out == out.strip() and out)
