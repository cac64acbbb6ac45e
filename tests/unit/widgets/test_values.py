"""What `fill()` takes: a plain string or number is one value, never a list of characters."""

from __future__ import annotations

from typing import Any

import pytest

from profnet_sheets.spec import endpoint
from profnet_sheets.widgets.fields import FieldSpec, field_for, search_fields
from profnet_sheets.widgets.values import (
    choice_values,
    dropdown_value,
    items_of,
    range_bounds,
    text_value,
)


def company_field(name: str) -> FieldSpec:
    return next(spec for spec in search_fields("companies") if spec.name == name)


@pytest.mark.parametrize(
    ("given", "items"),
    [
        (None, []),
        ("Berlin", ["Berlin"]),
        ("Berlin, Germany", ["Berlin, Germany"]),
        (103644278, [103644278]),
        (["Berlin", "Paris"], ["Berlin", "Paris"]),
        (("Berlin", "Paris"), ["Berlin", "Paris"]),
    ],
)
def test_a_string_or_a_number_is_one_item(given: Any, items: list[Any]) -> None:
    assert items_of(given) == items


@pytest.mark.parametrize(
    ("given", "codes"),
    [
        ("B-D", ["B", "C", "D"]),
        ("C", ["C"]),
        ("e, c", ["C", "E"]),
        ("51-200", ["C"]),
        (["C", "D"], ["C", "D"]),
        (None, []),
        ("", []),
    ],
)
def test_headcounts_are_read_as_the_client_reads_them(given: Any, codes: list[str]) -> None:
    assert choice_values(company_field("company_headcounts"), given) == codes


def test_a_wrong_headcount_is_refused() -> None:
    with pytest.raises(ValueError, match="'Z' is not a headcount code"):
        choice_values(company_field("company_headcounts"), "Z")


def test_other_choices_take_one_string_as_one_choice() -> None:
    spec = FieldSpec("colour", "Colour", "choices", "", (("red", "red"), ("dark red", "dark red")))
    assert choice_values(spec, "dark red") == ["dark red"]
    with pytest.raises(ValueError, match="Colour: 'd' is not a choice; choose among red, dark"):
        choice_values(spec, ["d"])


@pytest.mark.parametrize(
    ("given", "value"),
    [
        (True, "true"),
        (False, "false"),
        ("yes", "true"),
        ("No", "false"),
        ("true", "true"),
        (1, "true"),
        (0, "false"),
        (None, ""),
        ("", ""),
        ("any", ""),
    ],
)
def test_the_hiring_flag_takes_booleans_and_words(given: Any, value: str) -> None:
    assert dropdown_value(company_field("hiring_on_profnet"), given) == value


def test_a_wrong_flag_is_one_clear_message() -> None:
    with pytest.raises(ValueError, match="Hiring on profnet: 'maybe' is not a true/false value"):
        dropdown_value(company_field("hiring_on_profnet"), "maybe")


def test_an_enum_takes_one_of_its_values() -> None:
    spec = field_for(endpoint("get-profile-posts").param("type"))
    assert dropdown_value(spec, "comments") == "comments"
    assert dropdown_value(spec, None) == ""
    with pytest.raises(ValueError, match="Type: 'likes' is not a choice; choose among posts"):
        dropdown_value(spec, "likes")


def test_ranges() -> None:
    spec = company_field("company_headcount_growth")
    assert range_bounds(spec, (-50, 200)) == ("-50", "200")
    assert range_bounds(spec, {"min": 10, "max": None}) == ("10", "")
    assert range_bounds(spec, None) == ("", "")
    with pytest.raises(ValueError, match=r"give the range as \(min, max\)"):
        range_bounds(spec, "10-50")


def test_text() -> None:
    assert text_value(["CTO", "Head of Data"], "\n") == "CTO\nHead of Data"
    assert text_value("CTO, VP", "\n") == "CTO, VP"
    assert text_value(None, ", ") == ""
    assert text_value(123, ", ") == "123"
