"""What a search's summary says it spent: the credits the service charged for sure, and apart
those that may have been (a paid call whose connection was cut mid-response)."""

from __future__ import annotations

from pathlib import Path

import pytest

from profnet_sheets import Client
from profnet_sheets.sandbox import start_sandbox
from tests.integration.client.conftest import set_faults
from tests.integration.conftest import cli_env, run_cli

pytestmark = pytest.mark.integration
KEY = "maybe-key"


def test_a_search_summary_tells_sure_and_maybe_credits_apart(tmp_path: Path) -> None:
    with start_sandbox(api_keys=(KEY,), credits=1_000_000, job_seconds=0.0, seed=7) as sandbox:
        with Client(api_key=KEY, base_url=sandbox.base_url, cache_dir=tmp_path / "other") as c:
            request_id = c.search("leads", title_keywords="CTO", limit=100).request_id
        before = sandbox.charged(KEY)
        set_faults(sandbox, drop_rate=0.5)  # connections cut: a results page lost may be paid
        env = cli_env(sandbox.base_url, KEY, tmp_path)
        out = tmp_path / "leads.csv"
        done = run_cli(env, "search", "leads", "--request-id", request_id, "--out", str(out))
        sure = sandbox.charged(KEY) - before

    assert done.returncode == 1, done.stderr
    said = " ".join(done.stderr.split())
    assert sure == 0, "the sandbox cuts before the work: nothing more was charged"
    assert f"(this search: {sure} credits (+" in said, said
    maybe = int(said.split(f"(this search: {sure} credits (+")[1].split(" possibly))")[0])
    assert maybe > 0, "the page lost after it went out counts apart, as maybe"
