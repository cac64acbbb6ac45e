"""Install the Calc add-in with LibreOffice's `unopkg`: find it, build its command, run it."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
from pathlib import Path
from typing import Final

from profnet_sheets.calc.build import IDENTIFIER
from profnet_sheets.errors import ConfigurationError

# Where LibreOffice puts unopkg when it is not on PATH (Linux packages, macOS, Windows).
PLACES: Final = (
    "/usr/lib/libreoffice/program/unopkg",
    "/opt/libreoffice*/program/unopkg",
    "/Applications/LibreOffice.app/Contents/MacOS/unopkg",
    r"C:\Program Files\LibreOffice\program\unopkg.com",
)
TIMEOUT: Final = 300.0  # seconds: unopkg registers the component by running it once


class CalcInstallError(ConfigurationError):
    """The add-in could not be installed or removed; the message says what to do."""


def find_unopkg(given: str | None = None) -> str:
    """`given`, else unopkg on PATH, else where LibreOffice installs it."""
    if given:
        return given
    found = shutil.which("unopkg")
    for pattern in PLACES:
        found = found or next(iter(sorted(glob.glob(pattern))), None)
    if found is None:
        raise CalcInstallError(
            "LibreOffice's unopkg was not found: install LibreOffice with its Python support "
            "(Debian, Ubuntu: apt-get install libreoffice-calc python3-uno "
            "libreoffice-script-provider-python), or give --unopkg PATH"
        )
    return found


def _profile(profile: Path | None) -> list[str]:
    return [] if profile is None else [f"-env:UserInstallation={profile.resolve().as_uri()}"]


def add_command(
    unopkg: str, oxt: Path, profile: Path | None = None, shared: bool = False
) -> list[str]:
    """`unopkg add`: for this user (or every user with `shared`, or a given profile)."""
    scope = ["--shared"] if shared else []
    return [unopkg, "add", *scope, "--force", str(oxt), *_profile(profile)]


def remove_command(unopkg: str, profile: Path | None = None, shared: bool = False) -> list[str]:
    scope = ["--shared"] if shared else []
    return [unopkg, "remove", *scope, IDENTIFIER, *_profile(profile)]


def run(command: list[str], shared: bool = False) -> str:
    """Run an unopkg command; its output, or CalcInstallError saying what went wrong."""
    if not shared and hasattr(os, "geteuid") and os.geteuid() == 0:
        raise CalcInstallError(
            "unopkg does not install for the root user: run this as the user who runs "
            "LibreOffice, or add --shared to install for every user of this computer"
        )
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise CalcInstallError(f"{command[0]} did not run: {error}") from None
    output = (done.stdout + done.stderr).strip()
    if done.returncode != 0:
        last = " ".join(output.splitlines()[-6:]) or f"exit status {done.returncode}"
        raise CalcInstallError(
            f"unopkg failed: {last}. Close LibreOffice and try again; LibreOffice needs its "
            "Python support (Debian, Ubuntu: python3-uno, libreoffice-script-provider-python)"
        )
    return output
