"""Every attempt has a total deadline: a server that drips its answer one byte at a time, or
sends a body that never ends, gives a timeout (possibly charged) once it passes."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from profnet_sheets import Client, Settings, TransportError
from profnet_sheets.setup_check import check_setup

HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"


def drip(connection: socket.socket, stop: threading.Event) -> None:
    """The status line and everything after it, one byte every 50 ms, for ever."""
    for byte in HEAD + b"{" + b" " * 100_000:
        if stop.wait(0.05):
            return
        connection.sendall(bytes([byte]))


def endless(connection: socket.socket, stop: threading.Event) -> None:
    """Headers at once, then a chunked body that never ends, a chunk every 10 ms."""
    connection.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    connection.sendall(b"1\r\n{\r\n")
    while not stop.wait(0.01):
        connection.sendall(b"400\r\n" + b" " * 0x400 + b"\r\n")


@pytest.fixture(params=[drip, endless], ids=["drip", "endless body"])
def hostile(request: pytest.FixtureRequest) -> Iterator[str]:
    """A server on loopback that answers every request the hostile way of the parameter."""
    answer: Callable[[socket.socket, threading.Event], None] = request.param
    stop = threading.Event()
    listener = socket.create_server(("127.0.0.1", 0))

    def handle(connection: socket.socket) -> None:
        with connection:
            connection.recv(65536)  # the request
            with contextlib.suppress(OSError):  # the client shut it: what the deadline does
                answer(connection, stop)

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=handle, args=(connection,), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    stop.set()
    listener.close()


def ends(work: Callable[[], object]) -> object:
    """What `work` returned or raised, once it ended (within a minute: it must end)."""
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(work())
        except Exception as error:
            outcome.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(60)
    assert not thread.is_alive(), "the call is still running: it has no deadline"
    return outcome[0]


def test_a_lookup_ends_at_its_deadline_as_a_possibly_charged_timeout(
    hostile: str, tmp_path: Path
) -> None:
    client = Client(
        api_key="k",
        base_url=hostile,
        cache="memory",
        cache_dir=tmp_path,
        timeout=5,
        deadline=0.5,
        retries=0,
    )
    with client:
        error = ends(lambda: client.call("get-company-details", domain="stripe.com"))
        assert isinstance(error, TransportError)
        assert error.details == "timeout"
        assert error.may_have_been_charged
        assert "timed out waiting for the answer" in str(error)
        assert client.budget.uncertain > 0  # counted as possibly charged, as a read timeout


def test_the_setup_check_ends_at_its_deadline(hostile: str, tmp_path: Path) -> None:

    settings = Settings.load(
        api_key="k", base_url=hostile, cache_dir=tmp_path, timeout=5, deadline=0.5
    )
    report = ends(lambda: check_setup(settings))
    assert not isinstance(report, Exception)
    assert "(no answer in time)" in str(getattr(report, "problem", ""))
    assert "or raise PROFNET_TIMEOUT for a slow service (the check waited 5 s)" in str(
        getattr(report, "problem", "")
    ), "a new user's review: the timeout was never named"


def test_a_call_past_its_deadline_is_not_tried_again(hostile: str, tmp_path: Path) -> None:
    """The deadline bounds the call: one attempt, one credit possibly charged, not one per retry
    (a lookup previewed at 1 credit counted 5 maybe against a dripping server)."""
    client = Client(
        api_key="k", base_url=hostile, cache="memory", cache_dir=tmp_path, timeout=5, deadline=0.5
    )
    assert client.settings.retries > 0
    with client:
        error = ends(lambda: client.call("get-company-details", domain="stripe.com"))
        assert isinstance(error, TransportError)
        assert error.details == "timeout"
        assert "within the call's deadline (PROFNET_DEADLINE)" in str(error)
        assert client.budget.uncertain == 1
