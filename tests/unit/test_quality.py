"""The code base stays ruff- and mypy-clean (CI runs these through pytest)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)


def test_ruff_lint_is_clean() -> None:
    ruff = shutil.which("ruff") or "ruff"
    result = run(ruff, "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean() -> None:
    ruff = shutil.which("ruff") or "ruff"
    result = run(ruff, "format", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_is_clean() -> None:
    result = run(sys.executable, "-m", "mypy")
    assert result.returncode == 0, result.stdout + result.stderr


def test_package_ships_py_typed() -> None:
    assert (ROOT / "profnet_sheets" / "py.typed").exists()


def _documents() -> dict[str, str]:
    """What users read: README, docs (not the spec), the notebooks' markdown, every --help."""
    import click
    import nbformat

    from profnet_sheets.cli import main

    found = {path.name: path.read_text() for path in [ROOT / "README.md"]}
    found |= {f"docs/{path.name}": path.read_text() for path in (ROOT / "docs").glob("*.md")}
    for path in (ROOT / "notebooks").glob("*.ipynb"):
        cells = nbformat.read(path, as_version=4).cells
        found[path.name] = "\n".join(c.source for c in cells if c.cell_type == "markdown")

    def helps(command: click.Command, name: str, parent: click.Context | None) -> None:
        context = click.Context(command, info_name=name, parent=parent)
        found[f"{name} --help"] = command.get_help(context)
        if isinstance(command, click.Group):
            for sub, inner in command.commands.items():
                helps(inner, sub, context)

    helps(main, "profnet-sheets", None)
    return found


def test_docs_write_commands_as_they_run_in_a_clone() -> None:
    """`uv run profnet-sheets enrich ...`, not `profnet-sheets enrich ...` (not found in a
    clone), except where a line is about an installed wheel (`pip install`); no link to
    `../shared`, which a clone does not have."""
    import re

    from profnet_sheets.cli import main

    names = "|".join(main.commands)
    bare = re.compile(rf"(?<!uv run )(?<![\w/.\[-])profnet-sheets\s+(?:{names})\b")
    wrong = []
    for name, text in _documents().items():
        lines = text.splitlines()
        for found in bare.finditer(text):
            line = lines[text.count("\n", 0, found.start())]
            if "pip install" not in line and not line.startswith("Usage:"):  # click's own
                wrong.append(f"{name}: {line.strip()}")
        wrong += [f"{name}: {line.strip()}" for line in lines if "../shared" in line]
    assert not wrong, "\n".join(wrong)


def test_messages_name_commands_as_they_run_here() -> None:
    """From this checkout, a message says `uv run profnet-sheets ...` (a wheel: without)."""
    from profnet_sheets.client.embedded import NOTICE
    from profnet_sheets.words import command

    assert command("credits") == "uv run profnet-sheets credits"
    assert "`uv run profnet-sheets config --api-key ...`" in NOTICE
