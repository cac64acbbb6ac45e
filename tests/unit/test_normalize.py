"""Input normalisation: examples of every accepted variant and refusal, plus properties."""

from __future__ import annotations

import contextlib
import datetime as dt
import math
import pickle
import re
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from profnet_sheets.client import cell_values as v
from profnet_sheets.client import identifiers as ids
from profnet_sheets.errors import NormalizationError, NotAKeyError
from profnet_sheets.spec.endpoints import (
    COMPANY_URL_PATTERN,
    HEADCOUNT_URL_PATTERN,
    NUMERIC_ID_PATTERN,
    PROFILE_URL_PATTERN,
)

COMPANY = "https://www.profnet.com/company/acme/"
PROFILE = "https://www.profnet.com/in/anna-schmidt/"


def refused(call: Callable[[], object], value: object, parameter: str) -> NormalizationError:
    """Assert `call` raises a NormalizationError for `value` that names it and `parameter`."""
    with pytest.raises(NormalizationError) as caught:
        call()
    error = caught.value
    assert error.parameter == parameter
    assert error.value is value or error.value == value
    assert repr(value)[:60] in str(error), str(error)
    assert ": give " in str(error) or ": fix " in str(error), str(error)
    return error


# -- stand-ins for pandas / numpy values (neither is a dependency) -------------------------------


class FakeNA:
    """Like pandas.NA: comparisons give NA, whose truth value is ambiguous."""

    def __ne__(self, other: object) -> Any:
        return self

    def __eq__(self, other: object) -> Any:
        return self

    def __bool__(self) -> bool:
        raise TypeError("boolean value of NA is ambiguous")

    __hash__ = object.__hash__


class FakeNaT:
    """Like pandas.NaT: unequal to everything, itself included."""

    def __ne__(self, other: object) -> bool:
        return True

    def __eq__(self, other: object) -> bool:
        return False

    __hash__ = object.__hash__


class FakeArray:
    """Like a numpy array or a pandas Series: has tolist()."""

    def __init__(self, items: list[Any]) -> None:
        self.items = items

    def tolist(self) -> list[Any]:
        return self.items

    def __ne__(self, other: object) -> Any:
        raise ValueError("the truth value of an array is ambiguous")


FakeNumpyBool = type("bool_", (), {"__module__": "numpy", "__bool__": lambda self: True})


# -- NormalizationError -----------------------------------------------------------------------


def test_error_is_a_value_error_with_parameter_and_value() -> None:
    error = NormalizationError("'x' is bad: give y", "domain", "x")
    assert isinstance(error, ValueError)
    assert (error.parameter, error.value, str(error)) == ("domain", "x", "'x' is bad: give y")


def test_error_survives_pickling() -> None:
    error = pickle.loads(pickle.dumps(NormalizationError("'x' is bad: give y", "domain", "x")))
    assert (error.parameter, error.value, str(error)) == ("domain", "x", "'x' is bad: give y")


def test_long_values_are_shortened_in_messages() -> None:
    value = "x" * 500
    with pytest.raises(NormalizationError) as caught:
        ids.domain(value)
    assert len(str(caught.value)) < 200
    assert caught.value.value == value


# -- text ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        None,
        math.nan,
        float("nan"),
        Decimal("NaN"),
        FakeNA(),
        FakeNaT(),
        "",
        "   ",
        "\t\n",
        "\u00a0",
        "\u200b",
        "\ufeff \u00a0\u200b\u2007\u202f",
    ],
)
def test_text_blank_is_none(value: object) -> None:
    assert v.text(value, "keywords") is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("  sales  ", "sales"),
        ("\u00a0sales\u200b", "sales"),
        ("\ufeffsales\r\n", "sales"),
        ("a  b", "a  b"),
        (12345, "12345"),
        (12345.0, "12345"),
        (1.5, "1.5"),
        (-3, "-3"),
        (0.0, "0"),
        (Decimal("1035.0"), "1035"),
        (Decimal("1.25"), "1.25"),
        (Fraction(3, 2), "1.5"),
    ],
)
def test_text_values(value: object, expected: str) -> None:
    assert v.text(value, "keywords") == expected


@pytest.mark.parametrize("error", sorted(v.EXCEL_ERRORS))
def test_text_refuses_excel_errors(error: str) -> None:
    message = str(refused(lambda: v.text(error, "keywords"), error, "keywords"))
    assert "Excel error" in message


@pytest.mark.parametrize("value", ["#n/a", " #N/A ", "#DIV/0!", "#GETTING_DATA", "#SPILL!"])
def test_text_refuses_excel_errors_in_any_case_and_padding(value: str) -> None:
    refused(lambda: v.text(value, "keywords"), value, "keywords")


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("#PROFNET! not found: check the id", "its formula's error"),
        ("  #PROFNET! busy", "its formula's error"),
        ("#N/A waiting...", "still calculating"),
    ],
)
def test_what_a_cell_shows_instead_of_a_value_is_never_a_value(value: str, said: str) -> None:
    """A PROFNET_ formula's error and xlwings' `#N/A waiting...` are refused whole, as text,
    in a list and among ids (they were split into words and sent as filters)."""
    for read in (v.text, v.string_list, v.id_list, v.int_list):
        message = str(
            refused(lambda read=read: read(value, "where_they_live"), value, "where_they_live")
        )
        assert said in message, message
    with pytest.raises(NormalizationError, match=said):
        v.string_list(["Berlin", value], "keywords")


@pytest.mark.parametrize(
    "value",
    [True, False, FakeNumpyBool(), [1], ("a",), {"a"}, {"a": 1}, b"bytes", math.inf, object()],
)
def test_text_refuses_non_text(value: object) -> None:
    refused(lambda: v.text(value, "keywords"), value, "keywords")


def test_text_refuses_an_integer_too_long_to_print() -> None:
    value = 10**5000
    with pytest.raises(NormalizationError):
        v.text(value, "keywords")


# -- domain -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("acme.com", "acme.com"),
        ("ACME.COM", "acme.com"),
        ("  acme.com\u00a0", "acme.com"),
        ("acme\u200b.com", "acme.com"),
        ("http://acme.com", "acme.com"),
        ("https://acme.com", "acme.com"),
        ("HTTPS://WWW.ACME.COM/", "acme.com"),
        ("ftp://acme.com", "acme.com"),
        ("//acme.com/x", "acme.com"),
        ("www.acme.com", "acme.com"),
        ("www2.acme.com", "acme.com"),
        ("www.www.acme.com", "acme.com"),
        ("https://www.acme.com/about/team", "acme.com"),
        ("acme.com/about", "acme.com"),
        ("acme.com?utm=1", "acme.com"),
        ("acme.com#top", "acme.com"),
        ("acme.com:8080", "acme.com"),
        ("https://www.acme.com:443/x?y=1#z", "acme.com"),
        ("acme.com.", "acme.com"),
        ("https://user:secret@www.acme.com/", "acme.com"),
        ('"acme.com"', "acme.com"),
        ("'acme.com'", "acme.com"),
        ("<acme.com>", "acme.com"),
        ("\u201cacme.com\u201d", "acme.com"),
        ("jane@acme.com", "acme.com"),
        ("Jane.Doe@Acme.com", "acme.com"),
        ("mailto:jane@acme.com", "acme.com"),
        ("Jane Doe <jane@acme.com>", "acme.com"),
        ("shop.acme.co.uk", "shop.acme.co.uk"),
        ("münchen.de", "xn--mnchen-3ya.de"),
        ("MÜNCHEN.DE", "xn--mnchen-3ya.de"),
        ("https://www.münchen.de/rathaus", "xn--mnchen-3ya.de"),
        ("xn--mnchen-3ya.de", "xn--mnchen-3ya.de"),
        # IDNA 2008 (UTS 46, non-transitional), as registries and browsers: ß is its own
        # letter, straße.de another domain than strasse.de (a new user's review).
        ("straße.de", "xn--strae-oqa.de"),
        ("https://www.Straße.de/impressum", "xn--strae-oqa.de"),
        ("faß.de", "xn--fa-hia.de"),
        ("strasse.de", "strasse.de"),
        ("☃.net", "xn--n3h.net"),  # a symbol IDNA 2008 refuses: encoded as before
        ("\uff57\uff57\uff57.acme.com", "acme.com"),  # full-width www.
        ("a-b.io", "a-b.io"),
        ("3m.com", "3m.com"),
    ],
)
def test_domain_variants(value: str, expected: str) -> None:
    assert ids.domain(value) == expected


@pytest.mark.parametrize(
    "value",
    [
        "localhost",
        "acme",
        "http://",
        "https://www.",
        "www.com",
        "acme corp.com",
        "acme..com",
        "-acme.com",
        "acme-.com",
        "acme.c",
        "acme.123",
        "acme_inc.com",
        ".com",
        "@",
        "a" * 64 + ".com",
        "http://[::1]/",
        12345,
        12.5,
        "a\u3002",
    ],
)
def test_domain_refuses_non_domains(value: object) -> None:
    error = refused(lambda: ids.domain(value), value, "domain")
    assert "such as acme.com" in str(error)


@pytest.mark.parametrize("value", ["1.2.3.4", "http://10.0.0.1:8080/x", "[::1]", "http://[::1]"])
def test_domain_refuses_ip_addresses(value: str) -> None:
    assert "IP address" in str(refused(lambda: ids.domain(value), value, "domain"))


@pytest.mark.parametrize("value", [COMPANY, "profnet.com", "de.profnet.com/in/anna"])
def test_domain_refuses_profnet_pages(value: str) -> None:
    assert "profnet_url" in str(refused(lambda: ids.domain(value), value, "domain"))


@pytest.mark.parametrize("value", [None, "", "  ", math.nan])
def test_domain_refuses_blanks(value: object) -> None:
    assert "empty" in str(refused(lambda: ids.domain(value), value, "domain"))


@pytest.mark.parametrize("value", [True, ["acme.com"], "#N/A"])
def test_domain_refuses_other_kinds(value: object) -> None:
    refused(lambda: ids.domain(value), value, "domain")


# -- company_url, profile_url, school_or_company_url -----------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (COMPANY, COMPANY),
        ("https://www.profnet.com/company/acme", COMPANY),
        ("http://www.profnet.com/company/acme/", COMPANY),
        ("www.profnet.com/company/acme/", COMPANY),
        ("profnet.com/company/acme", COMPANY),
        ("https://profnet.com/company/acme/", COMPANY),
        ("https://de.profnet.com/company/acme/", COMPANY),
        ("https://uk.profnet.com/company/acme", COMPANY),
        ("HTTPS://WWW.PROFNET.COM/COMPANY/ACME/", COMPANY),
        ("https://www.profnet.com/company/Acme/", COMPANY),
        ("https://www.profnet.com/company/acme/?trk=feed#top", COMPANY),
        ("https://www.profnet.com/company/acme?trk=feed", COMPANY),
        ("https://www.profnet.com/company/acme#about", COMPANY),
        ("https://www.profnet.com/company/acme/about/", COMPANY),
        ("https://www.profnet.com/company/acme/jobs/?x=1", COMPANY),
        ("https://www.profnet.com:443/company/acme/", COMPANY),
        ("https://www.profnet.com./company/acme/", COMPANY),
        ("https://www.profnet.com//company//acme//", COMPANY),
        (f"  {COMPANY}\u00a0", COMPANY),
        (f"<{COMPANY}>", COMPANY),
        (f'"{COMPANY}"', COMPANY),
        (
            "https://www.profnet.com/showcase/acme-cloud/",
            "https://www.profnet.com/showcase/acme-cloud/",
        ),
        ("profnet.com/SHOWCASE/Acme-Cloud", "https://www.profnet.com/showcase/acme-cloud/"),
        ("https://www.profnet.com/company/1035/", "https://www.profnet.com/company/1035/"),
        ("https://www.profnet.com/company/1035", "https://www.profnet.com/company/1035/"),
        (
            "https://www.profnet.com/company/m%C3%BCller/",
            "https://www.profnet.com/company/m%C3%BCller/",
        ),
        (
            "https://www.profnet.com/company/m%c3%bcller/",
            "https://www.profnet.com/company/m%C3%BCller/",
        ),
        ("https://www.profnet.com/company/MÜLLER", "https://www.profnet.com/company/m%C3%BCller/"),
        (
            "https://www.profnet.com/company/acme%20corp",
            "https://www.profnet.com/company/acme%20corp/",
        ),
        ("https://www.profnet.com/company/acme%2D1/", "https://www.profnet.com/company/acme-1/"),
        ("https://www.profnet.com/company/50%25off/", "https://www.profnet.com/company/50%25off/"),
    ],
)
def test_company_url_variants(value: str, expected: str) -> None:
    assert ids.company_url(value) == expected


@pytest.mark.parametrize(
    ("value", "says"),
    [
        (PROFILE, "is a profile URL, not a company page URL"),
        ("https://www.profnet.com/school/tum/", "is a school page URL"),
        ("https://www.profnet.com/jobs/view/123/", "not a company page URL"),
        ("https://www.profnet.com/", "not a company page URL"),
        ("https://www.profnet.com/company/", "no name after /company/"),
        ("https://www.profnet.com/company/%20/", "no name after /company/"),
        ("https://www.profnet.com/company/../", "no name after /company/"),
        ("https://www.profnet.com/company/%C3/", "badly percent-encoded"),
        ("https://www.linkedin.com/company/acme/", "not a profnet.com URL"),
        ("linkedin.com/company/acme", "not a profnet.com URL"),
        ("https://profnet.com.evil.io/company/acme/", "not a profnet.com URL"),
        ("https://notprofnet.com/company/acme/", "not a profnet.com URL"),
        ("ftp://www.profnet.com/company/acme/", "not a profnet.com URL"),
        ("acme.com", "not a profnet.com URL"),
        ("acme", "bare name"),
        ("1035", "bare name"),
        ("#REF!", "Excel error"),
        (None, "empty"),
        ("", "empty"),
        (True, "true/false"),
    ],
)
def test_company_url_refusals(value: object, says: str) -> None:
    error = refused(lambda: ids.company_url(value), value, "profnet_url")
    assert says in str(error)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (PROFILE, PROFILE),
        ("http://profnet.com/in/anna-schmidt", PROFILE),
        ("https://de.profnet.com/in/Anna-Schmidt/", PROFILE),
        ("www.profnet.com/in/anna-schmidt?miniProfile=1#x", PROFILE),
        ("https://www.profnet.com/in/anna-schmidt/details/experience/", PROFILE),
        ("https://www.profnet.com/in/anna-schmidt/recent-activity/all/", PROFILE),
        (f"\u200b{PROFILE}\u00a0", PROFILE),
        ("https://www.profnet.com/in/j%C3%B6rg-m/", "https://www.profnet.com/in/j%C3%B6rg-m/"),
        ("https://www.profnet.com/in/Jörg-M", "https://www.profnet.com/in/j%C3%B6rg-m/"),
        ("anna-schmidt-1a2b", "https://www.profnet.com/in/anna-schmidt-1a2b/"),
        ("Anna-Schmidt", PROFILE),
        ("jörg_m", "https://www.profnet.com/in/j%C3%B6rg_m/"),
        ("j%C3%B6rg", "https://www.profnet.com/in/j%C3%B6rg/"),
    ],
)
def test_profile_url_variants(value: str, expected: str) -> None:
    assert ids.profile_url(value) == expected


@pytest.mark.parametrize(
    ("value", "says"),
    [
        (COMPANY, "is a company page URL, not a profile URL"),
        ("https://www.profnet.com/showcase/acme-cloud/", "is a showcase page URL"),
        ("https://www.profnet.com/school/tum/", "is a school page URL"),
        ("https://www.profnet.com/in/", "no name after /in/"),
        ("https://www.linkedin.com/in/anna/", "not a profnet.com URL"),
        ("Anna Schmidt", "not a profnet.com URL"),
        ("anna.schmidt", "not a profnet.com URL"),
        (None, "empty"),
        ("TRUE", "is a true/false value, not a profile's name"),
        ("false", "is a true/false value, not a profile's name"),
        ("0", "is a number, not a profile's name"),
        ("-1", "is a number, not a profile's name"),
        ("1e5", "is a number, not a profile's name"),
    ],
)
def test_profile_url_refusals(value: object, says: str) -> None:
    error = refused(lambda: ids.profile_url(value), value, "profnet_url")
    assert says in str(error)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("profnet.com/company/Acme/about", COMPANY),
        (
            "http://de.profnet.com/showcase/acme-cloud",
            "https://www.profnet.com/showcase/acme-cloud/",
        ),
        ("https://www.profnet.com/school/TUM/?x=1", "https://www.profnet.com/school/tum/"),
        ("https://www.profnet.com/company/1035", "https://www.profnet.com/company/1035/"),
    ],
)
def test_school_or_company_url_variants(value: str, expected: str) -> None:
    assert ids.school_or_company_url(value) == expected


@pytest.mark.parametrize(
    ("value", "says"),
    [
        (PROFILE, "is a profile URL, not a company, showcase or school page URL"),
        ("https://www.linkedin.com/school/tum/", "not a profnet.com URL"),
        ("tum", "bare name"),
    ],
)
def test_school_or_company_url_refusals(value: str, says: str) -> None:
    error = refused(lambda: ids.school_or_company_url(value), value, "profnet_url")
    assert says in str(error)


# -- company_identifier -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1035, ("company_id", "1035")),
        (1035.0, ("company_id", "1035")),
        (Decimal(1035), ("company_id", "1035")),
        ("1035", ("company_id", "1035")),
        (" 1035 ", ("company_id", "1035")),
        ("1035.0", ("company_id", "1035")),
        ("'1035", ("company_id", "1035")),  # Excel's text prefix
        (COMPANY, ("profnet_url", COMPANY)),
        ("profnet.com/company/Acme/about", ("profnet_url", COMPANY)),
        (
            "https://www.profnet.com/showcase/acme-cloud",
            ("profnet_url", "https://www.profnet.com/showcase/acme-cloud/"),
        ),
        (
            "https://www.profnet.com/company/1035/",
            ("profnet_url", "https://www.profnet.com/company/1035/"),
        ),
        ("acme.com", ("domain", "acme.com")),
        ("https://www.Acme.com/about", ("domain", "acme.com")),
        ("jane@acme.com", ("domain", "acme.com")),
        ("456.com", ("domain", "456.com")),
        ("münchen.de", ("domain", "xn--mnchen-3ya.de")),
    ],
)
def test_company_identifier_recognises(value: object, expected: tuple[str, str]) -> None:
    assert ids.company_identifier(value) == expected


@pytest.mark.parametrize(
    ("value", "parameter"),
    [
        ("acme", "company_id, profnet_url, or domain"),
        ("localhost", "company_id, profnet_url, or domain"),
        ("1.2.3.4", "company_id, profnet_url, or domain"),
        (None, "company_id, profnet_url, or domain"),
        ("", "company_id, profnet_url, or domain"),
        (True, "company_id, profnet_url, or domain"),
        ("#N/A", "company_id, profnet_url, or domain"),
        (["acme.com"], "company_id, profnet_url, or domain"),
        (PROFILE, "profnet_url"),
        ("https://www.profnet.com/school/tum/", "profnet_url"),
        ("-5", "company_id"),
        ("1035.5", "company_id"),
        (1035.5, "company_id"),
    ],
)
def test_company_identifier_refusals(value: object, parameter: str) -> None:
    refused(lambda: ids.company_identifier(value), value, parameter)


# -- numeric_id ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1035, "1035"),
        (1035.0, "1035"),
        (Decimal("1035"), "1035"),
        (Fraction(2070, 2), "1035"),
        ("1035", "1035"),
        (" 1035 ", "1035"),
        ("1 035", "1035"),
        ("1\u00a0035", "1035"),
        ("\u200b1035", "1035"),
        ("1035.0", "1035"),
        ("1035.", "1035"),
        ("1035.000", "1035"),
        ("001035", "1035"),
        ("+1035", "1035"),
        ("7123456789012345678", "7123456789012345678"),
        (7123456789012345678, "7123456789012345678"),
        (2**53 * 1.0 - 1, str(2**53 - 1)),
    ],
)
def test_numeric_id_variants(value: object, expected: str) -> None:
    assert v.numeric_id(value, "company_id") == expected


@pytest.mark.parametrize(
    ("value", "says"),
    [
        (-1, "negative"),
        ("-5", "negative"),
        (-2.0, "negative"),
        (1035.5, "not a whole number"),
        ("1035.5", "not a whole number"),
        ("1.0351E+03", "scientific notation"),
        ("1E-3", "scientific notation"),
        ("1.23457E+11", "as Excel shows a long number it has shortened"),
        ("1e5", "scientific notation"),
        (math.inf, "not a whole number"),
        ("abc", "not a number"),
        ("10,35", "not a number"),
        ("0x10", "not a number"),
        ("1e999999", "scientific notation"),
        (7.123456789012346e18, "too large for an Excel number"),
        (0, "nothing has the id 0"),  # a new user's review: an export's missing id
        ("0.0", "nothing has the id 0"),
        (float(2**53 + 1), "too large for an Excel number"),  # read as 2**53: a review
        (True, "true/false"),
        (None, "empty"),
        (math.nan, "empty"),
        ("", "empty"),
        ("#VALUE!", "Excel error"),
        ([1035], "list"),
    ],
)
def test_numeric_id_refusals(value: object, says: str) -> None:
    assert says in str(refused(lambda: v.numeric_id(value, "company_id"), value, "company_id"))


# -- post_urn -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("7123456789012345678", "7123456789012345678"),
        (" 7123456789012345678 ", "7123456789012345678"),
        (7123456789012345678, "7123456789012345678"),
        (7123.0, "7123"),
        ("urn:profnet:activity:7123456789012345678", "7123456789012345678"),
        ("urn:li:activity:7123456789012345678", "7123456789012345678"),
        ("URN:LI:ugcPost:42", "42"),
        ("urn:profnet:share:42", "42"),
        ("https://www.profnet.com/feed/update/urn:profnet:activity:42/", "42"),
        ("https://www.profnet.com/feed/update/urn%3Aprofnet%3Aactivity%3A42?x=1", "42"),
        ("profnet.com/posts/42", "42"),
        # A post's share URL (helper 94): the activity's id in its slug.
        ("https://www.profnet.com/posts/anna_text-activity-42-AbCd/", "42"),
        (
            "https://www.profnet.com/posts/jane_activity-7123456789012345679-abcd",
            "7123456789012345679",
        ),
    ],
)
def test_post_urn_variants(value: object, expected: str) -> None:
    assert ids.post_urn(value) == expected


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("abc", "not a post id"),
        ("urn:profnet:activity:", "not a post id"),
        ("urn:profnet:activity:12a", "not a post id"),
        ("https://www.profnet.com/company/1035/", "not a post id"),
        ("https://www.example.com/feed/update/urn:profnet:activity:42/", "not a post id"),
        (-42, "negative"),
        ("-42", "negative"),
        (7.123456789012346e18, "too large"),
        (None, "empty"),
        ("", "empty"),
        (True, "true/false"),
        # Helper 93: a job read as a post was sent (and a post as a job).
        ("https://www.profnet.com/jobs/view/4298248448/", "is a job's URL, not a post's"),
        ("https://www.profnet.com/jobs/search/?currentJobId=42", "is a job's URL, not a post's"),
        ("urn:li:jobPosting:4298248448", "is a job's URN, not a post's"),
        ("urn:li:fs_normalized_jobPosting:42", "is a job's URN, not a post's"),
    ],
)
def test_post_urn_refusals(value: object, says: str) -> None:
    assert says in str(refused(lambda: ids.post_urn(value), value, "urn"))


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("urn:li:activity:7123456789012345678", "is a post's URN, not a job's"),
        ("urn:profnet:ugcPost:42", "is a post's URN, not a job's"),
        ("urn:li:share:42", "is a post's URN, not a job's"),
        ("https://www.profnet.com/feed/update/urn:li:activity:42/", "is a post's URL, not a job's"),
        ("https://www.profnet.com/posts/anna_activity-42-AbCd/", "is a post's URL, not a job's"),
    ],
)
def test_a_post_is_never_read_as_a_job(value: object, says: str) -> None:
    assert says in str(refused(lambda: ids.job_id(value), value, "job_id"))
    assert ids.job_id("urn:li:jobPosting:4298248448") == "4298248448"
    page = "https://www.profnet.com/company/acme/posts/"  # a company's page, not a post's
    assert "is a post's" not in str(refused(lambda: ids.job_id(page), page, "job_id"))


# -- flag ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (True, "true"),
        (False, "false"),
        (FakeNumpyBool(), "true"),
        (1, "true"),
        (0, "false"),
        (1.0, "true"),
        (0.0, "false"),
        ("true", "true"),
        ("TRUE", "true"),
        (" True ", "true"),
        ("false", "false"),
        ("FALSE", "false"),
        ("yes", "true"),
        ("No", "false"),
        ("Y", "true"),
        ("n", "false"),
        ("on", "true"),
        ("OFF", "false"),
        ("1", "true"),
        ("0", "false"),
        ("1.0", "true"),
        ("\u00a0yes\u200b", "true"),
    ],
)
def test_flag_variants(value: object, expected: str) -> None:
    assert v.flag(value, "include_skills") == expected


@pytest.mark.parametrize(
    ("value", "says"),
    [
        (2, "not a true/false value"),
        (0.5, "not a true/false value"),
        ("maybe", "not a true/false value"),
        ("2", "not a true/false value"),
        (None, "empty"),
        ("", "empty"),
        (math.nan, "empty"),
        ("#N/A", "Excel error"),
        (["true"], "list"),
    ],
)
def test_flag_refusals(value: object, says: str) -> None:
    error = refused(lambda: v.flag(value, "include_skills"), value, "include_skills")
    assert says in str(error)


# -- string_list, id_list, int_list -------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("CEO", ["CEO"]),
        ("Acme, Inc.", ["Acme, Inc."]),
        ("CEO; CTO", ["CEO", "CTO"]),
        ("CEO\nCTO\r\nCFO", ["CEO", "CTO", "CFO"]),
        (["CEO", "CTO"], ["CEO", "CTO"]),
        (("CEO", "CTO"), ["CEO", "CTO"]),
        ([["CEO"], ["CTO"], [None]], ["CEO", "CTO"]),  # a column range
        ([["CEO", "CTO"]], ["CEO", "CTO"]),  # a row range
        (["CEO", " ", "", None, math.nan, FakeNA()], ["CEO"]),
        (["CEO", "CTO", "CEO"], ["CEO", "CTO"]),
        (["CEO; CTO", "CFO"], ["CEO", "CTO", "CFO"]),
        ([12345.0, 7], ["12345", "7"]),
        ({"CTO", "CEO"}, ["CEO", "CTO"]),
        (FakeArray([["CEO"], ["CTO"]]), ["CEO", "CTO"]),
        (None, []),
        ("", []),
        (" ; \n ", []),
        ([], []),
    ],
)
def test_string_list(value: object, expected: list[str]) -> None:
    assert v.string_list(value, "title_keywords") == expected


@pytest.mark.parametrize("value", [{"a": 1}, ["CEO", True], ["#N/A"], "CEO;#REF!"])
def test_string_list_refusals(value: object) -> None:
    with pytest.raises(NormalizationError) as caught:
        v.string_list(value, "title_keywords")
    assert caught.value.parameter == "title_keywords"
    assert repr(caught.value.value) in str(caught.value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1035, ["1035"]),
        (1035.0, ["1035"]),
        ("1035", ["1035"]),
        ("1035, 2048", ["1035", "2048"]),
        ("1035;2048", ["1035", "2048"]),
        ("1035 2048\n4096", ["1035", "2048", "4096"]),
        (" 1035 ,, 2048 ", ["1035", "2048"]),
        ([1035, "2048", 4096.0], ["1035", "2048", "4096"]),
        ([[1035.0], [2048.0], [None]], ["1035", "2048"]),
        (["1035, 2048", 1035], ["1035", "2048"]),
        (FakeArray([1035, 2048]), ["1035", "2048"]),
        (None, []),
        ("", []),
        ([], []),
    ],
)
def test_id_list(value: object, expected: list[str]) -> None:
    assert v.id_list(value, "current_company_ids") == expected


@pytest.mark.parametrize(
    ("value", "item"),
    [("1035, abc", "abc"), ([1035, -1], -1), ([1.5], 1.5), ("#N/A", "#N/A"), ([True], True)],
)
def test_id_list_refusals_name_the_bad_item(value: object, item: object) -> None:
    refused(lambda: v.id_list(value, "school_ids"), item, "school_ids")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (103644278, [103644278]),
        ("103644278", [103644278]),
        ("103644278, 90000084", [103644278, 90000084]),
        ([103644278.0, "90000084"], [103644278, 90000084]),
        ([[1], [1], [2]], [1, 2]),
        (None, []),
    ],
)
def test_int_list(value: object, expected: list[int]) -> None:
    assert v.int_list(value, "geo_codes") == expected


def test_int_list_refusal() -> None:
    refused(lambda: v.int_list("Berlin", "geo_codes"), "Berlin", "geo_codes")


# -- headcount_codes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("B", ["B"]),
        ("b", ["B"]),
        ("B, C", ["B", "C"]),
        ("b;c", ["B", "C"]),
        ("C B", ["B", "C"]),
        (["C", "B", "C"], ["B", "C"]),
        ([["A"], ["H"], [None]], ["A", "H"]),
        ("B-D", ["B", "C", "D"]),
        ("b - d", ["B", "C", "D"]),
        ("D-B", ["B", "C", "D"]),
        ("B\u2013D", ["B", "C", "D"]),
        ("51-200", ["C"]),
        ("51 - 200", ["C"]),
        ("10001+", ["H"]),
        ("10001 +", ["H"]),
        ("1-10, 11-50", ["A", "B"]),
        (["A", "501-1000", "F-G"], ["A", "E", "F", "G"]),
        (None, []),
        ("", []),
        ([], []),
    ],
)
def test_headcount_codes(value: object, expected: list[str]) -> None:
    assert v.headcount_codes(value) == expected


@pytest.mark.parametrize(
    ("value", "bad"),
    [("Z", "Z"), ("B, I", "I"), ("B-Z", "B-Z"), ("50-200", "50-200"), (5, "5"), ("AB", "AB")],
)
def test_headcount_codes_refusals(value: object, bad: str) -> None:
    with pytest.raises(NormalizationError) as caught:
        v.headcount_codes(value)
    message = str(caught.value)
    assert caught.value.parameter == "company_headcounts"
    assert repr(bad) in message
    assert "A 1-10" in message
    assert "H 10001+" in message


# -- limit --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [(100, 100), (100.0, 100), ("100", 100), (" 100 ", 100), ("100.0", 100), (1, 1), (1000, 1000)],
)
def test_limit(value: object, expected: int) -> None:
    assert v.limit(value, "limit", 1, 1000) == expected


@pytest.mark.parametrize(
    ("value", "says"),
    [
        (0, "outside the range"),
        (1001, "outside the range"),
        ("-5", "outside the range"),
        (2500.0, "outside the range"),
        ("abc", "not a number"),
        (10.5, "not a whole number"),
        (True, "true/false"),
        (None, "empty"),
    ],
)
def test_limit_refusals(value: object, says: str) -> None:
    error = refused(lambda: v.limit(value, "limit", 1, 1000), value, "limit")
    assert says in str(error)
    assert "from 1 to 1000" in str(error)


# -- properties -----------------------------------------------------------------------------------

FAST = settings(max_examples=150, deadline=None)

ANYTHING = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(), st.lists(st.text())
)
_LABEL = st.text(alphabet="abcxyzABCXYZ019-äöüßЖ\u00a0\u200b.", min_size=1, max_size=10)
DOMAINISH = st.builds(
    "{}{}{}.{}{}".format,
    st.sampled_from(["", "http://", "HTTPS://", "ftp://", "//", "jane@", "mailto:a@", "u:p@"]),
    st.sampled_from(["", "www.", "WWW.", "www2.", "www.www."]),
    st.lists(_LABEL, min_size=1, max_size=3).map(".".join),
    st.sampled_from(["com", "de", "co.uk", "IO", "xn--p1ai", "рф", "1", "c"]),
    st.sampled_from(["", "/", "/about?x=1", ":8080", "#top", ".", " ", "/a b"]),
)
URLISH = st.builds(
    "{}{}profnet.com/{}/{}{}".format,
    st.sampled_from(["", "http://", "https://", "HTTP://", "ftp://", "//"]),
    st.sampled_from(["", "www.", "de.", "WWW.", "x.y."]),
    st.sampled_from(["company", "showcase", "school", "in", "COMPANY", "In", "jobs", ""]),
    st.one_of(st.text(min_size=1, max_size=12), st.text(alphabet="aZ0-_%2fC3Bü ", max_size=12)),
    st.sampled_from(["", "/", "/about/", "?trk=1", "#x", "/details/experience/"]),
)
NUMBERISH = st.one_of(
    st.integers(min_value=-5, max_value=10**20).map(str),
    st.from_regex(r"\A[ +-]?[0-9 ]{1,8}(\.[0-9]{0,3})?([eE][+-]?[0-9]{1,2})?\Z"),
)
INPUTS = st.one_of(ANYTHING, DOMAINISH, URLISH, NUMBERISH)

NORMALISERS: dict[str, Callable[[Any], Any]] = {
    "text": lambda value: v.text(value, "keywords"),
    "domain": ids.domain,
    "company_url": ids.company_url,
    "profile_url": ids.profile_url,
    "school_or_company_url": ids.school_or_company_url,
    "company_identifier": ids.company_identifier,
    "company_parameter": ids.company_parameter,
    "numeric_id": lambda value: v.numeric_id(value, "company_id"),
    "post_urn": ids.post_urn,
    "job_id": ids.job_id,
    "place_name": v.place_name,
    "key_text": lambda value: v.key_text(value, "domain"),
    "free_text": lambda value: v.free_text(value, "keywords"),
    "flag": lambda value: v.flag(value, "include_skills"),
    "string_list": lambda value: v.string_list(value, "title_keywords"),
    "id_list": lambda value: v.id_list(value, "school_ids"),
    "int_list": lambda value: v.int_list(value, "geo_codes"),
    "headcount_codes": v.headcount_codes,
    "limit": lambda value: v.limit(value, "limit", 1, 2500),
}


@FAST
@given(name=st.sampled_from(sorted(NORMALISERS)), value=INPUTS)
def test_normalisers_raise_only_normalization_errors(name: str, value: object) -> None:
    with contextlib.suppress(NormalizationError):
        NORMALISERS[name](value)


@FAST
@given(name=st.sampled_from(sorted(NORMALISERS)), value=INPUTS)
def test_normalisers_are_idempotent(name: str, value: object) -> None:
    normalise = NORMALISERS[name]
    try:
        once = normalise(value)
    except NormalizationError:
        return
    if name in ("company_identifier", "company_parameter"):
        assert normalise(once[1]) == once
    elif once is not None:
        assert normalise(once) == once


@FAST
@given(value=st.one_of(DOMAINISH, st.text()))
def test_domain_output_is_a_bare_lowercase_hostname(value: str) -> None:
    try:
        host = ids.domain(value)
    except NormalizationError:
        return
    assert "://" not in host
    assert "/" not in host
    assert not host.startswith("www.")
    assert host == host.lower()
    assert host.isascii()
    assert "." in host


@FAST
@given(value=URLISH)
def test_page_urls_match_the_spec_patterns(value: str) -> None:
    for normalise, pattern in (
        (ids.company_url, COMPANY_URL_PATTERN),
        (ids.profile_url, PROFILE_URL_PATTERN),
        (ids.school_or_company_url, HEADCOUNT_URL_PATTERN),
    ):
        try:
            url = normalise(value)
        except NormalizationError:
            continue
        assert re.match(pattern, url), url
        assert url.startswith("https://www.profnet.com/")
        assert url.endswith("/")


@FAST
@given(number=st.integers(min_value=1))
def test_numeric_id_of_any_non_negative_int(number: int) -> None:
    assert v.numeric_id(number, "company_id") == str(number)
    assert v.numeric_id(str(number), "company_id") == str(number)
    assert re.match(NUMERIC_ID_PATTERN, v.numeric_id(f" {number}.0 ", "company_id"))


@FAST
@given(number=st.integers(min_value=1, max_value=2**53 - 1))
def test_numeric_id_of_an_excel_float(number: int) -> None:
    assert v.numeric_id(float(number), "company_id") == str(number)
    assert ids.company_identifier(float(number)) == ("company_id", str(number))


def test_normalisers_remember_text_but_not_numbers_or_errors() -> None:
    first = ids.company_identifier("https://www.Acme.com/about")
    assert ids.company_identifier("https://www.Acme.com/about") == first
    assert ids.company_identifier(12345.0) == ("company_id", "12345")
    assert ids.company_identifier(12345) == ("company_id", "12345")
    for _ in range(2):  # refused each time: a failure is never remembered as an answer
        with pytest.raises(NormalizationError):
            ids.domain("localhost")


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("https://www.profnet.com/school/stanford-university/", ["stanford-university"]),
        ("profnet.com/school/Stanford-University", ["stanford-university"]),
        ("stanford-university, mit", ["stanford-university", "mit"]),
        (1792.0, ["1792"]),
        (["1792", " 1792 ", None, ""], ["1792"]),
    ],
)
def test_school_ids_are_slugs_or_numbers_from_urls_or_ids(given: Any, expected: list[str]) -> None:
    assert ids.school_ids(given, "school_ids") == expected


def test_a_company_url_is_not_a_school_id() -> None:
    with pytest.raises(NormalizationError, match="school") as caught:
        ids.school_ids("https://www.profnet.com/company/acme/", "school_ids")
    assert caught.value.parameter == "school_ids"


def test_a_huge_limit_is_out_of_range_not_an_id_to_type_as_text() -> None:
    with pytest.raises(NormalizationError, match="outside the range of limit"):
        v.limit(1e20, "limit", 1, 2500)


def test_a_sales_nav_url_must_be_a_url_and_is_sent_in_one_spelling() -> None:
    """Decision 582: one search, one spelling, so that a copy of the URL typed another way
    reuses the search instead of paying its start again."""
    from profnet_sheets import InvalidParameter
    from profnet_sheets.client.prepare import prepare
    from profnet_sheets.spec import DEFAULT_PROFILE, endpoint

    url = "https://www.profnet.com/sales/search/people?query=(keywords%3ACTO)"
    sent = prepare(endpoint("search-leads"), {"sales_nav_url": url}, profile=DEFAULT_PROFILE)
    assert sent["sales_nav_url"] == url
    for spelling in (
        "http://profnet.com/sales/search/people?query=(keywords%3ACTO)",
        "HTTPS://WWW.ProfNet.COM.:443/sales/./search/people?query=(keywords%3aCTO)",
        "https://de.profnet.com/sales/search/people?query=(keywords%3ACTO)",
    ):
        again = prepare(
            endpoint("search-leads"), {"sales_nav_url": spelling}, profile=DEFAULT_PROFILE
        )
        assert again["sales_nav_url"] == url, spelling
    # Elsewhere only the case, the port and the dot segments: the rest is the service's.
    assert ids.search_url("HTTP://Search.Example.COM:80/a/../s/?q=X#Tab", "u") == (
        "http://search.example.com/s/?q=X#Tab"
    )
    assert ids.search_url("https://www.profnet.com:8443/s", "u") == (
        "https://www.profnet.com:8443/s"
    )
    assert ids.search_url("https://www.profnet.com/s?q=1#a", "u") != ids.search_url(
        "https://www.profnet.com/s?q=1#b", "u"
    ), "a fragment may carry the search: kept"
    assert ids.search_url("https://www.profnet.com/s?q=1#", "u") == (
        "https://www.profnet.com/s?q=1"
    ), "a bare # carries nothing (helper 94)"
    wrongs = ("notaurl", "www.profnet.com/sales", "ftp://x.com/a", "https://localhost/")
    for wrong in (*wrongs, "https://www.profnet.com:99999/s", "https://[bad.com/s"):
        with pytest.raises(InvalidParameter, match="is not a search URL"):
            prepare(endpoint("search-leads"), {"sales_nav_url": wrong}, profile=DEFAULT_PROFILE)


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("report.pdf", "ends in .pdf, which is no top-level domain on the internet"),
        ("logo.png", "ends in .png, which is no top-level domain"),
        ("john.smith", "ends in .smith, which is no top-level domain"),
        ("acme.local", "ends in .local, which is no top-level domain"),
        ("https://www.acme.corp/about", "ends in .corp, which is no top-level domain"),
        ("acme.example", "ends in .example, which is no top-level domain"),
        ("co.uk", "is a top-level domain itself, no company's"),
        ("xn--zz.com", "holds xn--zz, which is no valid punycode"),
        ("https://shop.XN--A.de/x", "holds xn--a, which is no valid punycode"),
        ("acme.xn--zz", "holds xn--zz, which is no valid punycode"),
    ],
)
def test_a_domain_whose_top_level_domain_does_not_exist_is_never_sent(
    value: str, says: str
) -> None:
    """Helper 93: file names and `first.last` in a domain column were paid as companies
    (`report.pdf` came back as "Report Pdf"). The Public Suffix List tells a top-level domain
    that exists; the company's other identifiers say why the value is refused."""
    for call in (lambda: ids.domain(value), lambda: ids.company_identifier(value)):
        with pytest.raises(NotAKeyError, match=re.escape(says)):
            call()


@pytest.mark.parametrize(
    "value",
    [
        "acme.com",
        "acme.co.uk",
        "münchen.de",
        "xn--mnchen-3ya.de",
        "acme.app",
        "shop.acme.io",
        "acme.xn--p1ai",
        "shop.xn--80adxhks",  # .москва
        "acme.xn--55qx5d.xn--j6w193g",  # 公司.香港: a suffix of two IDN labels
        "xn--n3h.com",  # ☃: punycode only IDNA 2003 decodes
    ],
)
def test_domains_on_real_top_level_domains_are_taken(value: str) -> None:
    assert ids.domain(value)
    assert ids.company_identifier(value)[0] == "domain"


def test_a_punycode_suffix_is_known_as_its_unicode_rule() -> None:
    """The list is read without its punycode twins of IDN rules (a third of the read): a
    punycode host is decoded label by label before it is asked, the suffix given back in
    the host's own ASCII."""
    from profnet_sheets.client.suffixes import known_suffix

    assert known_suffix("acme.xn--55qx5d.xn--j6w193g") == "xn--55qx5d.xn--j6w193g"
    assert known_suffix("shop.xn--80adxhks.") == "xn--80adxhks"
    assert known_suffix("acme.xn--zz") is None
    assert known_suffix("acme.公司.香港") == "公司.香港"


def test_a_domain_is_no_place_school_or_person_but_a_dotted_name_is() -> None:
    for call in (v.place_name, v.school_name, v.person_name):
        with pytest.raises(NormalizationError, match="is a domain, not a"):
            call("stripe.com")
    assert v.place_name("St.Gallen") == "st.gallen", ".gallen is no top-level domain"
    assert v.school_name("Harvard Univ.") == "harvard univ."


@pytest.mark.parametrize(
    ("call", "spellings"),
    [
        (v.school_name, ["MIT", "mit", " Mit "]),
        (v.school_name, ["Stanford  University", "stanford university", "STANFORD UNIVERSITY"]),
        (v.person_name, ["Anna Schmidt", "anna  schmidt", "ANNA SCHMIDT"]),
    ],
)
def test_a_name_searched_for_is_one_search_in_any_case(
    call: Callable[[object], str], spellings: list[str]
) -> None:
    """Helper 95: `lookup school MIT mit` paid 2 credits for one answer. A search by name is
    not case-sensitive (as a place's, decision 110): one spelling is sent."""
    assert len({call(spelling) for spelling in spellings}) == 1


def test_a_value_too_long_for_a_url_is_refused_before_anything_is_sent() -> None:
    """A server answers a request line past 4-8 KB with a 414 or 400 page (not the service's
    answer, read as a wrong base URL after three); no key of a query is meant that long."""
    from profnet_sheets import InvalidParameter
    from profnet_sheets.client.prepare import MAX_QUERY_BYTES, prepare
    from profnet_sheets.spec import DEFAULT_PROFILE, endpoint

    place = endpoint("find-geocode-by-location")
    assert prepare(place, {"location": "a" * 4000}, profile=DEFAULT_PROFILE)
    with pytest.raises(InvalidParameter, match="location is 70,000 characters long") as caught:
        prepare(place, {"location": "a" * 70_000}, profile=DEFAULT_PROFILE)
    assert caught.value.parameter == "location"
    assert f"{MAX_QUERY_BYTES:,} bytes" in str(caught.value)
    with pytest.raises(InvalidParameter, match="location is 2,000 characters"):
        prepare(place, {"location": "é" * 2000}, profile=DEFAULT_PROFILE)  # 6 bytes each, sent
    # A JSON body has no such limit: a long search is sent.
    leads = endpoint("search-leads")
    assert prepare(leads, {"keywords": "x" * 10_000}, profile=DEFAULT_PROFILE)


@pytest.mark.parametrize("bound", ["inf", "-inf", "nan", float("inf"), float("nan")])
def test_a_growth_range_needs_finite_bounds(bound: object) -> None:
    """JSON has no inf or NaN: requests refused to encode such a body after the call had
    taken its turn, and the call was counted as possibly charged."""
    from profnet_sheets import InvalidParameter
    from profnet_sheets.client.prepare import prepare
    from profnet_sheets.spec import DEFAULT_PROFILE, endpoint

    for bounds in ({"min": 0, "max": bound}, {"min": bound, "max": 10}):
        with pytest.raises(InvalidParameter, match="needs finite numbers for min and max"):
            prepare(
                endpoint("search-companies"),
                {"company_headcount_growth": bounds},
                profile=DEFAULT_PROFILE,
            )


@pytest.mark.parametrize(
    "value", [dt.datetime(2024, 1, 1), dt.date(2024, 1, 1), dt.time(9, 30)], ids=str
)
def test_a_date_where_text_is_wanted_is_said_as_a_date_not_pythons_repr(value: object) -> None:
    """Before: `datetime.datetime(2024, 1, 1, 0, 0) is a datetime, not text ...`."""
    with pytest.raises(NormalizationError) as raised:
        v.headcount_codes(value)
    assert str(raised.value) == (
        f"company_headcounts holds a date or time ({value}), not text: give "
        "company_headcounts as text"
    )


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("https://acme.com/about", "is a URL or an e-mail address"),
        ("www.acme.com", "is a URL or an e-mail address"),
        ("jo@acme.com", "is a URL or an e-mail address"),
        ("😀", "has no letter (nor is it a postal code)"),
        ("*!?", "has no letter (nor is it a postal code)"),
    ],
)
def test_a_place_name_that_names_no_place_is_refused_before_paying(value: str, says: str) -> None:
    """A column of URLs and e-mails was paid as 25 geocode lookups, 22 `not found`."""
    error = refused(lambda: v.place_name(value), value, "location")
    assert says in str(error)


@pytest.mark.parametrize("value", ["Berlin", "10115", "St. Gallen", "São Paulo", "Paris 75001"])
def test_places_people_name_are_taken(value: str) -> None:
    assert v.place_name(value) == value.lower()


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("TRUE", "is a true/false value, not a school's name"),
        ("falsch", "is a true/false value, not a school's name"),
        ("12345", "is a number, not a school's name"),
        ("1.5", "is a number, not a school's name"),
        ("2024-01-31", "is a date, not a school's name"),
        ("2024-01-31 00:00:00", "is a date, not a school's name"),
        ("31/01/2024", "is a date, not a school's name"),
        ("1.31.24", "is a date, not a school's name"),
        ("2024/01/31", "is a date, not a school's name"),
        ("1,5", "is a number, not a school's name"),
        ("1.234,5", "is a number, not a school's name"),
        ("42", "(a school known by a number alone, such as 42: its whole name, École 42)"),
        ("jane@acme.com", "is a URL or an e-mail address, not a school's name"),
        ("https://www.profnet.com/in/anna/", "is a URL or an e-mail address, not a school's"),
    ],
)
def test_a_school_name_that_is_a_spreadsheets_leftover_is_refused_before_paying(
    value: str, says: str
) -> None:
    """A column of TRUE and dates was paid as school searches (1 credit each)."""
    error = refused(lambda: v.school_name(value), value, "school_name")
    assert says in str(error)
    assert "give a school's name such as Stanford University" in str(error)


@pytest.mark.parametrize(
    "value", ["Stanford University", "École 42", "School 21", "TU München", "42 Berlin"]
)
def test_school_names_people_give_are_sent_in_lower_case(value: str) -> None:
    assert v.school_name(f"  {value} ") == value.lower()


@pytest.mark.parametrize(
    ("value", "what"),
    [
        ("2023-09-08", "a date"),
        ("31/01/2024", "a date"),
        ("-5", "a number"),
        ("1.5", "a number"),
        ("1,5", "a number"),
        ("TRUE", "a true/false value"),
        ("jane@acme.com", "a URL or an e-mail address"),
        ("www.acme.com", "a URL or an e-mail address"),
        # Helper 94: times, dates in words, quarters, yes/no, inf were still paid.
        ("12:30", "a time"),
        ("9/8/2023 14:05", "a time"),
        ("3 Mar 2023", "a date"),
        ("March 3, 2023", "a date"),
        ("Oct 2024", "a date"),
        ("Q3 2024", "a date"),
        ("Yes", "a true/false value"),
        ("No", "a true/false value"),
        ("inf", "a number"),
    ],
)
def test_a_place_or_a_person_that_is_a_spreadsheets_leftover_is_refused_before_paying(
    value: str, what: str
) -> None:
    """Helper 93: dates, signed numbers and true/false were paid as places (1 credit each,
    `not found`), a date as a person's name (matched "2023-09-08 Verma"): one rule, the
    school's (`leftover`), for every name asked for. A place's digits alone stay (a postal
    code)."""
    place = refused(lambda: v.place_name(value), value, "location")
    assert f"is {what}, not a place: give a place name such as Berlin" in str(place)
    person = refused(lambda: v.person_name(value), value, "name")
    assert f"is {what}, not a person's name: give a person's name" in str(person)


@pytest.mark.parametrize("value", ["€100", "50%", "(5)"])
def test_a_name_without_a_letter_is_refused_but_a_postal_code_is_a_place(value: str) -> None:
    assert "has no letter" in str(refused(lambda: v.place_name(value), value, "location"))
    assert "has no letter" in str(refused(lambda: v.school_name(value), value, "school_name"))
    assert "has no letter" in str(refused(lambda: v.person_name(value), value, "name"))
    for postal in ("10115", "100-0001", "01310 100"):
        assert v.place_name(postal) == postal


@pytest.mark.parametrize(
    "value", ["J.Kim", "TU.Berlin", "Uni.Wien", "Mar del Plata", "Jan Novak", "Decatur", "Mayo"]
)
def test_names_that_look_like_a_domain_or_a_date_are_names(value: str) -> None:
    """Helper 94: `J.Kim` was refused as a domain (.kim exists): a domain is written in lower
    case; a month's name at a name's start is no date."""
    assert v.place_name(value) == value.lower()
    assert v.person_name(value) == value.lower()
    assert v.school_name(value) == value.lower()


@pytest.mark.parametrize("value", ["Anna Schmidt", "Zoë O'Neil", "李娜", "Jean-Luc Picard 3"])
def test_person_names_people_give_are_sent_spaces_collapsed(value: str) -> None:
    assert v.person_name(f"  {value}\u00a0 ") == value.lower()
    assert refused(lambda: v.person_name("42"), "42", "name")


@pytest.mark.parametrize("value", ["N/A", "-", "none", "TBD", " n/a "])
def test_a_placeholder_in_a_filters_free_text_is_refused_never_searched_for(value: str) -> None:
    """Helper 96: `search leads --title-keywords N/A` paid 55 credits for a search of the
    word `N/A`. A batch's placeholders are blanks before this; given as a filter, refused."""
    assert "stands for no value: give keywords a value" in str(
        refused(lambda: v.free_text(value, "keywords"), value, "keywords")
    )
    with pytest.raises(NormalizationError, match="stands for no value"):
        v.string_list(["CTO", value], "title_keywords")
    assert v.free_text("N/A Systems", "company_name") == "N/A Systems"


@pytest.mark.parametrize("mark", ["\u200f", "\u200e", "\u202e", "\u2067", "\u061c", "\u00ad"])
def test_direction_marks_and_soft_hyphens_are_dropped_like_zero_width_spaces(mark: str) -> None:
    """Helper 96: `\u200fklarna.com` was refused, and `\u202eBerlin` paid and not found: text
    pasted from a page written right to left brings its direction marks along."""
    assert ids.domain(f"{mark}klarna.com") == "klarna.com"
    assert v.place_name(f"{mark}Berlin") == "berlin"
    assert v.school_name(f"Stan{mark}ford") == "stanford"


def test_full_width_names_are_searched_as_their_plain_letters() -> None:
    """Helper 96: a full-width `Berlin` (an East Asian keyboard's) was paid and not found."""
    full_width = "\uff22\uff45\uff52\uff4c\uff49\uff4e"
    assert v.place_name(full_width) == "berlin"
    assert v.school_name(full_width + " \uff35") == "berlin u"
    assert v.person_name("\uff21\uff4e\uff4e\uff41") == "anna"


@pytest.mark.parametrize("value", ["0", 0, "12", 7.0])
def test_a_number_too_short_for_a_postal_code_is_no_place(value: object) -> None:
    """Helper 96: `0` (what a formula gives for an empty cell) was geocoded and paid."""
    with pytest.raises(NormalizationError, match="is a number, not a place"):
        v.place_name(value)
    assert v.place_name("101") == "101", "Iceland's postal codes have three digits"


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("/in/a b/", "has a space or a control character in its name"),
        ("/in/a%20b/", "has a space or a control character in its name"),
        ("/in/%00/", "has a space or a control character in its name"),
        ("/in/-/", "has no letter or digit in its name"),
        ("/in/--_/", "has no letter or digit in its name"),
        ("/in/" + "a" * 101 + "/", "has a name of 101 characters (a profile's has 100 at most)"),
        ("/company/%07acme/", "has a space or a control character in its name"),
    ],
)
def test_a_page_url_whose_name_cannot_be_one_is_refused(path: str, says: str) -> None:
    """Helper 96: `/in/a b`, `/in/%00`, `/in/-` and a 500-character name were paid."""
    call = ids.profile_url if path.startswith("/in/") else ids.company_url
    with pytest.raises(NormalizationError, match=re.escape(says)):
        call("https://www.profnet.com" + path)


def test_a_members_id_in_a_profile_url_keeps_its_case() -> None:
    """Helper 96: `/in/ACoAAB12345xyZ` was sent in lower case, another id (the network's
    member ids are case-sensitive); a profile's own name is not."""
    member = "https://www.profnet.com/in/ACoAAB12345xyZ/"
    assert ids.profile_url(member) == member
    assert ids.profile_url("https://www.profnet.com/in/Anna-Schmidt") == (
        "https://www.profnet.com/in/anna-schmidt/"
    )
    assert ids.profile_url("https://www.profnet.com/in/a\u200bnna/").endswith("/in/anna/")
    short = "https://www.profnet.com/in/ACoAAB12345/"  # helper 97: lower-cased
    assert ids.profile_url(short) == short
    assert ids.profile_url("https://www.profnet.com/in/AClaudia-Schneider-12/") == (
        "https://www.profnet.com/in/aclaudia-schneider-12/"
    ), "a name starting AC is a name: one key in any case"


@pytest.mark.parametrize("word", ["NAT", "Nil", "NA", "nan"])
def test_a_placeholder_that_is_a_name_or_a_word_is_one_where_words_are_asked_for(
    word: str,
) -> None:
    """Helper 97: `--keywords NAT` and `PROFNET_SEARCH_POSTS("NIL")` were refused as no value,
    and `PROFNET_FIND_PROFILES("Nat", "Acme")` searched by the company alone (a stranger
    paid): Na and Nan are surnames, Nat and Nil given names, NIL and NAT topics. They stay
    placeholders in a key's column."""
    assert v.free_text(word, "keywords") == word
    assert v.is_placeholder(word)
    assert not v.is_placeholder(word, words=True)
    assert v.is_placeholder("N/A", words=True)


def test_a_searchs_location_is_one_search_in_any_case() -> None:
    """Helper 97: `PROFNET_SCHOOLS("MIT", "Cambridge")` and `("mit", "cambridge")` were two
    paid searches: a location is a place's name, read as `place_name` reads one."""
    from profnet_sheets.client.prepare import prepare
    from profnet_sheets.spec import DEFAULT_PROFILE, endpoint

    for name, key in (("google-schools", "school_name"), ("google-full-profiles", "name")):
        ep = endpoint(name)
        spellings = [{key: "MIT", "location": "Cambridge"}, {key: "mit", "location": " CAMBRIDGE"}]
        assert len({str(prepare(ep, it, profile=DEFAULT_PROFILE)) for it in spellings}) == 1
