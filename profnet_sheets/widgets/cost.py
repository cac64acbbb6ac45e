"""The cost lines of the forms: what a search or a lookup will cost, in words."""

from __future__ import annotations

from profnet_sheets.client.spend import BUDGET_SETTING, Estimate, Quote
from profnet_sheets.searches.cost import SearchCost
from profnet_sheets.words import counted


def credits_text(number: int) -> str:
    """`1 credit`, `50 credits`."""
    return counted(number, "credit")


def budget_text(quote: Quote | None) -> str:
    """`Budget left: 1,000.` (`...; team cap: 20 left.` when a team cap is set), and a warning
    when what is quoted would pass a limit."""
    left = None if quote is None else quote.budget_left
    head = "No budget set" if left is None else f"Budget left: {credits_text(left)}"
    team_left = None if quote is None else quote.team_cap_left
    head += "." if team_left is None else f"; team cap: {team_left} left."
    short = None if quote is None else quote.short
    if short is None:
        return head
    if short.setting == BUDGET_SETTING:
        return f"{head} Over the budget: lower the limit or raise the budget."
    if short.unknown:
        return f"{head} {short.over_said()}."
    return f"{head} {short.over_said()}: lower the limit or raise it."


def team_cap_text(quote: Quote | None) -> str:
    """` Team cap: 8 left.` when a team's cap is set and the quote is within it (a quote short
    of it says so itself), else nothing: the enrich form's cost line ends with it."""
    if quote is None or quote.short is not None or quote.team_cap_left is None:
        return ""
    return f" Team cap: {credits_text(quote.team_cap_left)} left."


def search_cost_text(cost: SearchCost) -> str:
    """The cost line of a search form."""
    return f"{cost.describe()} {budget_text(cost.quote)}"


def lookup_cost_text(estimate: Estimate) -> str:
    """The cost line of a single lookup."""
    if estimate.cached == estimate.unique:
        head = "Free: the answer is in the cache."
    else:
        head = f"At most {credits_text(estimate.credits)} (free next time: answers are cached)."
    return f"{head} {budget_text(estimate.quote)}"
