"""The search macros' logic over cell values: a Filters sheet -> a search, its cost, its rows."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from profnet_sheets.batch.kinds import KINDS
from profnet_sheets.client import cell_values
from profnet_sheets.client.jobs import SearchStatus
from profnet_sheets.client.prepare import prepare
from profnet_sheets.client.spend import Quote
from profnet_sheets.errors import ArgumentError
from profnet_sheets.excel import cells
from profnet_sheets.excel.cells import CellValue, Rows
from profnet_sheets.searches.workflow import Search
from profnet_sheets.spec import DEFAULT_PROFILE, Endpoint, Param, ServiceProfile, search_endpoint
from profnet_sheets.spec.endpoints import SearchKind
from profnet_sheets.words import canonical_name, counted

if TYPE_CHECKING:
    import polars as pl

    from profnet_sheets.client.client import Client

FILTERS_SHEET: Final = "Filters"
RESULTS_SHEET: Final = "Results"
ENRICH: Final = "enrich"  # the Filters row that adds each result's details
ENRICH_KIND: Final[dict[SearchKind, str]] = {"leads": "profile", "companies": "company"}
LABEL: Final[dict[SearchKind, str]] = {"leads": "Lead search", "companies": "Company search"}
WAIT_SECONDS: Final = 900.0  # how long a macro waits for the service before it hands back
_PAIR: Final = re.compile(r"[,;]")
Report = Callable[[str], None]  # a line for Excel's status bar


@dataclass(frozen=True)
class SearchRequest:
    """A search as the Filters sheet asks for it: the filters as typed (the client normalises
    them), and whether to add each result's details."""

    kind: SearchKind
    filters: dict[str, Any]
    enrich: bool = False
    profile: ServiceProfile = DEFAULT_PROFILE  # how the service reads them (its hosts)

    @property
    def endpoint(self) -> Endpoint:
        return search_endpoint(self.kind, "create")

    @property
    def limit(self) -> int:
        """The most results the search gives (the spec's default when not given)."""
        return int(prepare(self.endpoint, self.filters, profile=self.profile)["limit"])


def filter_rows(kind: SearchKind) -> list[tuple[str, str]]:
    """Every filter a Filters sheet may hold, with what it is (from the spec)."""
    rows = [(param.name, param.description) for param in search_endpoint(kind, "create").params]
    return [*rows, (ENRICH, "TRUE to add each result's details (1 credit per result)")]


def _value(param: Param, value: Any) -> Any:
    """A cell's value as the client takes it: `min, max` for a range of numbers."""
    if param.type == "object" and isinstance(value, str) and _PAIR.search(value):
        low, high = _PAIR.split(value, maxsplit=1)
        return (low.strip(), high.strip())
    return value


WAITING: Final = cell_values.STILL_CALCULATING  # a formula xlwings is still calculating


def _refuse_error(label: str, value: Any) -> None:
    """A filter showing an error stops the search: read as empty, it would run a broader
    (paid) search than the one asked for; read as text, a search for the error's words."""
    if not isinstance(value, str):
        return
    shown = value.strip()
    if shown.upper() in cell_values.EXCEL_ERRORS:
        what, hint = f"the Excel error {shown.upper()}", "fix the cell, or clear it to leave it out"
        if shown.upper() == "#NAME?":
            hint = (
                "a PROFNET_ formula there needs its functions imported (Windows: xlwings tab > "
                "Import Functions; macOS has no PROFNET_ formulas): or type the value itself, "
                "such as the geo id"
            )
    elif shown.startswith(WAITING):
        what, hint = "a formula still calculating", "wait for its answer, then run again"
    elif cells.is_error_text(shown):
        what, hint = f"the error of its formula ({shown})", "fix it, or type the value itself"
    else:
        return
    raise ArgumentError(
        f"{FILTERS_SHEET} sheet: {label} shows {what}, so the search was not run (nothing "
        f"spent): {hint}"
    )


def read_filters(
    kind: SearchKind,
    rows: Iterable[Sequence[Any] | None],
    profile: ServiceProfile = DEFAULT_PROFILE,
) -> SearchRequest:
    """The search the (name, value) rows of a Filters sheet ask for, checked against the spec
    (as the service of `profile`, the session client's, reads them) before anything is paid
    (InvalidParameter names the filter that is wrong). The rows must be read with Excel errors
    as text: a filter showing one stops the search."""
    ep = search_endpoint(kind, "create")
    filters: dict[str, Any] = {}
    enrich = False
    unknown: list[str] = []
    for row in rows:
        name, value = ([*row, None, None] if row else [None, None])[:2]
        label = cells.key(name, "filter name")
        value = cells.clean(value)
        if label is None or cells.blank(value):
            continue  # a blank row, or a filter left empty
        _refuse_error(label, value)
        cells.refuse_date(value, label)
        wanted = canonical_name(label)
        if wanted == ENRICH:
            enrich = bool(cells.flag(value, ENRICH))
        elif wanted in ep.param_names:
            filters[wanted] = _value(ep.param(wanted), value)
        else:
            unknown.append(label)
    if unknown:
        raise ArgumentError(
            f"{FILTERS_SHEET} sheet: no filter {', '.join(map(repr, unknown))}; use "
            f"{', '.join(ep.param_names)} or {ENRICH}"
        )
    prepare(ep, filters, profile=profile)
    return SearchRequest(kind, filters, enrich, profile)


@dataclass(frozen=True)
class Cost:
    """The most a search can cost, before it runs."""

    kind: SearchKind
    search: int  # 0: an identical search ran within the reuse window, and is reused
    results: int
    enrichment: int
    quote: Quote  # what the limits say of `total`
    doubt: str = ""  # the same search sent before with no answer kept (SearchCost.doubt_said)

    @property
    def total(self) -> int:
        return self.search + self.results + self.enrichment

    @property
    def budget_left(self) -> int | None:
        return self.quote.budget_left

    @property
    def within_budget(self) -> bool:
        return self.quote.within

    def over(self) -> str:
        """`Over the spending cap 100/day (40 left): not run.`: the limit it passes."""
        return over_limit(self.quote)

    def line(self) -> str:
        search = f"the search {self.search}" if self.search else "the search reused (free)"
        parts = [search, f"up to {self.results} for the results"]
        if self.enrichment:
            parts.append(f"up to {self.enrichment} for their details")
        left = "" if self.budget_left is None else f"; budget left {self.budget_left}"
        most = counted(self.total, "credit")
        return f"{LABEL[self.kind]}: at most {most} ({', '.join(parts)}){left}.{self.doubt}"


def over_limit(quote: Quote) -> str:
    """What a macro says of a run the limits refuse: the limit it passes, and what it leaves."""
    short = quote.short
    if short is None:
        return ""
    return f"{short.over_said()}: not run."


def cost(client: Client, request: SearchRequest) -> Cost:
    """What the request can cost at most: its creation (nothing if reused), the results not
    read yet, and 1 per result's details when asked for."""
    search = Search(client, request.kind).quote(request.filters)
    details = KINDS[ENRICH_KIND[request.kind]].endpoint
    enrichment = request.limit * client.ceiling(details, {}) if request.enrich else 0
    start = 0 if search.reused else search.create_credits
    results = search.results_to_pay * search.per_result
    quote = client.quote(start + results + enrichment, drawing_on=search.aside)
    return Cost(request.kind, start, results, enrichment, quote, search.doubt_said())


@dataclass(frozen=True)
class SearchRun:
    """A finished search: its id, last status, results (with details if asked), credits."""

    request_id: str
    status: SearchStatus
    frame: pl.DataFrame
    spent: int  # credits charged, those that may have been included
    maybe: int = 0  # of `spent`, what may (or may not) have been charged
    # The engine's words for each result whose details a limit or a stop left unfetched.
    details_undone: tuple[str, ...] = ()


def run(
    client: Client,
    request: SearchRequest,
    report: Report,
    timeout: float | None = None,
    search: Search | None = None,
    doubt_said: bool = False,
) -> SearchRun:
    """Start (or reuse) the search, wait for it with progress (WAIT_SECONDS at most, then
    SearchTimedOut: the search goes on), read every result, add their details if asked.
    `search`: the one to run (its request id and spend known to the caller if this raises);
    `doubt_said`: the cost asked about said the same search was left in doubt before."""
    if search is None:  # the session's limit holds; its spend is its own
        search = Search(client, request.kind)
    label = LABEL[request.kind]
    job = search.start(request.filters, doubt_said=doubt_said)
    report(f"{label} {job.request_id}: started")
    status = search.wait(
        timeout=WAIT_SECONDS if timeout is None else timeout,
        on_status=lambda now: report(
            f"{label} {now.request_id}: {now.status} {now.progress or 0}%"
        ),
    )
    found = (
        "the results" if status.total_results is None else counted(status.total_results, "result")
    )
    report(f"{label} {job.request_id}: reading {found}")
    frame = search.read()
    undone: tuple[str, ...] = ()
    if request.enrich and frame.height:
        from profnet_sheets.batch.engine import enrich
        from profnet_sheets.batch.marks import is_not_done

        kind = KINDS[ENRICH_KIND[request.kind]]
        report(f"{label} {job.request_id}: adding the details of {counted(frame.height, 'result')}")
        new = [name for name in kind.output.field_names if name not in frame.columns]
        prefix = f"{kind.name}_"
        frame = enrich(
            frame, "profnet_url", kind, new, client=search.run, progress=False, prefix=prefix
        )
        errors = frame[f"{prefix}error"].to_list()
        undone = tuple(error for error in errors if is_not_done(error))
    spend = search.spend
    return SearchRun(job.request_id, status, frame, spend.spent, spend.maybe, undone)


def sheet_rows(frame: pl.DataFrame) -> Rows:
    """A header and one row per result, for a macro to write: every text written as text
    (`cells.literal`), so that Excel neither reinterprets it (`1-10` as a date, `007` as 7)
    nor runs it as a formula (the service's text is untrusted)."""
    rows: Rows = [[cells.literal(name) for name in frame.columns]]
    rows.extend([cells.literal(cells.cell(value)) for value in row] for row in frame.iter_rows())
    return rows


def spend_rows(spent: int, maybe: int) -> list[tuple[str, CellValue]]:
    """The credits a macro spent for sure, and apart (when any) those it maybe spent: calls
    whose answers were lost after they went out."""
    rows: list[tuple[str, CellValue]] = [("credits spent", spent - maybe)]
    return [*rows, ("credits possibly spent", maybe)] if maybe else rows


def summary(
    request: SearchRequest,
    outcome: SearchRun | str,
    request_id: str = "",
    data: str = "",
    spent: tuple[int, int] = (0, 0),
    reusable: bool = True,
) -> Rows:
    """The 'Last run' block beside the filters: what happened, the id to fetch it again, and
    where the data comes from (`data`: said when given, the sandbox's above all). A run that
    ended in an error (`outcome` its message) after paying says what it spent (`spent`: all,
    and of it what may have been charged) and, when the search can be run again for free
    (`reusable`: it did not fail at the service), how to read what it paid for."""
    function = "PROFNET_LEADS" if request.kind == "leads" else "PROFNET_COMPANIES"
    if isinstance(outcome, str):
        lines: list[tuple[str, CellValue]] = [("status", outcome), ("request_id", request_id)]
        if any(spent):
            lines.extend(spend_rows(*spent))
        if request_id and any(spent) and reusable:
            lines.append(
                (
                    "next",
                    "once the cause above is dealt with, run the search again: it is reused "
                    f"(free) and what was read is not paid again; or {function}(request_id)",
                )
            )
    elif outcome.details_undone:  # a limit or a stop cut the details: said first
        undone, results = outcome.details_undone, counted(outcome.frame.height, "result")
        lines = [
            (
                "status",
                f"stopped: {len(undone)} of {results} without their details "
                f"({undone[0][:300]}); all on the {RESULTS_SHEET} sheet",
            ),
            ("request_id", outcome.request_id),
            *spend_rows(outcome.spent, outcome.maybe),
            (
                "next",
                "once the cause above is dealt with, run the search again: it is reused "
                "(free), and the results and details read are not paid again",
            ),
        ]
    else:
        lines = [
            (
                "status",
                f"{outcome.status.status}: {counted(outcome.frame.height, 'result')} on the "
                f"{RESULTS_SHEET} sheet",
            ),
            ("request_id", outcome.request_id),
            *spend_rows(outcome.spent, outcome.maybe),
            ("fetch again", f"{function}(request_id) with the id above (free once read)"),
        ]
    if data:
        lines.append(("data", data))
    return [
        [cells.literal(label), cells.literal(value)]
        for label, value in [("last run", LABEL[request.kind]), *lines]
    ]
