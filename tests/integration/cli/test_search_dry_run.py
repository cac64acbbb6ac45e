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


def test_geo_ids_and_places_split_on_semicolons_and_lines_as_the_library_splits_them(
    sandbox: RunningSandbox, env: dict[str, str]
) -> None:
    """A new user's review: `--geo-codes "605862502; 429572983"` was one place name, looked
    up (1 credit) and then not found; the library takes it as two geo ids."""
    args = ("search", "leads", "--title-keywords", "VP", "--limit", "5", "--dry-run")
    ids = run_cli(env, *args, "--geo-codes", "605862502; 429572983")
    assert ids.returncode == 0, ids.stderr
    assert "Looking up" not in ids.stderr, "geo ids, not names"
    spaced = run_cli(env, *args, "--geo-codes", "605862502 429572983")
    assert "Looking up" not in spaced.stderr
    names = run_cli(env, *args, "--geo-codes", "Paris\nBerlin", "--geo-codes", "New York")
    said = " ".join(names.stderr.split())
    assert "Looking up 3 places by name first (Paris, Berlin, New York)" in said, said
    assert sandbox.charged(KEY) == 0


def test_a_free_text_list_option_keeps_its_commas_as_the_library_does() -> None:
    """A review: `--current-company-names "Acme, Inc."` became two names, a wider search
    than asked (the library's `string_list` keeps a comma in the text)."""
    from profnet_sheets.cli import _option_value
    from profnet_sheets.spec import search_endpoint

    leads = search_endpoint("leads", "create")
    names = leads.param("current_company_names")
    assert _option_value(names, ("Acme, Inc.; Beta",)) == ["Acme, Inc.", "Beta"]
    ids = leads.param("current_company_ids")
    assert _option_value(ids, ("1,2;3",)) == ["1", "2", "3"]


def test_a_dry_run_says_a_place_an_earlier_lookup_found_nowhere(
    sandbox: RunningSandbox, env: dict[str, str], tmp_path: Path
) -> None:
    """A new user's review: after `Atlantis` was looked up and found nowhere (1 credit), the
    dry run said `0 credits more` and exited 0 while the run refuses at once."""
    args = ("search", "leads", "--title-keywords", "VP", "--geo-codes", "Atlantis")
    ran = run_cli(env, *args, "--limit", "5", "--yes", "--out", str(tmp_path / "a.csv"))
    assert ran.returncode == 1
    paid = sandbox.charged(KEY)
    dry = run_cli(env, *args, "--limit", "5", "--dry-run")
    assert dry.returncode == 1, dry.stderr
    said = " ".join(dry.stderr.split())
    assert "--geo-codes: No place called 'Atlantis' was found (an earlier lookup, cached)" in said
    assert sandbox.charged(KEY) == paid


def test_a_refused_search_url_is_quoted_as_given() -> None:
    """Helper 94: the option names were written into the quoted URL (`(--keywords%3ACTO`),
    its `keywords=` masked as a credential, and a company search shown a people URL."""
    from profnet_sheets.cli import _as_options
    from profnet_sheets.client.prepare import prepare
    from profnet_sheets.errors import InvalidParameter
    from profnet_sheets.spec import DEFAULT_PROFILE, search_endpoint

    url = "ftp://x.com/sales/search/company?keywords=x&limit=3"
    companies = search_endpoint("companies", "create")
    with pytest.raises(InvalidParameter) as refused:
        prepare(companies, {"sales_nav_url": url}, profile=DEFAULT_PROFILE)
    said = _as_options(str(refused.value), companies)
    assert repr(url) in said
    assert "(--sales-nav-url)" in said
    assert "/sales/search/company?query=" in said
