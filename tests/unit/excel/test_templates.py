"""The workbook templates: reproducible from their script, and every formula in them callable."""

from __future__ import annotations

import importlib.util
import inspect
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import openpyxl
import pytest

from profnet_sheets.excel import macros, searches, selection, udfs
from profnet_sheets.excel.session import BUDGET_KEY, CONF_SHEET

TEMPLATES = Path(__file__).resolve().parents[3] / "templates"
CALL = re.compile(r"\b(PROFNET_[A-Z_]+)\(")


def _builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "build_templates", TEMPLATES / "build_templates.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


BUILDER = _builder()
NAMES = [f"{template.name}.xlsx" for template in BUILDER.TEMPLATES]


def arguments(formula: str, start: int) -> list[str]:
    """The arguments of the call whose "(" is at `start`, split at top-level commas."""
    depth, quoted, current, found = 0, False, "", []
    for char in formula[start + 1 :]:
        if char == '"':
            quoted = not quoted
        elif not quoted and char == "(":
            depth += 1
        elif not quoted and char == ")":
            if depth == 0:
                found.append(current)
                return [] if found == [""] else [part.strip() for part in found]
            depth -= 1
        elif not quoted and char == "," and depth == 0:
            found.append(current)
            current = ""
            continue
        current += char
    raise AssertionError(f"unbalanced formula: {formula}")


def test_arguments_parser() -> None:
    text = '=PROFNET_COMPANY(B2:B21, "a, b", TRUE) + PROFNET_CREDITS()'
    assert arguments(text, text.index("(")) == ["B2:B21", '"a, b"', "TRUE"]
    assert arguments(text, text.rindex("(")) == []
    assert arguments("=F(A1, , SUM(1, 2))", 2) == ["A1", "", "SUM(1, 2)"]


def formulas_of(path: Path) -> list[tuple[str, str]]:
    book = openpyxl.load_workbook(path)
    found = []
    for sheet in book:
        for row in sheet.iter_rows():
            for cell in row:
                value: Any = cell.value
                text = getattr(value, "text", value)
                if isinstance(text, str) and text.startswith("="):
                    found.append((f"{sheet.title}!{cell.coordinate}", text))
    return found


@pytest.mark.parametrize("name", NAMES)
def test_every_formula_names_a_formula_with_a_valid_number_of_arguments(name: str) -> None:
    calls = 0
    for where, formula in formulas_of(TEMPLATES / name):
        for match in CALL.finditer(formula):
            function = getattr(udfs, match.group(1), None)
            assert function is not None, f"{where}: no formula {match.group(1)}"
            parameters = inspect.signature(function).parameters.values()
            required = sum(1 for p in parameters if p.default is p.empty)
            given = arguments(formula, match.end() - 1)
            assert required <= len(given) <= len(parameters), f"{where}: {formula}"
            assert all(given[:required]), f"{where}: a required argument is empty"
            calls += 1
    assert calls, "a template shows at least one formula"


@pytest.mark.parametrize("name", NAMES)
def test_each_workbook_explains_itself_and_names_the_udf_module(name: str) -> None:
    book = openpyxl.load_workbook(TEMPLATES / name)
    assert book.sheetnames[0] == "Start here"
    text = " ".join(str(c.value) for row in book["Start here"].iter_rows() for c in row if c.value)
    assert "Import Functions" in text
    assert "PROFNET_API_KEY" in text
    assert BUDGET_KEY in text
    conf = {row[0].value: row[1].value for row in book[CONF_SHEET].iter_rows()}
    assert conf["UDF Modules"] == "profnet_sheets.excel.udfs"
    assert isinstance(conf[BUDGET_KEY], int)


@pytest.mark.parametrize("name", NAMES)
def test_the_start_sheet_sends_no_macos_user_to_import_functions(name: str) -> None:
    sheet = openpyxl.load_workbook(TEMPLATES / name)["Start here"]
    lines = [str(c.value) for row in sheet.iter_rows() for c in row if isinstance(c.value, str)]
    for line in (line for line in lines if "Import Functions" in line):
        assert "Windows" in line, line
        assert "macOS" in line, line  # and what happens there instead
    text = " ".join(lines)
    assert "profnet-sheets config --api-key" in text
    assert "Excel must be closed and opened again" in text, "a new variable needs Excel restarted"


@pytest.mark.parametrize("kind", ["leads", "companies"])
def test_the_search_templates_filters_are_a_valid_search(kind: str) -> None:
    name = "profnet_lead_search.xlsx" if kind == "leads" else "profnet_company_search.xlsx"
    sheet = openpyxl.load_workbook(TEMPLATES / name)[searches.FILTERS_SHEET]
    rows = [
        [row[0].value, None if getattr(row[1].value, "text", None) else row[1].value]
        for row in sheet.iter_rows(min_row=2)
    ]
    assert [row[0] for row in rows] == [
        filter_name for filter_name, _ in searches.filter_rows(kind)
    ]
    request = searches.read_filters(kind, rows)
    assert request.limit == 25
    assert not request.enrich


def test_the_templates_are_exactly_what_the_script_builds(tmp_path: Path) -> None:
    written = BUILDER.build(tmp_path)
    assert sorted(path.name for path in written) == sorted(NAMES)
    for path in written:
        committed = TEMPLATES / path.name
        assert path.read_bytes() == committed.read_bytes(), (
            f"{path.name} differs: run uv run python templates/build_templates.py"
        )
        assert formulas_of(path) == formulas_of(committed)


def test_the_run_main_files_call_the_macros() -> None:
    for name, entry in (
        ("profnet_lead_search", "lead_search"),
        ("profnet_company_search", "company_search"),
    ):
        assert (
            f"from profnet_sheets.excel.macros import {entry}"
            in (TEMPLATES / f"{name}.py").read_text()
        )
        assert (TEMPLATES / f"{name}.xlsx").exists()


ENRICHMENT = {"profnet_company_enrichment": "company", "profnet_lead_list_enrichment": "profile"}


def sheet_rows(path: Path, name: str) -> list[list[Any]]:
    sheet = openpyxl.load_workbook(path)[name]
    return [[cell.value for cell in row] for row in sheet.iter_rows()]


@pytest.mark.parametrize("name", sorted(ENRICHMENT))
def test_the_enrichment_templates_are_ready_for_enrich_selection(name: str) -> None:
    path = TEMPLATES / f"{name}.xlsx"
    request = selection.read_settings(sheet_rows(path, selection.ENRICH_SHEET))
    assert request.kind.name == ENRICHMENT[name]
    book = openpyxl.load_workbook(path)
    (choices,) = book[selection.ENRICH_SHEET].data_validations.dataValidation
    assert choices.type == "list"
    assert str(choices.sqref) == "B2"
    keys = sheet_rows(path, BUILDER.AS_VALUES)
    assert len(keys) > 2
    assert all(len(row) <= 2 for row in keys), "nothing right of the keys: room for the values"
    assert (
        "from profnet_sheets.excel.macros import enrich_selection"
        in (TEMPLATES / f"{name}.py").read_text()
    )


@pytest.mark.parametrize("name", NAMES)
def test_every_template_shows_both_macros_with_their_button_line(name: str) -> None:
    lines = [str(row[1]) for row in sheet_rows(TEMPLATES / name, "Start here") if row[1]]
    for entry in ("enrich_selection", "freeze_selection"):
        (line,) = [line for line in lines if f"import {entry}; {entry}()" in line]
        assert "Windows and Mac" in line
        assert callable(getattr(macros, entry))
