"""The fast path of an already-clean domain (`acme.com`) gives what the whole parser gives."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from profnet_sheets.client import identifiers as ids
from profnet_sheets.errors import NormalizationError
from profnet_sheets.spec.profile import DEFAULT_NETWORK_HOSTS
from tests.unit.test_normalize import DOMAINISH, INPUTS, URLISH

HOSTS = (DEFAULT_NETWORK_HOSTS, ("linkedin.com", "linkedin.cn"), ("acme.com",))
# Tricky texts near the fast path's edge: www, the network's hosts and their subdomains,
# personal e-mail domains, IP-like and punycode names, label and name lengths, case, dots.
TRICKY = (
    "acme.com",
    "a.io",
    "d1.io",
    "www.com",
    "www.acme.com",
    "www2.acme.com",
    "wwwacme.com",
    "acme.www.com",
    "profnet.com",
    "www.profnet.com",
    "de.profnet.com",
    "a.b.profnet.com",
    "notprofnet.com",
    "profnet.com.evil.io",
    "linkedin.cn",
    "gmail.com",
    "yahoo.co.uk",
    "mail.gmail.com",
    "1.2.3.4",
    "1.2.3.com",
    "127.0.0.1.nip.io",
    "xn--mnchen-3ya.de",
    "xn--zz.com",
    "acme.xn--p1ai",
    "a" * 63 + ".com",
    "a" * 64 + ".com",
    ".".join(["a" * 61] * 4) + ".io",
    ".".join(["a" * 62] * 4) + ".io",
    "acme.com.",
    "acme..com",
    "-acme.com",
    "acme-.com",
    "ac--me.com",
    "acme.c",
    "acme.co1",
    "ACME.com",
    "Acme.Com",
    "v.a",
    "na.na",
    "nan.io",
    "none.com",
    "acme.com/",
    "acme.com:443",
    "jane@acme.com",
    " acme.com",
    "acme.com\u200b",
    "1035",
    "1e5.com",
    "1.E5",
    "ACME.COM",
    "WWW.ACME.COM",
    " D1.io\u00a0",
    "\u200bacme.com\u200b",
    "\tacme.com\n",
    "acme.com\u00a0x",
    "\u212a.com",
    "\u212aacme.com",
    "acme.\u212aom",
    "'acme.com'",
    "<acme.com>",
    "N.A",
    "NA.NA",
    "Profnet.COM",
    "WWW.profnet.com",
    "DE.PROFNET.COM",
    "GMAIL.COM",
)
HOSTLIKE = st.builds(
    "{}.{}".format,
    st.lists(st.text(alphabet="abwzAW09-", min_size=1, max_size=8), min_size=1, max_size=3).map(
        ".".join
    ),
    st.sampled_from(["com", "IO", "co.uk", "profnet.com", "GMail.com", "linkedin.cn", "c", "1"]),
)
BLANKS = st.sampled_from(["", "", " ", "\u00a0", "\u200b", "\t", "\ufeff", "'", ".", "x"])
PLAIN = st.builds("{}{}{}".format, BLANKS, HOSTLIKE, BLANKS)


def _outcome(call: Callable[[], object]) -> object:
    """What a call gives: its result, or the error's type, message, parameter and value."""
    try:
        return call()
    except NormalizationError as error:
        return type(error), str(error), error.parameter, error.value


def _same(value: object, hosts: ids.Hosts) -> None:
    fast = _outcome(lambda: ids.domain.__wrapped__(value, hosts))  # type: ignore[attr-defined]
    assert fast == _outcome(lambda: ids._parsed_domain(value, hosts)), value
    if isinstance(value, str):  # numbers and booleans are chosen before either path
        chosen = _outcome(lambda: ids.company_parameter(value, hosts))
        assert chosen == _outcome(lambda: ids._parameter_of(value, hosts)), value


@pytest.mark.parametrize("hosts", HOSTS)
@pytest.mark.parametrize("value", TRICKY)
def test_the_fast_path_gives_what_the_parser_gives(value: str, hosts: ids.Hosts) -> None:
    _same(value, hosts)


def test_the_fast_path_is_taken_for_plain_hostnames_only() -> None:
    assert ids._plain_host("acme.com") == "acme.com"
    assert ids._plain_host(" D1.io\u200b") == "d1.io"
    for value in ("www.acme.com", "acme.com.", "'acme.com'", "1.2.3.4", "acme", "\u212a.com"):
        assert ids._plain_host(value) is None, value
    assert ids._plain_host(b"acme.com") is None


@settings(max_examples=600, deadline=None)
@given(value=st.one_of(PLAIN, DOMAINISH, URLISH, INPUTS), hosts=st.sampled_from(HOSTS))
def test_the_fast_path_agrees_on_any_input(value: object, hosts: ids.Hosts) -> None:
    _same(value, hosts)
