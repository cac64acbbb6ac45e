"""The whole toolkit against a service that is not named like the spec (issue 16): a sandbox
serving page URLs on another host, reading the key from another header, requiring a gateway's
header and charging other prices; the client configured with the matching profile."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest
import requests

from profnet_sheets import Client, Unauthorized
from profnet_sheets.batch import enrich, plan_enrichment
from profnet_sheets.sandbox import RunningSandbox, start_sandbox
from profnet_sheets.searches.cost import search_cost
from profnet_sheets.spec import endpoint
from tests.integration.test_reliability_secrets import KEY, file_contents, leaks

pytestmark = pytest.mark.integration

HOST = "people-net.example"
HEADER = "X-PeopleNet-Key"
GATEWAY = {"X-Gateway-Host": "people-net.gateway.example"}
PRICES = {
    "get-profile-details": 2,
    "get-company-details": 3,
    "search-leads": 60,
    "get-lead-results": 2,
}


@pytest.fixture(scope="module")
def other() -> Iterator[RunningSandbox]:
    with start_sandbox(
        api_keys=(KEY,),
        job_seconds=0.0,
        seed=3,
        network_host=HOST,
        key_header=HEADER,
        required_headers=GATEWAY,
        prices=PRICES,
    ) as running:
        yield running


@pytest.fixture
def client(other: RunningSandbox, tmp_path: Path) -> Iterator[Client]:
    requests.post(f"{other.base_url}/_sandbox/reset", timeout=10).raise_for_status()
    made = Client(
        api_key=KEY,
        base_url=other.base_url,
        cache_dir=tmp_path / "cache",
        key_header=HEADER,
        headers=json.dumps(GATEWAY),
        network_hosts=f"{HOST}, people-net.cn",
        prices=PRICES,
    )
    yield made
    made.close()


def test_pages_on_the_networks_host_are_enriched_and_the_ledger_is_what_was_charged(
    client: Client, other: RunningSandbox
) -> None:
    people = pl.DataFrame(
        {
            "Profile": [
                f"https://www.{HOST}/in/anna-schmidt/",
                f"de.{HOST}/in/Anna-Schmidt?trk=x",  # the same person: one call
                "bob-smith",  # a bare name: on the network's first host
                f"https://www.{HOST}/company/acme/",  # not a profile: refused, free
                "https://www.profnet.com/in/carla/",  # another host: refused, free
            ]
        }
    )
    plan = plan_enrichment(people, "Profile", "profile", client=client)
    assert plan.unique_keys == 2
    assert plan.credits == 2 * 2, "the preview prices each profile at the profile's 2 credits"
    enriched = enrich(people, "Profile", "profile", client=client, progress=False)
    errors = enriched["profile_error"].to_list()
    assert errors[:3] == [None, None, None]
    assert "profnet.com" in errors[4]
    assert "add profnet.com to the network hosts" in errors[4]
    assert errors[3] is not None
    names = enriched["profile_full_name"].to_list()
    assert names[:3] == ["Anna Schmidt", "Anna Schmidt", "Bob Smith"]

    companies = pl.DataFrame(
        {"Website": [f"https://www.{HOST}/company/stripe/about", "acme.io", f"{HOST}/in/x"]}
    )
    plan = plan_enrichment(companies, "Website", "company", client=client)
    assert plan.credits == 2 * 3
    done = enrich(companies, "Website", "company", client=client, progress=False)
    assert done["company_profnet_url"].to_list()[:2] == [
        f"https://www.{HOST}/company/stripe/",
        f"https://www.{HOST}/company/acme-io/",
    ]
    assert done["company_error"].to_list()[2] is not None

    usage = other.usage(KEY)
    assert usage["calls"]["get-profile-details"]["credits"] == 4
    assert usage["calls"]["get-company-details"]["credits"] == 6
    assert client.spent() == usage["credits_charged"] == 10
    assert client.spent(uncertain=True) == 0


def test_previews_and_searches_use_the_profiles_prices(
    client: Client, other: RunningSandbox
) -> None:
    assert client.estimate([("get-profile-details", {"profnet_url": "bob"})]).credits == 2
    cost = search_cost(client, "leads", {"title_keywords": "CTO", "limit": 5})
    assert (cost.create_credits, cost.per_result, cost.credits) == (60, 2, 60 + 5 * 2)
    assert client.prices.price(endpoint("search-companies")).credits == 25, "the spec's"
    rows = client.search_leads(title_keywords="CTO", limit=5).results()
    usage = other.usage(KEY)
    assert usage["calls"]["search-leads"]["credits"] == 60
    assert usage["calls"]["get-lead-results"]["credits"] == 2 * len(rows)
    assert client.spent() == usage["credits_charged"] == 60 + 2 * len(rows)
    assert all(row["profnet_url"].startswith(f"https://www.{HOST}/in/") for row in rows)


def test_the_key_is_in_no_file_under_its_header(client: Client, tmp_path: Path) -> None:
    client.get_company_details(domain="stripe.com")
    client.get_profile_details(profnet_url=f"{HOST}/in/anna-schmidt")
    client.search_leads(title_keywords="CTO", limit=3).results()
    cache = Path(client.cache_info()["cache"])
    client.close()
    files = [path for path in tmp_path.rglob("*") if path.is_file()]
    assert cache in files
    for path in files:
        assert not leaks(file_contents(path)), path
    rows = sqlite3.connect(cache).execute("SELECT value FROM responses").fetchall()
    assert len(rows) >= 3
    for (value,) in rows:
        text = value if isinstance(value, str) else bytes(value).decode("utf-8")
        headers = json.loads(text)["request"]["headers"]
        assert headers[HEADER] == "REDACTED"
        assert headers["X-Gateway-Host"] == "REDACTED"
        assert "X-SERVICE-API-KEY" not in headers


def test_a_client_with_the_specs_names_is_refused_before_anything_is_charged(
    other: RunningSandbox, tmp_path: Path
) -> None:
    before = other.charged(KEY)
    with Client(api_key=KEY, base_url=other.base_url, cache="memory") as plain:
        with pytest.raises(Unauthorized):
            plain.get_company_details(domain="stripe.com")
        with pytest.raises(Exception, match=r"add people-net\.example to the network hosts"):
            plain.get_profile_details(profnet_url=f"https://www.{HOST}/in/anna/")
    assert other.charged(KEY) == before


def test_the_embedded_sandbox_plays_the_profile(tmp_path: Path) -> None:
    with Client(
        cache_dir=tmp_path,
        key_header=HEADER,
        headers=GATEWAY,
        network_hosts=HOST,
        prices=PRICES,
    ) as embedded:
        assert embedded.settings.uses_sandbox
        person = embedded.get_profile_details(profnet_url=f"{HOST}/in/anna-schmidt")
        assert person["full_name"] == "Anna Schmidt"
        assert embedded.spent() == 2
