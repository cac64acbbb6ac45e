"""The key never follows a redirect, never shows in logs or tracebacks; a rate given paces."""

from __future__ import annotations

import itertools
import logging
import threading
import traceback
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from profnet_sheets import Client, ConfigurationError, ServiceError, TransportError
from profnet_sheets.client.pace import Pace, Ticket
from profnet_sheets.sandbox import RunningSandbox
from tests.integration.client.conftest import KEY, MakeClient

pytestmark = pytest.mark.integration


class Recorder(BaseHTTPRequestHandler):
    seen: ClassVar[list[dict[str, str]]] = []
    redirect_to: str | None = None

    def do_GET(self) -> None:
        type(self).seen.append(dict(self.headers))
        if type(self).redirect_to:
            self.send_response(302)
            self.send_header("Location", f"{type(self).redirect_to}{self.path}")
            self.end_headers()
        else:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"data": {}}')

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def two_hosts() -> Iterator[tuple[str, type[Recorder]]]:
    class Elsewhere(Recorder):
        seen: ClassVar[list[dict[str, str]]] = []

    class Redirecting(Recorder):
        seen: ClassVar[list[dict[str, str]]] = []

    other = ThreadingHTTPServer(("127.0.0.1", 0), Elsewhere)
    Redirecting.redirect_to = f"http://127.0.0.1:{other.server_address[1]}"
    first = ThreadingHTTPServer(("127.0.0.1", 0), Redirecting)
    for server in (other, first):
        threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{first.server_address[1]}", Elsewhere
    for server in (other, first):
        server.shutdown()


def test_a_redirect_is_not_followed_with_the_key(
    two_hosts: tuple[str, type[Recorder]], tmp_path: Path
) -> None:
    base_url, elsewhere = two_hosts
    client = Client(api_key="redirect-secret", base_url=base_url, cache=str(tmp_path))
    with client, pytest.raises(ServiceError, match="not followed"):
        client.get_company_details(domain="a.io")
    assert elsewhere.seen == [], "nothing reached the other host"


def test_the_key_is_in_no_log_line_and_no_traceback(
    make_client: MakeClient, fresh: RunningSandbox, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    client = make_client(retries=0)
    client.get_company_details(domain="logged.io")
    client.search_posts(keyword="logged")
    try:
        client.get_job_details(job_id="999")
    except Exception:
        text = traceback.format_exc()
        assert KEY not in text
    assert caplog.records, "debug logging was captured"
    assert KEY not in caplog.text


def test_an_unreachable_service_is_a_transport_error(tmp_path: Path) -> None:
    client = Client(
        api_key="k", base_url="http://127.0.0.1:9", cache=str(tmp_path), retries=1, backoff=0.01
    )
    with pytest.raises(TransportError, match="could not reach") as caught:
        client.get_company_details(domain="a.io")
    assert "k" not in (caught.value.details or "")
    client.close()


def test_a_rate_the_user_gives_spaces_the_calls() -> None:
    clock = [100.0]
    pace = Pace(cap=16, rate_cap=10, clock=lambda: clock[0])
    started = []
    for _ in range(5):
        got = pace.core.start(clock[0])
        while not isinstance(got, Ticket):
            assert got is not None
            clock[0] += got
            got = pace.core.start(clock[0])
        started.append(got.started)
    gaps = [later - earlier for earlier, later in itertools.pairwise(started)]
    assert gaps == pytest.approx([0.1, 0.1, 0.1, 0.1])


def test_a_cache_folder_that_cannot_be_made_is_a_clear_configuration_error(
    tmp_path: Path,
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(ConfigurationError, match="PROFNET_CACHE_DIR") as caught:
        Client(api_key="k", base_url="http://127.0.0.1:9", cache_dir=blocker / "cache")
    assert str(blocker) in str(caught.value)
