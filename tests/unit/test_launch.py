"""The command's entry: a Ctrl-C while the command line is imported, or before a command's
own handling of it."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

import pytest
from click.testing import CliRunner

from profnet_sheets import cli, launch
from profnet_sheets.stops import Stops


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


def _interrupted(*args: object, **kwargs: object) -> None:
    raise KeyboardInterrupt


@pytest.mark.parametrize(
    ("target", "command"),
    [
        ((cli, "Client"), ["credits"]),  # a command that pays nothing
        ((Stops, "__enter__"), ["lookup", "company", "acme.com"]),  # before its Stops
    ],
)
def test_ctrl_c_outside_a_commands_stops_is_one_line_and_130(
    monkeypatch: pytest.MonkeyPatch, target: tuple[object, str], command: list[str]
) -> None:
    """A review of decision 560: a Ctrl-C after the import but before a paying command's
    Stops, or in `credits`, was click's `Aborted!` and exit 1."""
    monkeypatch.setattr(*target, _interrupted)
    result = CliRunner().invoke(cli.main, command, env={"PROFNET_CONFIG": "/nonexistent/c.toml"})
    assert result.exit_code == 130, result.output
    assert result.stderr == "\nInterrupted (Ctrl-C): no credits spent.\n"


def _interrupted_while_a_class_was_made(*args: object, **kwargs: object) -> None:
    try:
        raise KeyboardInterrupt
    except KeyboardInterrupt as stopped:  # as Python 3.11 wraps it in __set_name__
        raise RuntimeError("Error calling __set_name__ on 'Field' instance") from stopped


def test_ctrl_c_wrapped_by_python_while_a_class_is_made_is_said_as_ctrl_c(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A review of decision 563: a Ctrl-C while a module's class was made came out as a
    RuntimeError with a traceback (about 1 run in 1,000)."""
    monkeypatch.setattr(cli, "Client", _interrupted_while_a_class_was_made)
    result = CliRunner().invoke(cli.main, ["credits"], env={"PROFNET_CONFIG": "/nonexistent/c"})
    assert result.exit_code == 130, result.output
    assert result.stderr == "\nInterrupted (Ctrl-C): no credits spent.\n"
