"""The request an attempt sends is the one requests' own preparation would make: the same URL,
query, body and headers, the key put on last, and none of requests' own credentials."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import requests

from profnet_sheets.client.outgoing import Outgoing, query_string, with_query
from profnet_sheets.client.transport import KeyHeader
from profnet_sheets.config import ApiKey
from profnet_sheets.spec import endpoint

PAYLOADS: list[dict[str, Any]] = [
    {},
    {"domain": "acme.io"},
    {"domain": "Ünïcode straße.de", "x": "a&b=c+d e/f?g#h%"},
    {"ids": ["1", "2", "3"], "skip": None, "page": 2, "exact": True},
    {"ids": ("a b", "c"), "empty": [], "none_inside": [None, "kept"]},
    {"emoji": "👩‍💻", "tilde": "~user_name.-"},
]


def by_requests(url: str, params: dict[str, Any]) -> str:
    return requests.Request("GET", url, params=params).prepare().url or ""


@pytest.mark.parametrize("params", PAYLOADS)
def test_a_query_is_the_one_requests_writes(params: dict[str, Any]) -> None:
    url = "http://127.0.0.1:8000/v1/get-company-details"
    assert with_query(url, params) == by_requests(url, params)
    already = url + "?key=1"
    assert with_query(already, params) == by_requests(already, params)


def test_nothing_to_ask_leaves_the_url_as_it_is() -> None:
    assert query_string({"a": None, "b": []}) == ""
    assert with_query("http://h/p", {"a": None}) == "http://h/p"


def session_for(trust_env: bool = False) -> requests.Session:
    session = requests.Session()
    session.trust_env = trust_env
    session.headers.update({"User-Agent": "profnet-sheets", "X-Gateway": "team"})
    return session


def by_session(
    session: requests.Session, name: str, payload: dict[str, Any], key: ApiKey | None, base: str
) -> requests.PreparedRequest:
    ep = endpoint(name)
    get = ep.method == "GET"
    return session.prepare_request(
        requests.Request(
            ep.method,
            base + ep.path,
            params=payload if get else None,
            json=None if get else payload,
            auth=KeyHeader(key, "X-API-Key"),
        )
    )


@pytest.mark.parametrize(
    ("name", "payload"),
    [
        ("get-company-details", {"domain": "acme.io"}),
        ("get-lead-results", {"request_id": "r 1", "page": 3}),
        ("search-leads", {"titles": ["CTO", "VP Eng"], "location": "Zürich", "limit": None}),
    ],
)
@pytest.mark.parametrize("key", [ApiKey("sk-secret"), None])
def test_an_attempt_is_what_the_session_would_prepare(
    name: str, payload: dict[str, Any], key: ApiKey | None
) -> None:
    base = "http://127.0.0.1:8000/v1"
    session = session_for()
    outgoing = Outgoing(session, base)
    for _ in range(2):  # the endpoint's prepared request is reused, never changed
        ours = outgoing.prepare(endpoint(name), payload, KeyHeader(key, "X-API-Key"))
        theirs = by_session(session, name, payload, key, base)
        assert (ours.method, ours.url, ours.body) == (theirs.method, theirs.url, theirs.body)
        assert dict(ours.headers) == dict(theirs.headers)
    assert ("X-API-Key" in ours.headers) is (key is not None)


def test_neither_netrc_nor_a_urls_user_info_is_sent_as_basic_auth(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login user password hunter2\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    for base in ("http://127.0.0.1:8000/v1", "http://me:pw@127.0.0.1:8000/v1"):
        outgoing = Outgoing(session_for(trust_env=True), base)
        request = outgoing.prepare(
            endpoint("get-company-details"), {"domain": "a.io"}, KeyHeader(None, "X-API-Key")
        )
        assert "Authorization" not in request.headers, base


def test_a_cookie_the_service_set_goes_back_with_the_next_attempt() -> None:
    session = session_for()
    session.cookies.set("AWSALB", "sticky", domain="127.0.0.1", path="/")
    request = Outgoing(session, "http://127.0.0.1:8000/v1").prepare(
        endpoint("get-company-details"), {"domain": "a.io"}, KeyHeader(ApiKey("k"), "X-API-Key")
    )
    assert request.headers["Cookie"] == "AWSALB=sticky"
    assert request.headers["X-API-Key"] == "k"


def test_the_environment_is_read_once_for_the_service(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.corp.example:3128")
    monkeypatch.setenv("NO_PROXY", "")
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", "/etc/corp/ca.pem")
    remote = Outgoing(session_for(trust_env=True), "https://api.example.com")
    assert remote.environment["proxies"].get("https") == "http://proxy.corp.example:3128"
    assert remote.environment["verify"] == "/etc/corp/ca.pem"
    local = Outgoing(session_for(trust_env=False), "http://127.0.0.1:9")
    assert local.environment["proxies"] == {}
    assert local.environment["verify"] is True


def test_a_cookie_that_arrives_while_an_endpoint_is_first_prepared_stays_out_of_it() -> None:
    """The endpoint's request is kept for every later call: a cookie set by another thread's
    answer meanwhile must not be kept in it (it would be sent after the service removed it)."""
    session = session_for()
    outgoing = Outgoing(session, "http://127.0.0.1:8000/v1")
    session.cookies.set("AWSALB", "sticky", domain="127.0.0.1", path="/")
    kept = outgoing._endpoint_request(endpoint("get-company-details"))  # as if mid-race
    assert "Cookie" not in kept.headers
    session.cookies.clear()  # the service removed it
    request = outgoing.prepare(
        endpoint("get-company-details"), {"domain": "a.io"}, KeyHeader(ApiKey("k"), "X-API-Key")
    )
    assert "Cookie" not in request.headers


def test_a_hook_put_on_one_attempt_is_not_on_the_next() -> None:
    outgoing = Outgoing(session_for(), "http://127.0.0.1:8000/v1")
    ep, auth = endpoint("get-company-details"), KeyHeader(None, "X-API-Key")
    first = outgoing.prepare(ep, {"domain": "a.io"}, auth)
    first.register_hook("response", lambda response, **kwargs: response)
    assert outgoing.prepare(ep, {"domain": "b.io"}, auth).hooks == {"response": []}


def test_no_proxy_is_read_for_the_host_as_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    """An IDNA host is sent in its ASCII form, which is how NO_PROXY lists it."""
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.corp.example:3128")
    monkeypatch.setenv("NO_PROXY", "xn--bcher-kva.example")
    direct = Outgoing(session_for(trust_env=True), "https://bücher.example/v1")
    assert "https" not in direct.environment["proxies"]
    monkeypatch.setenv("NO_PROXY", "other.example")
    proxied = Outgoing(session_for(trust_env=True), "https://bücher.example/v1")
    assert proxied.environment["proxies"]["https"] == "http://proxy.corp.example:3128"


def test_any_iterable_but_text_is_one_pair_per_item_as_requests_writes_it() -> None:
    url = "http://h/p"
    for params in ({"r": range(3)}, {"d": {"x": 1, "y": 2}}, {"g": frozenset({"z"})}):
        assert with_query(url, params) == by_requests(url, params)
