"""A run the spending cap cut part-way, as a new user met it (decisions 400-401): `lookup`'s
JSON holds every value, those without an answer marked; `enrich`'s bar does not count the keys
it skipped as done. The real CLI in a subprocess against a sandbox on loopback."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from profnet_sheets.batch.marks import CAP_NOT_FETCHED
from profnet_sheets.sandbox import RunningSandbox
from tests.integration.cli.conftest import KEY
from tests.integration.cli.test_first_hour import errors, run

pytestmark = pytest.mark.integration
VALUES = ("cut-a.io", "cut-b.io", "cut-c.io", "cut-d.io", "cut-e.io")


def test_a_lookup_the_cap_cut_holds_every_value_in_order(
    env: dict[str, str], sandbox: RunningSandbox
) -> None:
    """Before: the JSON held the three answers only; the two values skipped were left out."""
    capped = {**env, "PROFNET_SPENDING_CAP": "3/day"}
    cut = run(capped, "lookup", "company", *VALUES)
    assert cut.returncode == 3, cut.stderr
    assert "this lookup: 3 credits" in cut.stderr
    assert "Spending cap reached: 2 lookups not done. Raise the spending cap" in cut.stderr
    answers = json.loads(cut.stdout)
    assert list(answers) == list(VALUES), "every value, in the order given"
    assert all(answers[value]["company_name"] for value in VALUES[:3])
    assert [answers[value] for value in VALUES[3:]] == [{"company_error": CAP_NOT_FETCHED}] * 2
    unanswered = [value for value, answer in answers.items() if "company_error" in answer]
    assert unanswered == list(VALUES[3:]), "a script tells them from the answers"
    assert sandbox.charged(KEY) == 3


def test_a_value_that_fails_alone_is_marked_and_the_others_are_looked_up(
    env: dict[str, str], sandbox: RunningSandbox
) -> None:
    """As enrich's rows: a value not found does not stop the values after it (it did)."""
    failed = run(env, "lookup", "company", "fail-a.io", "gone-sandbox-missing.io", "fail-c.io")
    assert failed.returncode == 1, failed.stderr
    (line,) = errors(failed)
    assert line.startswith("Error: 'gone-sandbox-missing.io': get-company-details: not found."), (
        line
    )
    answers = json.loads(failed.stdout)
    assert list(answers) == ["fail-a.io", "gone-sandbox-missing.io", "fail-c.io"]
    assert answers["fail-a.io"]["company_name"]
    assert answers["gone-sandbox-missing.io"] == {"company_error": "not found"}
    assert answers["fail-c.io"]["company_name"], "looked up after the value that failed"
    assert sandbox.charged(KEY) == 2
    several = run(
        env, "lookup", "company", "x1-sandbox-missing.io", "fail-a.io", "x2-sandbox-missing.io"
    )
    assert several.returncode == 1, several.stderr
    said = several.stderr.strip().splitlines()
    assert said[-3].startswith("'x1-sandbox-missing.io': get-company-details: not found."), said
    assert said[-2].startswith("'x2-sandbox-missing.io': get-company-details: not found."), said
    assert said[-1] == (
        "Error: 2 of 3 lookups failed: each is marked in the JSON (company_error); the others "
        "are answered"
    )
    assert json.loads(several.stdout)["fail-a.io"]["company_name"], "cached: free"
    assert sandbox.charged(KEY) == 2


def test_a_stop_after_a_value_that_failed_alone_says_both(
    env: dict[str, str], sandbox: RunningSandbox
) -> None:
    capped = {**env, "PROFNET_SPENDING_CAP": "1/day"}
    cut = run(capped, "lookup", "company", "nope-sandbox-missing.io", "stop-b.io", "stop-c.io")
    assert cut.returncode == 3, cut.stderr
    answers = json.loads(cut.stdout)
    assert answers["nope-sandbox-missing.io"] == {"company_error": "not found"}
    assert answers["stop-b.io"]["company_name"]
    assert answers["stop-c.io"] == {"company_error": CAP_NOT_FETCHED}
    assert "'nope-sandbox-missing.io': get-company-details: not found." in cut.stderr
    assert "Spending cap reached: 1 lookup not done." in cut.stderr, cut.stderr


def test_the_bar_of_a_run_the_cap_cut_counts_what_was_done_and_says_the_skipped(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """Before: the bar counted the keys the cap skipped as done (10/10, 100%)."""
    source = tmp_path / "ten.csv"
    source.write_text("Site\n" + "".join(f"bar{i}.io\n" for i in range(10)))
    capped = {**env, "PROFNET_SPENDING_CAP": "5/day"}
    args = ["--kind", "company", "--column", "Site", "--concurrency", "2", "--yes"]
    result = run(capped, "enrich", str(source), *args, "--out", str(tmp_path / "out.csv"))
    assert result.returncode == 3, result.stderr
    drawn = [line for line in re.split(r"[\r\n]", result.stderr) if "enrich company:" in line]
    assert drawn, result.stderr
    assert all(" 10/10 " not in line for line in drawn), drawn
    last = drawn[-1]
    assert " 50%|" in last, last
    assert "| 5/10 [" in last, last
    assert "5 skipped (spending cap reached)]" in last, last
    assert "Spending cap reached: 5 rows not done." in result.stderr, "the closing line stays"
    assert sandbox.charged(KEY) == 5


def test_after_a_stop_the_values_the_cache_holds_are_still_answered(
    env: dict[str, str], sandbox: RunningSandbox
) -> None:
    """Free, as enrich's cached rows are after a limit: only what would be sent is cut."""
    capped = {**env, "PROFNET_SPENDING_CAP": "3/day"}
    assert run(capped, "lookup", "company", "held-e.io").returncode == 0  # 1 credit, cached
    values = ("held-a.io", "held-b.io", "held-c.io", "held-d.io", "held-e.io")
    cut = run(capped, "lookup", "company", *values)
    assert cut.returncode == 3, cut.stderr
    answers = json.loads(cut.stdout)
    assert list(answers) == list(values)
    assert [("company_error" in answers[value]) for value in values] == [
        False, False, True, True, False,
    ]  # fmt: skip
    assert answers["held-e.io"]["company_name"], "from the cache, after the stop"
    assert "Spending cap reached: 2 lookups not done." in cut.stderr, cut.stderr
    assert sandbox.charged(KEY) == 3
