"""A stop for no credits or a service unreachable holds for the run that met it; one client kept
for hours (Excel, Calc, a notebook) asks the service again in its next run or recalculation."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest
import requests

from profnet_sheets import Client, StoppedBuying
from profnet_sheets.batch import enrich
from profnet_sheets.batch.workflow import Enrichment
from profnet_sheets.excel import cells, formulas, messages, session
from profnet_sheets.excel.session import STOP_HOLD, SessionConfig
from profnet_sheets.sandbox import RunningSandbox, start_sandbox
from profnet_sheets.widgets import EnrichForm
from tests.conftest import RedisServer

pytestmark = pytest.mark.integration
POOR = "poor-key"
UNREACHABLE = cells.error_text(messages.UNREACHABLE)


class Clock:
    """The Excel session's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def set_credits(sandbox: RunningSandbox, credits: int) -> None:
    """Set the poor key's balance (a top-up) through the sandbox's control endpoint."""
    requests.put(
        f"{sandbox.base_url}/_sandbox/keys", json={"key": POOR, "credits": credits}, timeout=5
    ).raise_for_status()


def _client_on(base_url: str, tmp_path: Path) -> Client:
    return Client(
        api_key=POOR,
        base_url=base_url,
        cache=str(tmp_path),
        cache_dir=tmp_path,
        backoff=0.01,
        max_backoff=0.02,
    )


@pytest.fixture
def poor(tmp_path: Path) -> Iterator[tuple[RunningSandbox, Client]]:
    """A sandbox whose key has 3 credits, and one client on it kept for the whole test."""
    with start_sandbox(api_keys=(POOR,), credits=3, seed=5) as sandbox:
        with _client_on(sandbox.base_url, tmp_path) as client:
            yield sandbox, client
        session.reset()


def domains(count: int, start: int = 0) -> pl.DataFrame:
    return pl.DataFrame({"website": [f"run{i}.io" for i in range(start, start + count)]})


def test_a_second_enrichment_asks_again_after_a_top_up(
    poor: tuple[RunningSandbox, Client],
) -> None:
    sandbox, client = poor
    first = Enrichment(client, domains(10), "website", "company")
    _, outcome = first.run(concurrency=1)
    assert (outcome.ending, outcome.done) == ("credits", 3)
    assert sandbox.calls(POOR, "get-company-details") == 4, (
        "3 paid, one 402, then nothing more sent in that run"
    )
    set_credits(sandbox, 100)
    second = Enrichment(client, domains(10), "website", "company")
    _, again = second.run(concurrency=1)
    assert (again.ending, again.done, again.spent) == (None, 10, 7), "the 3 done are free"
    assert sandbox.calls(POOR, "get-company-details") == 4 + 7


def test_enrich_called_twice_on_one_client_asks_again(
    poor: tuple[RunningSandbox, Client],
) -> None:
    sandbox, client = poor
    first = enrich(domains(5), "website", "company", client=client, concurrency=1, progress=False)
    assert first["company_error"].null_count() == 3
    set_credits(sandbox, 100)
    second = enrich(domains(5), "website", "company", client=client, concurrency=1, progress=False)
    assert second["company_error"].null_count() == 5, "the second run reached the service"


def test_an_excel_formula_asks_again_once_the_stop_has_held(
    poor: tuple[RunningSandbox, Client],
) -> None:
    sandbox, client = poor
    clock = Clock()
    session.install(client, SessionConfig(budget=None), clock=clock)
    names = [formulas.company(f"xl{i}.io", "company_name") for i in range(3)]
    assert all(isinstance(name, str) and not name.startswith("#") for name in names)
    stopped = formulas.company("xl3.io", "company_name")
    assert str(stopped).startswith("#PROFNET! out of credits"), "the 402 itself"
    set_credits(sandbox, 100)
    sent = sandbox.calls(POOR, "get-company-details")
    for i in range(4, 24):  # the rest of the recalculation: refused here, nothing sent
        assert str(formulas.company(f"xl{i}.io", "company_name")).startswith("#PROFNET! out of")
    assert sandbox.calls(POOR, "get-company-details") == sent
    clock.now += STOP_HOLD
    for i in range(3, 23):  # the next recalculation, after the top-up
        name = formulas.company(f"xl{i}.io", "company_name")
        assert isinstance(name, str)
        assert not name.startswith("#"), name
    assert sandbox.calls(POOR, "get-company-details") == sent + 20


def test_an_excel_range_asks_again_only_once_the_stop_has_held(
    poor: tuple[RunningSandbox, Client],
) -> None:
    """A new user's review: a range formula asked the service again at once after a 402 (one
    cell waits STOP_HOLD): a range is one formula of the session's run, as a cell is."""
    sandbox, client = poor
    clock = Clock()
    session.install(client, SessionConfig(budget=None), clock=clock)
    column = [[f"range{i}.io"] for i in range(6)]
    first = formulas.company(column, "company_name")
    assert isinstance(first, list)
    assert [str(row[0]).startswith("#PROFNET! out of credits") for row in first].count(True) == 3
    sent = sandbox.calls(POOR, "get-company-details")
    set_credits(sandbox, 100)
    again = formulas.company(column, "company_name")
    assert isinstance(again, list)
    assert [str(row[0]).startswith("#PROFNET! out of") for row in again].count(True) == 3, (
        "the rest of that recalculation: the 3 answered come from the cache"
    )
    assert sandbox.calls(POOR, "get-company-details") == sent, "nothing sent"
    clock.now += STOP_HOLD
    later = formulas.company(column, "company_name")
    assert isinstance(later, list)
    assert all(not str(row[0]).startswith("#") for row in later), later
    assert sandbox.calls(POOR, "get-company-details") == sent + 3


def test_a_form_action_asks_again_after_a_top_up(
    poor: tuple[RunningSandbox, Client], tmp_path: Path
) -> None:
    sandbox, client = poor
    source = tmp_path / "accounts.csv"
    domains(6).write_csv(source)
    form = EnrichForm(client=client)
    form.path.value = str(source)
    form.load_button.click()
    form.column.value = "website"
    form.run(wait=True)
    assert form.feedback.error_text.startswith("Out of credits: 3 rows not done.")
    set_credits(sandbox, 100)
    form.run(wait=True)
    assert form.feedback.error_text == ""
    assert form.result is not None
    assert form.result["company_error"].null_count() == 6


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_excel_reaches_the_service_once_it_is_back(closed_port: int, tmp_path: Path) -> None:
    clock = Clock()
    with _client_on(f"http://127.0.0.1:{closed_port}", tmp_path) as client:
        session.install(client, SessionConfig(budget=None), clock=clock)
        try:
            column = [[f"back{i}.io"] for i in range(20)]
            assert formulas.company(column, "company_name") == [[UNREACHABLE]] * 20
            assert session.current().client.unreachable is not None
            with start_sandbox(api_keys=(POOR,), credits=100, port=closed_port) as sandbox:
                assert formulas.company("back0.io", "company_name") == UNREACHABLE
                assert sandbox.calls(POOR, "get-company-details") == 0, (
                    "the stop held for that recalculation"
                )
                clock.now += STOP_HOLD
                names = formulas.company(column, "company_name")
                assert isinstance(names, list)
                assert all(not str(row[0]).startswith("#") for row in names), names
                assert sandbox.calls(POOR, "get-company-details") == 20
        finally:
            session.reset()


def test_a_later_enrichment_reaches_the_service_once_it_is_back(
    closed_port: int, tmp_path: Path
) -> None:
    with _client_on(f"http://127.0.0.1:{closed_port}", tmp_path) as client:
        _, outcome = Enrichment(client, domains(30), "website", "company").run()
        assert (outcome.ending, outcome.exit_code) == ("unreachable", 6)
        with start_sandbox(api_keys=(POOR,), credits=100, port=closed_port) as sandbox:
            _, again = Enrichment(client, domains(30), "website", "company").run()
            assert (again.ending, again.done) == (None, 30)
            assert sandbox.calls(POOR, "get-company-details") == 30


def test_a_store_failure_stops_every_later_run_until_the_cache_works_again(
    killable_redis: RedisServer, tmp_path: Path
) -> None:
    """Buying again could pay for answers that cannot be kept: a later run buys again only
    once the cache is proven to work (a probe entry kept and read back, nothing paid)."""
    with start_sandbox(api_keys=(POOR,), credits=100) as sandbox:
        client = Client(
            api_key=POOR, base_url=sandbox.base_url, cache=killable_redis.url, cache_dir=tmp_path
        )
        with client:
            client.get_company_details(domain="kept.io")
            killable_redis.kill()  # the team's Redis dies between two runs
            with pytest.raises(StoppedBuying):
                client.get_company_details(domain="lost.io")  # the store fails: buying stops
            paid = sandbox.calls(POOR, "get-company-details")
            _, outcome = Enrichment(client, domains(3), "website", "company").run()
            assert outcome.ending == "stopped"
            assert sandbox.calls(POOR, "get-company-details") == paid, "the later run sent nothing"
            killable_redis.restart()  # back, empty
            _, again = Enrichment(client, domains(3), "website", "company").run()
            assert (again.ending, again.done) == (None, 3)
            assert sandbox.calls(POOR, "get-company-details") == paid + 3


def test_excel_buys_again_once_the_teams_redis_is_back(
    killable_redis: RedisServer, tmp_path: Path
) -> None:
    """A team's review: after a Redis outage, Excel refused every formula until the UDF
    server was restarted, and said `the service failed`. The cell says the cache failed and
    that formulas try again; they buy again once the cache works."""
    clock = Clock()
    with start_sandbox(api_keys=(POOR,), credits=100) as sandbox:
        client = Client(
            api_key=POOR, base_url=sandbox.base_url, cache=killable_redis.url, cache_dir=tmp_path
        )
        with client:
            session.install(client, SessionConfig(budget=None), clock=clock)
            try:
                assert formulas.company("up.io", "company_name") == "Up"
                killable_redis.kill()
                failed = str(formulas.company("down.io", "company_name"))
                assert failed.startswith("#PROFNET! the cache failed"), failed
                assert f"Formulas try it again {STOP_HOLD:g} s after this" in failed
                sent = sandbox.calls(POOR, "get-company-details")
                clock.now += STOP_HOLD
                again = str(formulas.company("down.io", "company_name"))
                assert again.startswith("#PROFNET! the cache failed"), again
                assert sandbox.calls(POOR, "get-company-details") == sent, "nothing paid"
                killable_redis.restart()
                clock.now += STOP_HOLD
                name = formulas.company("down.io", "company_name")
                assert isinstance(name, str)
                assert not name.startswith("#"), name
            finally:
                session.reset()


def test_a_run_whose_ledger_failed_after_its_last_row_does_not_end_as_a_success(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A review: every row sent, then the ledger could not write their spend (a full disk):
    the run ended 0 with warnings. The rows are done, but their spend is not counted (the
    cap cannot hold it): it ends as stopped (exit 5), saying why and that nothing is left."""
    import sqlite3

    def full(*args: object, **kwargs: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    with (
        start_sandbox(api_keys=(POOR,), credits=100) as sandbox,
        _client_on(sandbox.base_url, tmp_path) as client,
    ):
        monkeypatch.setattr(client.ledger, "settle", full)
        _, outcome = Enrichment(client, domains(3), "website", "company").run(concurrency=4)
        assert (outcome.done, outcome.not_done) == (3, 0)
        assert (outcome.ending, outcome.exit_code) == ("stopped", 5)
        advice = outcome.advice()
        assert advice.startswith("Stopped buying (the ledger could not count the spend")
        assert "once every row was done: nothing is left to run again" in advice
        assert sandbox.calls(POOR, "get-company-details") == 3
