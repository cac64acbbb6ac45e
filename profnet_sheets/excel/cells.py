"""Excel values <-> Python: keys from cells, ranges and their shape, cell values out, #PROFNET!."""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from profnet_sheets.client import cell_values
from profnet_sheets.errors import NormalizationError

ERROR_PREFIX: Final = cell_values.FORMULA_ERROR
# Excel's error values as COM hands them over (pywin32 ints); xlwings turns them into None, or
# into their text with err_to_str, but a raw COM caller still sees these.
EXCEL_ERROR_CODES: Final = {
    -2146826281: "#DIV/0!",
    -2146826246: "#N/A",
    -2146826259: "#NAME?",
    -2146826288: "#NULL!",
    -2146826252: "#NUM!",
    -2146826265: "#REF!",
    -2146826273: "#VALUE!",
}
MAX_CELL_TEXT: Final = 32_767  # the most characters one Excel cell holds
MAX_ERROR_TEXT: Final = 300  # an error stays readable in a cell
_EXACT: Final = 2**53  # above this an Excel number (a double) no longer holds every integer
_NAME_SEPARATORS: Final = re.compile(r"[,;\n\r\t]+")

CellValue = str | int | float | bool
Rows = list[list[CellValue]]
Result = CellValue | Rows  # what a formula hands back: one value, or rows that spill


# -- values in ------------------------------------------------------------------------------------


def blank(value: Any) -> bool:
    """An empty cell: None, NaN, or text of spaces only (an error value is not blank)."""
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, str):
        try:
            return cell_values.text(value, "value") is None
        except NormalizationError:  # an Excel error's text
            return False
    return value is None


def lookup_key(value: Any, parameter: str, *, words: bool = False) -> str | None:
    """A key of a lookup (an id, a URL, a name), None when blank. A number 0 is blank too:
    it is what `=A1` gives for an empty A1, and no company, job or post has the id 0; so is a
    placeholder (`N/A`, `-`, `TBD`...), as in every batch (`words`: a name or a keyword is
    asked for, where `Nat` is one)."""
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    blank = (is_number and value == 0) or cell_values.is_placeholder(value, words=words)
    return None if blank else key(value, parameter)


def key(value: Any, parameter: str) -> str | None:
    """One key cell as text (`12345.0` -> `"12345"`, spaces stripped), None when blank.

    Raises NormalizationError, saying what to do, for Excel error values (as text or COM
    codes), true/false values, dates, lists, and numbers Excel has already rounded.
    """
    if value is None:
        return None
    value = clean(value)
    refuse_date(value, parameter)
    if isinstance(value, float) and value.is_integer() and abs(value) >= _EXACT:
        raise NormalizationError(
            f"{parameter} {value:.15g} has more digits than an Excel number holds, so Excel has "
            "rounded it: format the cells as Text and type the id again",
            parameter,
            value,
        )
    return cell_values.text(value, parameter)


def refuse_date(value: Any, parameter: str) -> None:
    """Raise NormalizationError for a date or time: Excel made one of what was typed (`1-10`)."""
    if isinstance(value, dt.date | dt.time | dt.timedelta):
        raise NormalizationError(
            f"{parameter} comes from a cell holding a date or time ({value}): "
            "format the cell as Text or General and type the value again",
            parameter,
            value,
        )


def clean(value: Any) -> Any:
    """`value` with COM error codes turned into Excel's error text, at any depth, so that the
    client's normalisation refuses them instead of reading them as numbers."""
    if isinstance(value, list | tuple):
        return [clean(item) for item in value]
    if isinstance(value, int) and not isinstance(value, bool) and value in EXCEL_ERROR_CODES:
        return EXCEL_ERROR_CODES[value]
    return value


def flag(value: Any, parameter: str) -> bool | None:
    """An optional TRUE/FALSE argument (also 1/0, yes/no); None when left blank."""
    if not isinstance(value, bool) and key(value, parameter) is None:
        return None
    return cell_values.flag(value, parameter) == "true"


def names(value: Any, parameter: str) -> list[str]:
    """Names from a text (`"a, b; c"`) or a range of cells holding them, in order, once each."""
    if value is None:
        return []
    found: list[str] = []
    for cell in grid(value).cells:
        text = key(cell, parameter)
        if text is not None:
            found.extend(part.strip() for part in _NAME_SEPARATORS.split(text) if part.strip())
    return list(dict.fromkeys(found))


@dataclass(frozen=True)
class Grid:
    """The cells of an argument in reading order (left to right, top to bottom), its shape."""

    cells: tuple[Any, ...]
    rows: int
    cols: int
    is_range: bool  # a list came in (a range), even of one cell

    @property
    def single(self) -> bool:
        """One value: a scalar, or a range of one cell."""
        return len(self.cells) == 1

    def shape(self, values: Sequence[CellValue]) -> Rows:
        """`values` (one per cell, in reading order) laid out in this grid's shape."""
        return [list(values[row * self.cols : (row + 1) * self.cols]) for row in range(self.rows)]


def grid(value: Any) -> Grid:
    """A scalar, a 1-D range (a list: taken as a column) or a 2-D range (a list of rows); an
    empty list is one blank cell (Excel never hands over a range of no cells)."""
    if not isinstance(value, list | tuple):
        return Grid((value,), 1, 1, is_range=False)
    if len(value) == 1 and isinstance(value[0], list | tuple) and len(value[0]) == 1:
        return Grid((value[0][0],), 1, 1, is_range=True)  # one cell, as ndim=2 hands it: fast
    if not any(isinstance(row, list | tuple) for row in value):
        cells = tuple(value) or (None,)
        return Grid(cells, len(cells), 1, is_range=True)
    rows = [list(row) if isinstance(row, list | tuple) else [row] for row in value]
    width = max(len(row) for row in rows) or 1
    cells = tuple(cell for row in rows for cell in row + [None] * (width - len(row)))
    return Grid(cells, len(rows), width, is_range=True)


# -- values out -----------------------------------------------------------------------------------


def cell(value: Any) -> CellValue:
    """A Python value as one Excel cell: None -> "", lists of text -> "a; b", nested data ->
    JSON; integers Excel cannot hold exactly become text; text is cut to Excel's limit."""
    kind = type(value)
    if kind is str:
        return value if len(value) <= MAX_CELL_TEXT else _fit(value)
    if value is None:
        return ""
    if kind is int:
        return value if -_EXACT <= value <= _EXACT else str(value)
    if kind is float:
        return value if math.isfinite(value) else ""
    if kind is bool:
        return bool(value)
    if isinstance(value, dt.datetime) and value.utcoffset() == dt.timedelta(0):
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")  # the service's own text of a timestamp
    if isinstance(value, list | tuple):
        if all(type(item) is str for item in value):
            return _fit("; ".join(value))
        if not any(isinstance(item, dict | list) for item in value):
            return _fit("; ".join(str(cell(item)) for item in value if item is not None))
    for plain in (str, int, float):  # subclasses (numpy floats, enums) as their plain value
        if isinstance(value, plain):
            return cell(plain(value))
    return _fit(json.dumps(value, ensure_ascii=False, sort_keys=True, default=str))


def _fit(text: str, limit: int = MAX_CELL_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def error_text(message: object) -> str:
    """`#PROFNET! ...`: one short line saying what went wrong and what to do."""
    line = " ".join(str(message).split()) or "something went wrong"
    return f"{ERROR_PREFIX} {_fit(line, MAX_ERROR_TEXT)}"


def is_error_text(value: object) -> bool:
    return isinstance(value, str) and value.startswith(ERROR_PREFIX)


def rows_or_value(rows: Rows, headers: int = 0) -> Result:
    """A single cell as its value (Excel shows it in the formula's cell), else the rows.
    `headers`: how many of the rows are header rows; with nothing under them the answer is
    an empty cell, never a lone field name that reads as a value."""
    if len(rows) <= headers:
        return ""
    if len(rows) == 1 and len(rows[0]) == 1:
        return rows[0][0]
    return rows


def literal(value: CellValue) -> CellValue:
    """`value` for a macro's write to a sheet. Excel parses text written to a cell as if it
    were typed (`1-10` becomes a date, `007` the number 7, a long id a rounded number, `=...`
    a formula), so every text but the empty one gets the leading `'` that makes Excel keep it
    as it is, as text; the `'` is not part of the cell's value. Numbers and TRUE/FALSE stay."""
    if isinstance(value, str) and value:
        return "'" + _fit(value, MAX_CELL_TEXT - 1)
    return value
