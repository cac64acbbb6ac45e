"""Requests are built directly as requests' own PreparedRequest.prepare would build them."""

from __future__ import annotations

from typing import Any

import requests
from hypothesis import given, settings
from hypothesis import strategies as st

from profnet_sheets.client.session import prepare_request
from profnet_sheets.spec import ENDPOINTS

BASE = "http://127.0.0.1:8765"
HEADERS = {"User-Agent": "profnet-sheets", "Accept": "application/json"}
TEXT = st.text(min_size=0, max_size=30)
VALUES = st.one_of(TEXT, st.integers(-(10**12), 10**12), st.sampled_from(["true", "false"]))
JSON = st.recursive(
    st.one_of(TEXT, st.integers(-(10**9), 10**9), st.booleans(), st.none()),
    lambda inner: st.lists(inner, max_size=4),
    max_leaves=8,
)


def _theirs(method: str, url: str, payload: dict[str, Any]) -> requests.PreparedRequest:
    prepared = requests.PreparedRequest()
    get = method == "GET"
    prepared.prepare(
        method=method,
        url=url,
        headers=HEADERS,
        params=payload if get else None,
        json=None if get else payload,
    )
    return prepared


@settings(max_examples=300, deadline=None)
@given(
    endpoint=st.sampled_from(ENDPOINTS),
    names=st.lists(st.text(min_size=1, max_size=12), max_size=4, unique=True),
    data=st.data(),
)
def test_the_same_request_as_requests_builds(
    endpoint: Any, names: list[str], data: st.DataObject
) -> None:
    values = VALUES if endpoint.method == "GET" else JSON
    payload = {name: data.draw(values) for name in names}
    ours = prepare_request(BASE, endpoint, payload, HEADERS)
    theirs = _theirs(endpoint.method, BASE + endpoint.path, payload)
    assert (ours.method, ours.url, ours.body) == (theirs.method, theirs.url, theirs.body)
    assert dict(ours.headers) == dict(theirs.headers)
