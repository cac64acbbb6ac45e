"""Calc's values in and out of the formulas, without LibreOffice: the add-in's whole job."""

from __future__ import annotations

from typing import Any

import pytest

from profnet_sheets.calc import values
from profnet_sheets.excel import formulas, session


@pytest.mark.parametrize(
    ("calc", "python"),
    [
        ("stripe.com", "stripe.com"),
        (12345.0, 12345.0),  # Calc has no integers; the formulas read 12345.0 as the id 12345
        (None, None),  # an argument left out
        ((("a",), ("",), ("b",)), [["a"], [None], ["b"]]),  # a range: an empty cell is None
        ((("a", 1.0),), [["a", 1.0]]),
    ],
)
def test_arguments_arrive_as_xlwings_hands_them_over(calc: Any, python: Any) -> None:
    assert values.argument(calc) == python


@pytest.mark.parametrize(
    ("answer", "rows"),
    [
        ("Software", (("Software",),)),  # one value: a 1x1 array, shown in the cell itself
        (7, ((7.0,),)),
        (True, ((1.0,),)),  # Calc's TRUE
        ("", (("",),)),
        ([["a", 1], ["b"]], (("a", 1.0), ("b", ""))),  # always rectangular
        ([], (("",),)),
    ],
)
def test_answers_leave_as_rectangular_rows_of_text_and_numbers(answer: Any, rows: Any) -> None:
    assert values.result(answer) == rows


def test_a_call_never_raises_and_says_what_is_wrong() -> None:
    (only,) = values.call("PROFNET_NOPE", ())
    assert only[0].startswith("#PROFNET! there is no formula PROFNET_NOPE")
    (field,) = values.call("PROFNET_COMPANY", ("stripe.com", "revenue"))
    assert field[0].startswith("#PROFNET! PROFNET_COMPANY has no field 'revenue'")
    (blank,) = values.call("PROFNET_COMPANY", (0.0,))  # an empty cell, as Calc hands it over
    assert blank == ("",)


def test_every_formula_is_named_once() -> None:
    assert all(name.startswith(formulas.PREFIX) for name in formulas.FORMULAS)
    assert formulas.named("PROFNET_COMPANY") is formulas.company
    assert len(formulas.FORMULAS) == 16
    session.reset()
