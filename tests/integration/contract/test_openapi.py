"""/openapi.json (the sandbox's interface document) against the spec's own tables (§4, §5, §7)."""

from __future__ import annotations

from typing import Any

import pytest
import requests

from tests.integration.contract.helpers import ENDPOINTS, HEADER, Sandbox

pytestmark = pytest.mark.integration

# §4: every parameter of every endpoint, and which are required (None: a rule, not a flag).
PARAMETERS: dict[str, dict[str, bool]] = {
    "get-company-details": {"company_id": False, "profnet_url": False, "domain": False},
    "search-posts": {"keyword": True, "sort_by": False, "date_posted": False, "start": False},
    "search-jobs": dict.fromkeys(
        (
            "keyword",
            "geo_id",
            "date_posted",
            "experience_level",
            "job_type",
            "remote",
            "company_id",
            "industry_id",
            "start",
        ),
        False,
    ),
    "get-lead-results": {"request_id": True, "page": False},
    "get-job-details": {"job_id": True},
    "get-post-details": {"urn": True},
    "get-company-posts": {
        "profnet_url": True,
        "type": False,
        "start": False,
        "pagination_token": False,
    },
    "google-full-profiles": dict.fromkeys(
        ("name", "company_name", "job_title", "location", "keywords", "limit"), False
    ),
    "find-geocode-by-location": {"location": True},
    "get-profile-details": {
        "profnet_url": True,
        "include_skills": False,
        "include_certifications": False,
    },
    "get-company-search-status": {"request_id": True},
    "get-lead-search-status": {"request_id": True},
    "get-profile-posts": {
        "profnet_url": True,
        "type": False,
        "start": False,
        "pagination_token": False,
    },
    "google-schools": dict.fromkeys(("school_name", "location", "keyword", "page"), False),
    "get-company-results": {"request_id": True, "page": False},
    "search-companies": dict.fromkeys(
        (
            "industry_codes",
            "industry_codes_exclude",
            "company_headcounts",
            "company_headcount_growth",
            "headquarters_location",
            "headquarters_location_exclude",
            "hiring_on_profnet",
            "recent_activities",
            "keywords",
            "limit",
            "sales_nav_url",
        ),
        False,
    ),
    "search-leads": dict.fromkeys(
        (
            "title_keywords",
            "current_company_names",
            "current_company_ids",
            "past_company_names",
            "past_company_ids",
            "geo_codes",
            "industry_codes",
            "school_ids",
            "keywords",
            "limit",
            "sales_nav_url",
        ),
        False,
    ),
    "get-recommendations-received": {"profnet_url": True},
    "get-recommendations-given": {"profnet_url": True},
    "find-custom-headcount": {
        "profnet_url": True,
        **dict.fromkeys(
            (
                "where_they_live",
                "where_they_studied",
                "what_they_do",
                "what_they_are_skilled_at",
                "what_they_studied",
                "keywords",
                "include_subsidiaries",
            ),
            False,
        ),
    },
}

ENUMS: dict[tuple[str, str], set[str]] = {
    ("search-posts", "sort_by"): {"date", "relevance"},
    ("search-posts", "date_posted"): {"past-24h", "past-week", "past-month"},
    ("search-jobs", "date_posted"): {"past-24h", "past-week", "past-month"},
    ("search-jobs", "job_type"): {"full-time", "part-time", "contract", "internship"},
    ("search-jobs", "remote"): {"on-site", "remote", "hybrid"},
    ("get-company-posts", "type"): {"posts", "reposts"},
    ("get-profile-posts", "type"): {"posts", "comments", "reactions"},
    ("get-profile-details", "include_skills"): {"true", "false"},
    ("get-profile-details", "include_certifications"): {"true", "false"},
    ("search-companies", "hiring_on_profnet"): {"true", "false"},
    ("find-custom-headcount", "include_subsidiaries"): {"true", "false"},
}

# §7 "Statuses documented per endpoint", plus 401 everywhere (§5) and the decided ones.
STATUSES: dict[str, set[str]] = {
    **{
        n: {"200", "400", "401"}
        for n in (
            "get-company-details",
            "search-posts",
            "search-jobs",
            "get-profile-details",
            "get-company-posts",
            "get-profile-posts",
            "google-full-profiles",
            "google-schools",
            "get-recommendations-received",
            "get-recommendations-given",
            "find-custom-headcount",
            "search-companies",
            "search-leads",
        )
    },
    **{
        n: {"200", "400", "401", "404"}
        for n in (
            "get-job-details",
            "get-post-details",
            "get-lead-results",
            "get-company-results",
            "get-lead-search-status",
            "get-company-search-status",
        )
    },
    "find-geocode-by-location": {"200", "400", "401", "500"},
}


@pytest.fixture(scope="module")
def doc(sb: Sandbox) -> dict[str, Any]:
    resp = requests.get(f"{sb.base_url}/openapi.json", timeout=15)
    assert resp.status_code == 200
    body: dict[str, Any] = resp.json()
    return body


def resolve(doc: dict[str, Any], node: Any) -> Any:
    while isinstance(node, dict) and "$ref" in node:
        target: Any = doc
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def operation(doc: dict[str, Any], endpoint: str) -> dict[str, Any]:
    op: dict[str, Any] = doc["paths"][f"/{endpoint}"][ENDPOINTS[endpoint][0].lower()]
    return op


def declared(doc: dict[str, Any], endpoint: str) -> dict[str, tuple[bool, dict[str, Any]]]:
    """name -> (required, schema) of the endpoint's parameters as the document declares them."""
    op = operation(doc, endpoint)
    if ENDPOINTS[endpoint][0] == "GET":
        found: dict[str, tuple[bool, dict[str, Any]]] = {}
        for ref in op.get("parameters", []):
            param = resolve(doc, ref)
            assert param["in"] == "query", param
            found[param["name"]] = (bool(param.get("required")), resolve(doc, param["schema"]))
        return found
    body = resolve(doc, op["requestBody"])
    schema = resolve(doc, body["content"]["application/json"]["schema"])
    required = set(schema.get("required", []))
    return {
        name: (name in required, resolve(doc, sub))
        for name, sub in schema.get("properties", {}).items()
    }


def test_security_scheme_is_the_header(doc: dict[str, Any]) -> None:
    schemes = doc["components"]["securitySchemes"].values()
    assert {"type": "apiKey", "in": "header", "name": HEADER} in [
        {k: s.get(k) for k in ("type", "in", "name")} for s in schemes
    ]
    assert doc.get("security"), "§5: every request carries the key"


@pytest.mark.parametrize("endpoint", sorted(ENDPOINTS))
def test_parameters_documented(doc: dict[str, Any], endpoint: str) -> None:
    found = declared(doc, endpoint)
    missing = set(PARAMETERS[endpoint]) - set(found)
    assert not missing, f"spec parameters missing from the document: {missing}"
    for name, required in PARAMETERS[endpoint].items():
        assert found[name][0] == required, f"{name}: required={found[name][0]}, spec {required}"


@pytest.mark.parametrize(("endpoint", "name"), sorted(ENUMS))
def test_enumerations(doc: dict[str, Any], endpoint: str, name: str) -> None:
    schema = declared(doc, endpoint)[name][1]
    values = schema.get("enum")
    if values is None:
        for option in schema.get("anyOf", []) + schema.get("oneOf", []):
            values = (values or []) + list(resolve(doc, option).get("enum", []))
    assert values is not None, f"{endpoint}.{name} has no enum"
    assert {v for v in values if v is not None} == ENUMS[(endpoint, name)]


@pytest.mark.parametrize("endpoint", sorted(ENDPOINTS))
def test_documented_statuses(doc: dict[str, Any], endpoint: str) -> None:
    responses = set(operation(doc, endpoint)["responses"])
    assert STATUSES[endpoint] <= responses, STATUSES[endpoint] - responses


@pytest.mark.parametrize("endpoint", sorted(ENDPOINTS))
def test_declared_price(doc: dict[str, Any], endpoint: str) -> None:
    credits = operation(doc, endpoint).get("x-credits")
    assert credits is not None
    price = ENDPOINTS[endpoint][1]
    if price is None:
        assert credits.get("kind") != "fixed"
    else:
        assert credits.get("credits") == price
