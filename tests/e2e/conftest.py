"""What the browser tests share: Debian's chromium, found and working."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.tools import missing_tool

CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture(scope="module")
def chromium() -> Path:
    """Debian's chromium; without it a skip that says how to get it, and a failure in CI."""
    if not CHROMIUM.exists():
        missing_tool(f"no browser at {CHROMIUM}: install it with `apt-get install chromium`")
    version = subprocess.run(
        [str(CHROMIUM), "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    if version.returncode != 0:
        pytest.fail(f"{CHROMIUM} does not run: {version.stderr or version.stdout}")
    return CHROMIUM
