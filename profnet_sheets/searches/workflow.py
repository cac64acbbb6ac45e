"""One search as every front end runs it: the cost quoted first, started (or reused) or
re-attached by its request id, waited for, every page of its results read once, and this
search's own spend at the end, sure and maybe apart.

The CLI, the forms and Excel's macros call this; none of them starts, waits for or reads a
search of its own. Nothing here says anything: the front ends pass callbacks and show what
they are given.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from profnet_sheets.client.jobs import (
    PageProgress,
    Progress,
    SearchJob,
    SearchStatus,
    start_search,
)
from profnet_sheets.errors import SearchError
from profnet_sheets.searches.cost import SearchCost, attached_cost, search_cost
from profnet_sheets.searches.places import (
    Chosen,
    named_places,
    places_by_name,
    places_unknown,
)
from profnet_sheets.spec import Endpoint, search_endpoint
from profnet_sheets.spec.endpoints import SearchKind
from profnet_sheets.words import counted, spend_said

if TYPE_CHECKING:
    import polars as pl

    from profnet_sheets.client.client import Client
    from profnet_sheets.client.spend import Quote

Quoted = Callable[[SearchCost], None]  # given the cost before paying (raise: nothing is sent)
PLACE_LOOKUP = "find-geocode-by-location"  # what a place given by name is looked up with


@dataclass(frozen=True)
class DryRun:
    """What a search can cost before anything is sent (`Search.dry_run`): its own `cost`,
    the place names not looked up yet (`places`) and what looking them up costs
    (`places_credits`: 0 offline), and the whole against the limits (`total`)."""

    cost: SearchCost
    places: tuple[str, ...]
    places_credits: int
    total: Quote

    def describe(self) -> str:
        """The search's cost in words, then the places' (`Looking up 2 places by name first
        (Berlin, Paris): 2 credits more, at most 102 credits in all (...)`)."""
        if not self.places:
            return self.cost.describe()
        names = ", ".join(self.places)
        return (
            f"{self.cost.describe()} Looking up {counted(len(self.places), 'place')} by name "
            f"first ({names}): {counted(self.places_credits, 'credit')} more, at most "
            f"{counted(self.total.credits, 'credit')} in all (the search is quoted as if run "
            "for the first time with them: one run before is known once they are looked up)."
        )


@dataclass(frozen=True)
class Spend:
    """What one search spent: `spent` counts what may have been charged too, `maybe` is that
    part (calls whose answers were lost after they went out)."""

    spent: int
    maybe: int = 0

    @property
    def sure(self) -> int:
        return self.spent - self.maybe

    def said(self) -> str:
        """`550 credits`, `550 credits (+600 possibly)`."""
        return spend_said(self.spent, self.maybe)


class Search:
    """One lead or company search, run on a view of `client` with a budget of its own
    (`budget`, within the client's limits; None: only theirs), so that its spend is its own.
    `refresh`: a new search is paid for even when the same one is reusable."""

    def __init__(
        self,
        client: Client,
        kind: SearchKind,
        *,
        budget: int | None = None,
        refresh: bool = False,
    ) -> None:
        self.kind: SearchKind = kind
        self.run = client.with_budget(budget)
        self.view = self.run.with_options(refresh=True) if refresh else self.run
        self.job: SearchJob | None = None
        self.attached = False  # re-attached by its request id (started before)

    @property
    def endpoint(self) -> Endpoint:
        """The endpoint that starts it (its parameters are the filters)."""
        return search_endpoint(self.kind, "create")

    @property
    def spend(self) -> Spend:
        """What this search has spent so far (its creation, its pages, places looked up)."""
        return Spend(self.run.budget.spent, self.run.budget.uncertain)

    def places(self, filters: dict[str, Any], chosen: Chosen | None = None) -> dict[str, Any]:
        """`filters` with places given by name as geo ids (searches.places.places_by_name),
        refused before any is looked up (BudgetExceeded, nothing sent) when looking them up
        and the search cannot both be paid within the limits."""
        if named_places(self.endpoint, filters):
            dry = self.dry_run(filters)
            refused = dry.total.refusal(f"This {self.kind} search and its places looked up")
            if dry.places and refused is not None:
                raise refused
        return places_by_name(self.run, self.endpoint, filters, chosen)

    def quote(self, filters: dict[str, Any]) -> SearchCost:
        """What starting it with `filters` and reading its results can cost (nothing is sent;
        InvalidParameter when the service would refuse the filters)."""
        return search_cost(self.view, self.kind, filters)

    def dry_run(self, filters: dict[str, Any]) -> DryRun:
        """What starting it with `filters` can cost, places given by name included, with
        nothing sent: the names the cache knows are its geo ids; the others are said, with
        what looking them up costs (the search is quoted with each standing in as a geo id)."""
        known, unknown = places_unknown(self.view, self.endpoint, filters)
        lookups = self.view.estimate(
            [(PLACE_LOOKUP, {"location": name}) for name in dict.fromkeys(unknown)]
        )
        cost = self.quote(known)
        total = self.view.quote(cost.credits + lookups.credits, drawing_on=cost.aside)
        return DryRun(cost, tuple(dict.fromkeys(unknown)), lookups.credits, total)

    def start(
        self, filters: dict[str, Any], quoted: Quoted | None = None, *, doubt_said: bool = False
    ) -> SearchJob:
        """The cost quoted first, to `quoted` (to say it, or ask: an exception raised there
        ends it and nothing is sent), then the search started, or reused when the same one
        ran within the reuse window (free): quoted again, as a new search, when the service
        has forgotten the one reused (with no `quoted` to ask: SearchError, nothing more
        sent; run again, it is then priced as new). One that the budget or the spending cap
        cannot pay is refused before anything is sent (BudgetExceeded). The same search sent
        before with no answer kept (`SearchCost.in_doubt`) is started again only when the
        quote that said so reached the user: given to `quoted`, or shown by the caller
        (`doubt_said`: a form's or a macro's cost line); else SearchError (`in_doubt`),
        nothing sent."""
        if quoted is not None:
            cost = self.quote(filters)
            quoted(cost)
            doubt_said = doubt_said or bool(cost.doubt_said())

        def forgotten() -> None:  # the job reused is gone at the service: a new search
            cost = replace(self.quote(filters), forgotten=True)
            if quoted is None:  # nobody to ask: it is not paid on a quote that said free
                raise SearchError(
                    f"The {self.kind} search reused is no longer known to the service (it "
                    "forgets searches after a time): nothing more was sent. Run it again: it "
                    f"starts anew, at most {counted(cost.credits, 'credit')}.",
                    code="forgotten",
                )
            quoted(cost)

        self.job = start_search(self.view, self.kind, filters, forgotten, doubt_said=doubt_said)
        self.attached = False
        return self.job

    def attach(self, request_id: str) -> SearchJob:
        """The search started before (here, elsewhere, before a crash) with this request id:
        not paid again; its pages read before are cached (free), the others are paid."""
        self.job = self.view.attach_search(self.kind, request_id)
        self.attached = True
        return self.job

    def wait(
        self,
        *,
        timeout: float | None = 3600.0,
        on_status: Progress | None = None,
        sleep: Callable[[float], None] | None = None,
    ) -> SearchStatus:
        """Poll its free status until it completes, each status given to `on_status`; `sleep`
        waits between polls (a form's Cancel ends it). SearchFailed, or SearchTimedOut after
        `timeout` seconds (the search goes on at the service: attach to it later)."""
        job = self._job()
        if sleep is not None:
            job.sleep = sleep
        return job.wait(timeout=timeout, progress=on_status)

    def unread_cost(self, status: SearchStatus) -> SearchCost:
        """What reading its results not read yet can cost, once it has completed (`status`,
        what `wait` returned): the pages read before are free (nothing is sent)."""
        job = self._job()
        return attached_cost(self.view, self.kind, job.request_id, status.total_results)

    def read(
        self, *, on_page: PageProgress | None = None, until_budget: bool = False
    ) -> pl.DataFrame:
        """Every result, each page read once (and cached: read again, free), as a polars
        DataFrame; `on_page(read, expected)` after each page (an exception raised in it stops
        the reading). `until_budget`: a page the budget or cap cannot pay ends the reading
        (`cut_by_budget` says why) instead of raising BudgetExceeded."""
        return self._job().frame(on_page=on_page, until_budget=until_budget)

    @property
    def request_id(self) -> str:
        """Its id at the service (to re-attach to it later)."""
        return self._job().request_id

    @property
    def limit(self) -> int | None:
        """The most results it can give (None when attached: the service says)."""
        return self._job().limit

    @property
    def cut_by_credits(self) -> Exception | None:
        """The account out of credits ended the reading of its results (`until_budget`)."""
        return None if self.job is None else self.job.cut_by_credits

    @property
    def cut_by_stop(self) -> Exception | None:
        """The client stopping buying ended the reading of its results (`until_budget`)."""
        return None if self.job is None else self.job.cut_by_stop

    @property
    def stopped_reading(self) -> bool:
        """Whether its run stopped (Ctrl-C) before every page was read (`until_budget`)."""
        return self.job is not None and self.job.stopped_reading

    @property
    def cut_by_budget(self) -> Exception | None:
        """The budget or cap that ended the reading of its results early (`until_budget`)."""
        return None if self.job is None else self.job.cut_by_budget

    def _job(self) -> SearchJob:
        if self.job is None:
            raise RuntimeError("start or attach the search first")
        return self.job
