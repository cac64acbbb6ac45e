"""The money guarantees' scenarios (tests/money_scenarios.py) against the threaded client over
loopback: a scripted service answers each attempt as the table says; the ledger's clock is a
fake one and retries' waits are told, not slept."""

from __future__ import annotations

import os
import signal
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from profnet_sheets import Client, ProfnetError, StoppedBuying
from profnet_sheets.spec import endpoint
from tests.clocks import FakeClock
from tests.money_scenarios import (
    SCENARIOS,
    START,
    Scenario,
    answer_of,
    assert_settled,
    calls_of,
    params_of,
)
from tests.scripted_service import HOLD, Scripted, serving


@pytest.fixture
def scripted() -> Iterator[Scripted]:
    with serving(Scripted()) as service:
        yield service


def scripted_client(scripted: Scripted, folder: Path, **options: Any) -> Client:
    """A client of the scripted service, its cache and ledger in `folder`."""
    return Client(
        api_key="scripted-key",
        base_url=scripted.base_url,
        cache=str(folder),
        cache_dir=folder,
        **options,
    )


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda it: it.name)
def test_the_threaded_client_keeps_the_money_guarantees(
    scenario: Scenario, scripted: Scripted, tmp_path: Path
) -> None:
    path = endpoint(scenario.endpoint).path
    client = scripted_client(
        scripted, tmp_path, budget=scenario.budget, spending_cap=scenario.cap, backoff=0.5
    ).new_run()
    clock = FakeClock(START)
    client.ledger.clock = clock
    waits: list[float] = []
    client._shared.transport.sleep = waits.append  # told, not slept
    errors: list[str | None] = []
    for number, step in calls_of(scenario, clock.sleep):
        scripted.answer(path, *(answer_of(scenario.endpoint, it) for it in step))
        try:
            client.call(scenario.endpoint, params_of(scenario.endpoint, number))
        except ProfnetError as error:
            errors.append(type(error).__name__)
        else:
            errors.append(None)
    assert_settled(scenario, client, scripted.times(path), errors)


def test_a_call_stopped_by_ctrl_c_while_under_way_counts_as_maybe_charged(
    scripted: Scripted, tmp_path: Path
) -> None:
    scripted.answer("/get-company-details", HOLD)  # the service at work when Ctrl-C comes
    client = scripted_client(scripted, tmp_path, budget=10, spending_cap="10/day")

    def ctrl_c_once_asked() -> None:
        scripted.arrived.wait()
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=ctrl_c_once_asked, daemon=True).start()
    with pytest.raises(KeyboardInterrupt):
        client.get_company_details(domain="acme.io")
    scripted.let_go.set()
    assert (client.spent(), client.spent(uncertain=True)) == (0, 1), "it may have been done"
    assert (client.budget.reserved, client.budget.spent, client.budget.uncertain) == (0, 1, 1)
    assert client.quote(0).cap_left == 9
    client.close()


def test_a_ledger_that_fails_holds_nothing_and_stops_buying(
    scripted: Scripted, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = scripted_client(scripted, tmp_path, budget=5, spending_cap="10/day")

    def locked(*args: object, **kwargs: object) -> int:
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(client.ledger, "reserve_within", locked)
    with pytest.raises(StoppedBuying, match="the ledger could not hold the spending cap"):
        client.get_company_details(domain="acme.io")
    assert client.budget.reserved == 0, "the budget holds nothing for a call never sent"
    assert scripted.asked == []
    client.close()
