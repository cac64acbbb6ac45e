"""Where a company identifier is an id, a page URL or a domain is decided in one place
(identifiers.company_parameter, over COMPANY_IDENTIFIERS): a batch's company kind, the client's
prepare and company_identifier agree on every input."""

from __future__ import annotations

from typing import Any

import pytest

from profnet_sheets.batch.kinds import KINDS
from profnet_sheets.client import identifiers
from profnet_sheets.client.prepare import prepare
from profnet_sheets.errors import NotAKeyError, ProfnetError
from profnet_sheets.spec import DEFAULT_PROFILE, endpoint

COMPANY_DETAILS = endpoint("get-company-details")
PAGE = "https://www.profnet.com/company/acme/"

# What a cell holds -> the one parameter sent and its value (as before the change).
NAMED = [
    (1035, ("company_id", "1035")),
    (1035.0, ("company_id", "1035")),
    ("1035", ("company_id", "1035")),
    ("1035.0", ("company_id", "1035")),
    (" 1 035 ", ("company_id", "1035")),
    (PAGE, ("profnet_url", PAGE)),
    ("profnet.com/company/Acme", ("profnet_url", PAGE)),
    ("http://de.profnet.com/company/acme/about/?x=1", ("profnet_url", PAGE)),
    (
        "https://www.profnet.com/company/1035/",
        ("profnet_url", "https://www.profnet.com/company/1035/"),
    ),
    ("acme.com", ("domain", "acme.com")),
    (" ACME.com ", ("domain", "acme.com")),
    ("https://www.acme.com/about", ("domain", "acme.com")),
    ("jane@acme.com", ("domain", "acme.com")),
    ("Jane Doe <jane@acme.com>", ("domain", "acme.com")),
    ("münchen.de", ("domain", "xn--mnchen-3ya.de")),
]
# Refused by all three, before anything is sent.
REFUSED: list[Any] = [
    "acme",
    "jane@gmail.com",
    "gmail.com",
    "https://www.linkedin.com/company/acme/",
    "profnet.com",
    "127.0.0.1",
    "-1035",
    "10.5",
    True,
    "N/A",
    "#N/A",
    "not a company at all",
]


def by_the_batch_kind(value: object) -> dict[str, Any]:
    """The parameters a batch's company column sends for `value`."""
    return prepare(
        COMPANY_DETAILS, KINDS["company"].call({"company": value}, {}), profile=DEFAULT_PROFILE
    )


def by_prepare(value: object) -> dict[str, Any]:
    """The parameters the client sends when `value` is given as the parameter its shape names."""
    parameter, _ = identifiers.company_parameter(value)
    return prepare(COMPANY_DETAILS, {parameter: value}, profile=DEFAULT_PROFILE)


@pytest.mark.parametrize(("value", "expected"), NAMED)
def test_the_three_callers_agree_on_what_a_value_names(
    value: object, expected: tuple[str, str]
) -> None:
    parameter, normalised = expected
    assert identifiers.company_identifier(value) == expected
    assert by_the_batch_kind(value) == {parameter: normalised}
    assert by_prepare(value) == {parameter: normalised}


@pytest.mark.parametrize("value", REFUSED)
def test_the_three_callers_refuse_the_same_values(value: object) -> None:
    for caller in (identifiers.company_identifier, by_the_batch_kind, by_prepare):
        with pytest.raises(ProfnetError) as caught:
            caller(value)
        assert str(caught.value), caller


def test_a_personal_email_domain_is_never_a_key_wherever_it_is_given() -> None:
    with pytest.raises(NotAKeyError):
        identifiers.company_identifier("jane@gmail.com")
    with pytest.raises(ProfnetError, match="personal email domain"):
        by_the_batch_kind("jane@gmail.com")


def test_the_identifiers_are_the_specs_and_the_most_specific_is_sent() -> None:
    assert COMPANY_DETAILS.at_least_one is not None
    assert COMPANY_DETAILS.at_least_one.names == identifiers.COMPANY_IDENTIFIERS
    every = {"domain": "acme.com", "profnet_url": PAGE, "company_id": "1035"}
    assert prepare(COMPANY_DETAILS, every, profile=DEFAULT_PROFILE) == {"company_id": "1035"}
    del every["company_id"]
    assert prepare(COMPANY_DETAILS, every, profile=DEFAULT_PROFILE) == {"profnet_url": PAGE}


@pytest.mark.parametrize("url", ["https://www.profnet.com/company/0/", "profnet.com/company/000"])
def test_a_company_page_of_id_0_names_no_page_and_is_never_sent(url: str) -> None:
    """A review of decision 529: an id of 0 was refused, the page URL of id 0 still sent."""
    with pytest.raises(ProfnetError, match=r"names no page \(nothing has the id 0\)"):
        identifiers.company_identifier(url)
