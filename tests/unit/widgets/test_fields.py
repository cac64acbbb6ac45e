"""Form fields come from the spec: every filter, its control, its choices; values -> params."""

from __future__ import annotations

from typing import Any

import pytest

from profnet_sheets.spec import HEADCOUNT_CODES, company_size_label, endpoint, search_endpoint
from profnet_sheets.spec.endpoints import SearchKind
from profnet_sheets.widgets.fields import (
    alternative_field,
    field_for,
    label_of,
    param_value,
    search_fields,
    search_params,
    shared_fields,
)

KINDS: tuple[SearchKind, ...] = ("leads", "companies")


@pytest.mark.parametrize("kind", KINDS)
def test_every_parameter_of_the_search_has_a_field(kind: SearchKind) -> None:
    create = search_endpoint(kind, "create")
    names = [spec.name for spec in search_fields(kind)]
    assert names == list(create.filter_names)
    shown = {*names, alternative_field(kind).name, *(s.name for s in shared_fields(kind))}
    assert shown == set(create.param_names)


@pytest.mark.parametrize("kind", KINDS)
def test_locations_are_picked_by_place_name_exactly_for_the_geo_id_filters(
    kind: SearchKind,
) -> None:
    places = {spec.name for spec in search_fields(kind) if spec.control == "places"}
    expected = {
        "leads": {"geo_codes"},
        "companies": {"headquarters_location", "headquarters_location_exclude"},
    }
    assert places == expected[kind]


def test_headcount_codes_are_shown_with_their_employee_ranges_from_the_spec() -> None:
    (headcounts,) = [s for s in search_fields("companies") if s.name == "company_headcounts"]
    assert headcounts.control == "choices"
    assert headcounts.choices == tuple(
        (f"{code}: {company_size_label(code)}", code) for code in HEADCOUNT_CODES
    )
    assert headcounts.choices[0] == ("A: 1-10", "A")
    assert headcounts.choices[-1] == ("H: 10001+", "H")


@pytest.mark.parametrize(("kind", "maximum"), [("leads", 2500), ("companies", 1000)])
def test_the_limit_is_bounded_as_the_spec_says(kind: SearchKind, maximum: int) -> None:
    (limit,) = shared_fields(kind)
    assert (limit.name, limit.control, limit.minimum, limit.maximum, limit.default) == (
        "limit",
        "number",
        1,
        maximum,
        100,
    )


def test_controls_follow_the_parameter_types() -> None:
    by_name = {spec.name: spec for spec in search_fields("companies")}
    assert by_name["company_headcount_growth"].control == "range"
    assert by_name["hiring_on_profnet"].control == "flag"
    assert by_name["hiring_on_profnet"].choices == (("any", ""), ("yes", "true"), ("no", "false"))
    assert by_name["industry_codes"].control == "ids"
    assert by_name["recent_activities"].control == "lines"
    assert by_name["keywords"].control == "text"
    leads = {spec.name: spec.control for spec in search_fields("leads")}
    assert leads["title_keywords"] == "lines"
    assert leads["current_company_ids"] == "ids"
    assert alternative_field("leads").control == "text"


def test_single_choice_enums_offer_the_default_first() -> None:
    spec = field_for(endpoint("get-profile-posts").param("type"))
    assert spec.control == "enum"
    assert spec.choices[0] == ("default (posts)", "")
    assert [value for _, value in spec.choices[1:]] == ["posts", "comments", "reactions"]


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("title_keywords", "Title keywords"),
        ("headquarters_location_exclude", "Headquarters location (exclude)"),
        ("limit", "Limit"),
    ],
)
def test_labels(name: str, label: str) -> None:
    assert label_of(name) == label


def test_help_is_the_spec_description_with_a_hint() -> None:
    (titles,) = [s for s in search_fields("leads") if s.name == "title_keywords"]
    assert titles.help == "Job titles (one per line)"


@pytest.mark.parametrize(
    ("value", "expected"),
    [("  ", None), (" CTO ", "CTO"), ([], None), (["A"], ["A"]), (("", ""), None)],
)
def test_blank_values_are_not_sent(value: Any, expected: Any) -> None:
    spec = next(s for s in search_fields("companies") if s.name == "company_headcount_growth")
    other = next(s for s in search_fields("companies") if s.name == "keywords")
    field = spec if isinstance(value, tuple) else other
    assert param_value(field, value) == expected


def test_a_half_filled_range_is_refused_with_a_clear_message() -> None:
    spec = next(s for s in search_fields("companies") if s.name == "company_headcount_growth")
    assert param_value(spec, ("5", " 50 ")) == ("5", "50")
    with pytest.raises(ValueError, match="give both bounds"):
        param_value(spec, ("5", ""))


def test_filters_mode_sends_the_filters_and_the_limit_never_the_url() -> None:
    values = {
        "title_keywords": "CTO\nHead of Data",
        "geo_codes": ["605862502"],
        "keywords": "  ",
        "sales_nav_url": "https://example.com/search",
        "limit": 40,
    }
    assert search_params("leads", "filters", values) == {
        "title_keywords": "CTO\nHead of Data",
        "geo_codes": ["605862502"],
        "limit": 40,
    }


def test_url_mode_sends_the_url_and_the_limit_only() -> None:
    values = {"title_keywords": "CTO", "sales_nav_url": " https://example.com/s ", "limit": 10}
    assert search_params("leads", "url", values) == {
        "sales_nav_url": "https://example.com/s",
        "limit": 10,
    }


def test_the_place_picker_is_labelled_for_users_not_for_the_wire() -> None:
    labels = {spec.name: spec.label for spec in search_fields("leads")}
    assert labels["geo_codes"] == "Places"
    labels = {spec.name: spec.label for spec in search_fields("companies")}
    assert labels["headquarters_location"] == "Headquarters location"
