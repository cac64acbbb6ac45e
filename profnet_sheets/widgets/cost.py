"""The cost lines of the forms: what a search or a lookup will cost, before it is run."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from profnet_sheets.client.client import Client, Estimate, PlannedCall
from profnet_sheets.client.jobs import SearchKind
from profnet_sheets.client.prepare import prepare
from profnet_sheets.errors import ProfnetError
from profnet_sheets.spec import search_endpoint


@dataclass(frozen=True)
class SearchCost:
    """What starting a search and reading its results can cost."""

    create_credits: int  # the price of starting it
    reused: bool  # the same search ran within the reuse window: starting it is free
    limit: int
    per_result: int  # credits per result read
    results_read: int = 0  # results of the reused search already read (free again)
    total_results: int | None = None  # known when the reused search's results were read
    budget_left: int | None = None
    reuse_hours: float = 24.0

    @property
    def results_to_pay(self) -> int:
        """The most results still to be paid for."""
        if self.total_results is None:
            return self.limit
        return max(0, min(self.limit, self.total_results) - self.results_read)

    @property
    def credits(self) -> int:
        """The most the search can cost."""
        start = 0 if self.reused else self.create_credits
        return start + self.results_to_pay * self.per_result


def _credits(number: int) -> str:
    return f"{number:,} credit" + ("" if number == 1 else "s")


def budget_text(left: int | None, needed: int) -> str:
    """`Budget left: 1,000.` (and a warning when `needed` would pass it)."""
    if left is None:
        return "No budget set."
    over = " Over the budget: lower the limit or raise the budget." if needed > left else ""
    return f"Budget left: {_credits(left)}.{over}"


def search_cost_text(cost: SearchCost) -> str:
    """The cost line of a search form."""
    window = f"{cost.reuse_hours:g} h"
    results = cost.results_to_pay
    paid = (
        f"up to {_credits(results * cost.per_result)} for its results "
        f"({cost.per_result} per result, limit {cost.limit})"
    )
    if cost.reused and results == 0:
        head = (
            f"Free: the same search ran within the last {window} (reused, free) and its "
            f"{cost.results_read} results are already read."
        )
    elif cost.reused:
        read = f"; {cost.results_read} results already read" if cost.results_read else ""
        head = (
            f"At most {_credits(cost.credits)}: the same search ran within the last {window} "
            f"(reused, free){read}; {paid}."
        )
    else:
        head = (
            f"At most {_credits(cost.credits)}: {_credits(cost.create_credits)} to start the "
            f"search, then {paid}."
        )
    return f"{head} {budget_text(cost.budget_left, cost.credits)}"


def lookup_cost_text(estimate: Estimate) -> str:
    """The cost line of a single lookup."""
    if estimate.cached == estimate.unique:
        head = "Free: the answer is in the cache."
    else:
        head = f"At most {_credits(estimate.credits)} (free next time: answers are cached)."
    return f"{head} {budget_text(estimate.budget_left, estimate.credits)}"


def _read_before(client: Client, kind: SearchKind, payload: Mapping[str, Any]) -> tuple[int, int]:
    """(results already read, total results) of a search the cache holds; nothing is sent."""
    offline = client.with_options(offline=True)
    request_id = str(offline.call(search_endpoint(kind, "create").name, payload)["request_id"])
    read, page, total = 0, 1, None
    try:
        while True:
            body = offline.results_page(kind, request_id, page, max_items=0)
            read += len(body.get("results") or [])
            total = int(body.get("total_results") or 0)
            if page >= int(body.get("total_pages") or 0) or not body.get("results"):
                break
            page += 1
    except ProfnetError:  # a page not read yet (OfflineMiss), or nothing cached after all
        pass
    if total is None:
        raise LookupError("no results page of this search is cached")
    return read, total


def search_cost(client: Client, kind: SearchKind, params: Mapping[str, Any]) -> SearchCost:
    """The cost of a search with these parameters for this client (from its cache; nothing is
    sent). Raises InvalidParameter when the service would refuse them."""
    create = search_endpoint(kind, "create")
    payload = prepare(create, params)
    estimate = client.estimate([PlannedCall(create.name, payload)])
    reused = estimate.cached == 1
    read, total = 0, None
    if reused:
        with contextlib.suppress(LookupError, ProfnetError):  # nothing read yet
            read, total = _read_before(client, kind, payload)
    return SearchCost(
        create_credits=create.price.credits,
        reused=reused,
        limit=int(payload["limit"]),
        per_result=search_endpoint(kind, "results").price.credits,
        results_read=read,
        total_results=total,
        budget_left=client.budget.left,
        reuse_hours=client.settings.search_reuse_hours,
    )
