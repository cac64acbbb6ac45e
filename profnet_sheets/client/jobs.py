"""SearchJob: create (or reuse) -> poll the free status -> read every results page; resumable."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from profnet_sheets.client.prepare import prepare
from profnet_sheets.errors import SearchFailed, SearchTimedOut
from profnet_sheets.spec import search_endpoint

if TYPE_CHECKING:
    import polars

    from profnet_sheets.client.client import Client

SearchKind = Literal["leads", "companies"]
Progress = Callable[["SearchStatus"], None]
PageProgress = Callable[[int, int], None]  # (results read so far, results expected)


@dataclass(frozen=True)
class SearchStatus:
    """One reading of a search job's status."""

    request_id: str
    status: str
    progress: int
    total_results: int

    @property
    def completed(self) -> bool:
        return self.status == "completed"

    @property
    def failed(self) -> bool:
        return self.status == "failed"


@dataclass(frozen=True)
class PollSchedule:
    """Poll fast at first, then back off to a cap (status calls are free but not unlimited)."""

    first: float = 1.0
    factor: float = 1.5
    cap: float = 30.0

    def delays(self) -> Any:
        delay = self.first
        while True:
            yield delay
            delay = min(self.cap, delay * self.factor)


class SearchJob:
    """A lead or company search on the service, known by its request_id.

    `wait()` polls the free status endpoint until the job completes (raising SearchFailed or
    SearchTimedOut), `results()` reads every page (paid per result, each page once: pages are
    cached). After a crash, `Client.attach_search(kind, request_id)` gives the job back.
    """

    def __init__(
        self,
        client: Client,
        kind: SearchKind,
        request_id: str,
        *,
        created: dict[str, Any] | None = None,
        filters: dict[str, Any] | None = None,
    ) -> None:
        if kind not in ("leads", "companies"):
            raise ValueError(f"kind must be 'leads' or 'companies', got {kind!r}")
        self.client = client
        self.kind: SearchKind = kind
        self.request_id = request_id
        self.created = created or {}
        self.filters = filters  # what created it (None when attached): forgotten if it fails
        # The most results it can give (its `limit`; None when attached): never more are read,
        # nor reserved in the budget, whatever total a service reports.
        self.limit: int | None = None
        if filters is not None:
            self.limit = int(prepare(search_endpoint(kind, "create"), filters)["limit"])
        self.last: SearchStatus | None = None
        self.sleep: Callable[[float], None] = time.sleep

    def __repr__(self) -> str:
        state = f" {self.last.status} {self.last.progress}%" if self.last else ""
        return f"<SearchJob {self.kind} {self.request_id}{state}>"

    @property
    def status_endpoint(self) -> str:
        return "get-lead-search-status" if self.kind == "leads" else "get-company-search-status"

    def status(self) -> SearchStatus:
        """Ask the service (free, never cached)."""
        body = self.client.call(self.status_endpoint, request_id=self.request_id)
        seen_failed = self.last is not None and self.last.failed
        if body.get("status") == "failed" and self.filters is not None and not seen_failed:
            # Asking for the same search again must start a new one (priced as such), not
            # hand this failed one back for the rest of the reuse window.
            self.client.forget_search(self.kind, self.filters, self.request_id)
        self.last = SearchStatus(
            request_id=str(body.get("request_id", self.request_id)),
            status=str(body.get("status", "processing")),
            progress=int(body.get("progress") or 0),
            total_results=int(body.get("total_results") or 0),
        )
        return self.last

    def _context(self, current: SearchStatus) -> dict[str, Any]:
        """What a SearchError carries: the status call that told, and what it said."""
        return {
            "request_id": self.request_id,
            "endpoint": self.status_endpoint,
            "status": 200,
            "code": current.status,
            "details": f"{current.status} at {current.progress}%",
        }

    def wait(
        self,
        *,
        timeout: float | None = 3600.0,
        progress: Progress | bool | None = None,
        schedule: PollSchedule | None = None,
    ) -> SearchStatus:
        """Poll until the job completes. `progress`: a callback given each status, or True for
        a progress bar (tqdm). Raises SearchFailed, or SearchTimedOut after `timeout` seconds
        (the job goes on at the service: wait again, or attach to it later)."""
        report, close = _reporter(progress, self)
        deadline = None if timeout is None else time.monotonic() + timeout
        delays = (schedule or PollSchedule()).delays()
        try:
            while True:
                current = self.status()
                report(current)
                if current.completed:
                    return current
                if current.failed:
                    raise SearchFailed(
                        f"The {self.kind} search {self.request_id} failed at the service "
                        f"(at {current.progress}%). Its creation was charged; start it again "
                        "with refresh=True to pay for a new one.",
                        **self._context(current),
                    )
                delay = next(delays)
                if deadline is not None and time.monotonic() >= deadline:
                    raise SearchTimedOut(
                        f"The {self.kind} search {self.request_id} is still {current.status} "
                        f"({current.progress}%) after {timeout:g} s. It goes on at the service: "
                        "wait again, or attach to it later by its request_id.",
                        **self._context(current),
                    )
                if deadline is not None:  # a last look at the deadline itself
                    delay = min(delay, max(0.0, deadline - time.monotonic()))
                self.sleep(delay)
        finally:
            close()

    def results(
        self,
        *,
        progress: Progress | bool | None = None,
        on_page: PageProgress | None = None,
    ) -> list[dict[str, Any]]:
        """Every result, page by page, once the search has completed (waits if it has not).

        `on_page(read, expected)` is called after each page (a progress bar's hook; an
        exception raised in it stops the reading, and the pages read stay cached). Offline,
        the pages come from the cache (OfflineMiss for one never read)."""
        if self.last is not None and self.last.completed:
            expected = self.last.total_results
        elif self.client.settings.offline:
            expected = 1  # the status is never cached: the first page's total says how many
        else:
            expected = self.wait(progress=progress).total_results
        most = self.limit if self.limit is not None else expected
        rows: list[dict[str, Any]] = []
        page_size: int | None = None  # learnt from the first page; never assumed
        page = 1
        while len(rows) < min(expected, most):
            left = min(expected, most) - len(rows)
            # The budget reserves the most a page can cost: until a page has shown the size,
            # every result still unread (the spec gives no page size; a guess could overspend).
            ceiling = min(left, page_size) if page_size else left
            body = self.client.results_page(self.kind, self.request_id, page, max_items=ceiling)
            items = list(body.get("results") or [])
            rows.extend(items)
            expected = max(expected, int(body.get("total_results") or 0))
            if on_page is not None:
                on_page(len(rows), expected)
            total_pages = int(body.get("total_pages") or 0)
            if not items or (total_pages and page >= total_pages):
                break
            page_size = page_size or len(items)
            page += 1
        return rows

    def frame(self, *, on_page: PageProgress | None = None) -> polars.DataFrame:
        """The results as a polars DataFrame (columns of the spec's result item); `on_page` as
        in `results`."""
        import polars as pl

        from profnet_sheets.spec import resources

        item = resources.LEAD_ITEM if self.kind == "leads" else resources.COMPANY_SEARCH_ITEM
        schema = dict.fromkeys(item.field_names, pl.String)
        return pl.DataFrame(self.results(on_page=on_page), schema=schema, orient="row")


def _reporter(
    progress: Progress | bool | None, job: SearchJob
) -> tuple[Progress, Callable[[], None]]:
    if callable(progress):
        return progress, lambda: None
    if not progress:
        return (lambda status: None), lambda: None
    from tqdm.auto import tqdm

    bar = tqdm(total=100, desc=f"{job.kind} search", unit="%")

    def report(status: SearchStatus) -> None:
        bar.n = status.progress
        bar.set_postfix_str(status.status)
        bar.refresh()

    return report, bar.close
