"""`search ... --dry-run`: what a search can cost, places by name included, and nothing sent
that costs credits (decision 522)."""

from __future__ import annotations

from pathlib import Path

import pytest

from profnet_sheets.sandbox import RunningSandbox

from ..conftest import run_cli
from .conftest import KEY

pytestmark = pytest.mark.integration


def test_a_new_searchs_dry_run_says_its_cost_and_its_places_and_sends_nothing_paid(
    sandbox: RunningSandbox, env: dict[str, str]
) -> None:
    args = ("search", "leads", "--title-keywords", "CTO", "--limit", "50")
    done = run_cli(env, *args, "--geo-codes", "Berlin", "--geo-codes", "Paris", "--dry-run")
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stderr.split())
    assert "leads search: At most 100 credits: 50 credits to start the search" in said
    assert "Looking up 2 places by name first (Berlin, Paris): 2 credits more, at most 102" in said
    assert sandbox.charged(KEY) == 0
    refused = run_cli(env, *args, "--budget", "60", "--dry-run")
    assert refused.returncode == 3, refused.stderr
    assert "This search may cost up to 100 credits, and the budget" in refused.stderr
    assert "leaves 60; nothing was sent" in refused.stderr
    missing = run_cli(env, *args)
    assert missing.returncode == 2
    assert "Missing option '--out' (only --dry-run goes without it)" in missing.stderr
    assert sandbox.charged(KEY) == 0


def test_a_dry_run_knows_a_search_run_before_and_a_re_attach_costs_nothing_more(
    sandbox: RunningSandbox, env: dict[str, str], tmp_path: Path
) -> None:
    args = ("search", "leads", "--title-keywords", "CTO", "--limit", "20")
    ran = run_cli(env, *args, "--out", str(tmp_path / "leads.csv"), "--yes")
    assert ran.returncode == 0, ran.stderr
    paid = sandbox.charged(KEY)
    again = run_cli(env, *args, "--dry-run")
    assert "Free: the same search ran within the last 24 h (reused, free)" in again.stderr
    (request_id,) = [
        word
        for line in ran.stderr.splitlines()
        if "re-attach with" in line
        for word in line.split()[2:3]
    ]
    attached = run_cli(env, "search", "leads", "--request-id", request_id, "--dry-run")
    assert attached.returncode == 0, attached.stderr
    assert "Free: the search is not paid again and its 20 results are read already" in (
        attached.stderr
    )
    unknown = run_cli(env, "search", "leads", "--request-id", "nope-1", "--dry-run")
    assert unknown.returncode == 1
    assert "not found" in unknown.stderr
    assert sandbox.charged(KEY) == paid


def test_a_search_the_limits_refuse_pays_for_none_of_its_places_first(
    sandbox: RunningSandbox, env: dict[str, str], tmp_path: Path
) -> None:
    """A new user's review: the dry run said 151 credits against a budget of 150, and the
    real run then paid 1 credit to look Berlin up before refusing the search."""
    args = ("search", "leads", "--title-keywords", "CTO", "--geo-codes", "Berlin")
    done = run_cli(env, *args, "--budget", "150", "--yes", "--out", str(tmp_path / "l.csv"))
    assert done.returncode == 3, done.stderr
    assert "may cost up to 151 credits, and the budget" in done.stderr
    assert sandbox.charged(KEY) == 0
