"""The command's entry: a Ctrl-C while the command line is imported."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

import pytest

from profnet_sheets import launch


class _StoppedImport:
    """A finder that stops the import of the command line as a Ctrl-C in it would."""

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if name == "profnet_sheets.cli":
            raise KeyboardInterrupt
        return None


def test_ctrl_c_while_starting_is_one_line_and_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A review: a Ctrl-C during the first second printed a traceback of the imports."""
    monkeypatch.delitem(sys.modules, "profnet_sheets.cli", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_StoppedImport(), *sys.meta_path])
    with pytest.raises(SystemExit) as ended:
        launch.main()
    assert ended.value.code == 130
    assert capsys.readouterr().err == "Interrupted (Ctrl-C) while starting: nothing was sent.\n"
