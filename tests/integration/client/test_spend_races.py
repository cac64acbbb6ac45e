"""Two-step windows in the money path, found by a review: a hold lapsing while its call is
alive, a cap read torn by another process's settle, yesterday's lapsed hold read as today's,
a stop a call waiting for its turn did not see. Real SQLite files, a real Redis, loopback."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import redis

from profnet_sheets import Client, StoppedBuying
from profnet_sheets.client.ledger import Ledger
from profnet_sheets.client.policy import longest_call
from profnet_sheets.client.spend import Charge
from profnet_sheets.client.team_ledger import TeamLedger
from profnet_sheets.config import SpendingCap
from profnet_sheets.errors import StoreError
from tests.clocks import FakeClock
from tests.scripted_service import Scripted, serving

pytestmark = pytest.mark.integration
DETAILS = "get-company-details"
OK = (200, {"data": {"name": "Acme", "domain": "acme.io"}}, {})
RATE = (429, {"message": "rate_limited"}, {"Retry-After": "1"})


@pytest.fixture
def scripted() -> Iterator[Scripted]:
    with serving(Scripted()) as service:
        yield service


def scripted_client(scripted: Scripted, folder: Path, cap: str | None = None) -> Client:
    return Client(
        api_key="scripted-key",
        base_url=scripted.base_url,
        cache=str(folder),
        cache_dir=folder,
        spending_cap=cap,
    )


def test_a_hold_lapsing_while_its_retry_waits_in_line_is_counted_once(
    scripted: Scripted, tmp_path: Path
) -> None:
    """Before: possibly spent when it lapsed, then spent for sure when its call settled."""
    scripted.answer(f"/{DETAILS}", RATE, OK)  # throttled (free), then answered
    client = scripted_client(scripted, tmp_path, "10/day")
    shared = client._shared
    clock = FakeClock(1_700_000_000.0)
    shared.ledger.clock = clock
    shared.transport.sleep = clock.sleep
    other = Ledger(shared.ledger.path, clock)  # another process on the ledger
    acquire, turns = shared.transport.pace.acquire, []

    def in_line() -> object:  # the retry's turn comes after a wait longer than the lease
        turns.append(1)
        if len(turns) == 2:
            clock.advance(longest_call(client.settings) + 1)
            other.holds(shared.service)  # `credits`, or another process's reservation
        return acquire()

    shared.transport.pace.acquire = in_line  # type: ignore[method-assign]
    client.get_company_details(domain="acme.io")
    assert (client.spent(), client.spent(uncertain=True)) == (1, 0)
    assert other.cap_use(SpendingCap(10, "day"), shared.service).used == 1
    client.close()


def test_a_team_hold_lapsing_while_its_call_is_alive_is_counted_once(redis_url: str) -> None:
    service, later = f"svc-{uuid.uuid4().hex[:8]}", [0.0]
    connection = redis.Redis.from_url(redis_url)

    def clock() -> float:
        seconds, micros = connection.time()
        return seconds + micros / 1e6 + later[0]

    here = TeamLedger(Ledger(None, clock), connection, service, "here", "", clock)
    there = TeamLedger(Ledger(None), connection, service, "there", "", clock)
    cap = SpendingCap(10, "day")
    settled = here.reserve_within(cap, service, 3, DETAILS, 60.0)
    released = here.reserve_within(cap, service, 2, DETAILS, 60.0)
    later[0] = 61  # both calls still under way past their lease (a laptop asleep)
    there.settle_lapsed()  # another machine's reservation, quote or `credits`
    assert there.cap_use(cap, service).used == 5, "possibly spent meanwhile"
    here.settle(service, "", DETAILS, Charge(sure=3), [settled])
    here.release(released)  # never sent after all
    assert there.cap_use(cap, service).used == 3
    assert [(it.sure, it.maybe) for it in there.team_spend(days=1)[:1]] == [(3, 0)]
    assert (here.local.total(), here.local.total(uncertain=True)) == (3, 0)


CYCLING = """
import sys, redis
from profnet_sheets.client.ledger import Ledger
from profnet_sheets.client.spend import Charge
from profnet_sheets.client.team_ledger import TeamLedger, period_keys
from profnet_sheets.config import SpendingCap
url, service, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
connection = redis.Redis.from_url(url)
team = TeamLedger(Ledger(None), connection, service, "writer", "")
cap = SpendingCap(10**6, "day")  # its own ledger counts every round it told (decision 494)
print("ready", flush=True)
for _ in range(rounds):
    held = team.reserve_within(cap, service, 1, "get-company-details", 60.0)
    team.settle(service, "", "get-company-details", Charge(sure=1), [held])
    seconds, _ = connection.time()
    day = period_keys(float(seconds))["day"]
    connection.hincrby(team.spend_key("day", day), "sure:writer", -1)  # 1 in use at most
"""


def test_the_teams_cap_is_read_whole_while_another_machine_settles(redis_url: str) -> None:
    """Another machine moves 1 credit held -> spent -> taken back, over and over: the team
    never uses more than 1. Before: HGETALL and HVALS in two round trips read 2 now and then
    (a call refused under the cap)."""
    service = f"svc-{uuid.uuid4().hex[:8]}"
    writer = subprocess.Popen(
        [sys.executable, "-c", CYCLING, redis_url, service, "3000"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert writer.stdout is not None
    assert writer.stdout.readline().strip() == "ready"
    reader = TeamLedger(Ledger(None), redis.Redis.from_url(redis_url), service, "reader", "")
    cap, seen = SpendingCap(100, "day"), set()
    while writer.poll() is None:
        seen.add(reader.cap_use(cap, service).used)
    assert writer.returncode == 0
    assert seen <= {0, 1}, seen


SETTLING = """
import sys
from pathlib import Path
from profnet_sheets.client.ledger import Ledger
from profnet_sheets.client.spend import Charge
from profnet_sheets.config import SpendingCap
ledger, cap = Ledger(Path(sys.argv[1])), SpendingCap(10**9, "day")
print("ready", flush=True)
for _ in range(int(sys.argv[2])):
    held = ledger.reserve_within(cap, "svc", 5, "get-company-details", 60.0)
    ledger.settle("svc", "", "get-company-details", Charge(sure=5), [held])
"""


def test_the_ledgers_cap_is_read_in_one_snapshot_while_another_process_settles(
    tmp_path: Path,
) -> None:
    """Before: two reads, a settle committing between them seen in neither (too little used)."""
    path = tmp_path / "ledger.sqlite"
    reader, cap = Ledger(path), SpendingCap(10**9, "day")
    writer = subprocess.Popen(
        [sys.executable, "-c", SETTLING, str(path), "5000"], stdout=subprocess.PIPE, text=True
    )
    assert writer.stdout is not None
    assert writer.stdout.readline().strip() == "ready"
    below, whole = 0, sqlite3.connect(path, isolation_level=None)
    while writer.poll() is None:
        (before,) = whole.execute(  # one statement: one snapshot
            "SELECT (SELECT COALESCE(SUM(credits), 0) FROM spend)"
            " + (SELECT COALESCE(SUM(credits), 0) FROM reserved)"
        ).fetchone()
        below += reader.cap_use(cap, "svc").used < before
    whole.close()
    assert writer.returncode == 0
    assert below == 0


def test_yesterdays_lapsed_hold_leaves_todays_cap_whole(scripted: Scripted, tmp_path: Path) -> None:
    """A process killed at 23:50 with 5 credits in flight; at 00:35 a long-lived client
    (Excel) under a cap of 5/day. Before: the hold counted today, every call refused."""
    scripted.answer(f"/{DETAILS}", OK)
    clock = FakeClock(datetime(2026, 3, 1, 23, 50, tzinfo=UTC).timestamp())
    client = scripted_client(scripted, tmp_path, "5/day")
    client._shared.ledger.clock = clock
    killed = Ledger(client._shared.ledger.path, clock)
    killed.reserve_within(SpendingCap(5, "day"), client.service, 5, DETAILS, 1800.0)
    clock.advance(45 * 60)
    assert client.quote(1).cap_left == 5
    for n in range(2):
        client.get_company_details(domain=f"acme{n}.io")
    assert scripted.times(f"/{DETAILS}") == 2
    client.close()


def test_a_call_waiting_for_its_turn_when_buying_stops_is_not_sent(
    scripted: Scripted, tmp_path: Path
) -> None:
    """A paid answer the cache could not keep stops buying: a call already past the gate,
    in line for its turn, is not sent either (before: sent, paid, and not kept)."""
    scripted.answer(f"/{DETAILS}", OK)
    client = scripted_client(scripted, tmp_path)
    shared = client._shared

    def disk_full(*args: object) -> None:
        raise StoreError("database or disk is full")

    shared.store.save = disk_full  # type: ignore[method-assign]
    turn, first_done, second_in_line = shared.transport.turn, threading.Event(), threading.Event()

    def in_line(*args: object) -> object:
        if threading.current_thread().name == "second":
            second_in_line.set()
            first_done.wait(10)  # in line behind the first call
        return turn(*args)  # type: ignore[arg-type]

    shared.transport.turn = in_line  # type: ignore[method-assign]
    raised: list[BaseException] = []

    def second() -> None:
        try:
            client.get_company_details(domain="second.io")
        except Exception as error:
            raised.append(error)

    worker = threading.Thread(target=second, name="second")
    worker.start()
    assert second_in_line.wait(10)
    client.get_company_details(domain="first.io")  # paid, not kept: buying stops
    first_done.set()
    worker.join(10)
    assert [type(it) for it in raised] == [StoppedBuying]
    assert scripted.times(f"/{DETAILS}") == 1
    assert client.spent() == 1
    client.close()
