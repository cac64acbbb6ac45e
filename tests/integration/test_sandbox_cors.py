"""CORS (issue 25): the sandbox answers the preflights of xlwings Lite's origin (configurable)
without counting or charging them, and `profnet-sheets check` says, for free, whether a
service lets Lite call it: the sandbox does, a server that allows no CORS does not."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from profnet_sheets.config import ApiKey, Settings
from profnet_sheets.sandbox import RunningSandbox, start_sandbox
from profnet_sheets.sandbox.controls import SettingError
from profnet_sheets.setup_check import PROBE, check_setup
from profnet_sheets.spec.profile import LITE_ORIGIN
from tests.integration.conftest import cli_env, run_cli
from tests.scripted_service import Scripted, serving

pytestmark = pytest.mark.integration

KEY = "cors-test-key-4b1d"
HEADER = "X-PeopleNet-Key"
GATEWAY = {"X-Gateway-Host": "people-net.gateway.example"}
COMPANY = "/get-company-details"


@pytest.fixture(scope="module")
def box() -> Iterator[RunningSandbox]:
    with start_sandbox(api_keys=(KEY,), key_header=HEADER, required_headers=GATEWAY) as running:
        yield running


def preflight(base_url: str, origin: str, path: str = COMPANY) -> requests.Response:
    """What a browser asks before a GET that carries the key header (no key in it)."""
    asked = {
        "Origin": origin,
        "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": f"{HEADER.lower()},x-gateway-host",
    }
    return requests.options(base_url + path, headers=asked, timeout=10)


def test_a_preflight_from_lite_is_answered_and_never_counted(box: RunningSandbox) -> None:
    before = box.usage(KEY)
    answer = preflight(box.base_url, LITE_ORIGIN)
    assert answer.status_code == 204
    assert answer.headers["Access-Control-Allow-Origin"] == LITE_ORIGIN
    allowed = {h.strip() for h in answer.headers["Access-Control-Allow-Headers"].split(",")}
    assert {HEADER, "X-Gateway-Host"} <= allowed
    assert "GET" in answer.headers["Access-Control-Allow-Methods"]
    assert box.usage(KEY) == before, "a preflight is neither counted nor charged"


def test_only_an_allowed_origin_may_read_the_answers(box: RunningSandbox) -> None:
    headers = {HEADER: KEY, **GATEWAY}
    params = {"domain": "acme.com"}
    url = box.base_url + COMPANY
    mine = requests.get(url, params=params, headers={**headers, "Origin": LITE_ORIGIN}, timeout=10)
    assert mine.status_code == 200
    assert mine.headers["Access-Control-Allow-Origin"] == LITE_ORIGIN
    assert "Retry-After" in mine.headers["Access-Control-Expose-Headers"]
    other = {**headers, "Origin": "https://elsewhere.example"}
    assert (
        "Access-Control-Allow-Origin"
        not in requests.get(url, params=params, headers=other, timeout=10).headers
    )
    refused = preflight(box.base_url, "https://elsewhere.example")
    assert "Access-Control-Allow-Origin" not in refused.headers


def test_the_allowed_origins_are_a_setting() -> None:
    own = "https://xlwings-lite.mycompany.example"
    with start_sandbox(cors_origins=(own,)) as running:
        assert preflight(running.base_url, own).headers["Access-Control-Allow-Origin"] == own
        assert "Access-Control-Allow-Origin" not in preflight(running.base_url, LITE_ORIGIN).headers
    with start_sandbox(cors_origins=("*",)) as running:
        assert "Access-Control-Allow-Origin" in preflight(running.base_url, LITE_ORIGIN).headers
    with pytest.raises(SettingError, match="cors_origins must be origins"):
        start_sandbox(cors_origins=("https://addin.xlwings.org/taskpane",))


def test_a_wrong_origin_option_is_one_line(tmp_path: Path) -> None:
    done = run_cli(cli_env("", "", tmp_path), "sandbox", "--port", "0", "--cors-origin", "addin")
    assert done.returncode == 2
    assert "--cors-origin" in done.stderr
    assert "Traceback" not in done.stderr


def settings(base_url: str, **profile: str) -> Settings:
    return Settings.load(api_key=ApiKey(KEY), base_url=base_url, cache="memory", **profile)


def test_the_check_says_the_sandbox_lets_lite_call_it_for_free(box: RunningSandbox) -> None:
    before = box.usage(KEY)
    report = check_setup(settings(box.base_url, key_header=HEADER, headers=json.dumps(GATEWAY)))
    assert report.ok, report.problem
    assert report.lite is True
    assert any(line.startswith("lite:        allowed") for line in report.lines())
    assert box.usage(KEY)["credits_charged"] == before["credits_charged"]


def test_the_check_says_a_service_without_cors_does_not_and_sends_no_key() -> None:
    scripted = Scripted()
    not_found = (404, {"message": "not_found", "details": "no such search"})
    scripted.answer(PROBE.path, not_found, (401, {"message": "unauthorized"}))
    with serving(scripted):
        report = check_setup(settings(scripted.base_url, headers=json.dumps(GATEWAY)))
    assert report.ok, "desktop use is ready: only Lite cannot call it"
    assert report.lite is False
    said = [line for line in report.lines() if line.startswith("lite:")]
    assert said == [
        f"lite:        not allowed: the service does not let xlwings Lite ({LITE_ORIGIN}) call "
        "it (CORS), so the formulas cannot run there; see docs/excel.md"
    ]
    (asked,) = [headers for method, headers in scripted.heard if method == "OPTIONS"]
    assert asked["Origin"] == LITE_ORIGIN
    sent = {name.lower() for name in asked}
    assert "x-service-api-key" not in sent, "a preflight never carries the key"
    assert "x-gateway-host" not in sent


def test_the_check_asks_for_the_origin_a_team_hosts_lite_on(tmp_path: Path) -> None:
    """`check --lite-origin`: a team hosting the add-in itself asks about its own origin (before,
    the check could only ask about xlwings' own and said `not allowed` for such a service)."""
    own = "https://xlwings-lite.mycompany.example"
    with start_sandbox(api_keys=(KEY,), cors_origins=(own,)) as running:
        env = cli_env(running.base_url, KEY, tmp_path)
        theirs = run_cli(env, "check")
        ours = run_cli(env, "check", "--lite-origin", own + "/")
    assert theirs.returncode == ours.returncode == 0, (theirs.stdout, ours.stdout)
    assert f"lite:        not allowed: the service does not let xlwings Lite ({LITE_ORIGIN})" in (
        theirs.stdout
    )
    assert f"lite:        allowed: the service lets xlwings Lite ({own})" in ours.stdout


@pytest.mark.parametrize("origin", ["addin", "https://addin.example/taskpane", "*"])
def test_a_wrong_lite_origin_is_one_line(tmp_path: Path, origin: str) -> None:
    done = run_cli(cli_env("", "", tmp_path), "check", "--lite-origin", origin)
    assert done.returncode == 2
    assert "--lite-origin" in done.stderr
    assert "Traceback" not in done.stderr
