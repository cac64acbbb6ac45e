"""The client tests' sandbox and clients (reused), and helpers to read what the server charged."""

from __future__ import annotations

import time
from collections.abc import Callable

from profnet_sheets.sandbox import RunningSandbox
from tests.integration.client.conftest import (  # noqa: F401 - fixtures, reused
    MakeClient,
    fresh,
    make_client,
    sandbox,
    usage,
)


def charged(running: RunningSandbox, endpoint: str | None = None) -> int:
    """Credits the server charged the tests' key (for one endpoint, or in all)."""
    spent = usage(running)
    if endpoint is None:
        return int(spent["credits_charged"])
    return int(spent["calls"].get(endpoint, {}).get("credits", 0))


def calls_made(running: RunningSandbox) -> int:
    """Calls the server received from the tests' key, paid or free (status calls too)."""
    return sum(int(entry["calls"]) for entry in usage(running)["calls"].values())


def eventually(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait until `condition()` holds (a worker thread's effect), or fail."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting for the form"
        time.sleep(0.02)


__all__ = ["MakeClient", "calls_made", "charged", "eventually"]
