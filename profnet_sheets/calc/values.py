"""Calc's values <-> the Python values xlwings hands the formulas; a formula called by its name.

This is all the add-in does in LibreOffice (its UNO component hands every call here): the
logic, keys, cache and budget are the Excel formulas' own (profnet_sheets.excel.formulas).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from profnet_sheets.excel import formulas
from profnet_sheets.excel.cells import CellValue, Result
from profnet_sheets.excel.messages import message_for

CalcValue = str | float
CalcRows = tuple[tuple[CalcValue, ...], ...]  # Calc's array result: rows of text or numbers


def argument(value: Any) -> Any:
    """One argument as Calc hands it over -> as xlwings would: a range (a tuple of rows) is a
    list of rows whose empty cells are None; a left-out argument (None), a number (a float:
    Calc has no integers, and TRUE is 1) or a text stay as they are."""
    if isinstance(value, tuple | list):
        return [
            [None if cell == "" else cell for cell in row]
            if isinstance(row, tuple | list)
            else (None if row == "" else row)
            for row in value
        ]
    return value


def _cell(value: CellValue | None) -> CalcValue:
    if isinstance(value, bool):
        return 1.0 if value else 0.0  # Calc's TRUE and FALSE
    if isinstance(value, int | float):
        return float(value)
    return "" if value is None else str(value)


def result(answer: Result) -> CalcRows:
    """A formula's answer as Calc's array result: always rows, all of one width. A single
    value is one row of one cell, which Calc shows in the formula's own cell; an array formula
    over a larger area shows every row (and #N/A past the answer's end, as Excel's arrays)."""
    rows = answer if isinstance(answer, list) else [[answer]]
    width = max((len(row) for row in rows), default=0) or 1
    table = tuple(tuple(_cell(value) for value in row) + ("",) * (width - len(row)) for row in rows)
    return table or (("",),)


def call(name: str, arguments: Sequence[Any]) -> CalcRows:
    """The formula `name` (PROFNET_COMPANY...) over Calc's arguments, as an array result. It
    never raises: a bad input or a failure is its one-line `#PROFNET!` text, as in Excel."""
    try:
        logic = formulas.named(name)
        return result(logic(*[argument(value) for value in arguments]))
    except (Exception, KeyboardInterrupt) as error:
        return result(message_for(error))
