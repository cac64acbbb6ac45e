"""The lead search notebook in a real browser: Voila serves it, Playwright drives Debian's
chromium. Fill the filters, press Search, watch the progress bar reach the end, read the
results table, export. Screenshots go to test-artifacts/e2e/. A missing browser is a skip that
says how to get it, and a failure with CI=true."""

from __future__ import annotations

import csv
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect, sync_playwright

from profnet_sheets import Client
from profnet_sheets.sandbox import RunningSandbox, start_sandbox

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "03_lead_search.ipynb"
ARTIFACTS = ROOT / "test-artifacts" / "e2e"
KEY, CHECK_KEY = "e2e-key", "e2e-check-key"  # the notebook's, and the test's own
TITLES = ["Head of Data", "=2+3"]  # a hostile title: shown as text, escaped in exports
PLACE = "Germany"
LIMIT = 40  # above a page of results (the sandbox's are 25): every page is read
SLOW = 120_000  # ms: a kernel starting and a notebook running on two shared cores


@dataclass(frozen=True)
class Served:
    """The notebook served by Voila on a sandbox, and where its files go."""

    url: str
    sandbox: RunningSandbox
    folder: Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def voila_options(port: int) -> list[str]:
    return ["--no-browser", f"--port={port}", "--Voila.ip=127.0.0.1"]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("voila")
    shutil.copy(NOTEBOOK, folder / NOTEBOOK.name)  # exports land beside it, not in the repo
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with start_sandbox(api_keys=(KEY, CHECK_KEY), job_seconds=3.0, seed=5) as sandbox:
        env = {name: value for name, value in os.environ.items() if not name.startswith("PROFNET")}
        env.update(
            PROFNET_BASE_URL=sandbox.base_url,
            PROFNET_API_KEY=KEY,
            PROFNET_CACHE_DIR=str(folder / "cache"),
            PROFNET_CONFIG=str(folder / "config.toml"),
            PROFNET_QUIET="1",
            JUPYTER_RUNTIME_DIR=str(folder / "runtime"),
        )
        port = free_port()
        with (ARTIFACTS / "voila.log").open("w") as log:
            voila = subprocess.Popen(
                [sys.executable, "-m", "voila", NOTEBOOK.name, *voila_options(port)],
                cwd=folder,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its kernels are its children: stopped with it
            )
            try:
                deadline = time.monotonic() + 60
                while True:
                    assert voila.poll() is None, "Voila exited: see test-artifacts/e2e/voila.log"
                    try:
                        socket.create_connection(("127.0.0.1", port), timeout=1).close()
                        break
                    except OSError:
                        assert time.monotonic() < deadline, "Voila did not start within 60 s"
                        time.sleep(0.2)
                yield Served(f"http://127.0.0.1:{port}/", sandbox, folder)
            finally:
                os.killpg(voila.pid, signal.SIGTERM)
                try:
                    voila.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    os.killpg(voila.pid, signal.SIGKILL)
                    voila.wait(timeout=10)


@pytest.fixture
def page(chromium: Path, served: Served) -> Iterator[Page]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(chromium), args=["--no-sandbox"])
        context = browser.new_context(
            accept_downloads=True, viewport={"width": 1300, "height": 1600}
        )
        opened = context.new_page()
        try:
            yield opened
        finally:
            opened.screenshot(path=ARTIFACTS / "last.png", full_page=True)
            context.close()
            browser.close()


def expected_names(served: Served) -> list[str]:
    """The same search made by the test itself (same world, its own key and cache)."""
    with Client(
        api_key=CHECK_KEY, base_url=served.sandbox.base_url, cache="memory", cache_dir=served.folder
    ) as client:
        place = client.find_geocode_by_location(location=PLACE)[0]
        assert place["type"] == "COUNTRY"
        job = client.search_leads(title_keywords=TITLES, geo_codes=[place["geo_id"]], limit=LIMIT)
        return [str(row["name"]) for row in job.results()]


def shot(page: Page, name: str) -> None:
    page.screenshot(path=ARTIFACTS / f"{name}.png", full_page=True)


def test_a_lead_search_in_the_browser(page: Page, served: Served) -> None:
    page.goto(served.url, timeout=SLOW)
    form = page.locator(".profnet-lead-search")
    expect(form).to_be_visible(timeout=SLOW)
    shot(page, "01-loaded")

    form.locator(".profnet-field-title_keywords textarea").fill("\n".join(TITLES))
    places = form.locator(".profnet-field-geo_codes")
    places.locator("input[type=text]").fill(PLACE)
    places.get_by_role("button", name="Find").click()
    matches = places.locator(".widget-dropdown select")
    expect(matches).to_contain_text(f"{PLACE} (country)", timeout=30_000)
    matches.select_option(label=f"{PLACE} (country)")
    places.get_by_role("button", name="Add").click()
    expect(places.locator("select[multiple]")).to_contain_text(f"{PLACE} (country)")
    limit = form.locator(".profnet-field-limit input")
    limit.fill(str(LIMIT))
    limit.press("Tab")  # integer fields send their value when left
    cost = form.locator(".profnet-cost")
    expect(cost).to_contain_text(f"At most {50 + LIMIT} credits: 50 credits to start the search")
    shot(page, "02-filled")

    searches_before = served.sandbox.charged(KEY, "search-leads")
    search = form.locator("button.profnet-search")
    search.click()
    expect(search).to_be_disabled(timeout=10_000)  # while the search runs
    status = form.locator(".profnet-status")
    expect(status).to_contain_text("processing", timeout=30_000)
    shot(page, "03-searching")

    names = expected_names(served)
    assert 25 < len(names) <= LIMIT
    expect(status).to_contain_text(f"{len(names)} leads from search", timeout=60_000)
    expect(search).to_be_enabled()
    bar = form.locator(".profnet-search-progress")
    expect(bar).to_contain_text(f"{len(names)}/{len(names)}")
    filled = bar.locator(".progress-bar")
    expect(filled).to_have_attribute("style", re.compile(r"(^|[; ])width: 100%"))
    expect(filled).to_have_class(re.compile("progress-bar-success"))
    rows = form.locator(".profnet-results table tbody tr")
    expect(rows).to_have_count(len(names))
    shown = [text.strip() for text in rows.locator("td:first-child").all_inner_texts()]
    assert shown == names
    assert "=2+3" in form.locator(".profnet-results").inner_text()
    assert served.sandbox.charged(KEY, "search-leads") - searches_before == 50
    expect(cost).to_contain_text("reused, free")
    shot(page, "04-results")

    form.locator("button.profnet-export-csv").click()
    link = form.locator("a.profnet-download")
    expect(link).to_be_visible(timeout=10_000)
    with page.expect_download() as download_info:
        link.click()
    download = download_info.value
    assert download.suggested_filename == "leads-results.csv"
    saved = ARTIFACTS / "leads-results.csv"
    download.save_as(saved)
    with saved.open(encoding="utf-8-sig", newline="") as handle:
        exported = list(csv.DictReader(handle))
    assert [row["name"] for row in exported] == names
    assert "'=2+3" in {row["title"] for row in exported}, "exports are escaped"
    assert (served.folder / "leads-results.csv").read_bytes() == saved.read_bytes()
    shot(page, "05-exported")
