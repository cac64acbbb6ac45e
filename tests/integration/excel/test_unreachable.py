"""A service that cannot be reached is one clear cell text, for a range as for one key."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from profnet_sheets import Client
from profnet_sheets.excel import cells, formulas, messages, session
from profnet_sheets.excel.session import SessionConfig

pytestmark = pytest.mark.integration
UNREACHABLE = cells.error_text(messages.UNREACHABLE)


@pytest.fixture
def unreachable(tmp_path: Path) -> Iterator[Client]:
    """The Excel session on a client whose base URL is a closed port on loopback."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = Client(
        api_key="k",
        base_url=f"http://127.0.0.1:{port}",
        cache=str(tmp_path),
        cache_dir=tmp_path,
        backoff=0.01,
        max_backoff=0.02,
    )
    session.install(client, SessionConfig(None, False, "the test"))
    yield client
    session.reset()
    client.close()


def test_a_range_gives_one_clear_text_and_stops_sending(unreachable: Client) -> None:
    column = [[f"d{i}.io"] for i in range(60)]
    out = formulas.company(column, "company_name")
    assert out == [[UNREACHABLE]] * 60
    assert unreachable.unreachable is not None
    assert formulas.company("stripe.com", "company_name") == UNREACHABLE
