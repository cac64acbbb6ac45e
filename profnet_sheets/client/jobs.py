"""A search's life: create (or reuse) -> poll the free status -> read every results page once;
resumable by request_id. Counts the service leaves out (`total_results`, `total_pages`,
`progress`) are never read as 0: pages are then read until an empty or short one."""

from __future__ import annotations

import numbers
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from profnet_sheets.client.answers import whole_number
from profnet_sheets.client.pace import Stopped
from profnet_sheets.client.policy import RetryPolicy
from profnet_sheets.client.spend import MAX_PAGE_ITEMS, results_most
from profnet_sheets.config import Settings
from profnet_sheets.errors import (
    ArgumentError,
    BudgetExceeded,
    InsufficientCredits,
    InvalidParameter,
    NotFound,
    ProfnetError,
    RateLimited,
    SearchFailed,
    SearchTimedOut,
    ServiceError,
    ServiceUnreachable,
    StoppedBuying,
    TransportError,
    Unauthorized,
)
from profnet_sheets.redact import shown
from profnet_sheets.spec import PriceTable, search_endpoint
from profnet_sheets.spec.endpoints import SearchKind
from profnet_sheets.words import command, counted

if TYPE_CHECKING:
    import polars

# What a results page may fail with after its call's own retries (asked again by `_page`).
PAGE_FAULTS = (TransportError, ServiceError, RateLimited)


class SearchClient(Protocol):
    """What a search needs of the client that runs it."""

    settings: Settings

    def call(
        self,
        name: str,
        params: Mapping[str, Any] | None = None,
        *,
        max_items: int | None = None,
        **more: Any,
    ) -> Any: ...

    def is_cached(self, name: str, params: Mapping[str, Any]) -> bool: ...

    def starting_in_doubt(self) -> SearchClient: ...

    def left_unrepeated(self, error: ProfnetError) -> bool: ...

    def prepare(self, name: str, params: Mapping[str, Any]) -> dict[str, Any]: ...

    @property
    def prices(self) -> PriceTable: ...

    def refuse_unless_affordable(
        self, credits: int, what: str, endpoint: str | None = None
    ) -> None: ...

    def forget(self, name: str, params: Mapping[str, Any]) -> None: ...

    def with_options(
        self, *, refresh: bool | None = None, offline: bool | None = None
    ) -> SearchClient: ...

    def set_aside(self, credits: int, name: str, what: str) -> int | None: ...

    def name_aside(self, aside: int, request_id: str) -> int: ...

    def aside_of(self, request_id: str) -> int | None: ...

    def drawing_on(self, aside: int | None) -> SearchClient: ...

    def renew_aside(self, aside: int) -> bool: ...

    def give_back(self, aside: int) -> None: ...


PAGE_ATTEMPTS = 4  # a results page is asked for at most this often after transient faults
_SEARCH_LOCK = threading.Lock()
_COMPLETED: set[str] = set()  # request ids of searches seen completed (it never changes)


def start_search(
    client: SearchClient,
    kind: SearchKind,
    filters: dict[str, Any],
    on_forgotten: Callable[[], None] | None = None,
    doubt_said: bool = False,
) -> SearchJob:
    """Start a search, or reuse the same one started within the reuse window (free): a
    reused job the service forgot is run anew, `on_forgotten` asked first (once its cached
    creation is forgotten, so that a quote now prices a new search; an exception raised there
    ends it, nothing more sent); one that failed is forgotten and said so. The same search
    left in doubt by a run before (`InDoubt`) is refused by its call, nothing sent
    (SearchError, code `in_doubt`), unless its quote said so to the user (`doubt_said`) or
    the client refreshes (a new search, paid, asked for)."""
    name = search_endpoint(kind, "create").name
    view = client.with_options(refresh=False)  # a job reads its pages from the cache
    aside: int | None = None
    read_whole: SearchStatus | None = None
    with _SEARCH_LOCK:
        try:
            reused = not client.settings.refresh and client.is_cached(name, filters)
            if not reused:
                aside = _quote_and_set_aside(client, kind, filters)
            starter = client.starting_in_doubt() if doubt_said else client
            created = starter.call(name, filters)
            request_id = str(created["request_id"])
            if reused:  # every result in the cache: nothing to ask the service, free
                read_whole = _read_whole(client, kind, request_id, filters)
            if read_whole is not None:
                _COMPLETED.add(request_id)
            elif reused and not client.settings.offline and request_id not in _COMPLETED:
                try:
                    state = view.call(status_endpoint(kind), request_id=request_id)  # free
                except NotFound:
                    # The service forgot that job: the search asked for is a new one, quoted
                    # and paid as such; its creation replaces the dead one in both caches.
                    client.forget(name, filters)
                    if on_forgotten is not None:
                        on_forgotten()
                    aside = _quote_and_set_aside(client, kind, filters)
                    created = client.with_options(refresh=True).call(name, filters)
                    request_id = str(created["request_id"])
                else:
                    if state.get("status") == "completed":
                        _COMPLETED.add(request_id)
                    elif state.get("status") == "failed":
                        client.forget(name, filters)
                        credits = client.prices.price(search_endpoint(kind, "create")).credits
                        raise _failed_before(kind, request_id, state, credits)
        except BaseException:
            if aside is not None:  # not started: what was set aside for its results goes
                client.give_back(aside)
            raise
    if aside is not None:  # whoever reads this search draws on its results' room
        aside = client.name_aside(aside, request_id)
    job = SearchJob(view, kind, request_id, created=created, filters=filters, aside=aside)
    job.last = read_whole
    return job


def _read_whole(
    client: SearchClient, kind: SearchKind, request_id: str, filters: dict[str, Any]
) -> SearchStatus | None:
    """The status of the search `request_id` when the cache holds every result it can give
    (its pages are read only once it completed, and a completed search never changes), or
    None: then only the service can say whether its other pages can still be read."""
    try:
        read, total = pages_read(client.with_options(offline=True), kind, request_id)
    except LookupError:
        return None
    limit = int(client.prepare(search_endpoint(kind, "create").name, filters)["limit"])
    if total is None:  # not told how many: whole only once read up to its limit
        return SearchStatus(request_id, "completed", 100, read) if read >= limit else None
    return SearchStatus(request_id, "completed", 100, total) if read >= min(limit, total) else None


def _quote_and_set_aside(
    client: SearchClient, kind: SearchKind, filters: Mapping[str, Any]
) -> int | None:
    """BudgetExceeded, nothing sent, unless the limits can pay for a new search with these
    filters: its creation and every result its limit allows (known before paying). Under a
    spending cap, its results' most is then set aside (returned; None: no cap), so that no
    other run or machine spends their room while the search runs: its pages draw on it."""
    create_ep, results = search_endpoint(kind, "create"), search_endpoint(kind, "results")
    payload = client.prepare(create_ep.name, filters)
    limit = int(payload["limit"])
    create = client.prices.price(create_ep).credits
    read = results_most(client.prices, create_ep, payload)
    client.refuse_unless_affordable(
        create + read,
        f"this {kind} search (to start it, and {counted(limit, 'result')} at most)",
        create_ep.name,
    )
    if client.settings.offline:  # nothing is bought: nothing to set aside
        return None
    return client.set_aside(
        read, results.name, f"the results of this {kind} search ({limit} at most)"
    )


def pages_read(offline: SearchClient, kind: SearchKind, request_id: str) -> tuple[int, int | None]:
    """(results read, total results) of the search `request_id`, from the cache of `offline`
    (a client that sends nothing): its pages in order until the last one its counts tell, an
    empty one, or one not cached; the total None when its pages do not tell it (never read
    as 0) unless its last page was read (an empty one, or the last its counts tell: then
    the results read are all). LookupError when no page of it is cached."""
    read, page, total, found = 0, 1, None, False
    try:
        while True:
            body = offline.call(
                search_endpoint(kind, "results").name, request_id=request_id, page=page, max_items=0
            )
            found = True
            items = body.get("results") or []
            read += len(items)
            told = whole_number(body.get("total_results"))
            total = total if told is None else max(total or 0, told)
            pages = whole_number(body.get("total_pages"))
            if not items or (pages is not None and page >= pages):
                total = read if total is None else total  # its last page read: all there is
                break
            page += 1
    except ProfnetError:  # a page not read yet (OfflineMiss), or nothing cached after all
        pass
    if not found:
        raise LookupError("no results page of this search is cached")
    return read, total


def unread_most(
    client: SearchClient, kind: SearchKind, payload: Mapping[str, Any]
) -> tuple[int, str | None]:
    """What reading the results of the search `payload` (prepared) starts can still cost at
    most, and its request id when the cache holds its creation (None: a new search's, every
    result its limit allows). Nothing is sent."""
    create = search_endpoint(kind, "create")
    if not client.is_cached(create.name, payload):
        return results_most(client.prices, create, payload), None
    offline = client.with_options(offline=True)
    request_id = str(offline.call(create.name, payload)["request_id"])
    limit = int(payload.get("limit") or 0)
    try:
        read, total = pages_read(offline, kind, request_id)
    except LookupError:
        read, total = 0, None
    unread = max(0, (limit if total is None else min(limit, total)) - read)
    return client.prices.price(search_endpoint(kind, "results")).upper_bound(unread), request_id


def forget_search(
    client: SearchClient, kind: SearchKind, filters: Mapping[str, Any], request_id: str
) -> None:
    """Forget the cached creation of a search with these filters if it is still the job
    `request_id` (seen failed): a newer run of the same search, maybe another process's,
    is kept."""
    name = search_endpoint(kind, "create").name
    with _SEARCH_LOCK:
        try:
            held = client.with_options(offline=True).call(name, filters)
        except ProfnetError:  # nothing cached for it any more
            return
        if str(held.get("request_id")) == request_id:
            client.forget(name, filters)


def status_endpoint(kind: SearchKind) -> str:
    return search_endpoint(kind, "status").name


def _failed_before(
    kind: SearchKind, request_id: str, state: Mapping[str, Any], credits: int
) -> SearchFailed:
    """The error for a search asked again whose earlier run failed (and is now forgotten);
    starting it again costs `credits`."""
    price = counted(credits, "credit")
    return SearchFailed(
        f"The same {kind} search ran earlier ({request_id}) and failed at the service. It is "
        f"forgotten now: asking again starts a new one (and pays for it: {price}).",
        request_id=request_id,
        endpoint=status_endpoint(kind),
        status=200,
        code="failed",
        details=f"failed at {state.get('progress', 0)}%",
    )


Progress = Callable[["SearchStatus"], None]
PageProgress = Callable[[int, int], None]  # (results read so far, results expected)


@dataclass(frozen=True)
class SearchStatus:
    """One reading of a search job's status."""

    request_id: str
    status: str
    progress: int | None  # None: the service did not say
    total_results: int | None  # None: the service did not say (never read as 0)

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
        client: SearchClient,
        kind: SearchKind,
        request_id: str,
        *,
        created: dict[str, Any] | None = None,
        filters: dict[str, Any] | None = None,
        aside: int | None = None,
    ) -> None:
        if kind not in ("leads", "companies"):
            raise ArgumentError(f"kind must be 'leads' or 'companies', got {shown(kind)}")
        # Credits set aside under the spending cap (and in this process's budget) for its
        # results when it started (by this job, or by the one that started it, here or in
        # another process: named after its request id; None: no limit): its pages draw on
        # them; renewed while it is waited for or read, given back once every page is read or
        # it failed. A wait or a reading cut short (a timeout, a stop, a limit, a fault)
        # leaves them for their lease (ASIDE_LEASE): read by its request id meanwhile, the
        # search still has its room.
        self.aside = client.aside_of(request_id) if aside is None else aside
        self.client = client if self.aside is None else client.drawing_on(self.aside)
        self.kind: SearchKind = kind
        self.request_id = request_id
        self.created = created or {}
        self.filters = filters  # what created it (None when attached): forgotten if it fails
        # The most results it can give (its `limit`; None when attached): never more are read,
        # nor reserved in the budget, whatever total a service reports.
        self.limit: int | None = None
        if filters is not None:
            self.limit = int(client.prepare(search_endpoint(kind, "create").name, filters)["limit"])
        self.last: SearchStatus | None = None
        self.sleep: Callable[[float], None] = time.sleep
        # The budget (or spending cap) ended the reading of its results early (`until_budget`).
        self.cut_by_budget: BudgetExceeded | None = None
        # Its run stopped (Ctrl-C) before every page was read (`until_budget`).
        self.stopped_reading = False
        # The account ran out of credits before every page was read (`until_budget`).
        self.cut_by_credits: InsufficientCredits | None = None
        # The client stopped buying (its cache or ledger failed, the service unreachable, the
        # key refused), or a page failed still after its retries, before every page was read
        # (`until_budget`).
        self.cut_by_stop: ProfnetError | None = None

    def __repr__(self) -> str:
        state = f" {self.last.status} {_percent(self.last)}" if self.last else ""
        return f"<SearchJob {self.kind} {self.request_id}{state}>"

    @property
    def status_endpoint(self) -> str:
        return status_endpoint(self.kind)

    def status(self) -> SearchStatus:
        """Ask the service (free, never cached)."""
        body = self.client.call(self.status_endpoint, request_id=self.request_id)
        seen_failed = self.last is not None and self.last.failed
        if body.get("status") == "failed" and self.filters is not None and not seen_failed:
            # Asking for the same search again must start a new one (priced as such), not
            # hand this failed one back for the rest of the reuse window.
            forget_search(self.client, self.kind, self.filters, self.request_id)
        aside = self.aside if body.get("status") != "failed" else None  # its results' room
        if aside is not None and not self.client.renew_aside(aside):  # none left to draw on
            self.aside = None
            self.client = self.client.drawing_on(None)
        self.last = SearchStatus(
            request_id=str(body.get("request_id") or self.request_id),
            status=str(body.get("status", "processing")),
            progress=whole_number(body.get("progress")),
            total_results=whole_number(body.get("total_results")),
        )
        return self.last

    def _context(self, current: SearchStatus) -> dict[str, Any]:
        """What a SearchError carries: the status call that told, and what it said."""
        return {
            "request_id": self.request_id,
            "endpoint": self.status_endpoint,
            "status": 200,
            "code": current.status,
            "details": f"{current.status} at {_percent(current)}",
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
        (the job goes on at the service: wait again, or attach to it later). Offline, nothing
        is asked (a status is never cached): the last one known, or one saying `offline`; its
        pages read before are read from the cache."""
        if self.client.settings.offline:  # the status is never cached: nothing to ask
            return self.last or SearchStatus(self.request_id, "offline", None, None)
        if timeout is not None and (  # nan too: a deadline never met
            isinstance(timeout, bool) or not isinstance(timeout, numbers.Real) or not timeout >= 0
        ):
            raise InvalidParameter(
                f"timeout: {shown(timeout)} is not a number of seconds, 0 or more (0: look "
                "once; None: no end), such as 600",
                parameter="timeout",
                value=timeout,
            )
        report, close = _reporter(progress, self)
        if self.last is not None and self.last.completed:  # it never changes after that
            try:
                report(self.last)
            finally:
                close()
            return self.last
        deadline = None if timeout is None else time.monotonic() + timeout
        delays = (schedule or PollSchedule()).delays()
        try:
            return self._poll(report, deadline, delays, timeout)
        except SearchFailed:  # no results to read: their room is the limits' again
            self.give_back()
            raise
        finally:  # timed out or stopped, it goes on: its room stays set aside for its lease
            close()

    def _poll(
        self, report: Progress, deadline: float | None, delays: Any, timeout: float | None
    ) -> SearchStatus:
        """Ask its status until it completes (see `wait`)."""
        while True:
            current = self.status()
            report(current)
            if current.completed:
                return current
            if current.failed:
                raise SearchFailed(
                    f"The {self.kind} search {self.request_id} failed at the service "
                    f"(at {_percent(current)}). Its creation was charged; the same search "
                    "run again is a new one, paid again (this one is forgotten).",
                    **self._context(current),
                )
            delay = next(delays)
            if deadline is not None and time.monotonic() >= deadline:
                raise SearchTimedOut(
                    f"The {self.kind} search {self.request_id} is still {current.status} "
                    f"({_percent(current)}) after {timeout:g} s. It goes on at the service: "
                    "wait again, or attach to it later by its request_id.",
                    **self._context(current),
                )
            if deadline is not None:  # a last look at the deadline itself
                delay = min(delay, max(0.0, deadline - time.monotonic()))
            self.sleep(delay)

    def results(
        self,
        *,
        progress: Progress | bool | None = None,
        on_page: PageProgress | None = None,
        until_budget: bool = False,
    ) -> list[dict[str, Any]]:
        """Every result, page by page, once the search has completed (waits if it has not).

        `on_page(read, expected)` is called after each page (a progress bar's hook; an
        exception raised in it stops the reading, and the pages read stay cached). Offline,
        the pages come from the cache (OfflineMiss for one never read). `until_budget`: a
        page the budget or spending cap cannot pay for ends the reading (the results read
        are returned, `cut_by_budget` says why) instead of raising BudgetExceeded, and so
        do a stop of the run the reading works for (`stopped_reading`), the account out of
        credits (`cut_by_credits`) and the client stopping buying, or a page failing still
        after its retries (`cut_by_stop`: its cache failed, the service unreachable, the
        key refused, a 5xx)."""
        if self.last is not None and self.last.completed:
            expected = self.last.total_results
        elif self.client.settings.offline:
            expected = None  # the status is never cached: the pages say how many
        else:
            expected = self.wait(progress=progress).total_results
        rows = self._read_pages(expected, on_page, until_budget)
        if not (
            self.cut_by_budget or self.stopped_reading or self.cut_by_credits or self.cut_by_stop
        ):
            self.give_back()  # every page read: what is left of its room is the limits' again
        # Cut short (a limit, a stop, a fault raised): its room stays for the rest, for its
        # lease, read by its request id meanwhile.
        return rows

    def give_back(self) -> None:
        """Give back what is left of the credits set aside for its results (its pages read,
        or it failed)."""
        if self.aside is not None:
            aside, self.aside = self.aside, None
            self.client = self.client.drawing_on(None)
            self.client.give_back(aside)

    def _read_pages(
        self, expected: int | None, on_page: PageProgress | None, until_budget: bool = False
    ) -> list[dict[str, Any]]:
        """Every page, until the known total, the last page, an empty page, or a page shorter
        than the first (when the service gives no counts). Never more than the limit; the
        budget reserves, for each page, the most it can cost."""
        results = search_endpoint(self.kind, "results").name
        rows: list[dict[str, Any]] = []
        page_size: int | None = None  # learnt from the first page; never assumed
        page = 1
        while True:
            most = min((n for n in (expected, self.limit) if n is not None), default=None)
            if most is not None and len(rows) >= most:
                break
            left = (most - len(rows)) if most is not None else MAX_PAGE_ITEMS
            ceiling = min(left, page_size) if page_size else left
            try:
                body = self._page(results, page, ceiling, len(rows))
            except BudgetExceeded as limit:
                if not until_budget:
                    raise
                self.cut_by_budget = limit
                break
            except Stopped:  # its run stopped (Ctrl-C) as this page waited: nothing sent
                if not until_budget:
                    raise
                self.stopped_reading = True
                break
            except InsufficientCredits as spent:  # the account's credits ran out
                if not until_budget:
                    raise
                self.cut_by_credits = spent
                break
            except (StoppedBuying, ServiceUnreachable, Unauthorized, *PAGE_FAULTS) as stop:
                # nothing more is bought, or a page failed still after its retries
                if not until_budget:
                    raise
                self.cut_by_stop = stop
                break
            items = list(body.get("results") or [])
            rows.extend(items)
            told = whole_number(body.get("total_results"))
            if told is not None:
                expected = max(expected or 0, told)
            if on_page is not None:
                on_page(len(rows), expected if expected is not None else len(rows))
            total_pages = whole_number(body.get("total_pages"))
            if not items or (total_pages is not None and page >= total_pages):
                break
            if total_pages is None and expected is None and page_size and len(items) < page_size:
                break  # a short page, with no count to go by: the last one
            page_size = page_size or len(items)
            page += 1
        return rows[: self.limit] if self.limit is not None else rows

    def _page(self, results: str, page: int, ceiling: int, read: int) -> Any:
        """One results page, asked again after a fault its call's own retries left unrepeated
        for money's sake (a lost answer, a 500/502/504: the page may have been done, and
        charged) up to PAGE_ATTEMPTS times, each attempt within the budget and counted as
        possibly charged; what the call's retries did repeat (a 503, a 429, a connection never
        made) is not asked again. The last fault says how to resume (the pages read stay
        cached)."""
        settings = self.client.settings
        retry = RetryPolicy(backoff=settings.backoff, max_backoff=settings.max_backoff)
        for attempt in range(PAGE_ATTEMPTS):
            try:
                return self.client.call(
                    results, request_id=self.request_id, page=page, max_items=ceiling
                )
            except PAGE_FAULTS as fault:
                if not self.client.left_unrepeated(fault) or attempt + 1 == PAGE_ATTEMPTS:
                    fault.message = fault.args[0] + self._resume(read)
                    fault.args = (fault.message,)
                    raise
                self.sleep(retry.wait_before(attempt))
        raise AssertionError("unreachable")  # pragma: no cover

    def _resume(self, read: int) -> str:
        return (
            f" ({read} results of the {self.kind} search {self.request_id} read, and cached; "
            f"resume with `{command(f'search {self.kind} --request-id {self.request_id}')}`, "
            f"or client.attach_search({self.kind!r}, {self.request_id!r}).results())"
        )

    def frame(
        self, *, on_page: PageProgress | None = None, until_budget: bool = False
    ) -> polars.DataFrame:
        """The results as a polars DataFrame (columns of the spec's result item); `on_page`
        and `until_budget` as in `results`."""
        import polars as pl

        from profnet_sheets.spec import resources

        item = resources.LEAD_ITEM if self.kind == "leads" else resources.COMPANY_SEARCH_ITEM
        schema = dict.fromkeys(item.field_names, pl.String)
        read = self.results(on_page=on_page, until_budget=until_budget)
        return pl.DataFrame(read, schema=schema, orient="row")


SEARCH_BAR_FORMAT = "{l_bar}{bar}| [{elapsed}{postfix}]"


def _percent(status: SearchStatus) -> str:
    return "?%" if status.progress is None else f"{status.progress}%"


def _reporter(
    progress: Progress | bool | None, job: SearchJob
) -> tuple[Progress, Callable[[], None]]:
    if callable(progress):
        return progress, lambda: None
    if not progress:
        return (lambda status: None), lambda: None
    return status_bar(job.kind)


def status_bar(kind: SearchKind) -> tuple[Progress, Callable[[], None]]:
    """A progress bar (tqdm) of a search's status: the callback that draws each status, and
    the one that closes the bar."""
    from tqdm.auto import tqdm

    # The percentage and the time, no rate: tqdm's would be "%/s" (5602.41%/s after a jump).
    bar = tqdm(total=100, desc=f"{kind} search", bar_format=SEARCH_BAR_FORMAT)

    def report(status: SearchStatus) -> None:
        bar.n = status.progress or 0
        bar.set_postfix_str(status.status)
        bar.refresh()

    return report, bar.close
