"""Pure planning: the unique keys of a column, normalised and deduplicated, and what they cost."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from profnet_sheets.batch.kinds import Kind
from profnet_sheets.client import cell_values, spend
from profnet_sheets.client.keys import canonical_json
from profnet_sheets.client.prepare import prepare
from profnet_sheets.errors import InvalidParameter, NormalizationError
from profnet_sheets.redact import clipped, shown
from profnet_sheets.spec import ServiceProfile, endpoint
from profnet_sheets.words import counted


@dataclass(frozen=True)
class Lookup:
    """One call to make: its parameters (normalised), and the raw key rows that need it."""

    key: str  # canonical JSON of the parameters
    params: dict[str, Any]
    ceiling: int  # the most it can cost


@dataclass
class Plan:
    """Every distinct raw key of the input, what call each needs (or why none), the cost.

    Every count it reports is of rows: `rows_of` weighs each distinct key by the rows that
    hold it."""

    kind: Kind
    columns: dict[str, str]  # parameter -> column
    rows: int
    raw_keys: list[tuple[Any, ...]]  # distinct values of the key columns, in input order
    call_of: dict[tuple[Any, ...], str] = field(default_factory=dict)  # raw key -> lookup key
    invalid: dict[tuple[Any, ...], str] = field(default_factory=dict)  # raw key -> message
    blank: set[tuple[Any, ...]] = field(default_factory=set)
    lookups: dict[str, Lookup] = field(default_factory=dict)
    cached: set[str] = field(default_factory=set)
    distinct: pl.DataFrame | None = None  # the distinct key rows (kept: not collected twice)
    counts: list[int] | None = None  # rows holding each distinct key row (None: one each)
    failed: dict[str, str] = field(default_factory=dict)  # lookup key -> error, after a run
    fetched: set[str] = field(default_factory=set)  # lookup keys answered, after a run
    ran: bool = False  # it was run (enrich's plan=, or the plan enrich made)
    quote: spend.Quote | None = None  # what the limits said of its cost when it was made
    row_count: dict[tuple[Any, ...], int] = field(default_factory=dict)
    offline: bool = False  # its client sends nothing (PROFNET_OFFLINE): only the cache answers
    # Rows refused before the plan saw them (an Excel cell no key can be: TRUE, a date), given
    # to it as blank: said as rows that cannot be looked up, not as blank ones.
    refused_rows: int = 0

    def __repr__(self) -> str:  # a notebook shows this, not every field's
        return f"<Plan {self.kind.name} of {', '.join(map(repr, self.columns.values()))}: {self}>"

    def __str__(self) -> str:
        return self.result_summary() if self.ran else self.summary()

    @property
    def unique_keys(self) -> int:
        return len(self.lookups)

    @property
    def to_fetch(self) -> list[Lookup]:
        return [lookup for key, lookup in self.lookups.items() if key not in self.cached]

    @property
    def credits(self) -> int:
        """The most the run can cost: the ceiling of every call the cache cannot answer (none
        offline: nothing is sent)."""
        return 0 if self.offline else sum(lookup.ceiling for lookup in self.to_fetch)

    def rows_of(self, raws: Iterable[tuple[Any, ...]]) -> int:
        """How many input rows hold these distinct keys."""
        return sum(self.row_count.get(raw, 1) for raw in raws)

    def _rows_calling(self, keys: set[str]) -> int:
        return self.rows_of(raw for raw, key in self.call_of.items() if key in keys)

    def summary(self, budget_left: int | None = None, *, quote: spend.Quote | None = None) -> str:
        """The cost preview, counted in rows: `12 rows: 4 to fetch, 3 already cached, 2 that
        cannot be looked up, 3 blank; at most 3 credits`, then what the limits say of it
        (`quote`; with no `budget_left` either, the one made with the plan): the budget left,
        or the limit that leaves too little (the run stops there)."""
        if quote is None and budget_left is None:
            quote = self.quote
        if quote is not None and (short := quote.short) is not None:
            budget = f"; {short.preview()}"
        else:
            budget_left = quote.budget_left if quote is not None else budget_left
            budget = "" if budget_left is None else f"; budget left {budget_left}"
        unbounded = (quote is None or quote.left is None) and budget_left is None
        if unbounded and self.credits:  # nothing bounds what lost answers asked again cost
            budget += "; answers lost on the way and asked again may cost more (a budget bounds it)"
        cached = self._rows_calling(self.cached)
        fetch = self._rows_calling(set(self.lookups) - self.cached)
        to_fetch = "not in the cache (offline: not fetched)" if self.offline else "to fetch"
        return (
            f"{counted(self.rows, 'row')}: {fetch:,} {to_fetch}, {cached:,} already cached (free), "
            f"{self.rows_of(self.invalid) + self.refused_rows:,} that cannot be looked up, "
            f"{self.rows_of(self.blank) - self.refused_rows:,} blank; at most "
            f"{counted(self.credits, 'credit')} "
            f"(rows with the same key are fetched once){budget}"
        )

    def examples(self, count: int = 3) -> str:
        """The first keys as they are asked (normalised), without options and defaults, those
        the cache answers marked (they are not sent): `stripe.com (cached, not sent),
        https://www.profnet.com/company/acme/`; `name=Anna, company_name=Acme` for a kind that
        reads several columns."""
        options = {*self.kind.options, "limit"}
        shown = []
        for lookup in itertools.islice(self.lookups.values(), count):
            sent = {name: value for name, value in lookup.params.items() if name in self.columns}
            if not sent:  # the kind sends its key under another name (a company's `domain`)
                sent = {k: v for k, v in lookup.params.items() if k not in options}
            pairs = [clipped(str(value), 80) for value in sent.values()]
            if len(sent) > 1:
                pairs = [f"{name}={value}" for name, value in zip(sent, pairs, strict=True)]
            cached = " (cached, not sent)" if lookup.key in self.cached else ""
            shown.append((", ".join(pairs) if len(sent) == 1 else f"({', '.join(pairs)})") + cached)
        return ", ".join(shown)

    def error_rows(self) -> int:
        """Rows that got an error (after a run): invalid keys, failed or unfetched lookups."""
        unanswered = set(self.lookups) - self.fetched
        return self.rows_of(self.invalid) + self._rows_calling(unanswered)

    def rows_failed_with(self, prefixes: tuple[str, ...]) -> int:
        """Rows whose lookup failed with an error starting with one of `prefixes`."""
        return self._rows_calling(
            {k for k, error in self.failed.items() if error.startswith(prefixes)}
        )

    def result_summary(self) -> str:
        """What a run did, counted in rows: `12 rows: 7 enriched, 2 with an error, 3 blank`
        (ValueError for a plan that was not run: it knows nothing of what a run did)."""
        if not self.ran:
            raise ValueError(
                "this plan was not run, so it cannot say what a run did: pass it to enrich "
                "(enrich(..., plan=plan)), then ask plan.result_summary()"
            )
        errors = self.error_rows()
        blank = self.rows_of(self.blank)
        return (
            f"{counted(self.rows, 'row')}: {self.rows - errors - blank:,} enriched, "
            f"{errors:,} with an error, {blank:,} blank"
        )

    def doubtful(self, share: float = 0.5) -> str | None:
        """A warning when most non-blank rows cannot be keys of the kind (the wrong column?),
        naming an example and why; None otherwise."""
        keyed = self.rows - self.rows_of(self.blank)
        bad = self.rows_of(self.invalid)
        if not keyed or bad <= keyed * share:
            return None
        why = next(iter(self.invalid.values()))
        shown = ", ".join(map(str, self.columns.values()))
        return (
            f"{bad:,} of {keyed:,} non-blank rows of {shown} cannot be {self.kind.name} keys "
            f"(e.g. {why.removeprefix('invalid input: ')}): is it the right column?"
        )


def key_columns(kind: Kind, column: str | Mapping[str, str]) -> dict[str, str]:
    """Parameter -> column: a single column feeds the kind's main input."""
    if isinstance(column, str):
        return {kind.inputs[0]: column}
    if not isinstance(column, Mapping):
        raise TypeError(
            f"column={shown(column)}: give the key column's name (such as 'Website'), or a "
            f"mapping of {kind.name}'s inputs ({', '.join(kind.inputs)}) to column names"
        )
    unknown = sorted(set(column) - set(kind.inputs))
    if unknown:
        raise ValueError(
            f"{kind.name} takes columns for {', '.join(kind.inputs)}; not {', '.join(unknown)}"
        )
    if not column:
        raise ValueError(f"{kind.name} needs a column for {kind.inputs[0]}")
    return dict(column)


def _is_blank(value: Any) -> bool:
    try:
        return cell_values.text(value, "value") is None
    except NormalizationError:
        return False  # an Excel error value is not blank: the call will say what is wrong


def make_plan(
    kind: Kind,
    columns: dict[str, str],
    distinct: pl.DataFrame,
    rows: int,
    options: Mapping[str, Any],
    is_cached: Callable[[str, dict[str, Any]], bool] | None = None,
    counts: list[int] | None = None,
    *,
    profile: ServiceProfile,
) -> Plan:
    """Normalise each distinct raw key into the call it needs (as `profile`'s service reads
    them), priced at its prices; identical calls merge. `counts`: the rows holding each
    distinct key row (default one each)."""
    plan, lookups = plan_lookups(kind, columns, distinct, rows, options, counts, profile=profile)
    for _ in lookups:
        pass
    if is_cached is not None:
        name = endpoint(kind.endpoint).name
        plan.cached = {
            key for key, lookup in plan.lookups.items() if is_cached(name, lookup.params)
        }
    return plan


def plan_lookups(
    kind: Kind,
    columns: dict[str, str],
    distinct: pl.DataFrame,
    rows: int,
    options: Mapping[str, Any],
    counts: list[int] | None = None,
    *,
    profile: ServiceProfile,
    is_cached: Callable[[str, dict[str, Any]], bool] | None = None,
) -> tuple[Plan, Iterator[Lookup]]:
    """A plan filled as its lookups are taken: each new call is handed out as soon as it is
    known (fetching can start before every key is normalised); the plan is complete once the
    iterator is exhausted. Keys are read, and calls priced, as `profile` says.

    With `is_cached` (which also warms the client's memo), the first calls are asked of the
    cache here, in the calling thread, until MISSES_AHEAD of them are not in it: a warm re-run
    so reads its answers on one thread, not in workers contending for the store."""
    plan = Plan(kind, columns, rows, [], distinct=distinct, counts=counts)
    lookups = _discover(plan, options, profile)
    if is_cached is None:
        return plan, lookups
    return plan, itertools.chain(_ahead(plan, lookups, is_cached), lookups)


MISSES_AHEAD = 64  # calls found missing from the cache before fetching starts (milliseconds)
PLANNED_AHEAD = 10_000  # at most this many calls planned before fetching starts (~1 s warm)


def _ahead(
    plan: Plan, lookups: Iterator[Lookup], is_cached: Callable[[str, dict[str, Any]], bool]
) -> list[Lookup]:
    """The first lookups, each asked of the cache (`plan.cached` filled), until MISSES_AHEAD
    are not in it or PLANNED_AHEAD are planned."""
    name = endpoint(plan.kind.endpoint).name
    found: list[Lookup] = []
    missing = 0
    for lookup in lookups:
        found.append(lookup)
        if is_cached(name, lookup.params):
            plan.cached.add(lookup.key)
        else:
            missing += 1
        if missing >= MISSES_AHEAD or len(found) >= PLANNED_AHEAD:
            break
    return found


def _discover(plan: Plan, options: Mapping[str, Any], profile: ServiceProfile) -> Iterator[Lookup]:
    kind, parameters = plan.kind, list(plan.columns)
    ep = endpoint(kind.endpoint)
    assert plan.distinct is not None
    counts = plan.counts if plan.counts is not None else itertools.repeat(1)
    # A kind found by its main input, the others narrowing it down (a person's name, then
    # the company...), when its column is mapped: a row without it is no such lookup.
    main = kind.inputs[0]
    optional = not any(param.name == main and param.required for param in ep.params)
    unnarrowed = main if len(parameters) > 1 and main in parameters and optional else None
    for values, count in zip(plan.distinct.iter_rows(), counts, strict=False):
        raw = tuple(values)
        plan.raw_keys.append(raw)
        plan.row_count[raw] = count
        # A placeholder (N/A, -, TBD...) is a blank in every column: never sent.
        row = {
            name: None if cell_values.is_placeholder(value, words=kind.takes_words) else value
            for name, value in zip(parameters, raw, strict=True)
        }
        if all(_is_blank(value) for value in row.values()):
            plan.blank.add(raw)
            continue
        if unnarrowed is not None and _is_blank(row[unnarrowed]):
            plan.invalid[raw] = (
                f"invalid input: no {unnarrowed} in this row, only what narrows it down: "
                f"{kind.name} would pay for whatever matches the rest. Give a {unnarrowed}, "
                f"or map no column to {unnarrowed} to look up by the others alone"
            )
            continue
        try:
            params = prepare(ep, kind.call(row, options), profile=profile)
        except (InvalidParameter, NormalizationError) as error:
            plan.invalid[raw] = f"invalid input: {error}"
            continue
        key = canonical_json(params)
        plan.call_of[raw] = key
        if key not in plan.lookups:
            ceiling = spend.ceiling(profile.prices, ep, params)
            lookup = plan.lookups[key] = Lookup(key, params, ceiling)
            yield lookup
