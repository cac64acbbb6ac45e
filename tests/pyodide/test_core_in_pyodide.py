"""The core wheel in Pyodide (Node, offline): it installs with micropip from local wheels and
computes the same call key and spend quote as CPython."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tools import missing_tool
from tests.wheels import ROOT, build_wheel, core_requirements

HERE = Path(__file__).parent
PROBE = HERE / "probe.py"
MICROPIP = "micropip==0.11.1"
# Kept between runs: the npm install of Pyodide and the downloaded wheels (keyed by what they
# are for); deleting the folder only costs a download.
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "profnet-sheets-tests"


def _run(command: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, timeout=600, check=False
    )
    if result.returncode != 0:
        pytest.fail(f"{' '.join(command)} failed:\n{result.stdout[-2000:]}{result.stderr[-3000:]}")
    return result


@pytest.fixture(scope="module")
def pyodide() -> Path:
    """The npm package `pyodide` (the version tests/pyodide/package.json pins), installed once."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        missing_tool("no node/npm on PATH: install them (`apt-get install nodejs npm`)")
    pinned = (HERE / "package.json").read_text()
    home = CACHE / ("npm-" + hashlib.sha256(pinned.encode()).hexdigest()[:12])
    package = home / "node_modules" / "pyodide"
    if not (package / "pyodide.mjs").exists():
        home.mkdir(parents=True, exist_ok=True)
        (home / "package.json").write_text(pinned)
        _run([npm, "install", "--no-audit", "--no-fund", "--loglevel=error"], cwd=home)
    return package


def _pure_wheels(wheel: Path) -> list[Path]:
    """The wheels the core needs in Pyodide (its requirements' closure and micropip), pure
    Python: a requirement with no pure wheel fails the download."""
    wanted = [*sorted(str(r) for r in core_requirements(wheel)), MICROPIP]
    folder = CACHE / ("wheels-" + hashlib.sha256("\n".join(wanted).encode()).hexdigest()[:12])
    done = folder / "done"
    if not done.exists():
        uv = os.environ.get("UV") or shutil.which("uv") or "uv"
        pip = [uv, "run", "--no-project", "--with", "pip", "python", "-m", "pip"]
        only_pure = ["--only-binary=:all:", "--platform", "any", "--python-version", "3.14"]
        _run([*pip, "download", "--quiet", *only_pure, "--implementation", "py", "-d",
              str(folder), *wanted])  # fmt: skip
        done.write_text("\n".join(wanted))
    return sorted(folder.glob("*.whl"))


def test_the_core_installs_and_works_in_pyodide(pyodide: Path, tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path)
    wheels = _pure_wheels(wheel)
    (micropip,) = [w for w in wheels if w.name.startswith("micropip-")]
    others = [w for w in wheels if w != micropip]
    node = [shutil.which("node") or "node", str(HERE / "run_core.mjs"), str(pyodide)]
    in_pyodide = _run([*node, str(PROBE), str(micropip), str(wheel), *others])
    in_cpython = _run([sys.executable, str(PROBE)], cwd=ROOT)
    said = json.loads(in_pyodide.stdout.strip().splitlines()[-1])
    assert said == json.loads(in_cpython.stdout.strip().splitlines()[-1])
    assert said["unique"] == 3
