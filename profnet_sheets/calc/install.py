"""Install the Calc add-in with LibreOffice's `unopkg`: find it, build its command, run it."""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Final

from profnet_sheets.calc.build import IDENTIFIER
from profnet_sheets.calc.environment import libreoffice_environment
from profnet_sheets.errors import ConfigurationError
from profnet_sheets.redact import clipped

# Where LibreOffice puts unopkg when it is not on PATH (Linux packages, macOS, Windows).
PLACES: Final = (
    "/usr/lib/libreoffice/program/unopkg",
    "/opt/libreoffice*/program/unopkg",
    "/Applications/LibreOffice.app/Contents/MacOS/unopkg",
    r"C:\Program Files\LibreOffice\program\unopkg.com",
)
TIMEOUT: Final = 300.0  # seconds: unopkg registers the component by running it once
# Where in LibreOffice's C++ sources an error was raised (` at ./desktop/x.cxx:973`): not for users.
_SOURCE_PLACE: Final = re.compile(r"\s+at\s+\S+\.(?:cxx|hxx|cpp|hpp|c|h):\d+")
# unopkg's words for removing an extension that is not there.
_NOT_DEPLOYED: Final = "no such extension deployed"


class CalcInstallError(ConfigurationError):
    """The add-in could not be installed or removed; the message says what to do."""


class CalcNotInstalledError(CalcInstallError):
    """`unopkg remove` found no add-in to remove."""


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


def run(command: list[str], shared: bool = False, cwd: Path | None = None) -> str:
    """Run an unopkg command as from a desktop (no other Python first: `environment`), in
    `cwd` (default: this one); its output, or CalcInstallError with unopkg's own reason and
    what to do."""
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
            cwd=cwd,
            env=libreoffice_environment(keep=[Path(command[0]).parent]),
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise CalcInstallError(f"{command[0]} did not run: {error}") from None
    if done.returncode != 0:
        said = reason(done.stderr or done.stdout, done.returncode)
        if _NOT_DEPLOYED in said.lower():
            raise CalcNotInstalledError(said)
        raise CalcInstallError(f"unopkg failed: {said}. {what_to_do(shared, said)}")
    return (done.stdout + done.stderr).strip()


def reason(output: str, status: int) -> str:
    """unopkg's own reason, in one line: its first error that is not the closing
    `ERROR: unopkg failed.`, else its last line."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    errors = [
        line.removeprefix("ERROR:").strip()
        for line in lines
        if line.startswith("ERROR:") and line.rstrip(".") != "ERROR: unopkg failed"
    ]
    found = (errors or lines[-1:] or [f"exit status {status}"])[0]
    found = _SOURCE_PLACE.sub("", found.removeprefix("Exception occurred:"))
    return clipped(found.strip().rstrip("."))


def what_to_do(shared: bool, said: str) -> str:
    """What to do after unopkg failed saying `said`: the root advice only when its words are
    about the user (root, as root without --shared), not for any failure under root."""
    root = re.search(r"\broot\b", said, re.IGNORECASE) is not None
    if not shared and root and hasattr(os, "geteuid") and os.geteuid() == 0:
        return (
            "unopkg does not install for the root user: run this as the user who runs "
            "LibreOffice, or add --shared to install for every user of this computer"
        )
    return (
        "Close LibreOffice (and any soffice --headless) and try again; LibreOffice needs its "
        "Python support (Debian, Ubuntu: python3-uno, libreoffice-script-provider-python)"
    )
