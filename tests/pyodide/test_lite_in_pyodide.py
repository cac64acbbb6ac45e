"""The Lite template's PROFNET_* functions through xlwings' own dispatcher, against the sandbox
on loopback: in Pyodide under Node (our wheel, xlwings and their requirements installed offline;
the browser's fetch, pyfetch) and on CPython (a loopback fetch). Five cells over two companies
and a range pay 2 credits; a second recalculation, and a new process on the same cache, pay 0;
the cells read as the desktop's formulas; a budget of 1 stops the second company with the
desktop's message; a 402 stops the run and a later recalculation, once topped up, asks again;
a range of 50 new keys goes out together, as many at once as the in-flight limit lets. Under
Node with and without JSPI (WebAssembly stack switching: Chromium has it, a Mac's Safari
runtime not)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from profnet_sheets.client.client import Client
from profnet_sheets.errors import BudgetExceeded
from profnet_sheets.excel import formulas, session
from profnet_sheets.excel.cells import error_text
from profnet_sheets.excel.lite_template import write
from profnet_sheets.excel.messages import budget_spent, message_for, out_of_credits
from profnet_sheets.sandbox import RunningSandbox, start_sandbox
from tests.pyodide.harness import (
    HERE,
    install_pyodide,
    jspi_flags,
    pure_wheels,
    run,
    run_in_pyodide,
)
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


@dataclass(frozen=True)
class Kit:
    """Pyodide under Node, our wheel and the wheels it needs: built once for this module."""

    pyodide: Path
    wheel: Path
    wheels: list[Path]

    def run(
        self, env: dict[str, str], mount: Path, jspi: bool = False, **more: str
    ) -> dict[str, Any]:
        """The probe's JSON, run under Node (with JSPI or without) on `mount`'s files."""
        flags = jspi_flags() if jspi else ()
        if jspi and not flags:
            pytest.skip("this Node has no option for JSPI (WebAssembly stack switching)")
        done = run_in_pyodide(
            self.pyodide, PROBE, self.wheel, self.wheels, {**env, **more}, mount, flags
        )
        said = _said(done.stdout)
        if not jspi and said["jspi"]:
            pytest.skip("this Node runs JSPI without being asked: nothing to compare")
        assert said["jspi"] is jspi  # the mode asked for is the mode it ran in
        return said


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Kit:
    if sys.platform == "win32":
        pytest.skip("Node's file system mount is POSIX here")
    wheel = build_wheel(tmp_path_factory.mktemp("dist"))
    return Kit(install_pyodide(), wheel, pure_wheels(wheel, XLWINGS))


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
    assert first[6][0][:2] == [2, 998]  # PROFNET_CREDITS counts the cells fetching beside it
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
    _check_budget_stop(
        _in_cpython(_environment(sandbox, tmp_path, PROFNET_EXCEL_BUDGET="1")), sandbox
    )


@pytest.mark.parametrize("jspi", [False, True], ids=["without-jspi", "with-jspi"])
def test_lite_functions_in_pyodide_pay_each_company_once(
    sandbox: RunningSandbox, tmp_path: Path, kit: Kit, jspi: bool
) -> None:
    env = _environment(sandbox, tmp_path)
    first = kit.run(env, tmp_path, jspi)
    _check_paid_once(first, sandbox, tmp_path)
    again = kit.run(env, tmp_path, jspi)
    assert again["first"][:6] == first["first"][:6]
    assert again["second"][6][0][:2] == [0, 1000]  # a new process on the same cache: 0 paid
    assert sandbox.usage()["credits_charged"] == 4  # 2 of them the desktop's own
    assert os.listdir(tmp_path / "cache")  # the cache and ledger on the host folder


def _check_budget_stop(said: dict[str, Any], sandbox: RunningSandbox) -> None:
    """The desktop's message for the stop, in Lite's words for the remedy (decision 336)."""
    cells = [cell[0][0] for cell in said["first"][:5]]
    assert cells.count("Acme") == 3
    stopped = message_for(BudgetExceeded("", needed=1, left=0), "lite")
    assert stopped.startswith(error_text(budget_spent("lite")))
    assert [cell for cell in cells if cell != "Acme"] == [stopped, stopped], cells
    assert sandbox.usage()["credits_charged"] == 1


def test_lite_budget_in_pyodide_stops_the_second_company_with_the_desktop_message(
    sandbox: RunningSandbox, tmp_path: Path, kit: Kit
) -> None:
    env = _environment(sandbox, tmp_path, PROFNET_EXCEL_BUDGET="1")
    _check_budget_stop(kit.run(env, tmp_path), sandbox)


@pytest.fixture
def broke_sandbox() -> Iterator[RunningSandbox]:
    """A sandbox whose account has no credits: every paid call answers 402."""
    with start_sandbox(api_keys=(KEY,), credits=0, seed=3, job_seconds=0.0) as running:
        yield running


def _check_recovered(said: dict[str, Any], sandbox: RunningSandbox) -> None:
    head, tail = error_text(out_of_credits("|")).split("|")  # the desktop's words for a 402
    for cells in (said["refused"], said["held"]):
        texts = [cell[0][0] for cell in cells[:5]] + [row[0] for row in cells[5]]
        assert all(text.startswith(head) and text.endswith(tail) for text in texts), texts
    assert [cell[0][0] for cell in said["after"][:5]] == [
        "Acme",
        "Globex",
        "Acme",
        "Globex",
        "Acme",
    ]
    assert said["after"][6][0][:2] == [2, 998]  # what the recalculation after it spent
    usage = sandbox.usage()["calls"]["get-company-details"]
    # the 402s (each company once), none while the stop held, then each company paid once
    assert (usage["calls"], usage["errors"], usage["credits"]) == (4, 2, 2)


def test_lite_402_then_top_up_recovers_on_cpython(
    broke_sandbox: RunningSandbox, tmp_path: Path
) -> None:
    env = _environment(broke_sandbox, tmp_path, PROFNET_LITE_SCENARIO="topup")
    _check_recovered(_in_cpython(env), broke_sandbox)


def test_lite_402_then_top_up_recovers_in_pyodide(
    broke_sandbox: RunningSandbox, tmp_path: Path, kit: Kit
) -> None:
    env = _environment(broke_sandbox, tmp_path)
    _check_recovered(kit.run(env, tmp_path, PROFNET_LITE_SCENARIO="topup"), broke_sandbox)


IN_FLIGHT = 8  # the client's in-flight limit in the range test (PROFNET_CONCURRENCY)
RANGE_KEYS = [f"d{n}.io" for n in range(50)]


def test_lite_range_of_50_new_keys_goes_out_together_within_the_in_flight_limit(
    tmp_path: Path, kit: Kit
) -> None:
    with start_sandbox(
        api_keys=(KEY,), credits=1_000, seed=3, job_seconds=0.0, latency_ms=500.0
    ) as slow:
        env = _environment(slow, tmp_path, PROFNET_CONCURRENCY=str(IN_FLIGHT))
        said = kit.run(
            env, tmp_path, PROFNET_LITE_SCENARIO="range", PROFNET_LITE_KEYS=",".join(RANGE_KEYS)
        )
        assert str(said["warm_up"][0][0]).startswith("#")  # refused before anything is paid
        assert len(said["range"]) == 50
        assert not [row for row in said["range"] if str(row[0]).startswith("#")], said["range"]
        # each new key sent once, and the warm-up's one key (lite_probe.WARM_UP_KEY)
        assert (slow.calls(), slow.charged()) == (51, 51)
        # sent together: as many under way at once at the service as the limit lets, no more
        # (one at a time would be 1; the time it takes is the bench's: bench/lite.py)
        assert slow.most_in_flight() == IN_FLIGHT


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
