"""With no key and no base URL, the client runs on the embedded sandbox and says so once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

SCRIPT = """
from profnet_sheets import Client
first = Client()
second = Client()
print(first.get_company_details(domain="embedded.io")["company_name"])
print(second.get_company_details(domain="embedded.io")["company_name"])
print(first.ledger.total())
"""


def run(tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROFNET_")}
    env["PROFNET_CACHE_DIR"] = str(tmp_path)
    env["PROFNET_CONFIG"] = str(tmp_path / "no-config.toml")
    return subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def test_the_embedded_sandbox_answers_and_says_so_once(tmp_path: Path) -> None:
    result = run(tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.split()
    assert lines[0] == lines[1] == "Embedded"
    assert lines[2] == "1", "two clients in one process paid once"
    assert result.stderr.count("SANDBOX") == 1
    assert "PROFNET_API_KEY" in result.stderr
    second = run(tmp_path)
    assert second.stdout.split()[2] == "1", "the ledger persists and a second run paid nothing"
