"""The command line's sandbox, settings and charge counter, as the batch commands' tests."""

from __future__ import annotations

from tests.integration.test_cli_batch import (  # noqa: F401 - fixtures, reused
    KEY,
    charged,
    env,
    sandbox,
)

__all__ = ["KEY", "charged"]
