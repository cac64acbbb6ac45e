"""The client tests' sandbox and clients (reused); what the server charged is read from the
sandbox itself (`RunningSandbox.charged`, `calls`)."""

from __future__ import annotations

import time
from collections.abc import Callable

from tests.integration.client.conftest import (  # noqa: F401 - fixtures, reused
    MakeClient,
    fresh,
    make_client,
    sandbox,
)


def eventually(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait until `condition()` holds (a worker thread's effect), or fail."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting for the form"
        time.sleep(0.02)


__all__ = ["MakeClient", "eventually"]
