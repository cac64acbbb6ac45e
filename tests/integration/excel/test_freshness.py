"""Recalculation never spends again, even once an answer is past its freshness; a session set to
refresh fetches (and pays for) answers past it. The session is started as Excel starts it:
from the environment and the config file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import time_machine

from profnet_sheets.excel import formulas, session
from tests.integration.excel.conftest import KEY, Excel

pytestmark = pytest.mark.integration

FRESH_FOR = 0.5  # seconds a company's answer is fresh in these tests


@pytest.fixture
def configured(excel: Excel, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Excel]:
    """The environment of a user with a key, a cache, and a tiny expiry for companies."""
    monkeypatch.setenv("PROFNET_API_KEY", KEY)
    monkeypatch.setenv("PROFNET_BASE_URL", excel.sandbox.base_url)
    monkeypatch.setenv("PROFNET_CACHE", str(tmp_path / "excel-cache"))
    monkeypatch.setenv("PROFNET_EXPIRY", json.dumps({"get-company-details": FRESH_FOR}))
    restart()
    yield excel
    session.current().client.close()


def restart() -> None:
    """Excel (or the UDF server) restarted: the next formula starts a new session."""
    if "session" in session._state:
        session.current().client.close()
    session.reset()


def industries() -> object:
    return formulas.company([["stripe.com"], ["acme.io"]], "industry"), formulas.company(
        "stripe.com", "company_name"
    )


def test_recalculating_after_the_expiry_costs_nothing(
    configured: Excel, wall_clock: time_machine.Coordinates
) -> None:
    first = industries()
    assert configured.charged() == 2
    assert session.current().client.settings.stale_ok, "the Excel session's default"
    wall_clock.shift(FRESH_FOR * 2)
    assert industries() == first, "recalculation, answers from memory"
    restart()
    assert industries() == first, "Excel restarted, answers from the disk cache"
    assert configured.charged() == 2


def test_a_session_set_to_refresh_pays_for_answers_past_their_freshness(
    configured: Excel, monkeypatch: pytest.MonkeyPatch, wall_clock: time_machine.Coordinates
) -> None:
    industries()
    assert configured.charged() == 2
    monkeypatch.setenv(session.REFRESH_KEY, "TRUE")
    restart()
    assert not session.current().client.settings.stale_ok
    wall_clock.shift(FRESH_FOR * 2)
    industries()
    assert configured.charged() == 4, "both companies fetched again"
