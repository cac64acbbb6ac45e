"""How the transport tells an attempt that never left from one that may have been read:
a TLS handshake that failed sent nothing (no request goes before the handshake)."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator

import pytest
import requests

from profnet_sheets.client.transport import _failure


@pytest.fixture
def plain_http() -> Iterator[str]:
    """An http-only server on loopback (what an https:// base URL may wrongly name)."""
    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_an_https_url_for_an_http_server_is_a_connection_never_made(plain_http: str) -> None:
    """A new user's review: `https://` for the http-only sandbox counted 12 credits as
    possibly spent (`0 (+12 possibly)` for good) when nothing could have been sent."""
    with pytest.raises(requests.exceptions.SSLError) as failed:
        requests.get(f"https://{plain_http}/v1/x", timeout=5)
    assert _failure(failed.value, expired=False) == "connect"


def test_a_huge_concurrency_keeps_a_bounded_pool_of_connections() -> None:
    """A fuzzed `--concurrency 1000000000000` made urllib3 fill a pool of 2 * 10**12 slots:
    10 GB before the first call. The connections kept are bounded (calls beyond still go
    out, on connections opened for them)."""
    from profnet_sheets.client.transport import POOL_MOST, Transport
    from profnet_sheets.config import Settings

    transport = Transport(Settings(concurrency=10**12), "http://127.0.0.1:9")
    try:
        adapter = transport.session.get_adapter("http://127.0.0.1:9/")
        kept = adapter.poolmanager.connection_pool_kw["maxsize"]  # type: ignore[attr-defined]
        assert kept == POOL_MOST
    finally:
        transport.close()
