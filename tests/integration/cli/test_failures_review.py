"""Faults a new user's review found after issue 22: search filters checked before paying, a
wrong base-URL path not read as "not found", re-attaching to a search priced as it is; the
real CLI in a subprocess against a sandbox (or a small server) on loopback."""

from __future__ import annotations

from pathlib import Path

import pytest

from profnet_sheets.sandbox import RunningSandbox
from tests.integration.cli.conftest import charged
from tests.integration.cli.test_first_hour import errors, run

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("kind", ["leads", "companies"])
def test_a_sales_nav_url_that_is_not_a_url_is_refused_before_paying(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path, kind: str
) -> None:
    out = tmp_path / "found.csv"
    result = run(env, "search", kind, "--sales-nav-url", "notaurl", "--yes", "--out", str(out))
    assert result.returncode != 0
    (line,) = errors(result)
    assert "'notaurl' is not a search URL (--sales-nav-url)" in line
    assert "credits:" not in result.stderr.split("Error:")[0], "no cost preview for it"
    assert charged(sandbox) == 0
    assert not out.exists()
