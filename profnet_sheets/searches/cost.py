"""What a search will cost before it runs: its creation (free when reused), results still unread."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from profnet_sheets.client.client import Client
from profnet_sheets.client.jobs import pages_read
from profnet_sheets.client.ledger import InDoubt
from profnet_sheets.client.spend import Quote
from profnet_sheets.errors import ProfnetError
from profnet_sheets.spec import search_endpoint
from profnet_sheets.spec.endpoints import SearchKind
from profnet_sheets.words import counted


@dataclass(frozen=True)
class SearchCost:
    """What starting a search and reading its results can cost."""

    create_credits: int  # the price of starting it
    reused: bool  # the same search ran within the reuse window: starting it is free
    limit: int
    per_result: int  # credits per result read
    results_read: int = 0  # results of the reused search already read (free again)
    total_results: int | None = None  # known when the reused search's results were read
    quote: Quote | None = None  # what the limits say of `credits` (None: not asked)
    reuse_hours: float = 24.0
    attached: bool = False  # re-attached by its request id: started before, not paid again
    forgotten: bool = False  # the same search was reused, and the service no longer knows it
    aside: int | None = None  # its results' room under the cap, when it started before
    in_doubt: InDoubt | None = None  # the same search sent before, with no answer kept

    @property
    def budget_left(self) -> int | None:
        return None if self.quote is None else self.quote.budget_left

    @property
    def results_to_pay(self) -> int:
        """The most results still to be paid for."""
        if self.total_results is None:  # not told: up to the limit, beyond those read
            return max(0, self.limit - self.results_read)
        return max(0, min(self.limit, self.total_results) - self.results_read)

    @property
    def credits(self) -> int:
        """The most the search can cost."""
        start = 0 if self.reused else self.create_credits
        return start + self.results_to_pay * self.per_result

    def describe(self) -> str:
        """What the search can cost, in words: `At most 150 credits: 50 credits to start the
        search, then up to 100 credits for its results (1 per result, limit 100).`"""
        window = f"{self.reuse_hours:g} h"
        paid = (
            f"up to {counted(self.results_to_pay * self.per_result, 'credit')} for its results "
            f"({self.per_result} per result, limit {self.limit})"
        )
        if self.attached:
            if self.total_results is None:
                return (
                    "the search is not paid again; its results not read yet are, "
                    f"{self.per_result} credit(s) per result (the service did not say how many)."
                )
            if self.results_to_pay == 0:
                return (
                    f"Free: the search is not paid again and its "
                    f"{counted(self.results_read, 'result')} are read already (cached)."
                )
            read = f"{self.results_read} read already (free), " if self.results_read else ""
            return (
                f"At most {counted(self.credits, 'credit')}: the search is not paid again; "
                f"{read}up to {counted(self.results_to_pay * self.per_result, 'credit')} for "
                f"its {counted(self.results_to_pay, 'result')} not read yet "
                f"({self.per_result} per result)."
            )
        if self.reused and self.results_to_pay == 0:
            return (
                f"Free: the same search ran within the last {window} (reused, free) and its "
                f"results are already read ({counted(self.results_read, 'result')})."
            )
        if self.reused:
            read = (
                f"; {counted(self.results_read, 'result')} already read"
                if self.results_read
                else ""
            )
            return (
                f"At most {counted(self.credits, 'credit')}: the same search ran within the "
                f"last {window} (reused, free){read}; {paid}."
            )
        gone = (
            "the search reused is no longer known to the service (it forgets searches after "
            "a time), so it is started anew. "
        )
        return (
            f"{gone if self.forgotten else ''}At most {counted(self.credits, 'credit')}: "
            f"{counted(self.create_credits, 'credit')} to start the search, then {paid}."
            f"{self.doubt_said()}"
        )

    def doubt_said(self) -> str:
        """What starting it again risks when the same search went out before with no answer
        kept (empty when it did not)."""
        doubt = self.in_doubt
        if doubt is None or self.reused or self.attached:
            return ""
        return f" {doubt.said()}"


def _cached_request_id(client: Client, kind: SearchKind, payload: Mapping[str, Any]) -> str:
    """The request id of the search the cache holds for `payload`; nothing is sent."""
    offline = client.with_options(offline=True)
    return str(offline.call(search_endpoint(kind, "create").name, payload)["request_id"])


def search_cost(client: Client, kind: SearchKind, params: Mapping[str, Any]) -> SearchCost:
    """The cost of a search with these parameters for this client (from its cache; nothing is
    sent). Raises InvalidParameter when the service would refuse them."""
    create = search_endpoint(kind, "create")
    payload = client.prepare(create.name, params)
    reused = client.is_cached(create.name, payload)
    read, total, request_id = 0, None, None
    if reused:
        with contextlib.suppress(ProfnetError):
            request_id = _cached_request_id(client, kind, payload)
        with contextlib.suppress(LookupError, ProfnetError):  # nothing read yet
            if request_id is not None:
                read, total = pages_read(client.with_options(offline=True), kind, request_id)
    cost = SearchCost(
        create_credits=client.prices.price(create).credits,
        reused=reused,
        limit=int(payload["limit"]),
        per_result=client.prices.price(search_endpoint(kind, "results")).credits,
        results_read=read,
        total_results=total,
        reuse_hours=client.settings.search_reuse_hours,
        in_doubt=None if reused else client.in_doubt(create.name, payload),
    )
    return _quoted(client, cost, request_id)


def _quoted(client: Client, cost: SearchCost, request_id: str | None) -> SearchCost:
    """`cost` with what the limits say of it, a search's results' room set aside when it
    started (`request_id`'s, if any) counted as theirs: not as another run's spend."""
    aside = None if request_id is None else client.aside_of(request_id)
    return replace(cost, quote=client.quote(cost.credits, drawing_on=aside), aside=aside)


def attached_cost(
    client: Client, kind: SearchKind, request_id: str, total: int | None
) -> SearchCost:
    """What reading the results of a search re-attached by its id can cost, once it has
    completed with `total` results (None: not told): the search is not paid again, its pages
    read before are cached (free), the others are paid per result (nothing is sent)."""
    read = 0
    with contextlib.suppress(LookupError, ProfnetError):  # no page read yet
        read = pages_read(client.with_options(offline=True), kind, request_id)[0]
    cost = SearchCost(
        create_credits=0,
        reused=True,
        limit=total or 0,
        per_result=client.prices.price(search_endpoint(kind, "results")).credits,
        results_read=read,
        total_results=total,
        attached=True,
    )
    return _quoted(client, cost, request_id)
