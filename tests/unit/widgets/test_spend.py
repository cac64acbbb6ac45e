"""One action's spend: counted on its own, while the client's budget keeps its limit."""

from __future__ import annotations

import pytest

from profnet_sheets.client.spend import Budget, Charge, SpendPolicy
from profnet_sheets.errors import BudgetExceeded
from profnet_sheets.spec import PriceTable

SPEND = SpendPolicy(PriceTable(), "the sandbox")


def _pay(budget: Budget, reserve: int, charged: int) -> None:
    SPEND.reserve(budget, reserve, "search-leads")
    SPEND.settled(budget, reserve, Charge(sure=charged))


def test_an_action_counts_its_own_charges_on_the_shared_budget() -> None:
    shared = Budget(100)
    first, second = Budget(None, within=shared), Budget(None, within=shared)
    _pay(first, 50, 30)
    _pay(second, 25, 25)
    assert (first.spent, second.spent, shared.spent) == (30, 25, 55)
    assert first.left == second.left == shared.left == 45


def test_the_shared_limit_holds_for_every_action() -> None:
    shared = Budget(60)
    SPEND.reserve(Budget(None, within=shared), 50, "search-leads")
    with pytest.raises(BudgetExceeded):
        SPEND.reserve(Budget(None, within=shared), 25, "search-companies")
    assert shared.reserved == 50, "a refused reservation leaves nothing behind"


def test_a_run_s_budget_holds_within_the_client_s() -> None:
    client_budget = Budget(10)
    run = Budget(100, within=client_budget)
    _pay(run, 8, 8)
    with pytest.raises(BudgetExceeded, match="budget of 10"):
        SPEND.reserve(run, 5, "get-company-details")
    assert (run.spent, client_budget.spent, run.left, run.reserved) == (8, 8, 2, 0)
