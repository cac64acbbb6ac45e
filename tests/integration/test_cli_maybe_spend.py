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


def test_a_reused_search_read_whole_costs_nothing_when_the_service_forgot_it(
    tmp_path: Path,
) -> None:
    """A new user's review: `--dry-run` said `Free` and the run paid 55 again for the same
    rows, the service having forgotten the search. Every result in the cache: the run is
    free, as said, and writes the same rows (decision 534)."""
    import requests

    with start_sandbox(api_keys=(KEY,), credits=1_000_000, job_seconds=0.0, seed=7) as sandbox:
        env = cli_env(sandbox.base_url, KEY, tmp_path)
        first, second = tmp_path / "r1.csv", tmp_path / "r2.csv"
        search = ("search", "companies", "--keywords", "robotics", "--limit", "30", "--yes")
        assert run_cli(env, *search, "--out", str(first)).returncode == 0
        requests.post(f"{sandbox.base_url}/_sandbox/reset", timeout=5).raise_for_status()
        dry = run_cli(env, *search, "--dry-run")
        assert "Free" in dry.stdout + dry.stderr
        again = run_cli(env, *search, "--out", str(second))
        assert again.returncode == 0, again.stderr
        assert sandbox.charged(KEY) == 0, "nothing paid again"
    assert second.read_bytes() == first.read_bytes()


def test_a_reused_search_the_service_forgot_is_not_paid_anew_unasked(tmp_path: Path) -> None:
    """A new user's review: with no terminal, a search quoted `At most 20 credits` (reused,
    free) was started anew when the service had forgotten it, and 70 were paid. It is refused
    then, naming --yes; with --yes it is paid as the new quote says. (Its first run waited
    too little to read any result: one read whole is read from the cache, decision 534.)"""
    import requests

    with start_sandbox(api_keys=(KEY,), credits=1_000_000, job_seconds=2.0, seed=7) as sandbox:
        env = cli_env(sandbox.base_url, KEY, tmp_path)
        out = str(tmp_path / "welder.csv")
        search = ("search", "leads", "--title-keywords", "Welder", "--limit", "20", "--out", out)
        assert run_cli(env, *search, "--timeout", "0").returncode != 0, "started, not done"
        requests.post(f"{sandbox.base_url}/_sandbox/reset", timeout=5).raise_for_status()
        before = sandbox.charged(KEY)
        refused = run_cli(env, *search)
        assert sandbox.charged(KEY) == before, "nothing more sent"
        assert refused.returncode == 1, refused.stderr
        said = " ".join(refused.stderr.split())
        assert "the search reused is no longer known to the service" in said
        assert "run this again with --yes to start it anew" in said, said
        paid = run_cli(env, *search, "--yes")
        assert paid.returncode == 0, paid.stderr
        assert sandbox.charged(KEY) > before
