"""The command line's sandbox and settings, as the batch commands' tests."""

from __future__ import annotations

from tests.integration.test_cli_batch import (  # noqa: F401 - fixtures, reused
    KEY,
    env,
    sandbox,
)

__all__ = ["KEY"]
