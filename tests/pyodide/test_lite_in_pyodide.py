"""The Lite template's PROFNET_* functions through xlwings' own dispatcher, against the sandbox
on loopback: in Pyodide under Node (our wheel, xlwings and their requirements installed offline;
the browser's fetch, pyfetch) and on CPython (a loopback fetch). Five cells over two companies
and a range pay 2 credits; a second recalculation, and a new process on the same cache, pay 0;
the cells read as the desktop's formulas; a budget of 1 stops the second company with the
desktop's message."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from profnet_sheets.client.client import Client
from profnet_sheets.excel import formulas, session
from profnet_sheets.excel.cells import error_text
from profnet_sheets.excel.lite_template import write
from profnet_sheets.excel.messages import BUDGET_SPENT
from profnet_sheets.sandbox import RunningSandbox, start_sandbox
from tests.pyodide.harness import HERE, install_pyodide, pure_wheels, run, run_in_pyodide
from tests.wheels import ROOT, build_wheel

PROBE = HERE / "lite_probe.py"
KEY = "lite-test-key"
XLWINGS = "xlwings==0.37.8"  # a pure wheel; xlwings Lite brings its own
KEYS = ["acme.com", "globex.com"]


@pytest.fixture
def sandbox() -> Iterator[RunningSandbox]:
    with start_sandbox(api_keys=(KEY,), credits=1_000, seed=3, job_seconds=0.0) as running:
        yield running


def _environment(sandbox: RunningSandbox, folder: Path, **more: str) -> dict[str, str]:
    """What Lite's environment variables would hold, and where the template and cache are.
    XLWINGS_LICENSE_KEY: xlwings' server module asks for one; the Lite add-in supplies its
    own, so its dispatcher is run here under xlwings' noncommercial key (tests only)."""
    template = folder / "template"
    if not template.exists():
        write(template)
    return {
        "PROFNET_LITE_TEMPLATE": str(template),
        "PROFNET_API_KEY": KEY,
        "PROFNET_BASE_URL": sandbox.base_url,
        "PROFNET_CACHE_DIR": str(folder / "cache"),
        "PROFNET_LITE_KEYS": ",".join(KEYS),
        "XLWINGS_LICENSE_KEY": "noncommercial",
        **more,
    }


def _said(output: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(output.strip().splitlines()[-1])
    return found


def _in_cpython(env: dict[str, str]) -> dict[str, Any]:
    probe = run([sys.executable, str(PROBE)], cwd=ROOT, env={**env, "PYTHONPATH": str(ROOT)})
    return _said(probe.stdout)


def _desktop(sandbox: RunningSandbox, folder: Path) -> Any:
    """The desktop formula over the same range (polars, threads), on a cache of its own."""
    client = Client(api_key=KEY, base_url=sandbox.base_url, cache=str(folder / "desktop"))
    session.install(client)
    try:
        return formulas.company([[key] for key in [*KEYS, KEYS[0]]], "company_name, website")
    finally:
        session.reset()
        client.close()


def _check_paid_once(said: dict[str, Any], sandbox: RunningSandbox, folder: Path) -> None:
    names = [["Acme"], ["Globex"], ["Acme"], ["Globex"], ["Acme"]]
    first, second = said["first"], said["second"]
    assert [cell[0] for cell in first[:5]] == names
    assert first[:6] == second[:6]  # the second recalculation: the same cells
    assert second[6][0][:2] == [2, 998]  # PROFNET_CREDITS: spent, budget left
    assert sandbox.usage()["credits_charged"] == 2  # identical keys paid once, repeats 0
    assert first[5] == _desktop(sandbox, folder)  # the range spills as on desktop


def test_lite_functions_on_cpython_pay_each_company_once(
    sandbox: RunningSandbox, tmp_path: Path
) -> None:
    env = _environment(sandbox, tmp_path)
    _check_paid_once(_in_cpython(env), sandbox, tmp_path)
    again = _in_cpython(env)  # a new process on the same cache folder
    assert again["second"][6][0][:2] == [0, 1000]
    assert sandbox.usage()["credits_charged"] == 4  # 2 of them the desktop's own


def test_lite_budget_stops_the_second_company_with_the_desktop_message(
    sandbox: RunningSandbox, tmp_path: Path
) -> None:
    said = _in_cpython(_environment(sandbox, tmp_path, PROFNET_EXCEL_BUDGET="1"))
    cells = [cell[0][0] for cell in said["first"][:5]]
    assert cells.count("Acme") == 3
    stopped = error_text(BUDGET_SPENT)
    assert all(cell.startswith(stopped) for cell in cells if cell != "Acme"), cells
    assert sandbox.usage()["credits_charged"] == 1


@pytest.mark.skipif(sys.platform == "win32", reason="Node's file system mount is POSIX here")
def test_lite_functions_in_pyodide_pay_each_company_once(
    sandbox: RunningSandbox, tmp_path: Path
) -> None:
    pyodide = install_pyodide()
    wheel = build_wheel(tmp_path / "dist")
    wheels = pure_wheels(wheel, XLWINGS)
    env = _environment(sandbox, tmp_path)
    first = run_in_pyodide(pyodide, PROBE, wheel, wheels, env, mount=tmp_path)
    _check_paid_once(_said(first.stdout), sandbox, tmp_path)
    again = _said(run_in_pyodide(pyodide, PROBE, wheel, wheels, env, mount=tmp_path).stdout)
    assert again["first"][:6] == _said(first.stdout)["first"][:6]
    assert again["second"][6][0][:2] == [0, 1000]  # a new process on the same cache: 0 paid
    assert sandbox.usage()["credits_charged"] == 4  # 2 of them the desktop's own
    assert os.listdir(tmp_path / "cache")  # the cache and ledger on the host folder


def test_lite_leads_follow_a_chain_of_calls_and_pay_each_lead_once(
    sandbox: RunningSandbox, tmp_path: Path
) -> None:
    client = Client(api_key=KEY, base_url=sandbox.base_url, cache="memory")
    request_id = client.search_leads(title_keywords=["engineer"], limit=3).request_id
    before = sandbox.usage()["credits_charged"]
    env = _environment(sandbox, tmp_path, PROFNET_LITE_REQUEST=request_id)
    probe = HERE / "lite_search_probe.py"
    said = json.loads(
        run([sys.executable, str(probe)], cwd=ROOT, env={**env, "PYTHONPATH": str(ROOT)})
        .stdout.strip()
        .splitlines()[-1]
    )
    first, again = said
    assert first[0] == ["name"]
    assert len(first) == 4, first  # a header and the 3 leads
    assert again == first
    assert sandbox.usage()["credits_charged"] - before == 3  # 1 credit per lead, once
