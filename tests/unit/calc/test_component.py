"""The UNO component without LibreOffice: `uno` and `unohelper` stood in for, so that its
only logic (find the environment, hand calls over, never raise into Calc) runs here too."""

from __future__ import annotations

import json
import runpy
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from profnet_sheets.calc import build


class _Helper:
    def __init__(self) -> None:
        self.added: list[tuple[Any, ...]] = []

    def addImplementation(self, *details: Any) -> None:
        self.added.append(details)


@pytest.fixture
def stand_ins(monkeypatch: pytest.MonkeyPatch) -> None:
    uno = types.ModuleType("uno")
    uno.getClass = lambda name: type(name.rsplit(".", 1)[-1], (), {})  # type: ignore[attr-defined]
    helper = types.ModuleType("unohelper")
    helper.Base = type("Base", (), {})  # type: ignore[attr-defined]
    helper.ImplementationHelper = _Helper  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "uno", uno)
    monkeypatch.setitem(sys.modules, "unohelper", helper)


def component(folder: Path, **changes: Any) -> dict[str, Any]:
    """The component as LibreOffice loads it from an .oxt unpacked in `folder`."""
    record = {**build.environment(build.functions()), **changes}
    (folder / build.ENVIRONMENT).write_text(json.dumps(record))
    path = folder / build.COMPONENT
    path.write_text(build.COMPONENT_SOURCE.read_text())
    return runpy.run_path(str(path))


@pytest.mark.usefixtures("stand_ins")
def test_it_registers_every_formula_and_calls_the_shared_logic(tmp_path: Path) -> None:
    loaded = component(tmp_path)
    (details,) = loaded["g_ImplementationHelper"].added
    assert details[1:] == (build.IMPLEMENTATION, ("com.sun.star.sheet.AddIn",))
    instance = loaded["ProfnetFormulas"](None)
    for name in build.environment(build.functions())["functions"]:
        assert callable(getattr(instance, name))
    answer = instance.PROFNET_COMPANY("stripe.com", "revenue")
    assert answer[0][0].startswith("#PROFNET! PROFNET_COMPANY has no field 'revenue'")


@pytest.mark.usefixtures("stand_ins")
def test_another_python_or_a_vanished_environment_is_said_in_the_cell(tmp_path: Path) -> None:
    other = component(tmp_path, python="2.7", executable="/old/python")
    (cell,) = other["ProfnetFormulas"](None).PROFNET_COMPANY("stripe.com")
    assert cell[0].startswith("#PROFNET! LibreOffice runs Python 3.")
    assert "installed from a Python 2.7 environment (/old/python)" in cell[0]
    gone = component(tmp_path, paths=[str(tmp_path / "deleted-venv")])
    (cell,) = gone["ProfnetFormulas"](None).PROFNET_CREDITS()
    assert cell[0].startswith("#PROFNET! the environment the add-in was installed from is gone")
