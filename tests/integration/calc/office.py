"""Drives a running soffice over UNO; run by LibreOffice's Python (it imports `uno`), not pytest.

    python3 office.py PORT

reads one JSON command per line on stdin and answers one JSON line on stdout, so that the test
(in the project's Python, which has no `uno`) can look at the sandbox between two steps:

    {"op": "new"}                                   a new, hidden spreadsheet
    {"op": "open", "path": "/x/book.ods"}           a workbook from disk (hidden)
    {"op": "save", "path": "/x/book.ods"}           saved as ODF, kept open
    {"op": "close"}
    {"op": "set", "cells": {"A1": "text", "A2": 3, "B1": "=PROFNET_COMPANY(A1)"}}
        each cell as a user types it: a formula (in Calc's English names), a number or a text
    {"op": "array", "area": "D2:E4", "formula": "=PROFNET_COMPANY(A2:A4; ...)"}
        an array formula over a range (Ctrl+Shift+Enter)
    {"op": "calculate_all"}                         a hard recalculation (Ctrl+Shift+F9)
    {"op": "read", "area": "A1:F9"}                values, as shown: {"rows": [[...]]}
    {"op": "formula", "cell": "B1"}                 the formula as Calc shows it
    {"op": "describe", "name": "PROFNET_COMPANY"}   what the function wizard shows of it
    {"op": "quit"}                                  this script ends; soffice goes on
    {"op": "terminate"}                             soffice ends (and this script)
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from typing import Any

import uno
from com.sun.star.beans import PropertyValue
from com.sun.star.table.CellContentType import FORMULA


def connect(port: int, seconds: float = 120.0) -> Any:
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext(
        "com.sun.star.bridge.UnoUrlResolver", local
    )
    deadline = time.monotonic() + seconds
    while True:
        try:
            return resolver.resolve(
                f"uno:socket,host=127.0.0.1,port={port};urp;StarOffice.ComponentContext"
            )
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.25)


def prop(name: str, value: Any) -> Any:
    found = PropertyValue()
    found.Name, found.Value = name, value
    return found


def shown(cell: Any) -> Any:
    """What the cell shows: its number, its text, or its error (`#VALUE!`, `#N/A`)."""
    if cell.getType() == FORMULA and cell.getError():
        return {"error": cell.getString(), "code": cell.getError()}
    if cell.getType().value == "TEXT" or (
        cell.getType() == FORMULA and cell.FormulaResultType2 == 2  # a text result
    ):
        return cell.getString()
    if cell.getType().value == "EMPTY":
        return None
    return cell.getValue()


class Office:
    def __init__(self, port: int) -> None:
        context = connect(port)
        self.context = context
        self.desktop = context.ServiceManager.createInstanceWithContext(
            "com.sun.star.frame.Desktop", context
        )
        self.doc: Any = None

    @property
    def sheet(self) -> Any:
        return self.doc.Sheets.getByIndex(0)

    def new(self) -> dict[str, Any]:
        self.doc = self.desktop.loadComponentFromURL(
            "private:factory/scalc", "_blank", 0, (prop("Hidden", True),)
        )
        return {}

    def open(self, path: str) -> dict[str, Any]:
        url = uno.systemPathToFileUrl(path)
        self.doc = self.desktop.loadComponentFromURL(url, "_blank", 0, (prop("Hidden", True),))
        return {}

    def save(self, path: str) -> dict[str, Any]:
        self.doc.storeToURL(uno.systemPathToFileUrl(path), (prop("FilterName", "calc8"),))
        return {}

    def close(self) -> dict[str, Any]:
        self.doc.close(True)
        self.doc = None
        return {}

    def set(self, cells: dict[str, Any]) -> dict[str, Any]:
        for address, value in cells.items():
            cell = self.sheet.getCellRangeByName(address)
            if isinstance(value, int | float):
                cell.setValue(value)
            elif isinstance(value, str) and value.startswith("="):
                cell.setPropertyValue("FormulaLocal", value)  # as a user types it
            else:
                cell.setString(value)
        return {}

    def array(self, area: str, formula: str) -> dict[str, Any]:
        self.sheet.getCellRangeByName(area).setArrayFormula(formula)
        return {}

    def calculate_all(self) -> dict[str, Any]:
        started = time.monotonic()
        self.doc.calculateAll()
        return {"seconds": time.monotonic() - started}

    def read(self, area: str) -> dict[str, Any]:
        block = self.sheet.getCellRangeByName(area)
        address = block.getRangeAddress()
        rows = [
            [
                shown(block.getCellByPosition(column, row))
                for column in range_of(address.StartColumn, address.EndColumn)
            ]
            for row in range_of(address.StartRow, address.EndRow)
        ]
        return {"rows": rows}

    def describe(self, name: str) -> dict[str, Any]:
        descriptions = self.context.ServiceManager.createInstanceWithContext(
            "com.sun.star.sheet.FunctionDescriptions", self.context
        )
        for index in range(descriptions.getCount()):
            found = {prop.Name: prop.Value for prop in descriptions.getByIndex(index)}
            if found["Name"] == name:
                return {
                    "description": found["Description"],
                    "arguments": [
                        [argument.Name, argument.Description, argument.IsOptional]
                        for argument in found["Arguments"]
                    ],
                }
        return {"failed": f"no function {name}"}

    def terminate(self) -> dict[str, Any]:
        # The bridge goes down with soffice, sometimes before the answer.
        with contextlib.suppress(Exception):
            self.desktop.terminate()
        return {}

    def formula(self, cell: str) -> dict[str, Any]:
        return {"formula": self.sheet.getCellRangeByName(cell).getPropertyValue("FormulaLocal")}


def range_of(first: int, last: int) -> range:
    return range(last - first + 1)


def main() -> None:
    office = Office(int(sys.argv[1]))
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        command = json.loads(line)
        op = command.pop("op")
        if op == "quit":
            break
        if op == "terminate":
            office.terminate()
            break
        try:
            answer = getattr(office, op)(**command)
        except Exception as error:  # said to the test, which fails with it
            answer = {"failed": f"{type(error).__name__}: {error}"}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
