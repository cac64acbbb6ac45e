"""The environment LibreOffice (soffice, unopkg) starts in: as from a desktop, no other Python."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Final

# Where the system's Python lives: the one python3-uno is bound to (Debian, Ubuntu).
SYSTEM_FOLDERS: Final = ("/usr/bin", "/bin")
# What points a Python elsewhere: an activated (or `uv run`) environment, conda, uv's own.
PYTHON_VARIABLES: Final = ("VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "PYENV_VERSION")
PYTHON_PREFIXES: Final = ("PYTHON", "UV_")


def libreoffice_environment(
    keep: Iterable[str | Path] = (), environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """`environ` (default: this process's) without another Python: no folder on PATH holding a
    `python3` but the system's and those in `keep` (LibreOffice's own), and no variable that
    points a Python elsewhere (VIRTUAL_ENV, PYTHONHOME, PYTHONPATH, UV_*, ...).

    LibreOffice's embedded Python takes its home from the first `python3` on PATH: under
    `uv run` or an activated environment it took the environment's (even one of the same
    Python, without `uno`), and soffice aborted at start, unopkg with `St9bad_alloc`.
    """
    given = dict(os.environ if environ is None else environ)
    kept = {str(Path(folder)) for folder in (*SYSTEM_FOLDERS, *keep)}

    def foreign(folder: str) -> bool:
        return Path(folder, "python3").exists() and str(Path(folder)) not in kept

    path = os.pathsep.join(
        folder
        for folder in given.get("PATH", "").split(os.pathsep)
        if folder and not foreign(folder)
    )
    cleaned = {
        name: value
        for name, value in given.items()
        if name not in PYTHON_VARIABLES and not name.startswith(PYTHON_PREFIXES)
    }
    return {**cleaned, "PATH": path}
