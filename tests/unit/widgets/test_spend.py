"""One action's spend: counted on its own, while the client's budget keeps its limit."""

from __future__ import annotations

import pytest

from profnet_sheets.client.ledger import Budget
from profnet_sheets.errors import BudgetExceeded
from profnet_sheets.widgets.spend import ActionSpend


def test_an_action_counts_its_own_charges_on_the_shared_budget() -> None:
    shared = Budget(100)
    first, second = ActionSpend(shared), ActionSpend(shared)
    first.settle(first.reserve(50, "search-leads"), 30)
    second.settle(second.reserve(25, "search-companies"), 25)
    assert (first.spent, second.spent, shared.spent) == (30, 25, 55)
    assert first.left == second.left == shared.left == 45


def test_the_shared_limit_holds_for_every_action() -> None:
    shared = Budget(60)
    ActionSpend(shared).reserve(50, "search-leads")
    with pytest.raises(BudgetExceeded):
        ActionSpend(shared).reserve(25, "search-companies")
