"""A service that quotes the API key back in an error answer: the key reaches no message, no
error's details and no cache file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from profnet_sheets import Client, ProfnetError
from tests.integration.client.conftest import serve

pytestmark = pytest.mark.integration
KEY = "sk-live-quoted-back-0123456789"


class _Echo(BaseHTTPRequestHandler):
    """Answers every call with `status`, its body quoting the key it was sent."""

    status = 404
    as_json = True

    def do_GET(self) -> None:
        sent = self.headers.get("X-SERVICE-API-KEY", "")
        if self.as_json:
            body = json.dumps({"message": "not_found", "details": f"no company for key {sent}"})
        else:
            body = f"<html>upstream refused key={sent}</html>"
        data = body.encode()
        self.send_response(self.status)
        self.send_header("Content-Type", "application/json" if self.as_json else "text/html")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def echo() -> Iterator[type[_Echo]]:
    yield from serve(type("Echo", (_Echo,), {}))


@pytest.mark.parametrize(("status", "as_json"), [(404, True), (400, True), (403, False)])
def test_a_key_quoted_back_in_an_error_is_masked_and_never_kept(
    echo: type[_Echo], tmp_path: Path, status: int, as_json: bool
) -> None:
    echo.status, echo.as_json = status, as_json
    with (
        Client(
            api_key=KEY, base_url=echo.base_url, cache=str(tmp_path), cache_dir=tmp_path, retries=0
        ) as client,
        pytest.raises(ProfnetError) as raised,
    ):
        client.get_company_details(domain="acme.io")
    error = raised.value
    assert KEY not in str(error)
    assert KEY not in repr(getattr(error, "details", ""))
    assert KEY not in json.dumps(getattr(error, "body", None), default=str)
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), f"the key is in {path.name}"
