"""A search started within the spending cap whose results another run's spend leaves no room
for: its creation is paid, its results are not read, and the stop names the cap (not a budget
no one set) and how to read them later without paying the search again."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from profnet_sheets import Client
from profnet_sheets.sandbox import start_sandbox
from tests.integration.conftest import CLI, cli_env

pytestmark = pytest.mark.integration
KEY = "cut-by-cap-key"


def test_results_the_cap_leaves_no_room_for_say_the_cap_and_the_request_id(
    tmp_path: Path,
) -> None:
    with start_sandbox(api_keys=(KEY,), credits=100_000, job_seconds=3.0) as sandbox:
        env = {**cli_env(sandbox.base_url, KEY, tmp_path), "PROFNET_SPENDING_CAP": "100/day"}
        out = tmp_path / "leads.csv"
        args = ["search", "leads", "--title-keywords", "CTO", "--limit", "40", "--yes"]
        search = subprocess.Popen(
            [*CLI, *args, "--out", str(out)], env=env, stderr=subprocess.PIPE, text=True
        )
        deadline = time.monotonic() + 60
        while sandbox.charged(KEY) < 50 and time.monotonic() < deadline:
            time.sleep(0.05)  # the search is created (paid), its job not done yet
        cache = tmp_path / "cache"
        with Client(
            api_key=KEY, base_url=sandbox.base_url, cache_dir=cache, spending_cap="100/day"
        ) as other:  # another run on the same ledger spends what the cap leaves
            for n in range(50):
                other.get_company_details(domain=f"other{n}.io")
        _, said = search.communicate(timeout=120)
        assert search.returncode == 3, said
        charged = sandbox.charged(KEY)
    flat = " ".join(said.split())
    assert "Spending cap reached (" in flat, flat
    assert "raise the spending cap (PROFNET_SPENDING_CAP) or wait for its next period" in flat
    assert "--request-id" in flat
    assert "the search is not paid again" in flat
    assert "raise --budget" not in flat
    assert charged == 100, "the search's 50 and the other run's 50: no result paid"
