"""Which extra brings a package the core does without: said in one line, not a traceback."""

from __future__ import annotations

from typing import Final

# The packages of the extras that the core (what xlwings Lite installs) does not require.
EXTRA_OF: Final = {
    "click": "cli",
    "tqdm": "cli",
    "uvicorn": "sandbox",
    "httptools": "sandbox",
    "polars": "batch",
    "xlsxwriter": "batch",
    "fastexcel": "batch",
}


def missing_extra(error: ModuleNotFoundError, what: str) -> str | None:
    """`what` cannot run without the package `error` names: which extra to install, in one
    line; None when the package is none of the extras' (a real fault, to raise as it is)."""
    package = (error.name or "").split(".")[0]
    extra = EXTRA_OF.get(package)
    if extra is None:
        return None
    return (
        f"{what} needs {package}, which the core install leaves out: "
        f'pip install "profnet-sheets[{extra}]" (or "profnet-sheets[desktop]" for everything '
        "a desktop user gets)"
    )
