"""Request parsing in the sandbox follows the spec's rules and docs/decisions.md."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from profnet_sheets.sandbox.params import (
    INT64_MAX,
    INT64_MIN,
    MAX_DEPTH,
    ApiError,
    Unreadable,
    parse,
    read_json,
)
from profnet_sheets.spec import endpoint


def error_of(
    name: str, raw: Mapping[str, Any] | Unreadable, from_query: bool = False
) -> dict[str, Any]:
    with pytest.raises(ApiError) as caught:
        parse(endpoint(name), raw, from_query=from_query)
    assert caught.value.status == 400
    return caught.value.body


def test_defaults_are_filled_and_sent_names_only_what_was_given() -> None:
    params = parse(endpoint("search-posts"), {"keyword": " ai "}, from_query=False)
    assert params == {"keyword": "ai", "sort_by": "relevance", "start": 0}
    assert params.sent == {"keyword"}


def test_blank_free_text_is_not_given_but_a_blank_enum_or_number_is_invalid() -> None:
    body = error_of("get-company-details", {"domain": "  ", "company_id": ""}, from_query=True)
    assert body["parameter"] == "company_id, profnet_url, or domain"
    assert error_of("search-posts", {"keyword": "x", "sort_by": ""})["parameter"] == "sort_by"
    assert (
        error_of("get-lead-results", {"request_id": "r", "page": ""}, True)["parameter"] == "page"
    )


def test_integers_from_query_and_json() -> None:
    ep = endpoint("get-lead-results")
    assert parse(ep, {"request_id": "r", "page": "2"}, from_query=True)["page"] == 2
    assert (
        parse(endpoint("search-leads"), {"keywords": "x", "limit": 5.0}, from_query=False)["limit"]
        == 5
    )
    assert error_of("search-leads", {"keywords": "x", "limit": True})["parameter"] == "limit"
    assert error_of("search-leads", {"keywords": "x", "limit": 2501})["parameter"] == "limit"
    assert error_of("search-leads", {"keywords": "x", "limit": 0})["parameter"] == "limit"
    assert (
        error_of("get-lead-results", {"request_id": "r", "page": "0"}, True)["parameter"] == "page"
    )


def test_flags_are_the_strings_true_and_false() -> None:
    raw = {"profnet_url": "https://www.profnet.com/company/a/", "include_subsidiaries": True}
    assert error_of("find-custom-headcount", raw)["parameter"] == "include_subsidiaries"
    raw["include_subsidiaries"] = "true"
    assert parse(endpoint("find-custom-headcount"), raw, from_query=False)["include_subsidiaries"]


def test_array_items_have_the_spec_types() -> None:
    assert error_of("search-leads", {"geo_codes": ["123"]})["parameter"] == "geo_codes"
    assert error_of("search-companies", {"company_headcounts": ["Z"]})["parameter"] == (
        "company_headcounts"
    )
    assert error_of("search-leads", {"title_keywords": "CTO"})["parameter"] == "title_keywords"
    parsed = parse(
        endpoint("search-leads"), {"geo_codes": [123], "school_ids": ["s", 4]}, from_query=False
    )
    assert parsed["geo_codes"] == [123]


def test_integer_items_are_integers_as_json_schema_says_also_when_written_5_0() -> None:
    raw = {"geo_codes": [123.0], "school_ids": ["s", 4.0], "current_company_ids": [-7.0, "8"]}
    parsed = parse(endpoint("search-leads"), raw, from_query=False)
    assert parsed["geo_codes"] == [123]
    assert parsed["school_ids"] == ["s", 4]
    assert parsed["current_company_ids"] == [-7, "8"]
    assert all(type(item) is int for item in [*parsed["geo_codes"], parsed["school_ids"][1]])
    assert error_of("search-leads", {"geo_codes": [1.5]})["parameter"] == "geo_codes"
    assert error_of("search-leads", {"school_ids": [True]})["parameter"] == "school_ids"


def test_growth_range_needs_min_and_max_numbers() -> None:
    ok = {"company_headcount_growth": {"min": 5, "max": 20.5}}
    assert parse(endpoint("search-companies"), ok, from_query=False)[
        "company_headcount_growth"
    ] == {
        "min": 5.0,
        "max": 20.5,
    }
    bad = {"company_headcount_growth": {"min": 5}}
    assert error_of("search-companies", bad)["parameter"] == "company_headcount_growth"


def test_filters_or_sales_nav_url_but_not_both_nor_neither() -> None:
    both = {"keywords": "ai", "sales_nav_url": "https://example.com/s"}
    assert error_of("search-companies", both)["parameter"] == "sales_nav_url"
    assert error_of("search-leads", {"limit": 10})["parameter"] == "payload"
    assert (
        parse(endpoint("search-leads"), {"sales_nav_url": "u", "limit": 10}, from_query=False)[
            "limit"
        ]
        == 10
    )


def test_search_jobs_needs_one_search_field_and_its_error_has_no_parameter() -> None:
    body = error_of("search-jobs", {"start": 10})
    assert "parameter" not in body
    assert body["message"] == "invalid_parameter"


def test_geo_code_is_an_alias_of_geo_id_and_is_validated() -> None:
    assert parse(endpoint("search-jobs"), {"geo_code": "123"}, from_query=False)["geo_id"] == "123"
    both = parse(endpoint("search-jobs"), {"geo_code": "1", "geo_id": "2"}, from_query=False)
    assert both["geo_id"] == "2"
    assert error_of("search-jobs", {"geo_code": 5, "keyword": "x"})["parameter"] == "geo_code"


def test_url_and_id_forms() -> None:
    assert (
        error_of("get-profile-details", {"profnet_url": "https://x.com/in/a"}, True)["parameter"]
        == "profnet_url"
    )
    assert error_of("get-post-details", {"urn": "urn:profnet:activity:1"}, True)["parameter"] == (
        "urn"
    )
    assert error_of("get-company-details", {"company_id": "abc"}, True)["parameter"] == "company_id"
    parsed = parse(endpoint("get-post-details"), {"urn": " 7123 "}, from_query=True)
    assert parsed["urn"] == "7123"


def nested(depth: int) -> bytes:
    """A JSON object whose `keyword` holds arrays, `depth` levels of containers in all."""
    return b'{"keyword": ' + b"[" * (depth - 1) + b"]" * (depth - 1) + b"}"


@pytest.mark.parametrize(
    "body",
    [
        b"[" * 100_000 + b"]" * 100_000,  # deeper than the decoder goes (RecursionError)
        b'{"a": ' + b"{" * 100_000,
        nested(MAX_DEPTH + 1),
        b'{"keyword": "\\ud800"}',  # a lone surrogate: no text, cannot even be encoded
        b'{"keyword": ["ok", {"\\udfff": 1}]}',
        b'{"keyword": ',
        b"\xff\xfe",
        b"",
        b"[]",
        b'"text"',
    ],
    ids=[
        "deep",
        "deep-unclosed",
        "too-deep",
        "surrogate",
        "surrogate-key",
        "cut",
        "bytes",
        "empty",
        "array",
        "string",
    ],
)
def test_a_body_holding_no_usable_object_is_unreadable_and_names_the_payload(body: bytes) -> None:
    """read_json never raises: every endpoint and control gets a 400 `payload` from it."""
    read = read_json(body, "application/json")
    assert isinstance(read, Unreadable)
    assert error_of("search-posts", read) == {
        "message": "invalid_parameter",
        "parameter": "payload",
        "details": read.details,
    }


def test_nesting_up_to_the_limit_is_read() -> None:
    read = read_json(nested(MAX_DEPTH), "application/json")
    assert isinstance(read, dict)
    assert error_of("search-posts", read)["parameter"] == "keyword"


@pytest.mark.parametrize(
    "content_type",
    ["application/json", "Application/JSON; charset=utf-8", " application/json ;charset=UTF-8"],
)
def test_a_json_body_is_read_with_its_charset_in_any_case(content_type: str) -> None:
    assert read_json(b'{"keyword": "x"}', content_type) == {"keyword": "x"}


@pytest.mark.parametrize(
    "content_type",
    [
        None,
        "",
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/jsonp",
        "text/json",
    ],
)
def test_a_body_of_another_content_type_is_unreadable(content_type: str | None) -> None:
    """docs/decisions.md #92: a body comes as application/json, as the spec's conventions say;
    a missing Content-Type is no exception."""
    read = read_json(b'{"keyword": "x"}', content_type)
    assert isinstance(read, Unreadable)
    assert "Content-Type: application/json" in read.details
    assert read_json(b"", content_type) == Unreadable("The body must be a JSON object.")


@pytest.mark.parametrize(
    "page", ["9" * 400, "9" * 5000, "-" + "9" * 30, str(INT64_MAX + 1), f"{INT64_MAX + 1}.0"]
)
def test_query_integers_beyond_64_bits_are_invalid(page: str) -> None:
    body = error_of("get-lead-results", {"request_id": "r", "page": page}, True)
    assert body["parameter"] == "page"
    assert len(body["details"]) < 200, "the details quote a long value cut short"


def test_json_integers_beyond_64_bits_are_invalid() -> None:
    posts = endpoint("search-posts")
    assert (
        parse(posts, {"keyword": "x", "start": INT64_MAX}, from_query=False)["start"] == INT64_MAX
    )
    for start in (INT64_MAX + 1, 10**30, 1e300):
        assert error_of("search-posts", {"keyword": "x", "start": start})["parameter"] == "start"
    assert error_of("search-leads", {"keywords": "x", "limit": 10**30})["parameter"] == "limit"
    leads = endpoint("search-leads")
    assert parse(leads, {"geo_codes": [INT64_MIN]}, from_query=False)["geo_codes"] == [INT64_MIN]
    for name, item in (
        ("geo_codes", INT64_MAX + 1),
        ("current_company_ids", 2**64),
        ("school_ids", INT64_MIN - 1),
    ):
        assert error_of("search-leads", {name: [item]})["parameter"] == name


@pytest.mark.parametrize("bound", [float("nan"), float("inf"), -float("inf"), 10**400])
def test_growth_bounds_must_be_finite_numbers(bound: float) -> None:
    raw = {"company_headcount_growth": {"min": bound, "max": 10}}
    assert error_of("search-companies", raw)["parameter"] == "company_headcount_growth"
