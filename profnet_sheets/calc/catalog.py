"""The formulas as the Calc add-in declares them: names, arguments and help, read from udfs.py.

The Excel declarations (profnet_sheets.excel.udfs) are the one list of formulas: the add-in's
interface and its function-wizard texts are generated from them, never written twice.
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass

from profnet_sheets.errors import ConfigurationError
from profnet_sheets.excel import formulas


@dataclass(frozen=True)
class Argument:
    name: str
    help: str


@dataclass(frozen=True)
class Function:
    """One PROFNET_* formula: its name, what it does, its arguments in order."""

    name: str
    description: str
    arguments: tuple[Argument, ...]


def _one_line(text: str) -> str:
    return " ".join(text.split())


def functions() -> list[Function]:
    """Every PROFNET_* formula Excel declares, in its order, with the help Excel shows.
    Needs xlwings (the excel extra): udfs.py declares the formulas through it."""
    try:
        udfs = importlib.import_module("profnet_sheets.excel.udfs")
    except ImportError as error:
        raise ConfigurationError(
            f"the Calc add-in is made from the Excel formulas' declarations, which need "
            f'xlwings ({error}): pip install "profnet-sheets[excel]"'
        ) from None

    found = []
    for name, declared in vars(udfs).items():
        if not name.startswith(formulas.PREFIX) or not callable(declared):
            continue
        formulas.named(name)  # the logic it calls exists (ArgumentError otherwise)
        help_of = udfs.ARGUMENT_HELP.get(name, {})
        arguments = tuple(
            Argument(parameter, _one_line(help_of.get(parameter, parameter)))
            for parameter in inspect.signature(declared).parameters
        )
        found.append(Function(name, _one_line(inspect.getdoc(declared) or name), arguments))
    return found
