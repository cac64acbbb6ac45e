"""The cost lines of the forms: what a search or a lookup will cost, in words."""

from __future__ import annotations

from profnet_sheets.client.spend import Estimate
from profnet_sheets.searches.cost import SearchCost
from profnet_sheets.words import counted


def credits_text(number: int) -> str:
    """`1 credit`, `50 credits`."""
    return counted(number, "credit")


def budget_text(left: int | None, needed: int) -> str:
    """`Budget left: 1,000.` (and a warning when `needed` would pass it)."""
    if left is None:
        return "No budget set."
    over = " Over the budget: lower the limit or raise the budget." if needed > left else ""
    return f"Budget left: {credits_text(left)}.{over}"


def search_cost_text(cost: SearchCost) -> str:
    """The cost line of a search form."""
    return f"{cost.describe()} {budget_text(cost.budget_left, cost.credits)}"


def lookup_cost_text(estimate: Estimate) -> str:
    """The cost line of a single lookup."""
    if estimate.cached == estimate.unique:
        head = "Free: the answer is in the cache."
    else:
        head = f"At most {credits_text(estimate.credits)} (free next time: answers are cached)."
    return f"{head} {budget_text(estimate.budget_left, estimate.credits)}"
