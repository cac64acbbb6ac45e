"""`profnet-sheets lite`: the xlwings Lite template (main.py, requirements.txt), never written
over a user's files; its main.py names every PROFNET_* formula."""

from __future__ import annotations

import ast
from importlib.metadata import version
from pathlib import Path

from click.testing import CliRunner

from profnet_sheets.cli import main
from profnet_sheets.excel.formulas import FORMULAS


def test_lite_writes_main_and_requirements(tmp_path: Path) -> None:
    folder = tmp_path / "lite"
    result = CliRunner().invoke(main, ["lite", str(folder)])
    assert result.exit_code == 0, result.output
    tree = ast.parse((folder / "main.py").read_text())
    (imported,) = [node for node in tree.body if isinstance(node, ast.ImportFrom)]
    assert imported.module == "profnet_sheets.excel.lite"
    assert [alias.name for alias in imported.names] == list(FORMULAS)
    requirements = (folder / "requirements.txt").read_text()
    assert f"profnet-sheets=={version('profnet-sheets')}\n" in requirements
    assert "[" not in requirements.split("\n")[-2]  # the core: no extras
    text = (folder / "main.py").read_text() + requirements
    assert "PROFNET_API_KEY=" not in text  # the key is named, never given


def test_lite_never_writes_over_a_users_files(tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text("my code")
    result = CliRunner().invoke(main, ["lite", str(tmp_path)])
    assert result.exit_code == 1
    assert "already exist" in result.output
    assert "Traceback" not in result.output
    assert (tmp_path / "main.py").read_text() == "my code"
    assert not (tmp_path / "requirements.txt").exists()


def test_a_folder_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    """Before: a traceback (FileNotFoundError from mkdir) for a folder that cannot be made."""
    (tmp_path / "a-file").write_text("")
    result = CliRunner().invoke(main, ["lite", str(tmp_path / "a-file" / "lite")])
    assert result.exit_code == 1
    assert "the template cannot be written to" in result.output
    assert "give a folder you can write to" in result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_one_file_there_is_said_as_one(tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text("my code")
    result = CliRunner().invoke(main, ["lite", str(tmp_path)])
    assert "main.py already exists: give another folder, or move it away" in result.output
