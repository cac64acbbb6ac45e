"""The request an attempt sends, prepared the way requests' documented "prepared requests" are:
each endpoint's request prepared once by the session, completed per call (its query or JSON
body, then the key), and sent with the environment's settings read once for the service."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

import requests

from profnet_sheets.spec import Endpoint


def query_string(params: Mapping[str, Any]) -> str:
    """`params` as requests encodes them into a URL: None left out, an iterable (not text) as
    one pair per item, text as UTF-8 (what `PreparedRequest.prepare_url` writes, without
    walking the session's settings for each call)."""
    pairs: list[tuple[str, Any]] = []
    for name, value in params.items():
        one = isinstance(value, str | bytes) or not hasattr(value, "__iter__")
        for item in (value,) if one else value:
            if item is not None:
                pairs.append((name, item))
    return urlencode(pairs)


def with_query(url: str, params: Mapping[str, Any]) -> str:
    """`url` with `params` appended to its query, as requests would."""
    query = query_string(params)
    if not query:
        return url
    return f"{url}{'&' if '?' in url else '?'}{query}"


class Outgoing:
    """Prepares the attempts of one session towards one service. The session's headers are
    put on each endpoint's request once; the proxy, CA bundle and client certificate the
    environment names for the service are read once (`Session.merge_environment_settings`,
    on the URL as prepared: an IDNA host as NO_PROXY lists it), as httpx's clients read them
    when made. Settings of the session changed later are not seen (a new client sees them)."""

    def __init__(self, session: requests.Session, base_url: str) -> None:
        self.session = session
        self.base_url = base_url
        prepared = requests.Request("GET", base_url, auth=_NoKey()).prepare()
        self.environment: dict[str, Any] = dict(
            session.merge_environment_settings(prepared.url, {}, None, None, None)
        )
        self._prepared: dict[tuple[str, str], requests.PreparedRequest] = {}
        self._lock = threading.Lock()

    def prepare(
        self, endpoint: Endpoint, payload: Mapping[str, Any], auth: requests.auth.AuthBase
    ) -> requests.PreparedRequest:
        """The request of one attempt: the endpoint's, with `payload` as its query (GET) or
        JSON body, `auth` put on last."""
        if self.session.cookies:  # a service that sets cookies gets them back, as requests does
            return self._prepared_by_session(endpoint, payload, auth)
        request = self._endpoint_request(endpoint).copy()
        request.hooks = {event: list(hooks) for event, hooks in request.hooks.items()}
        if endpoint.method == "GET":
            request.url = with_query(request.url or "", payload)
        else:
            request.prepare_body(None, None, json=dict(payload))
        return auth(request)

    def _endpoint_request(self, endpoint: Endpoint) -> requests.PreparedRequest:
        """The endpoint's request with the session's headers, without payload, key or cookie
        (a cookie arriving meanwhile must not stay in it; an `auth` that puts nothing stands
        in the way of requests' own: a URL's user info)."""
        known = self._prepared.get((endpoint.method, endpoint.path))
        if known is not None:
            return known
        with self._lock:
            bare = requests.Request(
                endpoint.method,
                self.base_url + endpoint.path,
                headers=dict(self.session.headers),
                auth=_NoKey(),
            )
            return self._prepared.setdefault((endpoint.method, endpoint.path), bare.prepare())

    def _prepared_by_session(
        self, endpoint: Endpoint, payload: Mapping[str, Any], auth: requests.auth.AuthBase
    ) -> requests.PreparedRequest:
        get = endpoint.method == "GET"
        request = requests.Request(
            endpoint.method,
            self.base_url + endpoint.path,
            params=payload if get else None,
            json=None if get else dict(payload),
            auth=auth,
        )
        return self.session.prepare_request(request)


class _NoKey(requests.auth.AuthBase):
    """Puts nothing on a request (and so keeps requests from putting its own)."""

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        return request
