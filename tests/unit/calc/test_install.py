"""Installing with unopkg: its commands, and what a user is told when it cannot work."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from profnet_sheets.calc import install
from profnet_sheets.calc.build import IDENTIFIER
from profnet_sheets.calc.environment import libreoffice_environment
from profnet_sheets.cli import main


def test_commands_for_a_user_every_user_or_a_profile(tmp_path: Path) -> None:
    oxt = tmp_path / "a.oxt"
    assert install.add_command("unopkg", oxt) == ["unopkg", "add", "--force", str(oxt)]
    assert install.add_command("unopkg", oxt, shared=True)[:3] == ["unopkg", "add", "--shared"]
    with_profile = install.add_command("unopkg", oxt, tmp_path / "p")
    assert with_profile[-1] == f"-env:UserInstallation={(tmp_path / 'p').as_uri()}"
    assert install.remove_command("unopkg") == ["unopkg", "remove", IDENTIFIER]


def test_no_libreoffice_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(install.shutil, "which", lambda name: None)
    monkeypatch.setattr(install, "PLACES", ())
    with pytest.raises(install.CalcInstallError, match="apt-get install libreoffice-calc"):
        install.find_unopkg()
    assert install.find_unopkg("/opt/lo/unopkg") == "/opt/lo/unopkg"


def fake_unopkg(folder: Path, status: int = 0, error: str = "something") -> Path:
    """An unopkg that writes down how it was called (and says `ERROR: error`)."""
    script = folder / "unopkg"
    script.write_text(
        f'#!/bin/sh\necho "$@" > "{folder}/called"\n'
        f'[ -f "$3" ] && cp "$3" "{folder}/installed.oxt"\n'
        f'echo "ERROR: {error}" >&2\nexit {status}\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def test_install_builds_the_add_in_and_hands_it_to_unopkg(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    unopkg = fake_unopkg(tmp_path)
    done = CliRunner().invoke(main, ["calc", "install", "--unopkg", str(unopkg)])
    assert done.exit_code == 0, done.output
    called = (tmp_path / "called").read_text().split()
    assert called[:2] == ["add", "--force"]
    assert called[2].endswith("profnet-sheets.oxt")
    assert (tmp_path / "installed.oxt").stat().st_size > 1000
    assert "Installed for LibreOffice (this user)" in done.output
    removed = CliRunner().invoke(main, ["calc", "remove", "--unopkg", str(unopkg)])
    assert removed.exit_code == 0, removed.output
    assert (tmp_path / "called").read_text().split() == ["remove", IDENTIFIER]


def test_a_failing_unopkg_and_root_are_explained(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    failing = fake_unopkg(tmp_path, status=1)
    done = CliRunner().invoke(main, ["calc", "install", "--unopkg", str(failing)])
    assert done.exit_code == 1
    assert "unopkg failed: something. Close LibreOffice" in done.output
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    other = CliRunner().invoke(main, ["calc", "install", "--unopkg", str(failing)])
    assert "unopkg failed: something. Close LibreOffice" in other.output, "not about root"
    refused = fake_unopkg(
        tmp_path, status=1, error="Cannot run unopkg as root without --shared or --bundled option."
    )
    root = CliRunner().invoke(main, ["calc", "install", "--unopkg", str(refused)])
    assert "--bundled option. unopkg does not install for the root user" in root.output
    assert "--shared" in root.output


NOT_DEPLOYED = (
    "There is no such extension deployed: org.profnetsheets.calc at "
    "./desktop/source/deployment/manager/dp_manager.cxx:973"
)


def test_removing_an_add_in_not_installed_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    unopkg = fake_unopkg(tmp_path, status=1, error=NOT_DEPLOYED)
    args = ["calc", "remove", "--unopkg", str(unopkg)]
    done = CliRunner().invoke(main, [*args, "--profile", str(tmp_path / "p")])
    assert done.exit_code == 0, done.output
    assert done.output == (
        "The PROFNET add-in is not installed in that profile: nothing to remove.\n"
    )
    mine = CliRunner().invoke(main, args)
    assert mine.output == "The PROFNET add-in is not installed for this user: nothing to remove.\n"


def test_libreoffices_source_places_are_not_shown() -> None:
    assert install.reason(f"ERROR: {NOT_DEPLOYED}\n", 1) == (
        "There is no such extension deployed: org.profnetsheets.calc"
    )
    assert install.what_to_do(False, "something") == install.what_to_do(True, "root")


BAD_ALLOC = """
ERROR: Exception occurred: C++ code threw St9bad_alloc: std::bad_alloc at ./bridges/x.cxx:243

ERROR: unopkg failed.
"""


def test_the_reason_is_unopkgs_own_in_one_line() -> None:
    assert install.reason(BAD_ALLOC, 1) == "C++ code threw St9bad_alloc: std::bad_alloc"
    assert install.reason("ERROR: unopkg failed.\n", 1) == "ERROR: unopkg failed"
    root = "ERROR: Cannot run unopkg as root without --shared or --bundled option.\n"
    assert (
        install.reason(root, 1) == "Cannot run unopkg as root without --shared or --bundled option"
    )
    assert install.reason("", 9) == "exit status 9"


def test_unopkg_starts_without_the_environments_python(tmp_path: Path) -> None:
    venv = tmp_path / "venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "python3").touch()
    given = {
        "PATH": os.pathsep.join([str(venv), "/usr/bin", str(tmp_path), "/bin"]),
        "VIRTUAL_ENV": str(venv.parent),
        "PYTHONHOME": "/x",
        "PYTHONPATH": "/y",
        "UV_PROJECT_ENVIRONMENT": "/z",
        "HOME": "/home/anna",
    }
    cleaned = libreoffice_environment(environ=given)
    assert cleaned == {
        "PATH": os.pathsep.join(["/usr/bin", str(tmp_path), "/bin"]),
        "HOME": "/home/anna",
    }
    kept = libreoffice_environment(keep=[venv], environ=given)
    assert kept["PATH"].split(os.pathsep)[0] == str(venv)


def test_build_writes_the_oxt(tmp_path: Path) -> None:
    done = CliRunner().invoke(main, ["calc", "build", "--out", str(tmp_path / "x.oxt")])
    assert done.exit_code == 0, done.output
    assert (tmp_path / "x.oxt").exists()


def test_without_xlwings_the_build_says_which_extra_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "profnet_sheets.excel.udfs", None)  # import fails
    done = CliRunner().invoke(main, ["calc", "build", "--out", str(tmp_path / "x.oxt")])
    assert done.exit_code == 1
    assert 'pip install "profnet-sheets[excel]"' in done.output
