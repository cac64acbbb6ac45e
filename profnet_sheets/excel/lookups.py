"""Lookups by key: one cell is one call (from memory when warm); a range is one enrich() call."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from profnet_sheets.batch.kinds import Kind
from profnet_sheets.errors import ArgumentError, NormalizationError, ProfnetError
from profnet_sheets.excel import cells
from profnet_sheets.excel.cells import CellValue, Grid, Result, Rows
from profnet_sheets.excel.messages import NOT_FOUND, message_for, row_message
from profnet_sheets.excel.session import ExcelSession
from profnet_sheets.spec.schema import ArrayOf, ObjectOf
from profnet_sheets.words import canonical_name

if TYPE_CHECKING:
    from profnet_sheets.batch.engine import Progress
    from profnet_sheets.batch.plan import Plan

Answer = dict[str, Any] | str | None  # a record, a #PROFNET! text, or None for a blank key
_OUT = "out."  # prefix of the columns enrich() adds: never a key column's name


def choose_fields(
    shape: ObjectOf, asked: Any, function: str, default: Sequence[str] | None = None
) -> list[str]:
    """The fields named in `asked` (text or cells; any case, spaces for underscores), or
    `default` (all the shape's fields) when none are named."""
    fallback = None if default is None else tuple(default)
    try:
        # id(shape): shapes are the spec's constants, and hashing one walks all its fields
        key = (id(shape), asked, function, fallback)
        known = _CHOSEN.get(key)
    except TypeError:  # a range of names (a list): not hashable, so not remembered
        return list(_choose(shape, asked, function, fallback))
    if known is None:
        if len(_CHOSEN) >= 4096:
            _CHOSEN.clear()
        known = _CHOSEN[key] = _choose(shape, asked, function, fallback)
    return list(known)


def _choose(
    shape: ObjectOf, asked: Any, function: str, default: tuple[str, ...] | None
) -> tuple[str, ...]:
    names = cells.names(asked, "fields")
    if not names:
        return shape.field_names if default is None else default
    known = {canonical_name(name): name for name in shape.field_names}
    unknown = [name for name in names if canonical_name(name) not in known]
    if unknown:
        raise ArgumentError(
            f"{function} has no field {', '.join(map(repr, unknown))}: "
            f"use {', '.join(shape.field_names)}"
        )
    return tuple(dict.fromkeys(known[canonical_name(name)] for name in names))


_CHOSEN: dict[tuple[int, Any, str, tuple[str, ...] | None], tuple[str, ...]] = {}


@dataclass(frozen=True)
class Lookup:
    """A formula over a kind of enrichment. With `items` (the record's list of posts or
    recommendations) each item is a row, after the key when there are several keys."""

    function: str
    kind: Kind
    items: str | None = None
    key_name: str = "key"

    @property
    def shape(self) -> ObjectOf:
        """The fields a user may choose: the record's, or one item's."""
        if self.items is None:
            return self.kind.output
        field = self.kind.output.field(self.items).shape
        if not (isinstance(field, ArrayOf) and isinstance(field.items, ObjectOf)):
            raise TypeError(f"{self.kind.name}.{self.items} is not a list of records")
        return field.items

    def with_record(self, record: Callable[[Any], dict[str, Any] | None]) -> Lookup:
        """The same lookup keeping another part of the answer (e.g. a place of one type)."""
        return dataclasses.replace(self, kind=dataclasses.replace(self.kind, record=record))


def lookup(
    session: ExcelSession,
    spec: Lookup,
    inputs: Mapping[str, Any],
    fields: list[str],
    header: bool | None,
    options: Mapping[str, Any] | None = None,
) -> Result:
    """`spec` for one key (a value, or a row) or for ranges of keys (one table, one batch).

    `inputs`: parameter -> argument (a value or a range); ranges must have as many cells as
    the largest, single values apply to every row. `options` apply to every lookup.
    """
    grids = {name: cells.grid(value) for name, value in inputs.items()}
    main = max(grids.values(), key=lambda grid: len(grid.cells))
    given = {
        name: cells.clean(value) for name, value in (options or {}).items() if value is not None
    }
    if main.single:
        first = {name: grid.cells[0] for name, grid in grids.items()}
        answers = [fetch_one(session, spec.kind, first, given)]
    else:
        columns = _columns(spec, grids, len(main.cells))
        ranged = {name for name, grid in grids.items() if not grid.single}
        many = fetch_rows if session.one_by_one else fetch_many
        answers = many(session, spec.kind, columns, given, ranged)
    if main.single and (answers[0] is None or isinstance(answers[0], str)):
        return answers[0] or ""  # one blank key, or one key's error: nothing to spill
    if spec.items is None:
        return _records(answers, fields, bool(header), main)
    keys = None if main.single else [cells.cell(value) for value in main.cells]
    return _items(spec.items, answers, fields, header, keys, spec.key_name)


def _columns(spec: Lookup, grids: Mapping[str, Grid], size: int) -> dict[str, Sequence[Any]]:
    """Each input's cells, a single value repeated on every row."""
    uneven = [name for name, grid in grids.items() if len(grid.cells) not in (1, size)]
    if uneven:
        raise ArgumentError(
            f"{spec.function}: the ranges of {', '.join(grids)} must have as many cells each "
            f"({', '.join(f'{name} {len(grid.cells)}' for name, grid in grids.items())})"
        )
    return {name: grid.cells * (size // len(grid.cells)) for name, grid in grids.items()}


def fetch_one(
    session: ExcelSession, kind: Kind, inputs: Mapping[str, Any], options: Mapping[str, Any]
) -> Answer:
    """One key's record: a call the client answers from memory when it can."""
    try:
        words = kind.takes_words
        row = {name: cells.lookup_key(value, name, words=words) for name, value in inputs.items()}
        if all(value is None for value in row.values()):
            return None
        raw = (kind.name, *row.items(), *sorted(options.items()))
        try:
            hash(raw)
        except TypeError:  # a list among the options: not hashable, normalised every time
            payload = session.client.call(kind.endpoint, kind.call(row, options))
        else:
            payload = session.client.call_as(kind.endpoint, raw, lambda: kind.call(row, options))
    except ProfnetError as error:
        return message_for(error)
    record = kind.record(payload)
    return record if record is not None else cells.error_text(NOT_FOUND)


def _key_rows(
    columns: Mapping[str, Sequence[Any]], ranged: set[str], kind: Kind
) -> tuple[dict[str, list[str | None]], dict[int, str]]:
    """Each row's keys as text, and the message of each row with a cell that cannot be a key.
    Such a row, and a row whose ranged cells are all blank, is left blank: no lookup."""
    texts: dict[str, list[str | None]] = {name: [] for name in columns}
    invalid: dict[int, str] = {}
    for index, values in enumerate(zip(*columns.values(), strict=True)):
        try:
            row = [
                cells.lookup_key(value, name, words=kind.takes_words)
                for name, value in zip(columns, values, strict=True)
            ]
        except NormalizationError as error:
            invalid[index] = message_for(error)
            row = [None] * len(columns)
        if all(text is None for name, text in zip(columns, row, strict=True) if name in ranged):
            row = [None] * len(columns)
        for name, text in zip(columns, row, strict=True):
            texts[name].append(text)
    return texts, invalid


def fetch_rows(
    session: ExcelSession,
    kind: Kind,
    columns: Mapping[str, Sequence[Any]],
    options: Mapping[str, Any],
    ranged: set[str] | None = None,
) -> list[Answer]:
    """fetch_many() without the batch engine (no polars, no thread: xlwings Lite): each
    row's record by fetch_one(), identical keys answered once by the client's caches."""
    texts, invalid = _key_rows(columns, set(columns) if ranged is None else ranged, kind)
    answers: list[Answer] = []
    for index in range(len(next(iter(texts.values()), []))):
        row = {name: values[index] for name, values in texts.items()}
        answers.append(invalid.get(index) or fetch_one(session, kind, row, options))
    return answers


def _frame(texts: Mapping[str, list[str | None]]) -> Any:
    import polars as pl

    return pl.DataFrame(texts, schema=dict.fromkeys(texts, pl.String))


def plan_many(
    session: ExcelSession,
    kind: Kind,
    columns: Mapping[str, Sequence[Any]],
    options: Mapping[str, Any] | None = None,
) -> Plan:
    """What fetch_many() of these columns costs at most, from the cache alone (nothing is
    sent): its distinct keys as it reads them, those cached, the credits. Hand it back to
    fetch_many() so that the keys are not planned twice."""
    from profnet_sheets.batch.engine import enrich

    texts, invalid = _key_rows(columns, set(columns), kind)
    plan: Plan = enrich(
        _frame(texts),
        {name: name for name in texts},
        kind,
        client=session.client,
        options=options,
        dry_run=True,
        new_run=False,
    )
    plan.refused_rows = len(invalid)  # blank to the plan, refused here
    return plan


def fetch_many(
    session: ExcelSession,
    kind: Kind,
    columns: Mapping[str, Sequence[Any]],
    options: Mapping[str, Any],
    ranged: set[str] | None = None,
    progress: Progress = False,
    plan: Plan | None = None,
    *,
    new_run: bool = False,
    undone: list[str] | None = None,
) -> list[Answer]:
    """Every row's record through ONE enrich() call: each unique key fetched once,
    concurrently; rows in order. `ranged`: the columns that came from ranges (default all):
    a row whose ranged cells are blank is blank, whatever the single values say.
    `progress`: a hook called with (lookups done, lookups in all); `plan`: plan_many()'s.
    `new_run`: a run of its own (a macro's button), not the session's (a formula's range: a
    stop holds for it as for one cell). `undone`: given, the engine's words for each row a
    limit or a stop left undone are added to it."""
    from profnet_sheets.batch.engine import enrich
    from profnet_sheets.batch.marks import is_not_done

    texts, invalid = _key_rows(columns, set(columns) if ranged is None else ranged, kind)
    fields = list(kind.output.field_names)
    out = enrich(
        _frame(texts),
        {name: name for name in texts},
        kind,
        fields=fields,
        client=session.client,
        options=options,
        concurrency=session.client.settings.concurrency,
        progress=progress,
        prefix=_OUT,
        plan=plan,
        new_run=new_run,
    )
    errors = out[_OUT + "error"].to_list()
    if undone is not None:
        undone.extend(error for error in errors if is_not_done(error))
    records = out.select([_OUT + name for name in fields]).rows()
    answers: list[Answer] = []
    for index, (error, values) in enumerate(zip(errors, records, strict=True)):
        if index in invalid:
            answers.append(invalid[index])
        elif error is not None:
            answers.append(row_message(error))
        elif all(column[index] is None for column in texts.values()):
            answers.append(None)
        else:
            answers.append(dict(zip(fields, values, strict=True)))
    return answers


def record_row(answer: Answer, fields: Sequence[str]) -> list[CellValue]:
    """One key's row: its fields' values, or its error (or blank) then blank cells."""
    if isinstance(answer, dict):
        return [cells.cell(answer.get(name)) for name in fields]
    return [answer or "", *[""] * (len(fields) - 1)]


def _records(answers: list[Answer], fields: list[str], header: bool, grid: Grid) -> Result:
    """One field: the keys' shape (a value for one key); several: one row per key."""
    if len(fields) == 1:
        rows = grid.shape([record_row(answer, fields)[0] for answer in answers])
        top: Rows = [[fields[0], *[""] * (grid.cols - 1)]]
    else:
        rows = [record_row(answer, fields) for answer in answers]
        top = [list(fields)]
    return cells.rows_or_value(top + rows, 1) if header else cells.rows_or_value(rows)


def _items(
    items: str,
    answers: list[Answer],
    fields: list[str],
    header: bool | None,
    keys: list[CellValue] | None,
    key_name: str,
) -> Result:
    """One row per item (post, recommendation, result), after its key when there are several
    keys; a header row unless turned off."""
    rows: Rows = []
    for index, answer in enumerate(answers):
        lead = [] if keys is None else [keys[index]]
        if isinstance(answer, dict):
            found = answer.get(items) or []
            rows.extend(lead + record_row(item, fields) for item in found if isinstance(item, dict))
        elif answer is not None:
            rows.append(lead + record_row(answer, fields))
    heading: list[CellValue] = [*([] if keys is None else [key_name]), *fields]
    top: Rows = [heading]
    if header is False:
        return cells.rows_or_value(rows)
    return cells.rows_or_value(top + rows, 1)


def item_rows(items: Sequence[Any], fields: list[str], header: bool | None) -> Result:
    """The results of one search, one row each (a header row unless turned off)."""
    return _items("items", [{"items": list(items)}], fields, header, None, "")
