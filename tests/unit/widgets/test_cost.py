"""The cost lines: creation price + up to `limit` results; reused searches; the budget."""

from __future__ import annotations

from dataclasses import replace

import pytest

from profnet_sheets.client.spend import Budget, CapUse, Estimate, Quote, SpendPolicy
from profnet_sheets.searches.cost import SearchCost
from profnet_sheets.spec import PriceTable
from profnet_sheets.widgets.cost import (
    budget_text,
    lookup_cost_text,
    search_cost_text,
    team_cap_text,
)

SPEND = SpendPolicy(PriceTable(), "the sandbox")


def quoted(credits: int, budget_left: int | None) -> Quote:
    """What the spend policy says of `credits` with a budget leaving `budget_left`."""
    return SPEND.quote(credits, Budget(budget_left))


def cost(
    *,
    reused: bool = False,
    limit: int = 100,
    results_read: int = 0,
    total_results: int | None = None,
    budget_left: int | None = None,
) -> SearchCost:
    """A lead search's cost (50 credits to start, 1 per result)."""
    found = SearchCost(50, reused, limit, 1, results_read, total_results)
    return replace(found, quote=quoted(found.credits, budget_left))


def test_a_new_search_costs_its_creation_plus_up_to_limit_results() -> None:
    line = search_cost_text(cost(budget_left=1000))
    assert line == (
        "At most 150 credits: 50 credits to start the search, then up to 100 credits for its "
        "results (1 per result, limit 100). Budget left: 1,000 credits."
    )


def test_a_reused_search_is_free_to_start() -> None:
    line = search_cost_text(cost(reused=True))
    assert line.startswith("At most 100 credits: the same search ran within the last 24 h")
    assert "(reused, free)" in line
    assert line.endswith("No budget set.")


def test_a_reused_search_whose_results_were_read_is_free() -> None:
    reused = cost(reused=True, results_read=31, total_results=31)
    assert reused.credits == 0
    assert search_cost_text(reused).startswith(
        "Free: the same search ran within the last 24 h (reused, free) and its results are "
        "already read (31 results)."
    )
    one = cost(reused=True, results_read=1, total_results=1)
    assert "(1 result)." in search_cost_text(one)


def test_results_read_partly_count_only_the_rest() -> None:
    partly = cost(reused=True, results_read=25, total_results=60, limit=100)
    assert partly.results_to_pay == 35
    assert "25 results already read" in search_cost_text(partly)


def test_the_limit_caps_what_results_cost() -> None:
    assert cost(reused=True, results_read=0, total_results=500, limit=40).results_to_pay == 40


def test_over_the_budget_is_said() -> None:
    assert search_cost_text(cost(budget_left=120)).endswith(
        "Budget left: 120 credits. Over the budget: lower the limit or raise the budget."
    )


@pytest.mark.parametrize(
    ("left", "text"), [(None, "No budget set."), (1, "Budget left: 1 credit.")]
)
def test_budget_text(left: int | None, text: str) -> None:
    assert budget_text(quoted(0, left)) == text


def test_over_the_spending_cap_is_said() -> None:
    quote = SPEND.quote(10, Budget(None), CapUse(5, "5/day", 3))
    assert budget_text(quote) == (
        "No budget set. Over the spending cap 5/day (2 left): lower the limit or raise it."
    )


def test_lookup_cost() -> None:
    assert lookup_cost_text(Estimate(1, 1, 1, quoted(0, None))).startswith("Free: the answer is in")
    assert lookup_cost_text(Estimate(1, 1, 0, quoted(1, 10))) == (
        "At most 1 credit (free next time: answers are cached). Budget left: 10 credits."
    )


def test_a_team_cap_says_what_it_leaves() -> None:
    """A spending cap held on the team's Redis: the cost line says `team cap: N left`, as the
    spend policy quotes it; one per ledger file does not."""
    team = SPEND.quote(2, Budget(None), CapUse(20, "20/day", 12, team=True))
    assert budget_text(team) == "No budget set; team cap: 8 left."
    over = SPEND.quote(10, Budget(30), CapUse(20, "20/day", 12, team=True))
    assert budget_text(over) == (
        "Budget left: 30 credits; team cap: 8 left. Over the team cap 20/day (8 left): "
        "lower the limit or raise it."
    )
    assert "team cap" not in budget_text(SPEND.quote(2, Budget(None), CapUse(20, "20/day", 12)))
    assert team_cap_text(team) == " Team cap: 8 credits left.", "the enrich form's line"
    assert team_cap_text(over) == "", "short of it: the plan's summary says so"
    assert team_cap_text(SPEND.quote(2, Budget(None), CapUse(20, "20/day", 12))) == ""


def test_a_cap_that_cannot_be_kept_is_said_with_its_file() -> None:
    """A cap whose period's ledger was set aside unreadable leaves 0: the cost line names the
    file and what to do, not `raise it` (the same words as the Excel macros')."""
    from profnet_sheets.excel.searches import over_limit

    unknown = CapUse(20, "20/day", 3, unknown="/tmp/ledger.sqlite.unreadable")
    quote = SPEND.quote(5, Budget(None), unknown)
    text = budget_text(quote)
    assert text.startswith("No budget set. Over the spending cap 20/day (0 left: the ledger was ")
    assert "/tmp/ledger.sqlite.unreadable" in text
    assert "delete that file" in text
    assert "raise it" not in text
    assert over_limit(quote) == f"{quote.short.over_said()}: not run."  # type: ignore[union-attr]
    assert "delete that file" in over_limit(quote)
