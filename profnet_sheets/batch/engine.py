"""enrich(): each unique key fetched once, concurrently, with progress; errors per row; joined."""

from __future__ import annotations

import json
import numbers
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import polars as pl

from profnet_sheets.batch.frames import as_polars, like_input
from profnet_sheets.batch.kinds import Kind, kind_named
from profnet_sheets.batch.marks import INTERRUPTED, error_text, is_not_done, not_fetched
from profnet_sheets.batch.naming import column_names, default_prefix, error_column
from profnet_sheets.batch.plan import Lookup, Plan, key_columns, make_plan, plan_lookups
from profnet_sheets.batch.schema import dtype_of, is_timestamp, schema_of
from profnet_sheets.client.client import Client
from profnet_sheets.client.prepare import parameter_value
from profnet_sheets.client.spend import InRowOrder
from profnet_sheets.errors import (
    ConfigurationError,
    InvalidParameter,
    NormalizationError,
    ProfnetError,
)
from profnet_sheets.redact import shown
from profnet_sheets.spec import ServiceProfile
from profnet_sheets.spec.endpoints import endpoint as endpoint_named
from profnet_sheets.words import canonical_name, counted, looks_like

Frame = pl.DataFrame | pl.LazyFrame
Progress = bool | Callable[[int, int], None] | None  # a bar, none, or a hook (done, total)


class EnrichmentInterrupted(KeyboardInterrupt):
    """Ctrl-C during an enrichment: `.result` holds the input with what was fetched so far."""

    def __init__(self, result: pl.DataFrame) -> None:
        super().__init__("interrupted; the rows fetched so far are in .result")
        self.result = result


@dataclass(frozen=True)
class Outcome:
    """What one lookup gave: the record's fields, or an error message."""

    record: dict[str, Any] | None
    error: str | None


def _fetch(client: Client, kind: Kind, lookup: Lookup) -> Outcome:
    try:
        payload = client.call(kind.endpoint, lookup.params)
    except ConfigurationError:
        raise  # the whole run is wrong, not this row
    except ProfnetError as error:
        return Outcome(None, error_text(error))
    record = kind.record(payload)
    return Outcome(record, None if record is not None else "not found")


class _Hook:
    """A progress hook `(done, total)` in the shape of a bar. A KeyboardInterrupt raised in
    the hook stops the run as Ctrl-C does (what is done is kept)."""

    def __init__(self, report: Callable[[int, int], None], total: int) -> None:
        self.report, self.total, self.done = report, total, 0
        report(0, total)

    def update(self, count: int) -> None:
        self.done += count
        self.report(self.done, self.total)

    def close(self) -> None:
        """Nothing to close: the hook's owner keeps its display."""


def _progress(total: int, kind: Kind, enabled: Progress) -> Any:
    if callable(enabled):
        return _Hook(enabled, total)
    if enabled is False or total == 0:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=f"enrich {kind.name}", unit="lookup")


def fetch_all(
    client: Client,
    plan: Plan,
    *,
    concurrency: int | None = None,
    progress: Progress = None,
    lookups: Iterator[Lookup] | None = None,
) -> tuple[dict[str, Outcome], bool]:
    """Every lookup of the plan (cached ones first, free), or of `lookups` as they come,
    at the service's pace (`client.pace`), at most `concurrency` at once (default: the
    client's). Returns the outcomes and whether the run was interrupted (Ctrl-C): whatever
    finished is kept, including the calls under way when it was stopped (paid and cached);
    calls still waiting for their turn are not sent."""
    if lookups is None:
        cached = [plan.lookups[key] for key in plan.lookups if key in plan.cached]
        ordered = cached + plan.to_fetch
        lookups, expected = iter(ordered), len(ordered)
    else:  # at most one lookup per distinct key; the true count is known once all are planned
        expected = plan.distinct.height if plan.distinct is not None else 0
    bar = _progress(expected, plan.kind, progress)
    most = max(1, min(concurrency or client.settings.concurrency, expected))
    pace = client.pace
    note = pace.progress_note()  # calls/s, and whether the service throttles
    tightest, skipped = client.quote(0).tightest, dict[str, str]()
    if tightest is not None and tightest.left is not None and not client.settings.offline:
        marked = not_fetched(tightest.setting, tightest.team, tightest.unknown, tightest.renews)
        lookups = _within_budget(client, plan.kind, lookups, tightest.left, skipped, marked)
    run = _Run(client, plan.kind, lookups, skipped)
    run.grow(min(most, pace.view().window))
    interrupted, shown = False, 0
    try:
        # The workers take the lookups themselves; this thread shows progress (and is where
        # Ctrl-C arrives), waking a few times a second rather than once per lookup, and
        # adds workers (up to `most`: as many as the pace's window, or twice as many) while
        # none waits for its turn: the pace would let more calls go than the workers make.
        while not run.finished.wait(_PROGRESS_SECONDS):
            shown = _show_progress(bar, run, shown, note())
            pace.expect(max(0, expected - run.taken))
            view = pace.view()
            if view.waiting == 0:
                run.grow(min(most, max(2 * run.workers, view.window)))
    except KeyboardInterrupt:
        interrupted = True
    finally:
        # Another Ctrl-C while the calls under way finish (or a hook that stops the run) is
        # the same stop: what those calls bring is paid, and kept.
        while True:
            try:
                run.halt()
                pace.expect(None)
                break
            except KeyboardInterrupt:
                interrupted = True
        if bar is not None:
            shown_last = _stops(lambda: _show_progress(bar, run, shown, note()))
            interrupted = _stops(bar.close) or shown_last or interrupted
    if run.failure is not None:
        if isinstance(run.failure, KeyboardInterrupt):
            interrupted = True
        else:
            raise run.failure
    return run.outcomes, interrupted


_PROGRESS_SECONDS = 0.1


def _stops(work: Callable[[], object]) -> bool:
    """Do `work`; whether a Ctrl-C (or a hook stopping the run) came meanwhile."""
    try:
        work()
    except KeyboardInterrupt:
        return True
    return False


def _within_budget(
    client: Client,
    kind: Kind,
    lookups: Iterator[Lookup],
    left: int,
    skipped: dict[str, str],
    marked: str,
) -> Iterator[Lookup]:
    """The lookups in row order, each promised its most from what the limits leave; one that
    no longer fits is added to `skipped` (marked, never sent)."""
    promises = InRowOrder(left)
    for lookup in lookups:
        cost = 0 if client.is_cached(kind.endpoint, lookup.params) else lookup.ceiling
        if not promises.take(cost):
            skipped[lookup.key] = marked
        yield lookup


def _show_progress(bar: Any, run: _Run, shown: int, pace: str | None) -> int:
    """The bar moved to the lookups done (fetched, answered by the cache, or failed), those a
    limit or a stop left undone said apart in its postfix with the pace (`pace`); returns
    how many done it shows."""
    done, total = run.done, run.total
    if bar is None:
        return done
    if total is not None and bar.total != total:  # every lookup is known now
        bar.total = total
        if hasattr(bar, "refresh"):
            bar.refresh()
    note = ", ".join(part for part in (pace, run.skipped_note()) if part)
    if note and hasattr(bar, "set_postfix_str"):
        bar.set_postfix_str(note, refresh=False)  # calls/s, throttled; how many skipped
    if done > shown:
        bar.update(done - shown)
    return max(done, shown)


class _Run:
    """The shared state of one fetch: the lookups still to take, the workers taking them, the
    outcomes, a stop flag."""

    def __init__(
        self, client: Client, kind: Kind, lookups: Iterator[Lookup], skipped: dict[str, str]
    ) -> None:
        self.client, self.kind, self.skipped = client, kind, skipped
        self._working = 0
        self._workers: list[threading.Thread] = []
        self.finished = threading.Event()  # set when the last worker has ended
        self._queue = lookups
        self._taken = 0
        self.total: int | None = None  # how many lookups there are, once all are known
        self._lock = threading.Lock()
        self.outcomes: dict[str, Outcome] = {}
        self.done = 0  # lookups fetched, answered by the cache, or failed
        self.passed = 0  # lookups a limit or a stop left undone (never sent): not progress
        self._why_passed: str | None = None  # the first such lookup's mark
        self.stop = threading.Event()
        self.failure: BaseException | None = None  # what stops the whole run (bad key, ...)

    def grow(self, count: int) -> None:
        """Have `count` workers (never fewer than now), while lookups remain to be taken."""
        with self._lock:
            if self.stop.is_set() or self.total is not None:
                return
            while len(self._workers) < count:
                worker = threading.Thread(
                    target=self.work, name=f"profnet-enrich-{len(self._workers)}", daemon=True
                )
                self._working += 1
                self._workers.append(worker)
                worker.start()

    @property
    def workers(self) -> int:
        return len(self._workers)

    @property
    def taken(self) -> int:
        """Lookups taken by the workers so far."""
        return self._taken

    def halt(self) -> None:
        """Stop taking lookups; calls waiting for their turn give up; wait for the workers."""
        self.stop.set()
        self.client.pace.wake()
        with self._lock:
            workers = list(self._workers)
        for worker in workers:
            worker.join()

    def _next(self) -> Lookup | None:
        with self._lock:
            if self.stop.is_set():
                return None
            lookup = next(self._queue, None)  # may normalise the next keys (a lazy plan)
            if lookup is None:
                self.total = self._taken
            else:
                self._taken += 1
            return lookup

    def work(self) -> None:
        try:
            with self.client.pace.stop_waiting_when(self.stop):
                self._work()
        finally:
            with self._lock:
                self._working -= 1
                if self._working == 0:
                    self.finished.set()

    def _work(self) -> None:
        while True:
            try:  # planning the next key (a lazy plan) and fetching it may both fail
                lookup = self._next()
                if lookup is None:
                    return
                if lookup.key in self.skipped:
                    outcome = Outcome(None, self.skipped[lookup.key])
                else:
                    outcome = _fetch(self.client, self.kind, lookup)
            except BaseException as error:  # handed to the main thread (Ctrl-C too)
                with self._lock:
                    self.failure = self.failure or error
                self.stop.set()
                self.client.pace.wake()
                return
            with self._lock:
                self.outcomes[lookup.key] = outcome
                if is_not_done(outcome.error):
                    self.passed += 1
                    self._why_passed = self._why_passed or outcome.error
                else:
                    self.done += 1

    def skipped_note(self) -> str | None:
        """`3 skipped (spending cap reached)`: the lookups left undone and why, as the first
        one's mark starts (a generic `not fetched` not repeated); None while there are none."""
        if not self.passed or self._why_passed is None:
            return None
        why = self._why_passed.split(":", 1)[0]
        return f"{self.passed:,} skipped" + (f" ({why})" if why != "not fetched" else "")


def _lookup_frame(
    plan: Plan,
    outcomes: Mapping[str, Outcome],
    key_schema: pl.Schema,
    names: dict[str, str],
    error_column: str,
) -> pl.DataFrame:
    """Every distinct raw key with its new columns (`names`: field -> column): the answers
    are built once per call (many raw keys can share one) and joined to the raw keys by
    polars. Timestamps become Datetime (UTC)."""
    output = plan.kind.output
    fields = list(names)
    as_text = {name for name in fields if dtype_of(output.field(name).shape) == pl.String()}
    stamps = [names[name] for name in fields if is_timestamp(output.field(name).shape)]
    keys: list[str] = []
    values: dict[str, list[Any]] = {names[name]: [] for name in fields}
    errors: list[str | None] = []
    for key in plan.lookups:
        outcome = outcomes.get(key)
        record = outcome.record if outcome is not None else None
        keys.append(key)
        for name in fields:
            value = record.get(name) if record is not None else None
            if isinstance(value, dict) and name in as_text:
                value = json.dumps(value, sort_keys=True)
            values[names[name]].append(value)
        errors.append(outcome.error if outcome is not None else plan.failed[key])
    schema = schema_of(output, names, fields)
    answers = pl.DataFrame(
        {_CALL: keys, **values, error_column: errors},
        schema=pl.Schema(
            {
                _CALL: pl.String(),
                **{name: pl.String() if name in stamps else schema[name] for name in schema},
                error_column: pl.String(),
            }
        ),
    ).with_columns(pl.col(stamps).str.to_datetime(time_unit="us", time_zone="UTC", strict=False))
    columns: dict[str, list[Any]] = {name: [] for name in key_schema}
    calls: list[str | None] = []
    invalid: list[str | None] = []
    for raw in plan.raw_keys:
        for name, value in zip(key_schema, raw, strict=True):
            columns[name].append(value)
        calls.append(plan.call_of.get(raw))
        invalid.append(plan.invalid.get(raw))
    raws = pl.DataFrame(
        {**columns, _CALL: calls, _INVALID: invalid},
        schema=pl.Schema({**key_schema, _CALL: pl.String(), _INVALID: pl.String()}),
    )
    joined = raws.join(answers, on=_CALL, how="left", maintain_order="left")
    return joined.with_columns(
        pl.coalesce(_INVALID, error_column).alias(error_column)  # blank keys: no error
    ).drop(_CALL, _INVALID)


_CALL, _INVALID = "__profnet_call", "__profnet_invalid"  # never a user's column name
_ROWS = "__profnet_rows"


def _refuse_bad_arguments(
    spec: Kind,
    schema: pl.Schema,
    columns: Mapping[str, str],
    options: Mapping[str, Any],
    chosen: list[str],
    names: dict[str, str],
    error_column: str,
) -> None:
    """Every argument that cannot work, refused before anything is fetched (or paid)."""
    missing = [name for name in columns.values() if name not in schema]
    if missing:
        available = ", ".join(schema.names())
        raise ValueError(f"no column {', '.join(missing)} in the table; it has {available}")
    for name in columns.values():
        dtype = schema[name]
        if dtype.is_nested() or dtype == pl.Object:  # a list is no key (and is unhashable)
            raise ValueError(
                f"column {shown(name)} holds {dtype} values, not keys: choose a column of text or "
                "numbers (domains, URLs, ids...)"
            )
        if name.startswith("__profnet_"):
            raise ValueError(f"rename the column {shown(name)}: names starting __profnet_ are ours")
    unknown_options = sorted(set(options) - set(spec.options) - set(spec.inputs))
    if unknown_options:
        raise ValueError(f"{spec.name} takes no option {', '.join(unknown_options)}")
    bad = [name for name in chosen if name not in spec.output.field_names]
    if bad:
        raise ValueError(
            f"{spec.name} has no field {', '.join(map(repr, bad))}{_field_hint(spec, bad[0])}; "
            f"it has {', '.join(spec.output.field_names)}"
        )
    if len(set(chosen)) < len(chosen):
        raise ValueError(f"a field is named twice in {chosen}: name each once")
    added = [*names.values(), error_column]
    clashes = [name for name in added if name in schema]
    if clashes:
        raise ValueError(
            f"the table already has {', '.join(clashes)} (enriched before?): give the new "
            f"columns another prefix, such as prefix='{spec.name}2_' (--prefix {spec.name}2_ "
            "on the command line)"
        )


def _refuse_bad_option_values(
    spec: Kind, options: Mapping[str, Any], profile: ServiceProfile
) -> None:
    """An option's value is the same for every row: one the spec refuses is refused once, up
    front, rather than as every row's error."""
    endpoint = endpoint_named(spec.endpoint)
    params = {param.name: param for param in endpoint.params}
    for name, value in options.items():
        if name not in params:  # an input given for every row (several parameters): per row
            continue
        try:
            parameter_value(endpoint, params[name], value, profile=profile)
        except InvalidParameter as error:
            raise NormalizationError(
                f"options={{{name!r}: {shown(value)}}}: {error}", name, value
            ) from None


def enrich(
    frame: Any,
    column: str | Mapping[str, str],
    kind: str | Kind,
    fields: list[str] | str | None = None,
    *,
    client: Client | None = None,
    options: Mapping[str, Any] | None = None,
    concurrency: int | None = None,
    budget: int | None = None,
    progress: Progress = None,
    prefix: str | None = None,
    dry_run: bool = False,
    plan: Plan | None = None,
    new_run: bool = True,
) -> Any:
    """The input table with the kind's fields added, each unique key fetched once.

    `column`: the column holding the keys (domains, URLs, ids...), or for kinds that read
    several (find_profile, headcount, school) a mapping parameter -> column. `kind`: a name of
    batch.kinds.KINDS, or a Kind (one derived from them). `fields`: only
    these (default: all the kind's fields). New columns are named `{kind}_{field}` without a
    word twice (`company_name`, `company_industry`; or `prefix + field`), typed from the spec
    (timestamps as Datetime in UTC); `{kind}_error` says per row what went wrong.
    Input rows, their order, duplicates and nulls are kept exactly. `concurrency`: at most
    this many calls in flight (default: the client's, PROFNET_CONCURRENCY); within it, the
    client's pace finds how many the service takes. `budget`: credits this run
    may spend (rows past it are marked, not fetched). `progress`: a bar (default unless
    PROFNET_QUIET), False for none, or a hook called with (lookups done, lookups in all);
    lookups a limit or a stop left undone are not done (the bar says them apart: `skipped`).
    `dry_run`: return the cost Plan instead;
    `plan`: a Plan made earlier for the same input (its preview), so it is not made twice.
    `new_run`: False to go on in the client's run, whose stops (no credits left, the service
    unreachable) then hold for this call too (Excel's ranges: a recalculation starts a new
    run itself, once a stop has held a while).
    A DataFrame in gives a DataFrame out, a pandas one a pandas one (its columns, dtypes and
    index untouched); a LazyFrame in gives a LazyFrame out (unique keys are collected with
    the streaming engine; memory grows with them, not with the rows).
    Ctrl-C raises EnrichmentInterrupted whose `.result` keeps what was fetched.
    """
    spec = kind if isinstance(kind, Kind) else kind_named(kind)
    data = as_polars(frame)
    lazy = data.lazy() if isinstance(data, pl.DataFrame) else data
    columns = key_columns(spec, column)
    if isinstance(fields, str):  # `fields="company_name, industry"`: names, not letters
        fields = [name.strip() for name in fields.split(",") if name.strip()]
    known = {canonical_name(name): name for name in spec.output.field_names}
    chosen = (  # as formulas read them: `Company Name` is company_name
        [known.get(canonical_name(str(name)), name) for name in fields]
        if fields
        else list(spec.output.field_names)
    )
    prefix = default_prefix(spec.name) if prefix is None else prefix
    schema = lazy.collect_schema()
    names, errors_at = column_names(prefix, chosen, schema.names()), error_column(prefix)
    _refuse_bad_arguments(spec, schema, columns, options or {}, chosen, names, errors_at)
    if concurrency is not None and (
        isinstance(concurrency, bool)
        or not isinstance(concurrency, numbers.Integral)
        or concurrency < 1
    ):
        raise ValueError(
            f"concurrency={shown(concurrency)}: give a whole number of lookups at once, 1 or more"
        )
    concurrency = None if concurrency is None else int(concurrency)
    # A run of its own (stops: decision 213), unless the caller's goes on.
    client = (client or Client()).with_budget(budget, new_run=new_run)
    _refuse_bad_option_values(spec, options or {}, client.profile)
    key_cols = list(columns.values())
    grouped = (
        lazy.group_by(key_cols, maintain_order=True)
        .agg(pl.len().alias(_ROWS))
        .collect(engine="streaming")
    )
    distinct, counts = grouped.drop(_ROWS), grouped[_ROWS].to_list()
    if plan is not None:
        _refuse_unless_planned_for(plan, columns, distinct, sum(counts))
        distinct = plan.distinct if plan.distinct is not None else distinct
        plan = plan if plan.distinct is not None else None
    lookups: Iterator[Lookup] | None = None
    if plan is None:
        rows = sum(counts)
        if dry_run:
            made = make_plan(
                spec,
                columns,
                distinct,
                rows,
                options or {},
                client.is_cached,
                counts,
                profile=client.profile,
            )
            made.offline = client.settings.offline
            made.quote = client.quote(made.credits)  # what its summary says of the limits
            return made
        # The first calls are asked of the cache on this thread (a warm re-run reads its
        # answers here, not in workers contending for the store); fetching starts once 64 are
        # missing, while the others are normalised (the plan is complete when fetching ends).
        plan, lookups = plan_lookups(
            spec,
            columns,
            distinct,
            rows,
            options or {},
            counts,
            profile=client.profile,
            is_cached=client.is_cached,
        )
        plan.offline = client.settings.offline
    if dry_run:
        return plan
    if progress is None:
        progress = not client.settings.quiet  # PROFNET_QUIET silences the bar too
    outcomes, interrupted = fetch_all(
        client, plan, concurrency=concurrency, progress=progress, lookups=lookups
    )
    if lookups is not None:
        for _ in lookups:  # what an interruption left unplanned: marked, not fetched
            pass
    if len(plan.raw_keys) != distinct.height:  # never silently: every key row is accounted for
        raise RuntimeError(
            f"planned {len(plan.raw_keys)} of {distinct.height} distinct keys; nothing is lost "
            "(fetched answers are cached): run again"
        )
    plan.ran = True
    plan.fetched = {key for key, outcome in outcomes.items() if outcome.error is None}
    plan.failed = {key: outcome.error for key, outcome in outcomes.items() if outcome.error}
    # Those never sent: as the run ended, out of credits before a Ctrl-C (workflow.outcome).
    refused = client.refusal(spec.endpoint) if client.out_of_credits else None
    left = INTERRUPTED if refused is None else error_text(refused)
    plan.failed.update({key: left for key in plan.lookups if key not in outcomes})
    added = [*names.values(), errors_at]
    while True:  # a Ctrl-C now stops nothing more: the answers are joined all the same
        try:
            table = _lookup_frame(plan, outcomes, distinct.schema, names, errors_at)
            joined = lazy.join(
                table.lazy(), on=key_cols, how="left", nulls_equal=True, maintain_order="left"
            )
            if isinstance(data, pl.LazyFrame) and not interrupted:
                return joined
            result = like_input(frame, joined.collect(), added)
            break
        except KeyboardInterrupt:
            interrupted = True
    if interrupted:
        raise EnrichmentInterrupted(result)
    return result


def _field_hint(spec: Kind, name: str) -> str:
    """` (the column of the field industry)`, ` (did you mean industry?)`, or nothing."""
    fields = spec.output.field_names
    as_columns = column_names(default_prefix(spec.name), fields)
    field = next((field for field, column in as_columns.items() if column == name), None)
    if field is not None:
        return f" ({name} is the column of the field {field})"
    like = looks_like(str(name).lower(), fields)
    return f" (did you mean {like}?)" if like else ""


def _refuse_unless_planned_for(
    plan: Plan, columns: dict[str, str], distinct: pl.DataFrame, rows: int
) -> None:
    """ValueError unless `plan` was made for this table (its key columns, rows and keys): a
    plan of another (a cell run again after the table changed) would leave the new keys'
    rows empty, with no error, and its cost was not the one approved."""
    planned = ", ".join(map(repr, plan.columns.values()))
    same_keys = plan.distinct is None or (
        plan.distinct.columns == distinct.columns
        and plan.distinct.height == distinct.height
        and _in_order(plan.distinct).equals(_in_order(distinct))  # a table sorted since: its own
    )
    if plan.columns == columns and plan.rows == rows and same_keys:
        return
    raise ValueError(
        f"plan= was made for another table ({counted(plan.rows, 'row')}, "
        f"{len(plan.raw_keys):,} distinct keys in {planned}); this one has "
        f"{counted(rows, 'row')}, {distinct.height:,} distinct keys in "
        f"{', '.join(map(repr, columns.values()))}: make the plan again for it "
        "(plan_enrichment(...)) and look at its cost, or leave plan= out"
    )


def _in_order(keys: pl.DataFrame) -> pl.DataFrame:
    return keys.sort(keys.columns, nulls_last=True)


def plan_enrichment(
    frame: Any,
    column: str | Mapping[str, str],
    kind: str | Kind,
    *,
    client: Client | None = None,
    options: Mapping[str, Any] | None = None,
    fields: list[str] | str | None = None,
    prefix: str | None = None,
) -> Plan:
    """The cost preview of an enrichment, counted in rows (to fetch, cached, invalid, blank)
    and credits; `fields` and `prefix` as enrich() will get them (checked the same way)."""
    result: Plan = enrich(
        frame,
        column,
        kind,
        fields,
        client=client,
        options=options,
        prefix=prefix,
        dry_run=True,
    )
    return result
