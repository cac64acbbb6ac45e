"""The PROFNET_* formulas in a real spreadsheet engine: headless LibreOffice Calc.

The add-in is built from this environment and installed with unopkg as `profnet-sheets calc
install` does; soffice runs headless against a sandbox over loopback HTTP; office.py (run by
LibreOffice's own Python) types a workbook's formulas, recalculates and reads the cells back
over UNO. What the sandbox charged (/_sandbox/usage) is the truth about money.

Without LibreOffice (soffice, unopkg, python3-uno) the test is skipped and says what to
install; with CI=true it fails instead (.ci/run installs them).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from profnet_sheets import Client
from profnet_sheets.calc import catalog, install
from profnet_sheets.calc.build import build
from profnet_sheets.calc.environment import libreoffice_environment
from profnet_sheets.excel.cells import ERROR_PREFIX
from profnet_sheets.sandbox import RunningSandbox, start_sandbox
from tests.tools import missing_tool

pytestmark = pytest.mark.integration

HERE = Path(__file__).resolve().parent
KEY, CHECK_KEY = "calc-key", "calc-check-key"  # LibreOffice's, and the test's own
PYTHONS = ("/usr/bin/python3", "/usr/lib/libreoffice/program/python")  # those that may have uno
PACKAGES = "apt-get install libreoffice-calc-nogui python3-uno libreoffice-script-provider-python"
FIELDS = "company_name, industry, website"
SLOW = 240.0  # seconds for one step: soffice starting on two shared cores


def uno_python() -> str | None:
    """LibreOffice's Python: the one that imports `uno`."""
    for python in PYTHONS:
        if Path(python).exists():
            check = subprocess.run(
                [python, "-c", "import uno"], capture_output=True, timeout=60, check=False
            )
            if check.returncode == 0:
                return python
    return None


@pytest.fixture(scope="module")
def libreoffice() -> tuple[str, str, str]:
    """soffice, unopkg and LibreOffice's Python; without them a skip (a failure in CI)."""
    soffice = shutil.which("soffice")
    try:
        unopkg = install.find_unopkg()
    except install.CalcInstallError:
        unopkg = None
    python = uno_python()
    if soffice is None or unopkg is None or python is None:
        missing = [
            name
            for name, found in (("soffice", soffice), ("unopkg", unopkg), ("python3-uno", python))
            if found is None
        ]
        missing_tool(f"no LibreOffice here ({', '.join(missing)} missing): {PACKAGES}")
    return soffice, unopkg, python


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def outside_the_venv(python: str) -> dict[str, str]:
    """This environment as a desktop starts LibreOffice (as `calc install` starts unopkg)."""
    return libreoffice_environment(keep=[Path(python).parent])


def wait_for_port(port: int, office: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + SLOW
    while True:
        assert office.poll() is None, f"soffice stopped (exit status {office.returncode})"
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        assert time.monotonic() < deadline, f"soffice did not listen on {port} in {SLOW} s"
        time.sleep(0.25)


def as_user_of(folder: Path) -> list[str]:
    """unopkg refuses to run as root (CI's user): there, it runs as nobody, as a user would."""
    if os.geteuid() != 0:
        return []
    os.chown(folder, 65534, 65534)
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


class Calc:
    """soffice with the add-in, and office.py talking to it."""

    def __init__(self, soffice: subprocess.Popen[bytes], driver: subprocess.Popen[str]) -> None:
        self.soffice, self.driver = soffice, driver

    def __call__(self, op: str, **arguments: Any) -> dict[str, Any]:
        assert self.driver.stdin is not None
        assert self.driver.stdout is not None
        self.driver.stdin.write(json.dumps({"op": op, **arguments}) + "\n")
        self.driver.stdin.flush()
        line = self.driver.stdout.readline()
        assert line, f"office.py stopped; soffice exit status {self.soffice.poll()}"
        answer: dict[str, Any] = json.loads(line)
        assert "failed" not in answer, f"{op} {arguments}: {answer['failed']}"
        return answer

    def cells(self, area: str) -> list[list[Any]]:
        rows: list[list[Any]] = self("read", area=area)["rows"]
        return rows

    def cell(self, address: str) -> Any:
        return self.cells(address)[0][0]

    @property
    def alive(self) -> bool:
        return self.soffice.poll() is None


@pytest.fixture(scope="module")
def sandbox() -> Iterator[RunningSandbox]:
    with start_sandbox(
        api_keys=(KEY, CHECK_KEY), credits=100_000, job_seconds=0.0, seed=5
    ) as running:
        yield running


@pytest.fixture(scope="module")
def calc(libreoffice: tuple[str, str, str], sandbox: RunningSandbox) -> Iterator[Calc]:
    soffice, unopkg, python = libreoffice
    # Not under pytest's tmp_path: unopkg (as nobody, under root) must reach the files.
    home = Path(tempfile.mkdtemp(prefix="profnet-calc-"))
    office: subprocess.Popen[bytes] | None = None
    driver: subprocess.Popen[str] | None = None
    try:
        home.chmod(0o755)
        profile = home / "profile"
        profile.mkdir()
        oxt = build(home / "profnet-sheets.oxt")  # what `profnet-sheets calc install` builds
        added = subprocess.run(
            [*as_user_of(profile), *install.add_command(unopkg, oxt, profile)],
            capture_output=True,
            text=True,
            timeout=SLOW,
            env={**outside_the_venv(python), "HOME": str(profile)},
            cwd=home,  # one it can enter: as nobody, not the clone (perhaps in a 0700 folder)
            check=False,
        )
        assert added.returncode == 0, added.stdout + added.stderr
        port = free_port()
        office = subprocess.Popen(
            [
                soffice,
                "--headless",
                "--invisible",
                "--nologo",
                "--norestore",
                "--nodefault",
                "--nolockcheck",
                f"-env:UserInstallation={profile.as_uri()}",
                f"--accept=socket,host=127.0.0.1,port={port};urp;StarOffice.ComponentContext",
            ],
            env=office_environment(python, home, sandbox),
            cwd=home,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # a process group of its own: soffice.bin goes with it
        )
        wait_for_port(port, office)
        driver = subprocess.Popen(
            [python, str(HERE / "office.py"), str(port)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=outside_the_venv(python),
            cwd=home,
        )
        assert driver.stdout is not None
        assert json.loads(driver.stdout.readline() or "{}").get("ready"), "no UNO connection"
        yield Calc(office, driver)
    finally:
        if office is not None and driver is not None:
            with contextlib.suppress(Exception):
                Calc(office, driver)("terminate")
        for process in (driver, office):
            with contextlib.suppress(Exception):
                if process is not None:
                    process.wait(timeout=30)
        if office is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(
                    office.pid, signal.SIGKILL
                )  # the group started above, if anything is left
            office.wait(timeout=30)
        shutil.rmtree(home, ignore_errors=True)


def office_environment(python: str, home: Path, sandbox: RunningSandbox) -> dict[str, str]:
    """soffice's: the sandbox's URL and key, and a cache and config of its own."""
    return {
        **{k: v for k, v in outside_the_venv(python).items() if not k.startswith("PROFNET_")},
        "HOME": str(home),
        "PROFNET_API_KEY": KEY,
        "PROFNET_BASE_URL": sandbox.base_url,
        "PROFNET_CACHE_DIR": str(home / "cache"),
        "PROFNET_CONFIG": str(home / "config.toml"),
        "PROFNET_QUIET": "1",
    }


def company(client: Client, domain: str) -> dict[str, Any]:
    record: dict[str, Any] = client.get_company_details(domain=domain)
    return record


# The workbook: keys in A (A4 is A2's company written another way, A5 is blank), one formula
# per cell in B, one array formula over the range in D:F, and a chain in H: a company's page
# URL (H2) and a place's geo id (H4) feed a headcount (H3).
INPUTS = {
    "A1": "Website",
    "A2": "stripe.com",
    "A3": "https://www.acme.com/about",
    "A4": "WWW.Stripe.com/pricing",
    "A5": "",
}
FORMULAS = {
    "B2": '=PROFNET_COMPANY(A2; "industry")',
    "B3": '=PROFNET_COMPANY(A3; "company_name")',
    "H2": '=PROFNET_COMPANY(A3; "profnet_url")',
    "H4": '=PROFNET_GEOCODE("Berlin")',
    "H3": "=PROFNET_HEADCOUNT(H2; H4)",
}
RANGE_AREA = "D2:F5"
RANGE_FORMULA = f'=PROFNET_COMPANY(A2:A5; "{FIELDS}")'
BAD = {
    "J2": '=PROFNET_COMPANY("not a domain")',
    "J3": '=PROFNET_COMPANY(A2; "revenue")',
    "J4": '=PROFNET_COMPANY(A2; ; "perhaps")',
    "J5": '=PROFNET_LEADS("")',
    "J6": '=PROFNET_FIND_PROFILES("Anna"; ; ; ; ; 99)',
    "J7": "=PROFNET_COMPANY(1/0)",  # Calc's own error: the add-in is not even called
}


def test_a_workbook_in_libreoffice_pays_each_key_once(calc: Calc, sandbox: RunningSandbox) -> None:
    check = Client(api_key=CHECK_KEY, base_url=sandbox.base_url, cache="memory")
    stripe, acme = company(check, "stripe.com"), company(check, "acme.com")
    berlin = check.find_geocode_by_location(location="Berlin")[0]
    headcount = check.find_custom_headcount(
        profnet_url=acme["profnet_url"], where_they_live=[berlin["geo_id"]]
    )["headcount"]

    calc("new")
    calc("set", cells={**INPUTS, **FORMULAS, **BAD})
    calc("array", area=RANGE_AREA, formula=RANGE_FORMULA)
    assert calc("formula", cell="B2")["formula"] == '=PROFNET_COMPANY(A2, "industry")'
    # The function wizard shows what Excel's does: the texts of udfs.py, generated into the XCU.
    (geocode,) = [
        function for function in catalog.functions() if function.name == "PROFNET_GEOCODE"
    ]
    shown = calc("describe", name="PROFNET_GEOCODE")
    assert shown["description"] == geocode.description
    assert shown["arguments"] == [[a.name, a.help, True] for a in geocode.arguments]

    # 1. The first full recalculation: each distinct key paid once, whichever cells ask.
    before = sandbox.charged(KEY)
    calc("calculate_all")
    first = sandbox.charged(KEY) - before
    assert calc.cells("B2:B3") == [[stripe["industry"]], [acme["company_name"]]]
    assert calc.cells(RANGE_AREA) == [
        [stripe["company_name"], stripe["industry"], stripe["website"]],
        [acme["company_name"], acme["industry"], acme["website"]],
        [stripe["company_name"], stripe["industry"], stripe["website"]],
        ["", "", ""],  # the blank key: a blank row, nothing paid
    ]
    assert calc.cells("H2:H4") == [[acme["profnet_url"]], [float(headcount)], [berlin["geo_id"]]]
    assert {
        endpoint: entry["calls"] for endpoint, entry in sandbox.usage(KEY)["calls"].items()
    } == {
        "get-company-details": 2,  # stripe.com (A2 and A4) and acme.com
        "find-geocode-by-location": 1,
        "find-custom-headcount": 1,
    }
    assert first == 4

    # 2. Bad inputs: a #PROFNET! text that says what to do, in the cell; soffice lives on.
    bad = {address: calc.cell(address) for address in BAD}
    for address in ("J2", "J3", "J4", "J5", "J6"):
        assert isinstance(bad[address], str), (address, bad[address])
        assert bad[address].startswith(ERROR_PREFIX), (address, bad[address])
    assert "is not a company id, company page URL or domain" in bad["J2"]
    assert "has no field 'revenue': use company_name" in bad["J3"]
    assert "'perhaps' is not a true/false value" in bad["J4"]
    assert "needs the request_id of a search" in bad["J5"]
    assert "limit" in bad["J6"]
    assert bad["J7"] == {"error": "#DIV/0!", "code": 532}
    assert calc.alive

    # 3. A second full recalculation (Ctrl+Shift+F9): every formula runs again, nothing is paid.
    calc("calculate_all")
    assert sandbox.charged(KEY) - before == first, "the second recalculation cost credits"
    assert calc.cells("B2:B3") == [[stripe["industry"]], [acme["company_name"]]]

    # 4. One input changed: the formulas that read it run again; one new key, one credit.
    initech = company(check, "initech.com")
    calc("set", cells={"A2": "initech.com"})
    assert calc.cell("B2") == initech["industry"]
    assert calc.cells(RANGE_AREA)[0] == [
        initech["company_name"],
        initech["industry"],
        initech["website"],
    ]
    assert calc.cells(RANGE_AREA)[2][0] == stripe["company_name"], "A4 still stripe: cached"
    assert sandbox.charged(KEY) - before == first + 1, "only initech.com was paid for"
    assert sandbox.calls(KEY, "get-company-details") == 3

    # 5. Saved, closed, opened again and fully recalculated: still nothing paid.
    saved = Path(tempfile.mkdtemp(prefix="profnet-calc-book-")) / "book.ods"
    try:
        calc("save", path=str(saved))
        calc("close")
        calc("open", path=str(saved))
        calc("calculate_all")
        assert calc.cell("B2") == initech["industry"]
        assert calc.cell("H3") == float(headcount)
    finally:
        shutil.rmtree(saved.parent, ignore_errors=True)
    assert sandbox.charged(KEY) - before == first + 1
    assert calc.alive
    check.close()
