"""Tools a test needs from the machine (Node, a browser): missing, a skip that says how to get
them; in CI (CI=true, as .ci/run sets), a failure, never a silent skip."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def missing_tool(reason: str) -> NoReturn:
    """Skip with `reason` (what is missing and how to get it); fail in CI."""
    if in_ci():
        pytest.fail(f"{reason} (in CI a missing tool fails the run)")
    pytest.skip(reason)
