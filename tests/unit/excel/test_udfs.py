"""The formulas as Excel sees them: names, arguments, help texts, threading, and light imports.

On Linux xlwings' decorators do nothing, so they are replaced by recorders here and udfs.py is
imported again: what it declares is what the Windows add-in would read.
"""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any, get_type_hints

import pytest
import xlwings

from profnet_sheets.excel import formulas, udfs

# The formulas of the issue, each with its required arguments.
ISSUE = {
    "PROFNET_COMPANY": ["id_url_or_domain"],
    "PROFNET_PROFILE": ["url"],
    "PROFNET_HEADCOUNT": ["url"],
    "PROFNET_JOB": ["job_id"],
    "PROFNET_POST": ["urn"],
    "PROFNET_COMPANY_POSTS": ["company_url"],
    "PROFNET_PROFILE_POSTS": ["profile_url"],
    "PROFNET_SEARCH_POSTS": ["keyword"],
    "PROFNET_SEARCH_JOBS": ["keyword"],
    "PROFNET_GEOCODE": ["location"],
    "PROFNET_FIND_PROFILES": ["name"],
    "PROFNET_SCHOOLS": ["school_name"],
    "PROFNET_RECOMMENDATIONS": ["url"],
    "PROFNET_LEADS": ["request_id"],
    "PROFNET_COMPANIES": ["request_id"],
    "PROFNET_CREDITS": [],
}
EXCEL_HELP_LIMIT = 255  # the function wizard cuts longer texts


class Declared:
    """What udfs.py declares through xw.func / xw.arg."""

    def __init__(self) -> None:
        self.functions: dict[str, dict[str, Any]] = {}
        self.arguments: dict[str, dict[str, dict[str, Any]]] = {}
        self.hints: dict[str, dict[str, Any]] = {}

    def func(self, f: Callable[..., Any] | None = None, **options: Any) -> Any:
        def inner(function: Callable[..., Any]) -> Callable[..., Any]:
            self.functions[function.__name__] = options
            self.hints[function.__name__] = get_type_hints(function)
            return function

        return inner(f) if f is not None else inner

    def arg(self, name: str, convert: Any = None, **options: Any) -> Any:
        def inner(function: Callable[..., Any]) -> Callable[..., Any]:
            self.arguments.setdefault(function.__name__, {})[name] = options
            self.hints[function.__name__] = get_type_hints(function)
            return function

        return inner


@pytest.fixture(scope="module")
def declared() -> Iterator[Declared]:
    seen = Declared()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(xlwings, "func", seen.func)
        patch.setattr(xlwings, "arg", seen.arg)
        importlib.reload(udfs)
    importlib.reload(udfs)  # the real (pass-through) decorators again
    return seen


def test_the_formulas_of_the_issue_and_no_others(declared: Declared) -> None:
    names = sorted(name for name in vars(udfs) if name.startswith("PROFNET_"))
    assert names == sorted(ISSUE)
    assert sorted(declared.functions) == sorted(ISSUE)


@pytest.mark.parametrize("name", sorted(ISSUE))
def test_each_formula_is_declared_with_help_for_every_argument(
    declared: Declared, name: str
) -> None:
    function = getattr(udfs, name)
    signature = inspect.signature(function)
    required = [p.name for p in signature.parameters.values() if p.default is p.empty]
    assert required == ISSUE[name]
    assert declared.hints[name] == {}, "xlwings would take annotations for converters"
    doc = inspect.getdoc(function) or ""
    assert 20 <= len(doc) <= EXCEL_HELP_LIMIT, doc
    arguments = declared.arguments.get(name, {})
    assert sorted(arguments) == sorted(signature.parameters), "help for every argument"
    for argument, options in arguments.items():
        assert 5 <= len(options["doc"]) <= EXCEL_HELP_LIMIT, (argument, options["doc"])
        # Without it xlwings hands a #N/A cell over as None: a blank answer, no message.
        assert options.get("err_to_str") is True, f"{name}({argument}): errors as text"
    options = declared.functions[name]
    if name == "PROFNET_CREDITS":
        assert options == {"volatile": True}, "recalculates as the others spend"
    else:
        assert options == {"async_mode": "threading", "call_in_wizard": False}


@pytest.mark.parametrize("name", sorted(ISSUE))
def test_each_udf_hands_every_argument_to_its_formula(name: str) -> None:
    logic = getattr(formulas, name.removeprefix("PROFNET_").lower())
    declared = inspect.signature(getattr(udfs, name)).parameters
    plain = inspect.signature(logic).parameters
    assert [(p.name, p.default) for p in declared.values()] == [
        (p.name, p.default) for p in plain.values()
    ]


def test_ranges_of_keys_arrive_two_dimensional(declared: Declared) -> None:
    assert declared.arguments["PROFNET_COMPANY"]["id_url_or_domain"]["ndim"] == 2
    assert declared.arguments["PROFNET_FIND_PROFILES"]["company_name"]["ndim"] == 2


def test_importing_the_formulas_loads_neither_xlwings_nor_the_network_stack() -> None:
    code = (
        "import sys, profnet_sheets.excel, profnet_sheets.excel.formulas; "
        "print(sorted(m for m in ('xlwings', 'requests', 'requests_cache', 'polars', 'uvicorn') "
        "if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
