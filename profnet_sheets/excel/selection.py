"""The Enrich selection and Freeze as values macros' logic, over cell values (macros.py acts).

Enrich selection: the selected column's values are keys of a kind chosen on the Enrich sheet;
their fields are written beside the selection as values, under a header, after the cost was
shown and accepted. Freeze as values: the PROFNET_* formulas of a selection become the values
they show, so that a workbook can be shared and recalculated without the add-in or credits.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from profnet_sheets.batch.kinds import KINDS, Kind, kind_named
from profnet_sheets.client import cell_values
from profnet_sheets.errors import ArgumentError
from profnet_sheets.excel import cells, lookups
from profnet_sheets.excel.cells import CellValue, Rows
from profnet_sheets.excel.lookups import choose_fields
from profnet_sheets.excel.searches import spend_rows
from profnet_sheets.words import canonical_name, counted, spend_said

if TYPE_CHECKING:
    from profnet_sheets.batch.plan import Plan
    from profnet_sheets.excel.session import ExcelSession

ENRICH_SHEET: Final = "Enrich"
ENRICH: Final = "Enrich selection"
FREEZE: Final = "Freeze as values"
KIND: Final = "kind"
FIELDS: Final = "fields"
WAITING: Final = cell_values.STILL_CALCULATING  # a formula xlwings is still calculating
_CALL: Final = re.compile(r"\bPROFNET_[A-Z0-9_]*\s*\(", re.IGNORECASE)
_TEXT: Final = re.compile(r'"(?:[^"]|"")*"')  # a text in a formula ("" is a quote inside it)
Progress = Callable[[int, int], None]  # (lookups done, lookups in all)


def setting_rows() -> list[tuple[str, str]]:
    """What the Enrich sheet holds: each setting and what it is."""
    return [
        (
            KIND,
            "What the selected column holds, and so what is looked up: "
            + ", ".join(sorted(KINDS))
            + " (company: domains, page URLs or ids; profile: profile URLs; ...)",
        ),
        (FIELDS, "Optional. The fields to add, e.g. company_name, industry; empty for all"),
    ]


def _cell_text(label: str, value: Any) -> str | None:
    """A setting's text, or an ArgumentError for a cell showing an error."""
    value = cells.clean(value)
    shown = value.strip() if isinstance(value, str) else ""
    if shown.upper() in cell_values.EXCEL_ERRORS or cells.is_error_text(shown):
        raise ArgumentError(
            f"{ENRICH_SHEET} sheet: {label} shows {shown}: type the value itself (nothing spent)"
        )
    return cells.key(value, label)


@dataclass(frozen=True)
class EnrichRequest:
    """What to look up for each selected key, and which of its fields to write."""

    kind: Kind
    fields: list[str]

    @property
    def header(self) -> list[str]:
        return list(self.fields)


def read_settings(rows: Iterable[Sequence[Any] | None]) -> EnrichRequest:
    """The Enrich sheet's (setting, value) rows -> what to do; ArgumentError says what to fix.
    Read with Excel errors as text: a setting showing one is refused, never taken as empty."""
    found: dict[str, Any] = {}
    for row in rows:
        name, value = ([*row, None, None] if row else [None, None])[:2]
        label = cells.key(name, "setting")
        if label is not None and canonical_name(label) in (KIND, FIELDS):
            found[canonical_name(label)] = value
    kind_text = _cell_text(KIND, found.get(KIND))
    if kind_text is None:
        where = f"beside '{KIND}'" if KIND in found else f"in B2, with '{KIND}' in A2"
        raise ArgumentError(
            f"{ENRICH_SHEET} sheet: choose a {KIND} {where} ({', '.join(sorted(KINDS))}): what "
            "the selected column holds"
        )
    try:
        kind = kind_named(kind_text)
    except ValueError as error:
        raise ArgumentError(f"{ENRICH_SHEET} sheet: {error}") from None
    _cell_text(FIELDS, found.get(FIELDS))
    return EnrichRequest(kind, choose_fields(kind.output, found.get(FIELDS), ENRICH))


def column_letters(column: int) -> str:
    """1 -> A, 27 -> AA."""
    letters = ""
    while column:
        column, rest = divmod(column - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def address(row: int, column: int) -> str:
    return f"{column_letters(column)}{row}"


@dataclass(frozen=True)
class Placement:
    """Where the keys are, and where the values go: a header row, then one row per key, in
    the columns right of the selection (rows and columns count from 1, as Excel's)."""

    header_row: int
    first_row: int
    last_row: int
    column: int  # the keys' column

    @property
    def keys(self) -> str:
        return f"{address(self.first_row, self.column)}:{address(self.last_row, self.column)}"

    def target(self, width: int) -> str:
        first, last = (
            address(self.header_row, self.column + 1),
            address(self.last_row, self.column + width),
        )
        return f"{first}:{last}"

    @property
    def target_cell(self) -> str:
        return address(self.header_row, self.column + 1)


def place(row: int, column: int, rows: int, columns: int, last_used_row: int) -> Placement:
    """The selection (its first cell, its size) -> where keys are read and values written.
    Its header row is the row above it, or its own first cell when it starts on row 1 (a
    column selected with its header). A selection past the sheet's last used row (a whole
    column) ends there."""
    if columns != 1:
        raise ArgumentError(
            f"{ENRICH}: select one column of keys (the selection is {columns} columns wide)"
        )
    header_row, first = (row, row + 1) if row == 1 else (row - 1, row)
    last = min(row + rows - 1, max(last_used_row, row))
    if last < first:
        raise ArgumentError(
            f"{ENRICH}: no keys selected: select the cells holding them (under their header)"
        )
    return Placement(header_row, first, last, column)


def check_free(existing: Any, request: EnrichRequest, where: str) -> None:
    """Values are written only over empty cells, or over an earlier run's (the same header):
    a macro cannot be undone, so nobody's data is overwritten. Raises ArgumentError."""
    rows = [list(row) for row in _rows(existing)]
    if all(cells.blank(value) for row in rows for value in row):
        return
    if rows and [value for value in rows[0] if not cells.blank(value)] == request.header:
        return
    raise ArgumentError(
        f"{ENRICH}: {where}, where the values go, is not empty: insert "
        f"{counted(len(request.header), 'empty column')} right of the selection, or clear "
        "those cells, then run again (nothing was spent)"
    )


def _rows(value: Any) -> list[list[Any]]:
    grid = cells.grid(value)
    return grid.shape(list(grid.cells)) if grid.is_range else [[value]]


def keys_of(value: Any) -> list[Any]:
    """The selected cells' values in order (xlwings gives a column as a list, one cell alone)."""
    return list(cells.grid(value).cells)


def plan(session: ExcelSession, request: EnrichRequest, keys: Sequence[Any]) -> Plan:
    """What enriching these keys costs at most: asks the cache only, sends nothing."""
    return lookups.plan_many(session, request.kind, {request.kind.inputs[0]: keys})


def cost_line(found: Plan, budget_left: int | None) -> str:
    return f"{ENRICH}: {found.summary(budget_left)}."


@dataclass(frozen=True)
class Enriched:
    """What to write beside the selection (a header, then a row per key), and what it cost."""

    rows: Rows
    errors: int
    spent: int  # credits charged, those that may have been included
    maybe: int = 0  # of `spent`, what may (or may not) have been charged
    undone: tuple[str, ...] = ()  # the engine's words for each row a limit or a stop left

    def line(self, where: str) -> str:
        keys = counted(len(self.rows) - 1, "row")
        spent = spend_said(self.spent, self.maybe, "spent")
        if self.undone:  # a limit or a stop ended it: not done, said first
            why = self.undone[0][:300]
            return (
                f"stopped: {len(self.undone)} of {keys} not done ({why}); run {ENRICH} again "
                f"once that is fixed: the rows done are free. All {keys} written to {where} "
                f"(#PROFNET! in those not done or with an error); {spent}"
            )
        failed = f", {self.errors} with an error (#PROFNET! in the row)" if self.errors else ""
        return f"done: {keys} written to {where}{failed}; {spent}"


def run(
    session: ExcelSession,
    request: EnrichRequest,
    keys: Sequence[Any],
    found: Plan | None = None,
    progress: Progress | None = None,
) -> Enriched:
    """Every key's fields (each distinct key fetched once, within the session's budget), as
    values to write: texts made literal, so that Excel keeps them as they are."""
    budget = session.client.budget
    spent_before, maybe_before = budget.spent, budget.uncertain
    undone: list[str] = []
    answers = lookups.fetch_many(
        session,
        request.kind,
        {request.kind.inputs[0]: keys},
        {},
        progress=progress or False,
        plan=found,
        new_run=True,  # a button pressed (and agreed to): the service is asked again
        undone=undone,
    )
    table = [request.header] + [lookups.record_row(answer, request.fields) for answer in answers]
    errors = sum(1 for answer in answers if isinstance(answer, str))
    rows = [[cells.literal(value) for value in row] for row in table]
    spent, maybe = budget.spent - spent_before, budget.uncertain - maybe_before
    return Enriched(rows, errors, spent, maybe, tuple(undone))


def report(outcome: Enriched | str, data: str = "", where: str = "") -> Rows:
    """The 'Last run' block of the Enrich sheet (`where`: the cells written)."""
    lines: list[tuple[str, CellValue]] = [("last run", ENRICH)]
    if isinstance(outcome, str):
        lines.append(("status", outcome))
    else:
        lines += [
            ("status", outcome.line(where or "beside the selection")),
            *spend_rows(outcome.spent, outcome.maybe),
        ]
    if data:
        lines.append(("data", data))
    return [[cells.literal(label), cells.literal(value)] for label, value in lines]


# -- Freeze as values ---------------------------------------------------------------------------


def calls_profnet(formula: Any) -> bool:
    """A formula that calls a PROFNET_* function (not merely a text that names one)."""
    if not isinstance(formula, str) or not formula.startswith(("=", "+", "@")):
        return False
    return _CALL.search(_TEXT.sub('""', formula)) is not None


def profnet_cells(row: int, column: int, formulas: Any) -> list[tuple[int, int]]:
    """The (row, column) of every selected cell holding a PROFNET_* formula; `formulas` as
    xlwings reads a selection's: one text for one cell, rows of texts for a block."""
    grid = _rows(formulas)
    return [
        (row + r, column + c)
        for r, line in enumerate(grid)
        for c, formula in enumerate(line)
        if calls_profnet(formula)
    ]


@dataclass(frozen=True)
class Frozen:
    """What Freeze writes: each formula's answer block as values, at the formula's cell; and
    the formulas left as they are (still calculating, or showing an error)."""

    blocks: list[tuple[str, list[list[Any]]]]
    kept: list[tuple[str, str]]  # (cell, why)

    @property
    def cells(self) -> int:
        return sum(len(row) for _, rows in self.blocks for row in rows)

    def prompt(self) -> str:
        kept = self._kept()
        return (
            f"{FREEZE}: replace {counted(len(self.blocks), 'PROFNET_ formula')} "
            f"({counted(self.cells, 'cell')}) by the values they show? They will not update "
            f"any more (this cannot be undone).{kept}"
        )

    def line(self) -> str:
        if not self.blocks:
            return (
                f"{FREEZE}: no PROFNET_ formula showing an answer in the selection.{self._kept()}"
            )
        return (
            f"{FREEZE}: {counted(len(self.blocks), 'formula')} replaced by "
            f"{counted(self.cells, 'value')}.{self._kept()}"
        )

    def _kept(self) -> str:
        if not self.kept:
            return ""
        shown = "; ".join(f"{where} {why}" for where, why in self.kept[:5])
        more = f" and {len(self.kept) - 5} more" if len(self.kept) > 5 else ""
        return f" Left as formulas: {shown}{more}."


def _problem(value: Any) -> str | None:
    """Why an answer cannot be frozen, or None: an error would be kept as if it were data."""
    if not isinstance(value, str):
        return None
    shown = value.strip()
    if shown.startswith(WAITING):
        return "(still calculating)"
    if shown.upper() in cell_values.EXCEL_ERRORS or cells.is_error_text(shown):
        return f"(shows {shown[:60]})"
    return None


def freeze(answers: Mapping[str, Any]) -> Frozen:
    """Each PROFNET_ formula's cell -> the values its answer fills (its spill, read with
    errors as text) -> what to write. An answer with an error or still calculating stays a
    formula; texts are written literally (Excel would read `1-10` as a date, `=x` as a
    formula)."""
    blocks: list[tuple[str, list[list[Any]]]] = []
    kept: list[tuple[str, str]] = []
    for where, value in answers.items():
        rows = _rows(value)
        why = next((_problem(cell) for row in rows for cell in row if _problem(cell)), None)
        if why is not None:
            kept.append((where, why))
            continue
        # Numbers, dates and TRUE/FALSE as they are; texts literal; an empty cell empty.
        blocks.append((where, [[cells.literal(cell) for cell in row] for row in rows]))
    return Frozen(blocks, kept)
