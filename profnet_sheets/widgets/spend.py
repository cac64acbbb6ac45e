"""What one action of a form spent (a search, an enrichment, a lookup), and only that action.

The client's ledger and budget are shared by every form (and every cell) using the client, so
a difference of their totals counts what the others spent meanwhile too. Each action runs on
a view of the client whose budget is an `ActionSpend`: every reservation and charge still
goes to the client's own budget (its limit holds for all), and the charges made through this
view are counted here as well.
"""

from __future__ import annotations

from profnet_sheets.client.client import Client
from profnet_sheets.client.ledger import Budget


class ActionSpend(Budget):
    """The budget of one action: the client's budget, plus a count of this action's charges
    (`spent`; calls whose answer was lost after they went out count as the budget counts them,
    as possibly charged)."""

    def __init__(self, shared: Budget) -> None:
        super().__init__(shared.limit)
        self.shared = shared

    @property
    def left(self) -> int | None:
        return self.shared.left

    def reserve(self, credits: int, endpoint: str) -> int:
        return self.shared.reserve(credits, endpoint)

    def settle(self, reserved: int, actual: int) -> None:
        self.shared.settle(reserved, actual)
        with self._lock:
            self.spent += actual


def for_one_action(client: Client) -> tuple[Client, ActionSpend]:
    """A view of `client` for one action (same caches, ledger and budget) and its spend."""
    spend = ActionSpend(client.budget)
    view = client.with_budget(None)
    view._budget = spend  # the view's budget: the client's own, counted for this action
    return view, spend
