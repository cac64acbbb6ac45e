"""`profnet-sheets check` (issue 16): a setup check that spends nothing and says, in one line,
what to change: a wrong key, a wrong header name, a missing gateway header, a base URL that is
unreachable or not the service's; against a sandbox that plays a service not named like the
spec."""

from __future__ import annotations

import http.server
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from profnet_sheets.client.transport import Transport
from profnet_sheets.config import ApiKey, Settings
from profnet_sheets.sandbox import RunningSandbox, start_sandbox
from profnet_sheets.setup_check import PROBE
from profnet_sheets.words import command
from tests.integration.conftest import cli_env, run_cli
from tests.redis_servers import RedisServer

pytestmark = pytest.mark.integration

KEY = "check-test-key-7f3a"
HOST = "people-net.example"
HEADER = "X-PeopleNet-Key"
GATEWAY = {"X-Gateway-Host": "people-net.gateway.example"}
PRICES = {"get-profile-details": 2, "search-leads": 60}


@pytest.fixture(scope="module")
def other() -> Iterator[RunningSandbox]:
    with start_sandbox(
        api_keys=(KEY,),
        network_host=HOST,
        key_header=HEADER,
        required_headers=GATEWAY,
        prices=PRICES,
    ) as running:
        yield running


def profile_env(box: RunningSandbox, home: Path, **changes: str) -> dict[str, str]:
    """The environment of a user whose profile matches the sandbox, with `changes`."""
    env = cli_env(box.base_url, KEY, home)
    env.update(
        PROFNET_KEY_HEADER=HEADER,
        PROFNET_HEADERS=json.dumps(GATEWAY),
        PROFNET_NETWORK_HOSTS=HOST,
        PROFNET_PRICES=json.dumps(PRICES),
    )
    env.update(changes)
    return {name: value for name, value in env.items() if value}


def last_line(output: str) -> str:
    return output.strip().splitlines()[-1]


def test_a_right_setup_is_ready_and_costs_nothing(other: RunningSandbox, tmp_path: Path) -> None:
    before = other.usage(KEY)
    done = run_cli(profile_env(other, tmp_path), "check")
    assert done.returncode == 0, done.stdout + done.stderr
    assert last_line(done.stdout) == "OK: ready"
    assert "reachable:   yes (" in done.stdout
    assert "key:         accepted" in done.stdout
    assert f"key header:  {HEADER}" in done.stdout
    assert "X-Gateway-Host: people-net.gateway.example" in done.stdout
    assert f"network:     {HOST}" in done.stdout
    assert "get-profile-details           2 credits (the spec: 1)" in done.stdout
    assert "search-leads                  60 credits (the spec: 50)" in done.stdout
    assert "get-lead-results              1 credit per item" in done.stdout
    assert "spent:       0 credits" in done.stdout
    assert KEY not in done.stdout + done.stderr
    after = other.usage(KEY)
    assert after["credits_charged"] == before["credits_charged"], "the check is free"
    assert after["balance"] == before["balance"]


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        (
            {"PROFNET_API_KEY": "a-key-the-service-never-gave"},
            f"NOT READY: the service refused the API key sent in {HEADER} (it said "
            f'"unauthorized Invalid API key: the key sent in the {HEADER} header is not known."'
            f"): check api_key (PROFNET_API_KEY, or `{command('config --api-key ...')}`)",
        ),
        (
            {"PROFNET_KEY_HEADER": ""},  # the spec's name: X-SERVICE-API-KEY
            "NOT READY: the service did not see a key in the X-SERVICE-API-KEY header (it said "
            f'"unauthorized Missing API key: send it in the {HEADER} header."): set key_header '
            f"(PROFNET_KEY_HEADER) to {HEADER}",
        ),
        (
            {"PROFNET_HEADERS": ""},
            'NOT READY: the service wants the header X-Gateway-Host (it said "unauthorized '
            "Missing or wrong X-Gateway-Host header: this service requires it with every "
            'request."): add it with the value your provider gives to headers (PROFNET_HEADERS)',
        ),
    ],
    ids=["wrong key", "wrong header name", "missing gateway header"],
)
def test_each_mistake_is_one_line_that_says_what_to_change(
    other: RunningSandbox, tmp_path: Path, changes: dict[str, str], says: str
) -> None:
    before = other.charged(KEY)
    done = run_cli(profile_env(other, tmp_path, **changes), "check")
    assert done.returncode == 1
    assert last_line(done.stdout) == says
    assert "Traceback" not in done.stderr
    assert other.charged(KEY) == before


def test_an_unreachable_base_url_is_said_so(other: RunningSandbox, tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}"
    done = run_cli(profile_env(other, tmp_path, PROFNET_BASE_URL=closed), "check")
    assert done.returncode == 1
    assert last_line(done.stdout) == (
        f"NOT READY: {closed} is unreachable (could not connect): check base_url "
        "(PROFNET_BASE_URL), and the network or proxy (HTTPS_PROXY)"
    )
    assert "reachable:   no" in done.stdout


def test_https_to_a_server_that_speaks_only_http_is_hinted(
    other: RunningSandbox, tmp_path: Path
) -> None:
    """A new user's review: `https://` to the http sandbox read `could not connect` with no
    word of the scheme, in `check` and in a paying command."""
    tls = "https://" + other.base_url.removeprefix("http://")
    env = profile_env(other, tmp_path, PROFNET_BASE_URL=tls)
    checked = run_cli(env, "check")
    assert checked.returncode == 1
    assert last_line(checked.stdout).endswith(
        "or its scheme (an https:// URL to a server that speaks only http fails so)"
    )
    looked = run_cli(env, "lookup", "company", "acme.io", "--yes")
    assert "an https:// URL to a server that speaks only http fails so too" in looked.stderr


def test_a_base_url_that_is_not_the_services_is_said_so(
    other: RunningSandbox, tmp_path: Path
) -> None:
    wrong = other.base_url + "/v1"
    done = run_cli(profile_env(other, tmp_path, PROFNET_BASE_URL=wrong), "check")
    assert done.returncode == 1
    assert last_line(done.stdout).startswith(
        f"NOT READY: {wrong} answers alike with and without a key (HTTP 404)"
    )
    assert "lite:        not asked: no service found" in done.stdout, "a new user's review"


def test_a_bad_profile_value_is_one_line(other: RunningSandbox, tmp_path: Path) -> None:
    done = run_cli(
        profile_env(other, tmp_path, PROFNET_PRICES='{"get-lead-search-status": 1}'), "check"
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "Error: Setting prices = '{\"get-lead-search-status\": 1}' is not usable: "
        "get-lead-search-status is free (a search's status): it has no price to set. Fix it "
        "in the arguments, PROFNET_PRICES or the config file."
    ]


def test_the_embedded_sandbox_is_ready_without_a_key(tmp_path: Path) -> None:
    env = cli_env("", "", tmp_path)
    env = {name: value for name, value in env.items() if value}
    done = run_cli(env, "check")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("service:     the embedded sandbox")
    assert last_line(done.stdout) == "OK: ready"


class EchoingServer:
    """A small real HTTP server on loopback that refuses every call with a 401 quoting back
    the key it got (as some gateways do), and records the Authorization header of each call."""

    def __init__(self) -> None:
        received: list[str | None] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                received.append(self.headers.get("Authorization"))
                key = self.headers.get("X-SERVICE-API-KEY")
                said = f"the key {key} is not valid" if key else "Missing API key"
                body = json.dumps({"message": "unauthorized", "details": said}).encode()
                self.send_response(401)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.received = received
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def echoing() -> Iterator[EchoingServer]:
    server = EchoingServer()
    yield server
    server.stop()


SECRET_KEY = "sk-live-0123456789abcdef"


def test_a_key_quoted_back_by_the_service_is_masked(echoing: EchoingServer, tmp_path: Path) -> None:
    done = run_cli(cli_env(echoing.url, SECRET_KEY, tmp_path), "check")
    assert done.returncode == 1
    assert SECRET_KEY not in done.stdout + done.stderr
    assert 'it said "unauthorized the key *** is not valid"' in last_line(done.stdout)
    assert echoing.received == [None, None], "no Authorization header, with the key or without"


def test_a_base_url_with_a_password_is_refused_in_one_line_sending_nothing(
    echoing: EchoingServer, tmp_path: Path
) -> None:
    with_password = echoing.url.replace("http://", "http://user:hunter2pw@")
    done = run_cli(cli_env(with_password, SECRET_KEY, tmp_path), "check")
    assert done.returncode == 1
    assert "hunter2pw" not in done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("Error: Setting base_url = 'http://user:***@127.0.0.1:")
    assert "user name or password (user:pw@host), which is never sent" in lines[0]
    assert echoing.received == []


def test_the_client_never_sends_a_urls_credentials(echoing: EchoingServer) -> None:
    """Whatever base URL the library is handed: requests would send its user info as Basic
    auth with a call that carries no key (the check's keyless probe)."""
    settings = Settings(retries=0)
    transport = Transport(settings, echoing.url.replace("http://", "http://user:pw@"))
    try:
        for key in (ApiKey(SECRET_KEY), None):
            assert transport.send(PROBE, {"request_id": "x"}, key).status == 401
    finally:
        transport.close()
    assert echoing.received == [None, None]


@pytest.mark.parametrize(("scheme", "warned"), [("http", True), ("https", False)])
def test_a_base_url_without_https_is_warned_of(tmp_path: Path, scheme: str, warned: bool) -> None:
    env = cli_env(f"{scheme}://192.0.2.1:9", SECRET_KEY, tmp_path)  # TEST-NET: never answers
    env.update(PROFNET_CONNECT_TIMEOUT="0.2")
    done = run_cli(env, "check")
    assert done.returncode == 1
    note = "note:        the base URL is http://, not https://: the API key and your data"
    assert (note in done.stdout) is warned
    loopback = run_cli(cli_env("http://127.0.0.1:9", SECRET_KEY, tmp_path), "check")
    assert "not https" not in loopback.stdout


def test_a_teams_redis_cache_is_checked_too(
    other: RunningSandbox, tmp_path: Path, redis_url: str
) -> None:
    """A team's review: `check` said `OK: ready` with PROFNET_CACHE naming a Redis no one
    ran, and every paying command then refused. It says whether the Redis answers."""
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        nobody = f"redis://127.0.0.1:{free.getsockname()[1]}/0"
    down = run_cli(profile_env(other, tmp_path, PROFNET_CACHE=nobody), "check")
    assert down.returncode == 1
    assert f"cache:       the team's Redis {nobody}: not reachable" in down.stdout
    verdict = last_line(down.stdout)
    assert verdict.startswith(f"NOT READY: Cannot use the Redis cache {nobody}:"), verdict
    assert verdict.endswith("Every paying command refuses until then.")
    up = run_cli(profile_env(other, tmp_path, PROFNET_CACHE=redis_url), "check")
    assert up.returncode == 0, up.stdout
    assert f"cache:       the team's Redis {redis_url}: reachable" in up.stdout


def test_a_teams_redis_that_keeps_nothing_across_a_restart_is_said(
    other: RunningSandbox, tmp_path: Path, killable_redis: RedisServer
) -> None:
    """A team's review: a Redis restarted without persistence forgot the answers paid for
    (paid again) and the team's spend, and nothing had said it would."""
    url = killable_redis.url
    forgetful = run_cli(profile_env(other, tmp_path, PROFNET_CACHE=url), "check")
    assert forgetful.returncode == 0, forgetful.stdout
    assert (
        f"cache:       the team's Redis {url}: reachable; it keeps nothing across a restart "
        "(no appendonly, no save): a restart forgets the answers paid for (paid again)"
    ) in forgetful.stdout
    server = redis.Redis.from_url(url)
    server.config_set("save", "3600 1")
    try:
        kept = run_cli(profile_env(other, tmp_path, PROFNET_CACHE=url), "check")
    finally:
        server.config_set("save", "")  # no snapshot written in the test's folder
    assert f"cache:       the team's Redis {url}: reachable\n" in kept.stdout, kept.stdout


def test_a_setup_without_a_key_says_the_service_was_not_asked(
    other: RunningSandbox, tmp_path: Path
) -> None:
    """Helper 96: with a base URL and no key, `check` said `reachable: no` and `lite: not
    asked: no service found` of a service that was up: it had not been asked."""
    done = run_cli(profile_env(other, tmp_path, PROFNET_API_KEY=""), "check")
    assert done.returncode == 1
    assert "reachable:   not asked (no API key)" in done.stdout
    assert "lite:        not asked: no API key" in done.stdout
    assert last_line(done.stdout).startswith("NOT READY: no API key: set api_key")
