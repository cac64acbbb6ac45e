"""The add-in's UNO component: runs in LibreOffice's own Python, copied into the .oxt.

It does two things only. It puts the Python environment that built the add-in (written by
`uv run profnet-sheets calc install` into environment.json beside it) at the front of
sys.path, once, on the first call (LibreOffice's Python knows neither profnet-sheets nor its
dependencies, and a Linux distribution's older copies of them must not win). Then it hands
every call to profnet_sheets.calc.values, which converts Calc's values and calls the Excel
formulas' logic.
Nothing here raises into Calc: every failure is a `#PROFNET!` text in the cell.
"""

from __future__ import annotations

import json
import os
import site
import sys
import threading
from collections.abc import Callable
from typing import Any

import uno
import unohelper

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "environment.json"), encoding="utf-8") as _handle:
    RECORD: dict[str, Any] = json.load(_handle)
# The install command as the recording environment runs it (an older record: by its name).
INSTALL: str = RECORD.get("install", "profnet-sheets calc install")
PREFIX = "#PROFNET!"  # as profnet_sheets.excel.cells says it (not importable before the load)
Call = Callable[[str, tuple[Any, ...]], Any]
_lock = threading.Lock()
_loaded: list[Call] = []


def _error(text: str) -> tuple[tuple[str]]:
    return ((f"{PREFIX} {' '.join(text.split())}",),)


def _failing(text: str) -> Call:
    return lambda name, arguments: _error(text)


def _load() -> Call:
    """profnet_sheets.calc.values.call from the recorded environment, or what is wrong."""
    running = "{}.{}".format(*sys.version_info[:2])
    if running != RECORD["python"]:
        return _failing(
            f"LibreOffice runs Python {running}, but the add-in was installed from a Python "
            f"{RECORD['python']} environment ({RECORD['executable']}): install profnet-sheets "
            f"in a Python {running} environment and run {INSTALL} from it"
        )
    missing = [path for path in RECORD["paths"] if not os.path.isdir(path)]
    if missing:
        return _failing(
            f"the environment the add-in was installed from is gone ({missing[0]}): run "
            f"{INSTALL} again from the environment that has profnet-sheets"
        )
    before = list(sys.path)
    for path in RECORD["paths"]:
        site.addsitedir(path)  # also reads its .pth files (an editable install's path)
    sys.path[:] = [path for path in sys.path if path not in before] + before
    try:
        from profnet_sheets.calc import values
    except Exception as error:
        return _failing(
            f"profnet-sheets does not load from {RECORD['paths'][0]} ({type(error).__name__}: "
            f"{error}): run {INSTALL} again from a working environment"
        )
    call: Call = values.call
    return call


def _formula(name: str) -> Callable[..., Any]:
    def formula(self: Any, *arguments: Any) -> Any:
        try:
            with _lock:
                if not _loaded:
                    _loaded.append(_load())
            return _loaded[0](name, arguments)
        except BaseException as error:  # never an exception into Calc
            return _error(f"unexpected {type(error).__name__}: {error}. Please report it")

    formula.__name__ = name
    return formula


class ProfnetFormulas(unohelper.Base, uno.getClass(RECORD["interface"])):  # type: ignore[misc]
    """The PROFNET_* functions, one method each (added below from environment.json)."""

    def __init__(self, context: Any) -> None:
        self.context = context


for _name in RECORD["functions"]:
    setattr(ProfnetFormulas, _name, _formula(_name))

g_ImplementationHelper = unohelper.ImplementationHelper()  # noqa: N816 - the loader's name
g_ImplementationHelper.addImplementation(
    ProfnetFormulas, RECORD["implementation"], ("com.sun.star.sheet.AddIn",)
)
