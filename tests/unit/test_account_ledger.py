"""One service whatever the spelling of its URL; a dead process's reservations are spent,
maybe; a price of 0 is meant or refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from profnet_sheets.client.account import canonical_base_url, former_service_name, service_name
from profnet_sheets.client.ledger import UNSETTLED, InDoubt, Ledger, Spend, SpendTable, Told
from profnet_sheets.client.spend import Charge
from profnet_sheets.config import Settings, SpendingCap
from profnet_sheets.errors import BudgetExceeded, ConfigurationError


@pytest.mark.parametrize(
    ("typed", "canonical"),
    [
        ("http://127.0.0.1:8080", "http://localhost:8080"),
        ("HTTP://LocalHost.:8080/", "http://localhost:8080"),
        ("http://[::1]:8080/.", "http://localhost:8080"),
        ("https://API.Example.com:443/v1/", "https://api.example.com/v1"),
        ("https://api.example.com:8443/v1/./x/..//", "https://api.example.com:8443/v1"),
        ("http://example.com:80", "http://example.com"),
        ("https://Bücher.DE./api", "https://xn--bcher-kva.de/api"),
        ("http://[2001:DB8::0001]/", "http://[2001:db8::1]"),
        # A review: each of these had a ledger (and a spending cap) of its own.
        ("http://[::ffff:127.0.0.1]:8080", "http://localhost:8080"),
        ("http://127.1:8080", "http://localhost:8080"),
        ("http://2130706433:8080", "http://localhost:8080"),
        ("http://0x7f.0.0.1:8080", "http://localhost:8080"),
        ("http://0.0.0.0:8080", "http://localhost:8080"),
        ("http://[::]:8080", "http://localhost:8080"),
        ("http://[::ffff:10.0.0.1]/", "http://10.0.0.1"),
        ("http://10.1/", "http://10.0.0.1"),
        ("https://api.example.com/%2e/v%31/%7euser/%2f", "https://api.example.com/v1/~user/%2F"),
        ("https://cafe.example.com", "https://cafe.example.com"),
        ("https://cafe", "https://cafe"),
        ("https://faß.de", "https://xn--fa-hia.de"),  # as requests connects: not fass.de
    ],
)
def test_a_base_url_has_one_canonical_form(typed: str, canonical: str) -> None:
    assert canonical_base_url(typed) == canonical
    assert service_name(typed) == service_name(canonical)


def test_a_canonical_spelling_keeps_the_name_earlier_versions_gave_it() -> None:
    """No ledger, cache or claim to move for a URL typed in its canonical form."""
    url = "https://api.example.com/v1"
    assert service_name(url) == former_service_name(url) == former_service_name(url + "/")
    assert service_name("https://other.example.com") != service_name(url)
    assert service_name("http://localhost:8080") != service_name("http://localhost:8081")


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def test_a_reservation_whose_process_died_counts_as_possibly_spent(tmp_path: Path) -> None:
    clock = Clock()
    path = tmp_path / "svc-x-ledger.sqlite"
    dead = Ledger(path, clock)
    cap = SpendingCap(20)
    for _ in range(20):
        dead.reserve_within(cap, "svc-x", 1, "get-company-details", 60.0, "fp")
    # the process is killed: nothing released; after the lease a new one opens the ledger
    clock.now += 61
    alive = Ledger(path, clock)
    assert alive.cap_use(cap, "svc-x").left == 0
    with pytest.raises(BudgetExceeded):
        alive.reserve_within(cap, "svc-x", 1, "get-company-details", 60.0, "fp")
    assert alive.total(service="svc-x", uncertain=True) == 20
    assert alive.total(service="svc-x") == 0
    table = alive.by_endpoint_and_day(service="svc-x")  # a row of their own, as possibly
    assert table == [Spend("get-company-details", "2023-11-14", 20, 0, 20)]
    assert str(table).splitlines() == [
        "day         endpoint                          calls  credits  possibly",
        "2023-11-14  get-company-details                  20        0        20",
    ]
    assert "<th>possibly</th>" in table._repr_html_()


def test_the_spend_table_has_a_possibly_column_only_when_some_was() -> None:
    sure = SpendTable([Spend("get-company-details", "2023-11-14", 3, 3)])
    assert str(sure).splitlines()[0].split() == ["day", "endpoint", "calls", "credits"]
    assert "possibly" not in sure._repr_html_()
    mixed = SpendTable([*sure, Spend("search-leads", "2023-11-14", 1, 0, 40)])
    assert str(mixed).splitlines()[1:] == [
        "2023-11-14  get-company-details                   3        3",
        "2023-11-14  search-leads                          1        0        40",
    ]


def test_a_reservation_released_in_time_is_not_spent(tmp_path: Path) -> None:
    clock = Clock()
    ledger = Ledger(tmp_path / "l.sqlite", clock)
    cap = SpendingCap(5, "day")
    held = ledger.reserve_within(cap, "svc-x", 5, "get-company-details", 60.0, "fp")
    ledger.record("svc-x", "fp", "get-company-details", 1, None)
    ledger.release(held)
    clock.now += 3600
    assert ledger.total(service="svc-x", uncertain=True) == 0
    assert ledger.cap_use(cap, "svc-x").left == 4


def test_a_settled_call_is_never_seen_both_spent_and_held(tmp_path: Path) -> None:
    """Before: the spend was written, then the hold dropped: a process asking between the two
    saw the credits twice and refused under its cap (a run cut by a cap of 5 stopped at 4)."""
    cap, path = SpendingCap(2, "day"), tmp_path / "l.sqlite"
    now = 1_700_000_000.0
    other, seen_while_settling = Ledger(path, lambda: now), list[int]()  # another process
    settling = False

    def clock() -> float:  # asked inside the settle's transaction
        if settling:
            seen_while_settling.append(other.cap_use(cap, "svc-x").used)
        return now

    ledger = Ledger(path, clock)
    held = ledger.reserve_within(cap, "svc-x", 1, "get-company-details", 60.0, "fp")
    second = ledger.reserve_within(cap, "svc-x", 1, "get-company-details", 60.0, "fp")
    settling = True
    ledger.settle("svc-x", "fp", "get-company-details", Charge(sure=1, maybe=1), [held, second])
    settling = False
    assert seen_while_settling == [2], "held, not yet spent"
    assert other.cap_use(cap, "svc-x").used == 2, "spent, no longer held"
    assert other.in_flight("svc-x") == 0
    assert (other.total(service="svc-x"), other.total(service="svc-x", uncertain=True)) == (1, 1)


def test_a_settle_the_ledger_cannot_write_leaves_the_holds_to_lapse_into_possibly_spent(
    tmp_path: Path,
) -> None:
    """Never as nothing: the hold stands for the spend the ledger could not write."""
    import sqlite3

    clock = Clock()
    path = tmp_path / "l.sqlite"
    ledger = Ledger(path, clock)
    cap = SpendingCap(5, "day")
    held = ledger.reserve_within(cap, "svc-x", 3, "get-company-details", 60.0, "fp")
    with sqlite3.connect(path) as db:  # the spend table gone: its INSERT fails
        db.execute("ALTER TABLE spend RENAME TO gone")
    with pytest.raises(sqlite3.OperationalError, match="no such table: spend"):
        ledger.settle("svc-x", "fp", "get-company-details", Charge(sure=3), [held])
    with sqlite3.connect(path) as db:
        db.execute("ALTER TABLE gone RENAME TO spend")
    assert ledger.in_flight("svc-x") == 3
    clock.now += 61
    assert ledger.total(service="svc-x", uncertain=True) == 3


def test_an_older_ledger_gets_the_new_columns_and_its_reservations_settle(
    tmp_path: Path,
) -> None:
    import sqlite3

    path = tmp_path / "old-ledger.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(
            "CREATE TABLE spend (at REAL NOT NULL, service TEXT NOT NULL, key TEXT NOT NULL, "
            "endpoint TEXT NOT NULL, credits INTEGER NOT NULL, items INTEGER, "
            "uncertain INTEGER NOT NULL DEFAULT 0);"
            "CREATE TABLE reserved (id INTEGER PRIMARY KEY, until REAL NOT NULL, "
            "service TEXT NOT NULL, credits INTEGER NOT NULL);"
            "INSERT INTO reserved (until, service, credits) VALUES (1, 'svc-x', 7);"
        )
    db.close()
    ledger = Ledger(path)
    assert ledger.total(service="svc-x", uncertain=True) == 7
    assert ledger.cap_use(SpendingCap(10), "svc-x").left == 3
    # listed under what an older reservation could not say, as possibly spent
    assert ledger.by_endpoint_and_day(service="svc-x") == [Spend(UNSETTLED, "1970-01-01", 1, 0, 7)]


def test_a_ledger_that_kept_one_total_told_its_team_gets_sure_and_maybe(tmp_path: Path) -> None:
    """A version kept one total per period of what a machine told its team: opened now, that
    total is kept (as sure) and the calls settle into the new columns, not fail."""
    import sqlite3

    path = tmp_path / "told-ledger.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(
            "CREATE TABLE told (team TEXT NOT NULL, machine TEXT NOT NULL, period TEXT NOT NULL,"
            " credits INTEGER NOT NULL, PRIMARY KEY (team, machine, period));"
            "INSERT INTO told VALUES ('t@r', 'm', 'day:2026-11-27', 12);"
        )
    db.close()
    ledger = Ledger(path)
    assert ledger.told_in("t@r", "m", "day:2026-11-27").told == Charge(12, 0)
    told = Told("t@r", "m", ("day:2026-11-27",))
    ledger.settle("svc-x", "k", "get-company", Charge(1, 2), released=(), told=told)
    assert ledger.told_in("t@r", "m", "day:2026-11-27").told == Charge(13, 2)
    assert Ledger(path).told_in("t@r", "m", "day:2026-11-27").told == Charge(13, 2), "once"


def test_an_older_spellings_ledger_is_copied_once_and_then_what_it_gained(
    tmp_path: Path,
) -> None:
    old_path = tmp_path / "svc-old-ledger.sqlite"
    old = Ledger(old_path)
    old.record("svc-old", "fp", "get-company-details", 3, None)
    new = Ledger(tmp_path / "svc-new-ledger.sqlite")
    assert new.absorb(old_path, "svc-new") == 1
    assert new.absorb(old_path, "svc-new") == 0
    old.record("svc-old", "fp", "get-company-details", 2, None, uncertain=True)
    assert new.absorb(old_path, "svc-new") == 1
    assert new.total(service="svc-new") == 3
    assert new.total(service="svc-new", uncertain=True) == 2
    assert new.absorb(tmp_path / "missing.sqlite", "svc-new") == 0
    garbage = tmp_path / "svc-garbage-ledger.sqlite"
    garbage.write_bytes(b"not a database at all" * 100)
    assert new.absorb(garbage, "svc-new") == 0, "said, and the client still opens"


def test_a_price_of_0_is_refused_unless_the_plan_makes_it_free(tmp_path: Path) -> None:
    def load(**explicit: object) -> Settings:
        return Settings.load(config_path=tmp_path / "none.toml", environ={}, **explicit)

    with pytest.raises(ConfigurationError) as refused:
        load(prices={"get-profile-details": 0})
    message = str(refused.value)
    assert "\n" not in message
    assert "get-profile-details" in message
    assert "PROFNET_FREE_ON_PLAN" in message
    free = load(prices={"get-profile-details": 0}, free_on_plan="get-profile-details")
    assert free.profile.free_on_plan == ("get-profile-details",)
    with pytest.raises(ConfigurationError, match="set its price to 0"):
        load(free_on_plan=["get-profile-details"])
    with pytest.raises(ConfigurationError, match="no endpoint with a price"):
        load(free_on_plan="get-lead-search-status")


def test_a_job_start_sent_with_no_answer_kept_is_in_doubt_until_one_is(tmp_path: Path) -> None:
    """A search's creation held by a process that died, or settled as possibly charged, is
    in doubt for its own call key within the window; one charged for sure since ends it."""
    clock = Clock()
    path = tmp_path / "svc-x-ledger.sqlite"
    day = 86_400.0
    dead = Ledger(path, clock)
    dead.hold("svc-x", 50, "search-leads", 60.0, "fp", call="k-leads")
    started = clock.now
    alive = Ledger(path, clock)  # the next run, while the lease still runs, then after it
    assert alive.in_doubt("svc-x", "k-leads", day) == InDoubt(50, started)
    clock.now += 61
    assert alive.in_doubt("svc-x", "k-leads", day) == InDoubt(50, started)
    assert alive.total(service="svc-x", uncertain=True) == 50
    assert alive.in_doubt("svc-x", "k-other", day) is None  # another search's key
    assert alive.in_doubt("svc-y", "k-leads", day) is None  # another service's
    assert alive.in_doubt("svc-x", "k-leads", 30.0) is None  # before the window
    clock.now += 10  # an answer lost on the way back: settled as possibly charged
    alive.settle("svc-x", "fp", "search-leads", Charge(maybe=50), (), call="k-leads")
    assert alive.in_doubt("svc-x", "k-leads", day) == InDoubt(100, started, times=2)
    clock.now += 10  # started again, answered: charged for sure
    alive.settle("svc-x", "fp", "search-leads", Charge(sure=50), (), call="k-leads")
    assert alive.in_doubt("svc-x", "k-leads", day) is None
    lookup = alive.hold("svc-x", 1, "get-company-details", 60.0, "fp")  # not a job: no key
    alive.release(lookup)
    assert alive.in_doubt("svc-x", "", day) is None
