"""The Lite functions in a real browser (issue 25): Debian's chromium, headless, opens a page on
one loopback port that loads Pyodide, installs our wheel and its pure wheels offline and calls
the template's PROFNET_* functions through xlwings' own dispatcher (the browser's fetch,
pyfetch); the CORS-enabled sandbox, on another port, allows the page's origin. The preflight
is answered and never charged; the key travels only in its header; the cache on IndexedDB
outlives a restart of the browser (its profile kept): the second run makes no call at all."""

from __future__ import annotations

import functools
import json
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import sync_playwright

from profnet_sheets.excel.lite_template import write
from profnet_sheets.sandbox import RunningSandbox
from profnet_sheets.sandbox.app import Receive, SandboxApp, Scope, Send
from profnet_sheets.sandbox.server import Asgi, SandboxConfig
from profnet_sheets.spec.endpoints import BY_PATH
from profnet_sheets.spec.profile import API_KEY_HEADER
from tests.pyodide.harness import HERE, install_pyodide, pure_wheels
from tests.pyodide.test_lite_in_pyodide import KEYS, XLWINGS
from tests.wheels import build_wheel

PAGE = Path(__file__).with_name("lite_page.html")
KEY = "lite-browser-key-7c2e"
SLOW = 120_000  # ms: Pyodide compiled and the wheels installed on two shared cores


@dataclass
class Request:
    """One request as the sandbox was sent it, and the status it answered."""

    method: str
    target: str  # the path and the query string
    headers: dict[str, str]
    body: bytes = b""
    status: int | None = None


@dataclass
class Heard:
    """A layer in front of the sandbox's app that notes every request it is sent."""

    requests: list[Request] = field(default_factory=list)
    app: SandboxApp | None = None

    def around(self, app: SandboxApp) -> Asgi:
        self.app = app
        return self

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert self.app is not None
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        query = scope["query_string"].decode("latin-1")
        noted = Request(
            scope["method"],
            scope["path"] + ("?" + query if query else ""),
            {name.decode("latin-1"): value.decode("latin-1") for name, value in scope["headers"]},
        )
        self.requests.append(noted)

        async def reading() -> Any:
            message = await receive()
            noted.body += message.get("body", b"")
            return message

        async def answering(message: Any) -> None:
            if message["type"] == "http.response.start":
                noted.status = message["status"]
            await send(message)

        await self.app(scope, reading, answering)


class _Files(SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The page's origin: a static server on loopback serving the page, the npm package
    `pyodide`, our wheel and its pure wheels, the template's main.py and the probe."""
    pyodide = install_pyodide()
    wheel = build_wheel(tmp_path / "dist")
    folder = tmp_path / "site"
    (folder / "wheels").mkdir(parents=True)
    shutil.copy(PAGE, folder / "index.html")
    (folder / "pyodide").symlink_to(pyodide, target_is_directory=True)
    for found in [wheel, *pure_wheels(wheel, XLWINGS)]:
        (folder / "wheels" / found.name).symlink_to(found)
    write(folder / "template")
    shutil.copy(HERE / "lite_probe.py", folder / "probe.py")
    handler = functools.partial(_Files, directory=str(folder))
    with ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}", folder
        finally:
            server.shutdown()
            thread.join(timeout=10)


def run_page(chromium: Path, profile: Path, origin: str, folder: Path, base_url: str) -> Any:
    """One run of the browser on `profile` (kept between runs): the page opened, the probe's
    two recalculations made, the browser closed; what the probe printed."""
    wheels = sorted(path.name for path in (folder / "wheels").iterdir())
    (micropip,) = [name for name in wheels if name.startswith("micropip-")]
    told = {
        "micropip": f"wheels/{micropip}",
        "wheels": [f"wheels/{name}" for name in wheels if name != micropip],
        "files": {"/template/main.py": "template/main.py", "/probe.py": "probe.py"},
        "probe": "/probe.py",
        "environment": {
            # what Lite's environment variables would hold; no PROFNET_CACHE_DIR: the
            # functions keep their cache in their folder on IndexedDB
            "PROFNET_LITE_TEMPLATE": "/template",
            "PROFNET_API_KEY": KEY,
            "PROFNET_BASE_URL": base_url,
            "PROFNET_LITE_KEYS": ",".join(KEYS),
            "XLWINGS_LICENSE_KEY": "noncommercial",  # the add-in brings its own (tests only)
        },
    }
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch_persistent_context(
            profile, executable_path=str(chromium), args=["--no-sandbox"], headless=True
        )
        try:
            page = browser.pages[0] if browser.pages else browser.new_page()
            page.set_default_timeout(SLOW)
            page.goto(f"{origin}/index.html")
            printed: list[str] = page.evaluate("told => runLite(told)", told)
        finally:
            browser.close()
    return json.loads(printed[-1])


def check_the_key_only_in_its_header(heard: Heard, origin: str, counted: int) -> None:
    """The browser asked first (a preflight, answered, never counted), then sent the key in
    its header only: in no URL, body or referrer."""
    preflights = [r for r in heard.requests if r.method == "OPTIONS"]
    assert preflights, "the browser asked before sending the key header"
    assert {r.status for r in preflights} == {204}
    calls = [r for r in heard.requests if r.method != "OPTIONS"]
    assert calls
    assert all(r.target.split("?")[0] in BY_PATH for r in calls)
    assert len(calls) == counted, "a preflight is never counted"
    assert {r.status for r in calls} == {200}
    assert {r.headers.get(API_KEY_HEADER.lower()) for r in calls} == {KEY}
    for request in heard.requests:
        assert request.headers.get("origin") == origin
        assert KEY not in request.target
        assert KEY.encode() not in request.body
        assert KEY not in request.headers.get("referer", "")


def test_lite_in_chromium_sends_the_key_in_its_header_and_keeps_the_cache_on_indexeddb(
    chromium: Path, site: tuple[str, Path], tmp_path: Path
) -> None:
    origin, folder = site
    heard = Heard()
    config = SandboxConfig(
        api_keys=(KEY,), credits=1_000, seed=3, job_seconds=0.0, cors_origins=(origin,)
    )
    profile = tmp_path / "profile"
    with RunningSandbox(config, around=heard.around) as sandbox:
        first = run_page(chromium, profile, origin, folder, sandbox.base_url)
        names = [["Acme"], ["Globex"], ["Acme"], ["Globex"], ["Acme"]]
        assert [cell[0] for cell in first["first"][:5]] == names
        assert first["first"][:6] == first["second"][:6]
        assert first["second"][6][0][:2] == [2, 998]  # PROFNET_CREDITS: spent, budget left
        assert sandbox.charged(KEY) == 2  # 5 cells and a range over 2 companies
        counted = sandbox.calls(KEY)
        check_the_key_only_in_its_header(heard, origin, counted)
        assert (profile / "Default" / "IndexedDB").is_dir()

        before = len(heard.requests)
        again = run_page(chromium, profile, origin, folder, sandbox.base_url)
        assert heard.requests[before:] == [], "the restarted browser asked the service nothing"
        assert again["first"][:6] == first["first"][:6]
        assert again["second"][6][0][:2] == [0, 1000]  # this session spent nothing
        assert sandbox.calls(KEY) == counted
        assert sandbox.charged(KEY) == 2
