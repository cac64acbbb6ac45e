"""The sandbox plays a service that is not named like the spec: its network's pages on another
host, the key in another header, a gateway's header required besides, other prices."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from profnet_sheets.sandbox import RunningSandbox, start_sandbox

pytestmark = pytest.mark.integration

KEY = "other-service-key"
HOST = "people-net.example"
HEADER = "X-PeopleNet-Key"
GATEWAY = {"X-Gateway-Host": "people-net.gateway.example"}
PRICES = {"get-profile-details": 2, "get-lead-results": 2, "search-leads": 60}


@pytest.fixture(scope="module")
def other() -> Iterator[RunningSandbox]:
    with start_sandbox(
        api_keys=(KEY,),
        job_seconds=0.0,
        network_host=HOST,
        key_header=HEADER,
        required_headers=GATEWAY,
        prices=PRICES,
    ) as running:
        yield running


def call(
    box: RunningSandbox, name: str, headers: dict[str, str] | None = None, **params: Any
) -> requests.Response:
    sent = {HEADER: KEY, **GATEWAY} if headers is None else headers
    if name in ("search-leads", "search-companies"):
        return requests.post(f"{box.base_url}/{name}", json=params, headers=sent, timeout=10)
    return requests.get(f"{box.base_url}/{name}", params=params, headers=sent, timeout=10)


def test_its_pages_are_on_its_own_host(other: RunningSandbox) -> None:
    company = call(other, "get-company-details", domain="stripe.com").json()["data"]
    assert company["profnet_url"] == f"https://www.{HOST}/company/stripe/"
    jobs = requests.post(
        f"{other.base_url}/search-jobs",
        json={"keyword": "engineer"},
        headers={HEADER: KEY, **GATEWAY},
        timeout=10,
    ).json()["data"]["jobs"]
    assert jobs
    assert all(job["job_url"].startswith(f"https://www.{HOST}/jobs/") for job in jobs)
    text = json.dumps(call(other, "get-profile-details", profnet_url=f"{HOST}/in/anna").json())
    assert "profnet.com" not in text
    assert f"https://www.{HOST}/company/" in text


def test_page_urls_of_another_host_are_refused(other: RunningSandbox) -> None:
    ok = call(other, "get-profile-details", profnet_url=f"https://de.{HOST}/in/anna-schmidt/")
    assert ok.status_code == 200
    refused = call(other, "get-profile-details", profnet_url="https://www.profnet.com/in/anna/")
    assert refused.status_code == 400
    assert refused.json()["parameter"] == "profnet_url"


def test_the_key_comes_in_its_header_and_the_answer_says_when_none_came(
    other: RunningSandbox,
) -> None:
    spec_header = call(other, "get-lead-search-status", {"X-SERVICE-API-KEY": KEY, **GATEWAY})
    assert spec_header.status_code == 401
    assert spec_header.json()["details"] == f"Missing API key: send it in the {HEADER} header."
    wrong = call(other, "get-lead-search-status", {HEADER: "not-a-key", **GATEWAY})
    assert wrong.status_code == 401
    assert wrong.json()["details"].startswith("Invalid API key")
    known = call(other, "get-lead-search-status", request_id="unknown")
    assert known.status_code == 404


def test_the_gateways_header_is_required_with_every_call(other: RunningSandbox) -> None:
    for headers in ({HEADER: KEY}, {HEADER: KEY, "X-Gateway-Host": "elsewhere.example"}):
        refused = call(other, "get-company-details", headers, domain="stripe.com")
        assert refused.status_code == 401
        assert "X-Gateway-Host header" in refused.json()["details"]


def test_it_charges_its_own_prices(other: RunningSandbox) -> None:
    requests.post(f"{other.base_url}/_sandbox/reset", timeout=10).raise_for_status()
    call(other, "get-profile-details", profnet_url=f"{HOST}/in/anna-schmidt")
    call(other, "get-company-details", domain="stripe.com")
    request_id = call(other, "search-leads", title_keywords=["CTO"], limit=3).json()["request_id"]
    page = call(other, "get-lead-results", request_id=request_id).json()
    spent = other.usage(KEY)["calls"]
    assert spent["get-profile-details"]["credits"] == 2
    assert spent["get-company-details"]["credits"] == 1
    assert spent["search-leads"]["credits"] == 60
    assert spent["get-lead-results"]["credits"] == 2 * len(page["results"]) > 0


def test_its_openapi_document_describes_it(other: RunningSandbox) -> None:
    document = requests.get(f"{other.base_url}/openapi.json", timeout=10).json()
    assert document["components"]["securitySchemes"]["apiKey"]["name"] == HEADER
    profile = document["paths"]["/get-profile-details"]["get"]
    assert profile["x-credits"] == {"kind": "fixed", "credits": 2}
    pattern = next(p for p in profile["parameters"] if p["name"] == "profnet_url")["schema"]
    assert re.match(pattern["pattern"], f"https://www.{HOST}/in/anna/")
    assert not re.match(pattern["pattern"], "https://www.profnet.com/in/anna/")
