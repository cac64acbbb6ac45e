"""Every formula of every template evaluated against the sandbox, as Excel would: its answer
spills over a rectangle that must not cover another formula or an input (Excel would show
#SPILL! instead of the answer)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from profnet_sheets.excel import cells, udfs
from tests.integration.excel.conftest import Excel
from tests.unit.excel.test_templates import NAMES, TEMPLATES, arguments

pytestmark = pytest.mark.integration

Cell = tuple[str, int, int]  # (sheet, row, column), 1-based
_REFERENCE = re.compile(
    r"(?:(?P<sheet>[A-Za-z][\w .]*)!)?(?P<first>[A-Z]+\d+)(?::(?P<last>[A-Z]+\d+))?"
)
_CALL = re.compile(r"(PROFNET_[A-Z_]+)\(")
_NUMBER = re.compile(r"-?\d+(\.\d+)?")
# Cells whose answer is an error by design in a fresh template (no search has run yet).
EXPECTED_ERRORS = {("profnet_lead_search.xlsx", "By request id", 2, 1)} | {
    ("profnet_company_search.xlsx", "By request id", 2, 1)
}


def _position(coordinate: str) -> tuple[int, int]:
    column, row = openpyxl.utils.cell.coordinate_from_string(coordinate)
    return row, openpyxl.utils.cell.column_index_from_string(column)


@dataclass
class Workbook:
    """A template's cells as Excel holds them once every formula has been calculated."""

    name: str
    inputs: dict[Cell, Any] = field(default_factory=dict)
    formulas: dict[Cell, str] = field(default_factory=dict)
    shown: dict[Cell, Any] = field(default_factory=dict)  # inputs and spilled answers
    spills: dict[Cell, tuple[int, int]] = field(default_factory=dict)  # anchor -> (rows, cols)

    @classmethod
    def load(cls, path: Path) -> Workbook:
        book = cls(path.name)
        for sheet in openpyxl.load_workbook(path):
            for row in sheet.iter_rows():
                for item in row:
                    value: Any = item.value
                    text = getattr(value, "text", value)
                    where = (sheet.title, item.row, item.column)
                    if isinstance(text, str) and text.startswith("="):
                        book.formulas[where] = text
                    elif value is not None:
                        book.inputs[where] = float(value) if type(value) is int else value
        book.shown.update(book.inputs)
        return book

    def argument(self, sheet: str, text: str) -> Any:
        """One argument of a formula as xlwings hands it over."""
        text = text.strip()
        if not text:
            return None
        if text.startswith('"'):
            return text[1:-1]
        if text.upper() in ("TRUE", "FALSE"):
            return text.upper() == "TRUE"
        if _NUMBER.fullmatch(text):
            return float(text)
        if _CALL.match(text):
            return _top_left(self.call(sheet, text))
        found = _REFERENCE.fullmatch(text)
        assert found, f"{self.name}: cannot evaluate {text!r}"
        on = found["sheet"] or sheet
        (r1, c1), (r2, c2) = _position(found["first"]), _position(found["last"] or found["first"])
        block = [
            [self.known(on, row, column) for column in range(c1, c2 + 1)]
            for row in range(r1, r2 + 1)
        ]
        return block if found["last"] else block[0][0]

    def known(self, sheet: str, row: int, column: int) -> Any:
        where = (sheet, row, column)
        assert where not in self.formulas or where in self.spills, (
            f"{self.name}: {where} is used before it is calculated"
        )
        return self.shown.get(where)

    def call(self, sheet: str, formula: str) -> Any:
        found = _CALL.match(formula.lstrip("="))
        assert found, f"{self.name}: {formula} is not one PROFNET_ call"
        start = formula.index("(")
        assert formula.rstrip().endswith(")"), formula
        function = getattr(udfs, found[1])
        return function(*[self.argument(sheet, text) for text in arguments(formula, start)])

    def calculate(self) -> Iterator[tuple[Cell, Any]]:
        """Every formula, sheet by sheet, top to bottom, left to right; its answer spilled."""
        order = {name: index for index, (name, *_) in enumerate(self.formulas)}
        for where in sorted(self.formulas, key=lambda cell: (order[cell[0]], cell[1], cell[2])):
            answer = self.call(where[0], self.formulas[where])
            rows = answer if isinstance(answer, list) else [[answer]]
            self.spills[where] = (len(rows), max(len(row) for row in rows))
            for i, row in enumerate(rows):
                for j, value in enumerate(row):
                    self.shown[(where[0], where[1] + i, where[2] + j)] = value
            yield where, answer


def _top_left(answer: Any) -> Any:
    return answer[0][0] if isinstance(answer, list) else answer


def _covered(anchor: Cell, size: tuple[int, int]) -> set[Cell]:
    sheet, row, column = anchor
    return {(sheet, row + i, column + j) for i in range(size[0]) for j in range(size[1])} - {anchor}


@pytest.mark.parametrize("name", NAMES)
def test_no_answer_spills_over_another_formula_or_an_input(excel: Excel, name: str) -> None:
    book = Workbook.load(TEMPLATES / name)
    answers = dict(book.calculate())
    assert answers, "the template has formulas"
    for (sheet, row, column), answer in answers.items():
        if (name, sheet, row, column) not in EXPECTED_ERRORS:
            assert not cells.is_error_text(_top_left(answer)), (sheet, row, column, answer)
    taken: dict[Cell, Cell] = {}
    for anchor, size in book.spills.items():
        for where in _covered(anchor, size):
            assert where not in book.formulas, f"{name}: {anchor} spills onto the formula {where}"
            assert where not in book.inputs, f"{name}: {anchor} spills onto the input {where}"
            assert where not in taken, f"{name}: {anchor} and {taken[where]} spill onto {where}"
            taken[where] = anchor
