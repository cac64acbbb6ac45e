"""A small stand-in for an xlwings workbook that reads and writes cells as desktop Excel does.

Checked against xlwings 0.37.8 (`_xlwindows.py`, `conversion/standard.py`):
- reading: an error cell (`#N/A`, `#NAME?`) is None, as an empty cell is, unless the range is
  read with `.options(err_to_str=True)`, which gives its text; numbers come back as floats.
- writing: xlwings hands text to Excel as it is, and Excel parses it as if it were typed:
  `1-10` becomes a date, `007` and long digit strings become (rounded) numbers, `TRUE` a
  boolean, `=...` (or `+x`, `-x`, `@x`) a formula; a leading `'` keeps the rest as text and is
  not part of the value.
- formulas: a sheet's `formulas` hold the cells' formulas beside the values they show
  (`Range.formula`, the text of a value cell being the value itself); `spills` the size of the
  answers formulas spill (Excel 365), read as `C1#`; writing a value over a formula's cell
  replaces the formula and empties its spill, as Excel does.
- `.options(ndim=2)` reads one cell as [[value]], as xlwings does.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

YEAR = 2024  # the year Excel gives a typed day-month such as 1-10
_CELL = re.compile(r"([A-Z]+)([0-9]+)")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_DAY_MONTH = re.compile(r"(\d{1,2})[-/](\d{1,4})")


@dataclass(frozen=True)
class ExcelError:
    """A cell showing an error, e.g. `#NAME?` for a formula whose function is not imported."""

    text: str


@dataclass(frozen=True)
class Formula:
    """Text Excel took for a formula: it would run."""

    text: str


def _date(text: str) -> dt.datetime | None:
    """`1-10` -> 10 January, `11-50` -> November 1950 (as Excel reads them, en-US)."""
    found = _DAY_MONTH.fullmatch(text)
    if found is None:
        return None
    month, other = int(found[1]), int(found[2])
    if not 1 <= month <= 12:
        return None
    if 1 <= other <= 31:
        return dt.datetime(YEAR, month, other)
    if 32 <= other <= 99:
        return dt.datetime(1900 + other if other >= 30 else 2000 + other, month, 1)
    return None


def typed(value: Any) -> Any:
    """What a cell holds after `value` is written to it by a macro."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return float(value)
    if not isinstance(value, str):
        return value
    if value == "":
        return None
    if value.startswith("'"):
        return value[1:]
    stripped = value.strip()
    if _NUMBER.fullmatch(stripped):
        return float(stripped)
    if stripped.upper() in ("TRUE", "FALSE"):
        return stripped.upper() == "TRUE"
    if value.startswith(("=", "+", "-", "@")):
        return Formula(value)
    return _date(stripped) or value


def _position(address: str) -> tuple[int, int]:
    match = _CELL.fullmatch(address)
    assert match, address
    column = 0
    for letter in match.group(1):
        column = column * 26 + ord(letter) - 64
    return int(match.group(2)), column


class Range:
    """A block of a Sheet, read and written as xlwings does (2-D lists for 2-D blocks)."""

    def __init__(
        self, sheet: Sheet, address: str, err_to_str: bool = False, ndim: int | None = None
    ) -> None:
        first, _, last = address.partition(":")
        self.sheet, self.address, self.err_to_str, self.ndim = sheet, address, err_to_str, ndim
        if first.endswith("#"):  # a spill reference: the answer of the formula in that cell
            anchor = _position(first[:-1])
            if anchor not in sheet.spills:
                raise ValueError(f"{address}: no spilled answer there")  # Excel's #REF!
            height, width = sheet.spills[anchor]
            self.top, self.bottom = anchor, (anchor[0] + height - 1, anchor[1] + width - 1)
        else:
            self.top, self.bottom = _position(first), _position(last or first)

    def options(self, convert: Any = None, **options: Any) -> Range:
        assert convert is None
        assert set(options) <= {"err_to_str", "ndim"}, options
        return Range(self.sheet, self.address, bool(options.get("err_to_str")), options.get("ndim"))

    @property
    def row(self) -> int:
        return self.top[0]

    @property
    def column(self) -> int:
        return self.top[1]

    @property
    def shape(self) -> tuple[int, int]:
        return self.bottom[0] - self.top[0] + 1, self.bottom[1] - self.top[1] + 1

    @property
    def formula(self) -> Any:
        """A formula's text, or a value cell's value as text ("" when empty), as Excel's."""
        (r1, c1), (r2, c2) = self.top, self.bottom
        rows = [
            [
                self.sheet.formulas.get((r, c), _as_text(self.sheet.cells.get((r, c))))
                for c in range(c1, c2 + 1)
            ]
            for r in range(r1, r2 + 1)
        ]
        return rows[0][0] if (r1, c1) == (r2, c2) else rows

    def _read(self, cell: Any) -> Any:
        if isinstance(cell, ExcelError):
            return cell.text if self.err_to_str else None
        return cell

    @property
    def value(self) -> Any:
        (r1, c1), (r2, c2) = self.top, self.bottom
        rows = [
            [self._read(self.sheet.cells.get((r, c))) for c in range(c1, c2 + 1)]
            for r in range(r1, r2 + 1)
        ]
        if self.ndim == 2:
            return rows
        return rows[0][0] if (r1, c1) == (r2, c2) else rows

    @value.setter
    def value(self, value: Any) -> None:
        self.sheet.put(self.top, value, typed)

    def clear_contents(self) -> None:
        (r1, c1), (r2, c2) = self.top, self.bottom
        for key in [k for k in self.sheet.cells if r1 <= k[0] <= r2 and c1 <= k[1] <= c2]:
            del self.sheet.cells[key]


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


class Sheet:
    def __init__(self, name: str, rows: list[list[Any]] | None = None) -> None:
        """A sheet holding `rows` from A1 as they are (already Excel's values)."""
        self.name = name
        self.cells: dict[tuple[int, int], Any] = {}
        self.formulas: dict[tuple[int, int], str] = {}
        self.spills: dict[tuple[int, int], tuple[int, int]] = {}
        self.put((1, 1), rows or [], lambda cell: cell)

    def formula(self, address: str, text: str, answer: list[list[Any]]) -> None:
        """A formula in a cell, showing `answer` (spilled when bigger than one cell)."""
        anchor = _position(address)
        self.put(anchor, answer, lambda cell: cell)
        self.formulas[anchor] = text
        if len(answer) > 1 or len(answer[0]) > 1:
            self.spills[anchor] = (len(answer), len(answer[0]))

    def put(self, top: tuple[int, int], value: Any, convert: Any) -> None:
        rows = value if isinstance(value, list) else [[value]]
        for i, row in enumerate(rows):
            for j, cell in enumerate(row if isinstance(row, list) else [row]):
                where = (top[0] + i, top[1] + j)
                self.formulas.pop(where, None)  # a value written over a formula replaces it
                self.spills.pop(where, None)
                held = convert(cell)
                if held is not None:
                    self.cells[where] = held
                else:
                    self.cells.pop(where, None)

    @property
    def used_range(self) -> Range:
        last_row = max((r for r, _ in self.cells), default=1)
        last_column = max((c for _, c in self.cells), default=1)
        return Range(self, f"A1:{_letters(last_column)}{last_row}")

    def range(self, address: str) -> Range:
        return Range(self, address)

    def clear_contents(self) -> None:
        self.cells.clear()

    def table(self) -> list[list[Any]]:
        if not self.cells:
            return []
        height = max(r for r, _ in self.cells)
        width = max(c for _, c in self.cells)
        return [[self.cells.get((r, c)) for c in range(1, width + 1)] for r in range(1, height + 1)]


class Sheets(dict[str, Sheet]):
    def __getitem__(self, key: str | int) -> Sheet:
        if isinstance(key, int):
            return list(self.values())[key]
        return super().__getitem__(key)

    def add(self, name: str, after: Any = None) -> Sheet:
        self[name] = Sheet(name)
        return self[name]


class App:
    def __init__(self, answer: str = "ok") -> None:
        self.answer = answer
        self.prompts: list[str] = []
        self.bar: list[Any] = []

    def alert(self, prompt: str, title: str = "", buttons: str = "ok") -> str:
        self.prompts.append(prompt)
        return self.answer

    @property
    def status_bar(self) -> Any:
        return self.bar[-1] if self.bar else False

    @status_bar.setter
    def status_bar(self, value: Any) -> None:
        self.bar.append(value)


def _letters(column: int) -> str:
    letters = ""
    while column:
        column, rest = divmod(column - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


class Book:
    """Just what the macros and the session use of an xlwings Book."""

    def __init__(self, sheets: Mapping[str, list[list[Any]]], answer: str = "ok") -> None:
        self.app = App(answer)
        self.sheets = Sheets({name: Sheet(name, rows) for name, rows in sheets.items()})
        self.selection: Range | None = None

    def select(self, sheet: str, address: str) -> Range:
        self.selection = self.sheets[sheet].range(address)
        return self.selection
