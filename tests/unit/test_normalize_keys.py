"""Keys that cannot be right (issue 15): placeholders, personal e-mail, pages on other hosts,
job ids and URLs, place names; each refused with its reason, before anything is sent."""

from __future__ import annotations

import re

import pytest

from profnet_sheets.batch.kinds import kind_named
from profnet_sheets.client import cell_values as v
from profnet_sheets.client import identifiers as ids
from profnet_sheets.client.prepare import prepare
from profnet_sheets.errors import InvalidParameter, NormalizationError, NotAKeyError
from profnet_sheets.excel import cells
from profnet_sheets.spec import DEFAULT_PROFILE, ServiceProfile, endpoint

PLACEHOLDERS = ["N/A", "n/a", "-", "\u2014", "none", "null", "TBD", "#N/A", "?", " NULL ", "'N/A'"]


@pytest.mark.parametrize("value", PLACEHOLDERS)
def test_placeholders_are_blank_keys(value: str) -> None:
    assert v.is_placeholder(value)
    assert v.key_text(value, "domain") is None
    assert cells.lookup_key(value, "domain") is None, "Excel formulas blank them too"


@pytest.mark.parametrize("value", ["acme.com", "Nadia", "Berlin", "1035", "n/a/b", "--x"])
def test_values_are_not_placeholders(value: str) -> None:
    assert not v.is_placeholder(value)
    assert v.key_text(value, "domain") == value


@pytest.mark.parametrize(
    "value",
    ["jane@gmail.com", "gmail.com", "YAHOO.COM", "https://www.hotmail.com", "Jo <jo@outlook.com>"],
)
def test_personal_email_domains_are_not_companies(value: str) -> None:
    for normalise in (ids.domain, ids.company_identifier):
        with pytest.raises(NotAKeyError, match="personal email domain") as caught:
            normalise(value)
        assert repr(value) in str(caught.value)


def test_a_company_email_gives_its_domain() -> None:
    assert ids.company_identifier("jane@stripe.com") == ("domain", "stripe.com")
    assert not ids.is_personal_email_domain("stripe.com")


@pytest.mark.parametrize(
    ("value", "host"),
    [
        ("https://www.linkedin.com/company/stripe/", "linkedin.com"),
        ("de.linkedin.com/in/jane-doe", "de.linkedin.com"),
        ("http://xing.com/school/tum/", "xing.com"),
        ("https://example.org/showcase/acme-cloud", "example.org"),
    ],
)
def test_a_network_page_on_another_host_is_not_that_hosts_company(value: str, host: str) -> None:
    with pytest.raises(NotAKeyError) as caught:
        ids.company_identifier(value)
    message = str(caught.value)
    assert f"is a page URL on {host}, not a profnet.com URL: give " in message
    assert f"or add {host} to the network hosts (network_hosts, PROFNET_NETWORK_HOSTS)" in message


def test_the_networks_pages_are_looked_up_as_pages_on_any_of_its_hosts() -> None:
    assert DEFAULT_PROFILE.network_hosts == ("profnet.com",)
    for value in (
        "https://www.profnet.com/company/acme/",
        "profnet.com/company/acme",
        "https://de.profnet.com/company/acme/about/",
    ):
        assert ids.company_identifier(value) == (
            "profnet_url",
            "https://www.profnet.com/company/acme/",
        )
    for own in ("profnet.com", "https://www.profnet.com", "mail@profnet.com"):
        with pytest.raises(NormalizationError):
            ids.company_identifier(own)


@pytest.mark.parametrize(
    "value",
    [
        "4298248448",
        "4298248448.0",
        4298248448.0,
        4298248448,
        " 4298248448 ",
        "https://www.profnet.com/jobs/view/4298248448/",
        "https://www.profnet.com/jobs/view/4298248448/apply/",
        "profnet.com/jobs/view/senior-engineer-at-acme-4298248448",
        "https://www.profnet.com/jobs/search/?currentJobId=4298248448&geoId=1",
        "urn:profnet:jobPosting:4298248448",
    ],
)
def test_job_ids_in_every_form_the_service_gives(value: object) -> None:
    assert ids.job_id(value) == "4298248448"
    sent = prepare(endpoint("get-job-details"), {"job_id": value}, profile=DEFAULT_PROFILE)
    assert sent == {"job_id": "4298248448"}


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("Berlin", "is not a job id"),
        ("N/A", "stands for no value"),
        ("https://www.linkedin.com/jobs/view/42/", "a page URL on linkedin.com, not a profnet"),
        ("-3", "negative"),
    ],
)
def test_what_is_not_a_job_id(value: str, says: str) -> None:
    with pytest.raises(NormalizationError, match=says):
        ids.job_id(value)


def test_place_names_are_one_lookup_whatever_their_case_and_spaces() -> None:
    geocode = endpoint("find-geocode-by-location")
    sent = {
        prepare(geocode, {"location": value}, profile=DEFAULT_PROFILE)["location"]
        for value in ("Berlin", "berlin", " BERLIN ", "Berlin\u00a0")
    }
    assert sent == {"berlin"}
    assert v.place_name("  New   York ") == "new york"


def test_a_kinds_call_names_the_parameter_and_the_profiles_normalisers_read_it() -> None:
    company = kind_named("company")
    details = endpoint("get-company-details")
    refused = company.call({"company": "jane@gmail.com"}, {})
    with pytest.raises(InvalidParameter, match="personal email domain"):
        prepare(details, refused, profile=DEFAULT_PROFILE)
    page = company.call({"company": "https://www.profnet.com/company/acme"}, {})
    assert prepare(details, page, profile=DEFAULT_PROFILE) == {
        "profnet_url": "https://www.profnet.com/company/acme/"
    }
    other = ServiceProfile(network_hosts=("people-net.example",))
    elsewhere = company.call({"company": "https://de.people-net.example/company/acme/about"}, {})
    assert prepare(details, elsewhere, profile=other) == {
        "profnet_url": "https://www.people-net.example/company/acme/"
    }
    with pytest.raises(
        InvalidParameter, match=re.escape("add de.people-net.example to the network hosts")
    ):
        prepare(details, elsewhere, profile=DEFAULT_PROFILE)


NETWORK = ("people-net.example", "people-net.cn")


@pytest.mark.parametrize(
    ("value", "canonical"),
    [
        ("https://www.people-net.example/in/anna/", "https://www.people-net.example/in/anna/"),
        ("de.people-net.example/in/Anna?x=1", "https://www.people-net.example/in/anna/"),
        ("http://people-net.cn/in/anna-li", "https://www.people-net.cn/in/anna-li/"),
        ("anna-schmidt", "https://www.people-net.example/in/anna-schmidt/"),
    ],
)
def test_page_urls_keep_the_users_network_host(value: str, canonical: str) -> None:
    assert ids.profile_url(value, NETWORK) == canonical
    assert ids.profile_url(canonical, NETWORK) == canonical


def test_the_networks_hosts_are_the_profiles_everywhere_a_page_url_is_read() -> None:
    assert ids.company_identifier("people-net.example/company/acme", NETWORK) == (
        "profnet_url",
        "https://www.people-net.example/company/acme/",
    )
    with pytest.raises(NotAKeyError, match="an address of the network"):
        ids.domain("https://people-net.example/about", NETWORK)
    assert ids.job_id("https://www.people-net.example/jobs/view/42/", NETWORK) == "42"
    with pytest.raises(NotAKeyError, match=re.escape("add profnet.com to the network hosts")):
        ids.job_id("https://www.profnet.com/jobs/view/42/", NETWORK)
    assert ids.post_urn("people-net.example/feed/update/urn:x:activity:77/", NETWORK) == "77"
    assert ids.school_ids("people-net.cn/school/tum/, mit", "school_ids", NETWORK) == ["tum", "mit"]
    with pytest.raises(
        NotAKeyError, match=re.escape("not a people-net.example or people-net.cn URL")
    ):
        ids.profile_url("https://www.profnet.com/in/anna/", NETWORK)
    assert ids.profile_url("https://www.profnet.com/in/anna/") == "https://www.profnet.com/in/anna/"
