"""`uv run profnet-sheets calc install` as the docs say, into a LibreOffice profile of its own.

`uv run` puts its environment's Python first on PATH (and sets VIRTUAL_ENV): unopkg started in
that environment failed with `C++ code threw St9bad_alloc`. The environment here is made of
LibreOffice's own Python, as docs/excel.md asks, in a folder any user can read.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from profnet_sheets.calc.environment import libreoffice_environment
from tests.integration.calc.test_calc_engine import (  # noqa: F401 (a fixture)
    SLOW,
    as_user_of,
    libreoffice,
)
from tests.tools import missing_tool

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[3]
NOBODY = 65534


@pytest.fixture
def folder() -> Iterator[Path]:
    """Not under pytest's tmp_path: unopkg (as nobody, under root) must reach it."""
    made = Path(tempfile.mkdtemp(prefix="profnet-calc-install-"))
    made.chmod(0o755)
    try:
        yield made
    finally:
        shutil.rmtree(made, ignore_errors=True)


def uv() -> str:
    found = os.environ.get("UV") or shutil.which("uv")
    if found is None:
        missing_tool("no uv here: the test runs `uv run profnet-sheets calc install`")
    return found


def unopkg_as_nobody(folder: Path, unopkg: str, profile: Path) -> Path:
    """As root, the user who runs LibreOffice is played by nobody: unopkg does not install for
    root. The .oxt (in root's own temporary folder) is handed over as a copy nobody can read;
    the environment `calc install` gives unopkg is passed on as it is."""
    spool = folder / "spool"
    spool.mkdir(mode=0o755)
    script = folder / "unopkg"
    script.write_text(
        "#!/bin/sh\n"
        f'cp "$3" "{spool}/profnet-sheets.oxt" && chmod 644 "{spool}/profnet-sheets.oxt"\n'
        f'cd "{spool}" && HOME="{profile}" exec {" ".join(as_user_of(profile))} "{unopkg}" '
        f'"$1" "$2" "{spool}/profnet-sheets.oxt" "$4"\n'
    )
    script.chmod(0o755)
    return script


def test_uv_run_calc_install_installs_into_a_profile(
    libreoffice: tuple[str, str, str],  # noqa: F811 (the fixture imported above)
    folder: Path,
) -> None:
    _, unopkg, python = libreoffice
    profile = folder / "profile"
    profile.mkdir()
    given = (
        ["--unopkg", str(unopkg_as_nobody(folder, unopkg, profile))] if os.geteuid() == 0 else []
    )
    options = ["--profile", str(profile), *given]
    environment = {
        **os.environ,  # this test's: under `uv run pytest`, the venv's
        "UV_PROJECT_ENVIRONMENT": str(folder / "venv"),  # of LibreOffice's Python
        "PROFNET_CONFIG": str(folder / "config.toml"),
    }
    done = subprocess.run(
        [uv(), "run", "--python", python, "profnet-sheets", "calc", "install", *options],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=SLOW,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Installed for LibreOffice (this user)" in done.stderr
    assert str(folder / "venv") in done.stderr, "installed for the environment uv run made"
    listed = subprocess.run(
        [*as_user_of(profile), unopkg, "list", f"-env:UserInstallation={profile.as_uri()}"],
        cwd=folder,
        env={**libreoffice_environment(), "HOME": str(profile)},
        capture_output=True,
        text=True,
        timeout=SLOW,
        check=False,
    )
    assert "org.profnetsheets.calc" in listed.stdout, listed.stdout + listed.stderr
