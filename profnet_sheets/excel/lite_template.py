"""The xlwings Lite workbook template: its main.py (the PROFNET_* functions, imported from this
package) and requirements.txt (this package's core wheel, pinned to this version)."""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

from profnet_sheets.errors import ArgumentError
from profnet_sheets.excel.formulas import FORMULAS

PACKAGE = "profnet-sheets"

MAIN_HEAD = '''"""PROFNET_* formulas in xlwings Lite (written by `profnet-sheets lite`).

Set under xlwings Lite > Environment Variables, scope Local (kept in this browser, never in
the workbook): PROFNET_API_KEY; optionally PROFNET_BASE_URL, PROFNET_EXCEL_BUDGET (credits
this session may spend, default 1000, or none), PROFNET_EXCEL_OFFLINE, PROFNET_SPENDING_CAP;
then restart xlwings Lite. Answers are kept on IndexedDB: recalculating, or reopening Excel,
pays nothing again. Never put the key in a cell or in this file. Your own functions may follow
the import.
"""

from profnet_sheets.excel.lite import (  # noqa: F401 - Lite registers the functions main.py holds
'''


def main_py() -> str:
    """main.py: every PROFNET_* function, the same names and arguments as on desktop."""
    names = "".join(f"    {name},\n" for name in FORMULAS)
    return f"{MAIN_HEAD}{names})\n"


def requirements_txt() -> str:
    """requirements.txt: this package's core (pure Python: it installs in Pyodide), pinned."""
    return (
        "# The PROFNET_* formulas: the core of profnet-sheets, a pure-Python wheel from PyPI\n"
        "# (no extras: those are for desktop Python). Keep the xlwings line Lite wrote, if any.\n"
        f"{PACKAGE}=={version(PACKAGE)}\n"
    )


def write(folder: Path) -> list[Path]:
    """Write main.py and requirements.txt into `folder` (made if missing); never over files
    already there (they may hold your own code): ArgumentError naming them."""
    files = {folder / "main.py": main_py(), folder / "requirements.txt": requirements_txt()}
    there = [str(path) for path in files if path.exists()]
    if there:
        them = "them" if len(there) > 1 else "it"
        raise ArgumentError(
            f"{' and '.join(there)} already {'exist' if len(there) > 1 else 'exists'}: give "
            f"another folder, or move {them} away (the template is never written over your files)"
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for path, text in files.items():
            path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise ArgumentError(
            f"the template cannot be written to {folder}: {error.strerror or error}; give a "
            "folder you can write to"
        ) from None
    return list(files)
