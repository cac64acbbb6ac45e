"""The core wheel in Pyodide (Node, offline): it installs with micropip from local wheels and
computes the same call key and spend quote as CPython."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.pyodide.harness import HERE, install_pyodide, pure_wheels, run, run_in_pyodide
from tests.wheels import ROOT, build_wheel

PROBE = HERE / "probe.py"


@pytest.fixture(scope="module")
def pyodide() -> Path:
    return install_pyodide()


def test_the_core_installs_and_works_in_pyodide(pyodide: Path, tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path)
    in_pyodide = run_in_pyodide(pyodide, PROBE, wheel, pure_wheels(wheel))
    in_cpython = run([sys.executable, str(PROBE)], cwd=ROOT)
    said = json.loads(in_pyodide.stdout.strip().splitlines()[-1])
    assert said == json.loads(in_cpython.stdout.strip().splitlines()[-1])
    assert said["unique"] == 3
