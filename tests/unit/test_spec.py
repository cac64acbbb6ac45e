"""The spec as data agrees with the spec document itself: the copy in docs/spec, which a fresh
clone has, and the team's original in ../shared/spec whenever it sits beside the repository
(the copy must then be the same text)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from profnet_sheets.spec import (
    ENDPOINTS,
    HEADCOUNT_CODES,
    Endpoint,
    company_size_label,
    endpoint,
    headcount_code_for,
    openapi_document,
    search_endpoint,
)
from profnet_sheets.spec.errors import statuses

ROOT = Path(__file__).resolve().parents[2]
COPY = ROOT / "docs" / "spec" / "profnet-api.md"
ORIGINAL = ROOT.parent / "shared" / "spec" / "profnet-api.md"


@pytest.fixture(scope="module")
def spec_text() -> str:
    assert COPY.exists(), f"the spec document must be in the repository: {COPY}"
    return COPY.read_text()


if ORIGINAL.exists():  # in the team's checkout; a clone on its own has only the copy

    def test_the_copy_is_the_original() -> None:
        assert COPY.read_text() == ORIGINAL.read_text(), (
            f"{COPY} differs from {ORIGINAL}: copy the original over it, then run the tests"
        )


def price_table(text: str) -> dict[str, tuple[str, str]]:
    section = text.split("### 4.0 Summary")[1].split("###", maxsplit=1)[0]
    rows = re.findall(r"^\| (GET|POST) \| /([\w-]+) \| ([^|]+) \|$", section, re.MULTILINE)
    return {name: (method, cost.strip()) for method, name, cost in rows}


def test_there_are_twenty_endpoints_as_in_the_summary_table(spec_text: str) -> None:
    table = price_table(spec_text)
    assert len(table) == 20
    assert {e.name for e in ENDPOINTS} == set(table)
    assert len({e.python_name for e in ENDPOINTS}) == 20


@pytest.mark.parametrize("ep", ENDPOINTS, ids=lambda e: e.name)
def test_method_and_price_match_the_summary_table(spec_text: str, ep: Endpoint) -> None:
    method, cost = price_table(spec_text)[ep.name]
    assert ep.method == method
    if cost == "free":
        assert ep.price.kind == "free"
    elif cost.isdigit():
        assert (ep.price.kind, ep.price.credits) == ("fixed", int(cost))
    else:
        assert re.fullmatch(r"1 per (result|profile|company) (retrieved|returned)", cost)
        assert (ep.price.kind, ep.price.credits) == ("per_item", 1)


def test_documented_statuses_match_section_7(spec_text: str) -> None:
    section = spec_text.split("Statuses documented per endpoint:")[1].split("\n\n", maxsplit=1)[0]
    documented: dict[str, tuple[int, ...]] = {}
    for names, codes in re.findall(r"^\| ([a-z, -]+) \| ([0-9, ]+) \|$", section, re.MULTILINE):
        for name in names.split(", "):
            documented[name] = tuple(int(code) for code in codes.split(", "))
    for ep in ENDPOINTS:
        assert ep.statuses == documented.get(ep.name, (200,)), ep.name
        assert set(ep.statuses) <= set(statuses(ep)), ep.name


def test_limits_of_section_8() -> None:
    assert endpoint("search-companies").param("limit").maximum == 1000
    assert endpoint("search-leads").param("limit").maximum == 2500
    assert endpoint("google-full-profiles").param("limit").maximum == 5
    assert endpoint("google-full-profiles").param("limit").default == 3
    for name in ("search-companies", "search-leads"):
        limit = endpoint(name).param("limit")
        assert (limit.minimum, limit.default) == (1, 100)
    for name in ("get-lead-results", "get-company-results"):
        page = endpoint(name).param("page")
        assert (page.minimum, page.default) == (1, 1)
    for name in ("search-posts", "search-jobs", "get-company-posts", "get-profile-posts"):
        assert endpoint(name).param("start").default == 0


def test_error_parameter_names_the_spec_gives() -> None:
    rule = endpoint("get-company-details").at_least_one
    assert rule is not None
    assert rule.parameter == "company_id, profnet_url, or domain"
    jobs_rule = endpoint("search-jobs").at_least_one
    assert jobs_rule is not None
    assert jobs_rule.parameter is None
    for name in ("google-full-profiles", "google-schools"):
        rule = endpoint(name).at_least_one
        assert rule is not None
        assert rule.parameter == "payload"


def test_query_for_get_and_json_body_for_post() -> None:
    for ep in ENDPOINTS:
        assert ep.location == ("query" if ep.method == "GET" else "body")


def test_search_endpoints_are_found_by_kind_and_role() -> None:
    assert search_endpoint("leads", "create").name == "search-leads"
    assert search_endpoint("companies", "status").name == "get-company-search-status"
    assert search_endpoint("leads", "results").name == "get-lead-results"
    with pytest.raises(KeyError):
        endpoint("no-such-endpoint")


def test_headcount_codes_and_size_labels() -> None:
    assert list(HEADCOUNT_CODES) == list("ABCDEFGH")
    assert company_size_label("C") == "51-200"
    assert company_size_label("H") == "10001+"
    assert headcount_code_for(1) == "A"
    assert headcount_code_for(200) == "C"
    assert headcount_code_for(10_001) == "H"
    with pytest.raises(ValueError, match="at least 1"):
        headcount_code_for(0)


def test_price_of_a_response() -> None:
    leads = endpoint("get-lead-results").price
    assert leads.charge({"results": [{}, {}, {}]}) == 3
    assert leads.charge({"results": []}) == 0
    assert endpoint("google-full-profiles").price.charge({"data": [{}, {}]}) == 2
    assert endpoint("search-leads").price.charge({}) == 50
    assert endpoint("get-lead-search-status").price.charge({}) == 0
    assert leads.upper_bound(25) == 25
    assert endpoint("search-companies").price.upper_bound(1000) == 25


def test_openapi_document_is_valid_openapi_3_1() -> None:
    from openapi_spec_validator import validate

    document = openapi_document()
    validate(document)
    assert document["openapi"] == "3.1.0"
    assert len(document["paths"]) == 20
    assert not any(path.startswith("/_sandbox") for path in document["paths"])
