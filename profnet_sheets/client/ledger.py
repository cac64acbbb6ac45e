"""The ledger: credits spent, call by call, and the reservations under the spending cap (SQLite)."""

from __future__ import annotations

import contextlib
import glob
import logging
import re
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from html import escape
from pathlib import Path
from typing import Any

from profnet_sheets.client import wal
from profnet_sheets.client.spend import (
    ASIDE_LEASE,
    CapUse,
    Charge,
    HeldCall,
    cap_refusal,
    reserved_under_cap,
    room_after,
    rooms_after_lapse,
)
from profnet_sheets.config import SpendingCap
from profnet_sheets.errors import DamagedFile
from profnet_sheets.redact import clipped
from profnet_sheets.words import command, counted

LOG = logging.getLogger("profnet_sheets")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS spend (
    at REAL NOT NULL, service TEXT NOT NULL, key TEXT NOT NULL, endpoint TEXT NOT NULL,
    credits INTEGER NOT NULL, items INTEGER, uncertain INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS spend_at ON spend (at);
CREATE TABLE IF NOT EXISTS reserved (
    id INTEGER PRIMARY KEY, until REAL NOT NULL, service TEXT NOT NULL, credits INTEGER NOT NULL,
    at REAL, key TEXT, endpoint TEXT, source INTEGER
);
CREATE TABLE IF NOT EXISTS aside (
    id INTEGER PRIMARY KEY, until REAL NOT NULL, service TEXT NOT NULL, credits INTEGER NOT NULL,
    at REAL NOT NULL, label TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS absorbed (source TEXT PRIMARY KEY, last INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS lapsed (id INTEGER PRIMARY KEY, spend INTEGER NOT NULL, at REAL);
CREATE TABLE IF NOT EXISTS telling (
    id INTEGER NOT NULL, team TEXT NOT NULL, machine TEXT NOT NULL, period TEXT NOT NULL,
    credits INTEGER NOT NULL, until REAL NOT NULL, kept REAL NOT NULL, holds TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS seen (
    team TEXT NOT NULL, period TEXT NOT NULL, key TEXT NOT NULL, epoch TEXT NOT NULL,
    counts TEXT NOT NULL, at REAL NOT NULL, PRIMARY KEY (team, period)
);
"""
_TOLD = """
CREATE TABLE IF NOT EXISTS told (
    team TEXT NOT NULL, machine TEXT NOT NULL, period TEXT NOT NULL, sure INTEGER NOT NULL,
    maybe INTEGER NOT NULL, PRIMARY KEY (team, machine, period)
)
"""
# How long a call's spend noted here as told its team counts as being told there (its write
# to the team's store under way) unless done sooner: a process killed between the two writes
# leaves it to count as forgotten by the team once this has passed, unless a hold there still
# stands for it.
TELLING_LEASE = 300.0
# How long a call's spend the team's store was not told (it failed) is known with the holds
# the store may still have for it: longer than any hold lasts (policy.longest_call).
TELLING_KEPT = 3_600.0
# How long the spend row of a lapsed reservation is known by the reservation's id: its call,
# still alive past its lease (a laptop asleep), settles the real charge in its place.
LAPSED_KEPT = 8 * 86_400.0
# What a reservation carries since it may outlive its process (an older ledger lacks them).
_RESERVED_SINCE = {
    "at": "REAL",
    "key": "TEXT",
    "endpoint": "TEXT",
    "source": "INTEGER",
    "call": "TEXT",
}
# What a spend row carries since: the call's key (CallKey.digest) when the call starts a job
# (a search), to tell a re-run that it may have been started already (`in_doubt`).
_SPEND_SINCE = {"call": "TEXT"}
# How long credits set aside for a search's results stay so without a word from its process
# (each status poll and each page read renews them): a process killed while its search runs
# frees them within this, as nothing spent. They are kept apart from the calls' holds (their
# own table, their own Redis hash), where an earlier version, which knows nothing of them,
# neither counts them nor settles them as possibly spent.
# What the spend of a reservation whose process died is recorded under, when it did not say.
UNSETTLED = "(unsettled call)"


@dataclass(frozen=True)
class Spend:
    """One endpoint's calls in one day: the credits they cost for sure, and those they possibly
    cost (an answer lost, a call in flight when its process died)."""

    endpoint: str
    day: str
    calls: int
    credits: int
    possibly: int = 0

    def line(self) -> str:
        line = f"{self.day:10}  {self.endpoint:32} {self.calls:>6} {self.credits:>8}"
        return line + (f" {self.possibly:>9}" if self.possibly else "")


@dataclass(frozen=True)
class InDoubt:
    """A job's start that went out with no answer recorded since (its process died with it
    in flight, or its answer was lost): `credits` it may have been charged, counted as
    possibly spent, first sent `at` (unix time)."""

    credits: int
    at: float
    times: int = 1  # its holds and possibly-charged spends (an attempt retried counts too)

    def said(self) -> str:
        """What starting the search again risks, in words."""
        when = datetime.fromtimestamp(self.at, UTC).strftime("%Y-%m-%d %H:%M UTC")
        once = self.times == 1
        sent = f"at {when} by a run" if once else f"{self.times} times since {when} by runs"
        return (
            f"The same search was sent {sent} that kept no answer (killed, or the answer was "
            f"lost): the service may have started it and charged "
            f"{counted(self.credits, 'credit')} (counted as possibly spent), and starting it "
            "again is then paid again. Its request id never came back: only the service's "
            "account can tell whether it started."
        )


@dataclass(frozen=True)
class Holds:
    """The credits calls under way hold, until when at the latest (the ledger's clock: unix
    time; None: none held), and on which machines (a team's; empty on one computer); `aside`:
    credits set aside for the results of searches started and not read yet (not spent),
    until when at the latest (`aside_until`)."""

    credits: int
    until: float | None
    machines: tuple[str, ...] = ()
    aside: int = 0
    aside_until: float | None = None


class SpendTable(list[Spend]):
    """What was spent, by endpoint and day: a list of Spend that shows itself as a table (in a
    notebook, or as text lines) rather than as Python reprs; a `possibly` column when some of
    it possibly was."""

    EMPTY = "No credits spent yet."

    HEADER = f"{'day':10}  {'endpoint':32} {'calls':>6} {'credits':>8}"

    @property
    def has_possibly(self) -> bool:
        return any(spend.possibly for spend in self)

    def lines(self) -> list[str]:
        if not self:
            return [self.EMPTY]
        header = self.HEADER + (f" {'possibly':>9}" if self.has_possibly else "")
        return [header, *(spend.line() for spend in self)]

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # IPython's text display
        printer.text(str(self))

    def _repr_html_(self) -> str:  # Jupyter's and Voila's display
        if not self:
            return f"<p>{self.EMPTY}</p>"
        right = "style='text-align:right'"
        maybe = self.has_possibly
        cells = "".join(
            f"<tr><td>{escape(s.day)}</td><td>{escape(s.endpoint)}</td>"
            f"<td {right}>{s.calls}</td><td {right}>{s.credits}</td>"
            + (f"<td {right}>{s.possibly or ''}</td>" if maybe else "")
            + "</tr>"
            for s in self
        )
        total = sum(spend.credits for spend in self)
        possibly = sum(spend.possibly for spend in self)
        return (
            "<table><thead><tr><th>day</th><th>endpoint</th><th>calls</th><th>credits</th>"
            + ("<th>possibly</th>" if maybe else "")
            + f"</tr></thead><tbody>{cells}</tbody><tfoot><tr><th colspan='3'>total</th>"
            f"<th {right}>{total}</th>"
            + (f"<th {right}>{possibly}</th>" if maybe else "")
            + "</tr></tfoot></table>"
        )


@dataclass(frozen=True)
class Told:
    """Where a call's spend is also counted: a team's store (`team`), under this `machine`'s
    name, in the `periods` (`day:2026-11-27`, `month:2026-11`, `total:in all`) its clock
    gives. Kept beside the call's spend, in one running total per period: what this machine
    told its team, known even if the team's store loses it. `telling`: an id under which the
    call's spend is also noted as being told the store (`Telling`) until `told_done`."""

    team: str
    machine: str
    periods: tuple[str, ...]
    telling: int | None = None


@dataclass(frozen=True)
class Telling:
    """A call's spend this machine noted as told its team while the team's store may not
    count it (yet): `live` while its write there is under way (TELLING_LEASE), and whatever
    `holds` (reservations) the store may still have for it, which settle or lapse into its
    count."""

    id: int
    credits: int
    live: bool
    holds: frozenset[int]


@dataclass(frozen=True)
class ToldTeam:
    """What this machine told a team it spent in a period (sure and maybe), and the calls of
    it the team's store may not count (yet)."""

    told: Charge
    telling: tuple[Telling, ...] = ()


class Ledger:
    """The credits actually spent, call by call, in SQLite beside the cache (or in memory)."""

    failures: tuple[type[BaseException], ...] = (sqlite3.Error,)  # what its calls may raise

    def __init__(self, path: Path | None, clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self.clock = clock
        self.unreadable: list[tuple[float, Path]] = []  # ledgers once here, set aside
        self._lock = threading.Lock()
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            _open_file(path)  # in WAL mode, a mode the file keeps; an unreadable one set aside
        try:
            self._open()
        except sqlite3.DatabaseError as error:
            if path is None or isinstance(error, sqlite3.OperationalError):
                raise
            # Damaged inside (`database disk image is malformed`): set aside as one SQLite
            # cannot open is, and a new one started.
            self._db.close()
            _start_anew(path, str(error), None)
            self._open()

    def _open(self) -> None:
        """Connect to the ledger file (or memory), its tables made or brought up to date."""
        path = self.path
        if path is not None:
            self.unreadable = set_aside_ledgers(path)
        # Autocommit: each record is one INSERT, its own transaction (one call into SQLite,
        # not BEGIN / INSERT / COMMIT: fewer hand-overs between sixteen busy workers).
        self._db = sqlite3.connect(
            str(path) if path else ":memory:",
            check_same_thread=False,
            timeout=30,
            isolation_level=None,
        )
        if path is not None:
            # WAL with synchronous=NORMAL survives a crash of the program (not of the machine's
            # power) and commits in microseconds instead of waiting for the disk each time.
            self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA + _TOLD)
        self._add_columns("reserved", _RESERVED_SINCE)
        self._add_columns("spend", _SPEND_SINCE)
        self._db.execute(  # a job start's rows only: `in_doubt` finds them among millions
            "CREATE INDEX IF NOT EXISTS spend_call ON spend (call) WHERE call IS NOT NULL"
        )
        if "sure" not in self._columns("told"):
            with self._lock:
                self._write(self._split_told)
        with self._lock:
            self._write(self._settle_lapsed)

    def _columns(self, table: str) -> set[str]:
        return {row[1] for row in self._db.execute(f"PRAGMA table_info({table})")}

    def _split_told(self, now: float) -> None:
        """Give a ledger of an earlier version, which kept one total per period of what it told
        its team, the sure and maybe columns: each total kept as sure."""
        if "sure" in self._columns("told"):  # another process did
            return
        self._db.execute("ALTER TABLE told RENAME TO told_before")
        self._db.execute(_TOLD)
        self._db.execute(
            "INSERT INTO told SELECT team, machine, period, credits, 0 FROM told_before"
        )
        self._db.execute("DROP TABLE told_before")

    def _add_columns(self, table: str, since: dict[str, str]) -> None:
        """Give a ledger of an earlier version the columns `table`'s rows now carry."""
        have = self._columns(table)
        for name, kind in since.items():
            if name not in have:
                with contextlib.suppress(sqlite3.OperationalError):  # another process did
                    self._db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")

    def _write(self, change: Callable[[float], Any]) -> Any:
        """`change(now)` in one write transaction (atomic across processes); the lock held."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            done = change(self.clock())
            self._db.execute("COMMIT")
        except BaseException:
            # SQLite may have rolled back itself (a full disk): the error said is the first.
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")
            raise
        return done

    def works(self) -> bool:
        """Whether a row can be written now (one is, and taken back, in one transaction)."""

        def probe(now: float) -> None:
            held = self._insert_hold(now, "probe", 0, "probe", 0.0, "")
            self._db.execute("DELETE FROM reserved WHERE id = ?", (held,))

        try:
            with self._lock:
                self._write(probe)
        except sqlite3.Error:
            return False
        return True

    def _settle_lapsed_at(self, now: float) -> float:
        self._settle_lapsed(now)
        return now

    def _settle_lapsed(self, now: float) -> None:
        """Reservations whose lease ran out belong to a process that died with their calls in
        flight: each is recorded as spent, uncertain (the service may have charged it), in the
        period it was made in, never forgotten; its spend row is known by the reservation's
        id for a while (`lapsed`), for a call that outlived its lease to settle in its place.
        Credits set aside whose lease ran out were never spent: they go; a hold that drew on
        credits set aside takes what it possibly spent off their room."""
        self._db.execute("DELETE FROM aside WHERE until <= ?", (now,))
        self._db.execute("DELETE FROM telling WHERE kept <= ?", (now,))
        found = self._db.execute(
            "SELECT id, COALESCE(at, until), service, COALESCE(key, ''), "
            f"COALESCE(endpoint, '{UNSETTLED}'), credits, call, CAST(source AS TEXT) "
            "FROM reserved WHERE until <= ?",
            (now,),
        ).fetchall()
        for held, *row, _ in found:
            spent = self._db.execute(
                "INSERT INTO spend (at, service, key, endpoint, credits, call, items, uncertain) "
                "VALUES (?, ?, ?, ?, ?, ?, NULL, 1)",
                row,
            ).lastrowid
            self._db.execute("INSERT OR REPLACE INTO lapsed VALUES (?, ?, ?)", (held, spent, now))
        if not found:
            return
        self._db.execute("DELETE FROM reserved WHERE until <= ?", (now,))
        self._db.execute("DELETE FROM lapsed WHERE at < ?", (now - LAPSED_KEPT,))
        lapsed = [HeldCall(row[5], False, True, row[7]) for row in found if row[7] is not None]
        if lapsed:
            rooms = dict(self._db.execute("SELECT CAST(id AS TEXT), credits FROM aside"))
            for name, room in rooms_after_lapse(rooms, lapsed).items():
                self._db.execute("UPDATE aside SET credits = ? WHERE id = ?", (room, int(name)))

    def _drop(self, released: Sequence[int]) -> None:
        """Drop the reservations `released` (their calls settled). One that lapsed meanwhile
        (its call outlived its lease) was recorded as possibly spent: that row goes, the
        call's own settle counting what it really cost."""
        for held in released:
            if self._db.execute("DELETE FROM reserved WHERE id = ?", (held,)).rowcount:
                continue
            row = self._db.execute("SELECT spend FROM lapsed WHERE id = ?", (held,)).fetchone()
            if row is not None:
                self._db.execute("DELETE FROM spend WHERE rowid = ? AND uncertain = 1", row)
                self._db.execute("DELETE FROM lapsed WHERE id = ?", (held,))

    def absorb(self, former: Path, service: str) -> int:
        """Count, as `service`'s, the spend recorded in `former`: the ledger an earlier version
        kept under another spelling of the same base URL. Each row is copied once (and those
        added there since, by an earlier version still running); returns how many were."""
        if former == self.path or not former.exists():
            return 0
        source = str(former.resolve())
        try:
            with self._lock:
                self._db.execute("ATTACH DATABASE ? AS former", (str(former),))
                try:
                    copied: int = self._write(lambda _: self._copy_from_former(source, service))
                finally:
                    self._db.execute("DETACH DATABASE former")
        except sqlite3.DatabaseError as error:  # not a ledger SQLite can read: left as it is
            LOG.warning(
                "profnet-sheets: the ledger %s (the same service, spelt otherwise) could not be "
                "read (%s): what it recorded does not count toward the spending cap.",
                clipped(str(former)),
                error,
            )
            return 0
        if copied:
            LOG.warning(
                "profnet-sheets: %s spend record(s) of the ledger %s (the same service, spelt "
                "otherwise) now count in %s, toward the spending cap.",
                copied,
                clipped(str(former)),
                clipped(str(self.path)),
            )
        return copied

    def _copy_from_former(self, source: str, service: str) -> int:
        found = self._db.execute("SELECT last FROM absorbed WHERE source = ?", (source,))
        last = int((found.fetchone() or (0,))[0])
        copied = self._db.execute(
            "INSERT INTO spend (at, service, key, endpoint, credits, items, uncertain) "
            "SELECT at, ?, key, endpoint, credits, items, uncertain "
            "FROM former.spend WHERE rowid > ?",
            (service, last),
        ).rowcount
        newest = self._db.execute("SELECT MAX(rowid) FROM former.spend").fetchone()[0]
        self._db.execute(
            "INSERT OR REPLACE INTO absorbed VALUES (?, ?)", (source, int(newest or last))
        )
        return int(copied)

    def record(
        self,
        service: str,
        key: str,
        endpoint: str,
        credits: int,
        items: int | None,
        uncertain: bool = False,
    ) -> None:
        """Note credits spent; `uncertain`: a call whose answer was lost after it went out, so
        that the service may (or may not) have charged for it."""
        charge = Charge(maybe=credits) if uncertain else Charge(sure=credits, items=items)
        self.settle(service, key, endpoint, charge, ())

    def settle(
        self,
        service: str,
        key: str,
        endpoint: str,
        charge: Charge,
        released: Sequence[int],
        aside: int | None = None,
        told: Told | None = None,
        call: str = "",
    ) -> None:
        """Note what a call charged (sure, maybe) and drop its reservations `released`, in one
        transaction: no process ever sees the credits both spent and still held (a cap it
        would refuse under falsely). When the write fails, the call is done and paid: said
        in the log, then raised (the caller stops buying: spend it cannot count is not made);
        its reservations stay, to count as possibly spent when their lease runs out (never
        as nothing). `aside`: the credits set aside the call drew on,
        whose room what it charged takes. `told`: the team it is counted for too, whose
        running totals of this machine's spend take it in the same transaction. `call`: the
        call's key when it starts a job (`in_doubt`)."""
        spent = [(charge.sure, charge.items, 0), (charge.maybe, None, 1)]
        rows = [(credits, items, uncertain) for credits, items, uncertain in spent if credits]

        def write(now: float) -> None:
            self._db.executemany(
                "INSERT INTO spend (at, service, key, endpoint, call, credits, items, uncertain) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(now, service, key, endpoint, call or None, *row) for row in rows],
            )
            self._drop(released)
            if aside is not None and charge.total:
                self._charge_aside(aside, charge, now)
            if told is not None and charge.total:
                self._db.executemany(
                    "INSERT INTO told VALUES (?, ?, ?, ?, ?) ON CONFLICT (team, machine, period) "
                    "DO UPDATE SET sure = sure + excluded.sure, maybe = maybe + excluded.maybe",
                    [
                        (told.team, told.machine, period, charge.sure, charge.maybe)
                        for period in told.periods
                    ],
                )
                if told.telling is not None:
                    whose = (told.telling, told.team, told.machine)
                    held = (now + TELLING_LEASE, now + TELLING_KEPT, ",".join(map(str, released)))
                    self._db.executemany(
                        "INSERT INTO telling VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        [(*whose, period, charge.total, *held) for period in told.periods],
                    )

        try:
            with self._lock:
                alone = not released and aside is None and told is None and not call
                if len(rows) == 1 and alone:  # one INSERT, alone
                    write(self.clock())
                else:
                    self._write(write)
        except sqlite3.Error as error:
            LOG.warning(
                "%s: %s credit(s) spent could not be written to the ledger %s (%s)",
                endpoint,
                charge.total,
                self.path or "in memory",
                error,
            )
            raise

    def total(
        self, *, service: str | None = None, since: float = 0.0, uncertain: bool = False
    ) -> int:
        """Credits spent for sure (or, with uncertain=True, those that may have been: a call
        whose answer was lost, or one in flight when its process died)."""
        with self._lock:
            self._write(self._settle_lapsed)
        query = "SELECT COALESCE(SUM(credits), 0) FROM spend WHERE at >= ? AND uncertain = ?"
        args: list[Any] = [since, int(uncertain)]
        if service is not None:
            query += " AND service = ?"
            args.append(service)
        with self._lock:
            return int(self._db.execute(query, args).fetchone()[0])

    def told_in(self, team: str, machine: str, period: str) -> ToldTeam:
        """What this machine told the `team` it spent in the `period` (`Told`), sure and
        maybe, and the calls of it being told or not told (one snapshot: a call's spend and
        its being told are written together)."""
        where, args = "team = ? AND machine = ? AND period = ?", (team, machine, period)
        with self._lock:
            self._db.execute("BEGIN")
            try:
                found = self._db.execute(f"SELECT sure, maybe FROM told WHERE {where}", args)
                sure, maybe = found.fetchone() or (0, 0)
                telling = self._db.execute(
                    f"SELECT id, credits, until, holds FROM telling WHERE {where}", args
                ).fetchall()
            finally:
                self._db.execute("COMMIT")
        now = self.clock()
        return ToldTeam(
            Charge(sure=int(sure), maybe=int(maybe)),
            tuple(
                Telling(int(name), int(credits), until > now, _ids(holds))
                for name, credits, until, holds in telling
            ),
        )

    def told_done(self, told: Told, counted: bool) -> None:
        """The team's store was told the call's spend (`counted`), or failed to be: no longer
        being told (one not counted is known with the holds the store may have for it, until
        TELLING_KEPT). A ledger that fails leaves it to its lease, as being told."""
        if told.telling is None:
            return
        change = (
            "DELETE FROM telling WHERE id = ?"
            if counted
            else "UPDATE telling SET until = 0 WHERE id = ?"
        )
        try:
            with self._lock:
                self._db.execute(change, (told.telling,))
        except sqlite3.Error as error:
            LOG.warning("the ledger %s: %s", self.path or "in memory", error)

    def reserve_within(
        self,
        cap: SpendingCap,
        service: str,
        credits: int,
        endpoint: str,
        lease: float,
        key: str = "",
        drawing_on: int | None = None,
        call: str = "",
    ) -> int:
        """Reserve `credits` under the spending cap of every process sharing this ledger, or
        raise the BudgetExceeded of `spend.cap_refusal` (which decides, from what was spent in
        the cap's period, for sure or maybe, and what is reserved). One write transaction
        (SQLite's lock makes it atomic across processes). A reservation not released within
        `lease` seconds (its process died with the call in flight) is then recorded as spent,
        uncertain. `drawing_on`: credits set aside (`set_aside`) whose room the call takes
        first (a page of a search's results), renewed.
        Returns the reservation, to `release` once the call is recorded."""

        def reserve(now: float) -> int:
            self._settle_lapsed(now)
            use = self._use(cap, service, now, drawing_on)
            refused = cap_refusal(use, credits, endpoint)
            if refused is not None:
                raise refused
            source = drawing_on if self._renew_aside(drawing_on, now) else None
            return self._insert_hold(
                now, service, credits, endpoint, lease, key, source=source, call=call
            )

        with self._lock:
            held: int = self._write(reserve)
        return held

    def _use(
        self, cap: SpendingCap, service: str, now: float, drawing_on: int | None = None
    ) -> CapUse:
        """What the ledger holds against the cap at `now` (spent in its period, for sure or
        maybe; held by calls under way; set aside), and the room left of the credits set aside
        as `drawing_on` for a call drawing on them: the spend policy counts (`spend`)."""
        since = cap.since(now)
        (spent,) = self._db.execute(
            "SELECT COALESCE(SUM(credits), 0) FROM spend WHERE at >= ? AND service = ?",
            (since, service),
        ).fetchone()
        holds = [
            HeldCall(credits, until > now, (at if at is not None else until) >= since, source)
            for credits, until, at, source in self._db.execute(
                "SELECT credits, until, at, CAST(source AS TEXT) FROM reserved WHERE service = ?",
                (service,),
            )
        ]
        asides = dict(
            self._db.execute(
                "SELECT CAST(id AS TEXT), credits FROM aside WHERE service = ? AND until > ?",
                (service, now),
            ).fetchall()
        )
        drawn = None if drawing_on is None else str(drawing_on)
        held = reserved_under_cap(holds, asides, drawn)
        used = int(spent) + held.credits
        unknown = next(
            (str(it) for at, it in reversed(self.unreadable) if at >= since and it.exists()), None
        )
        return CapUse(
            cap.credits,
            cap.said,
            used,
            drawable=held.drawable,
            aside=held.aside,
            unknown=unknown,
            renews=cap.renews,
        )

    def set_aside(self, cap: SpendingCap, service: str, credits: int, label: str) -> int:
        """Set `credits` aside under the spending cap for calls to come (a search's results,
        paid page by page once it is done; `label` says what for, in the cap's refusal), or
        raise the cap's BudgetExceeded: every process counts them as held, so that none spends
        their room meanwhile. The calls that draw on them (`reserve_within(drawing_on=...)`)
        take their room first, and what they charge comes off it (`settle(aside=...)`);
        `give_back` ends them. Unrenewed for ASIDE_LEASE seconds (`renew`), they go, as
        nothing spent. Returns their id."""

        def reserve(now: float) -> int:
            self._settle_lapsed(now)
            refused = cap_refusal(self._use(cap, service, now), credits, label)
            if refused is not None:
                raise refused
            made = secrets.randbits(62)
            self._db.execute(
                "INSERT INTO aside (id, until, service, credits, at, label) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (made, now + ASIDE_LEASE, service, credits, now, label),
            )
            return made

        with self._lock:
            made: int = self._write(reserve)
        return made

    def rename_aside(self, aside: int, name: int) -> None:
        """Give credits set aside another id (the one their search's request id makes), so
        that whoever reads that search later draws on them and gives them back."""
        with self._lock:
            self._write(
                lambda _: self._db.execute(
                    "UPDATE OR REPLACE aside SET id = ? WHERE id = ?", (name, aside)
                )
            )

    def renew(self, aside: int) -> bool:
        """Keep credits set aside (`set_aside`) for ASIDE_LEASE seconds more from now; whether
        they still were."""
        with self._lock:
            renewed: bool = self._write(lambda now: self._renew_aside(aside, now))
        return renewed

    def _renew_aside(self, aside: int | None, now: float) -> bool:
        """Renew credits set aside, if they still are (whether they are)."""
        if aside is None:
            return False
        return bool(
            self._db.execute(
                "UPDATE aside SET until = ? WHERE id = ? AND until > ?",
                (now + ASIDE_LEASE, aside, now),
            ).rowcount
        )

    def _charge_aside(self, aside: int, charge: Charge, now: float) -> None:
        """Take what a call drawing on credits set aside charged off their room."""
        found = self._db.execute(
            "SELECT credits FROM aside WHERE id = ? AND until > ?", (aside, now)
        ).fetchone()
        if found is not None:
            self._db.execute(
                "UPDATE aside SET credits = ?, until = ? WHERE id = ?",
                (room_after(int(found[0]), charge), now + ASIDE_LEASE, aside),
            )

    def give_back(self, aside: int) -> None:
        """End credits set aside: their room is the cap's again."""
        with contextlib.suppress(sqlite3.Error), self._lock:
            self._write(lambda _: self._db.execute("DELETE FROM aside WHERE id = ?", (aside,)))

    def hold(
        self,
        service: str,
        credits: int,
        endpoint: str,
        lease: float,
        key: str,
        held: int | None = None,
        call: str = "",
    ) -> int:
        """Hold `credits` for a call under way with no cap to check (none is set, or the
        team's Redis checked it: `held` is its reservation), so that a process that dies
        with the call in flight leaves it here, as possibly spent once `lease` passes.
        Returns the reservation, to drop when the call settles."""
        with self._lock:
            now = self.clock()
            return self._insert_hold(now, service, credits, endpoint, lease, key, held, call=call)

    def _insert_hold(
        self,
        now: float,
        service: str,
        credits: int,
        endpoint: str,
        lease: float,
        key: str,
        held: int | None = None,
        source: int | None = None,
        call: str = "",
    ) -> int:
        # A random id (never one a dropped reservation had: a call that outlived its lease
        # drops its own, not another's that took its number).
        held = secrets.randbits(62) if held is None else held
        self._db.execute(
            "INSERT INTO reserved (id, until, service, credits, at, key, endpoint, source, call) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (held, now + lease, service, credits, now, key, endpoint, source, call or None),
        )
        return held

    def cap_failure(self, error: BaseException) -> str:
        """Why nothing more is bought when the ledger failed the spending cap."""
        return f"the ledger could not hold the spending cap ({self.reason(error)})"

    def record_failure(self, error: BaseException) -> str:
        """Why nothing more is bought when the ledger failed to count a call's spend."""
        return f"the ledger could not count the spend ({self.reason(error)})"

    def hold_failure(self, error: BaseException) -> str:
        """Why nothing more is bought when the ledger could not hold a call under way (no cap
        set: a process killed mid-call would leave no trace of it)."""
        return f"the ledger could not hold the call under way ({self.reason(error)})"

    def reason(self, error: BaseException) -> str:
        """`error` as a stop says it. A ledger found damaged inside (`database disk image is
        malformed`, in pages its open did not read) is marked so: the next open sets it aside
        and starts a new one, as one found damaged at open is, rather than every run failing
        on it."""
        damaged = isinstance(error, sqlite3.DatabaseError) and not isinstance(
            error, sqlite3.OperationalError
        )
        if not damaged or self.path is None:
            return str(error)
        wal.mark_damaged(self.path, str(error))
        return f"{error}; it is damaged: the next run sets it aside and starts a new one"

    def release(self, reservation: int) -> None:
        """Drop a reservation (its call is recorded, or was never sent)."""
        with contextlib.suppress(sqlite3.Error), self._lock:
            self._write(lambda _: self._drop([reservation]))

    def in_flight(self, service: str) -> int:
        """Credits reserved now by calls under way, in every process (those of a process that
        died count as possibly spent once their lease has passed)."""
        return self.holds(service).credits

    def holds(self, service: str) -> Holds:
        """The calls under way in every process: their credits, and when the last lease ends
        (those of a process that died are settled as possibly spent first)."""
        with self._lock:
            self._write(self._settle_lapsed)
            credits, until = self._db.execute(
                "SELECT COALESCE(SUM(credits), 0), MAX(until) FROM reserved WHERE service = ?",
                (service,),
            ).fetchone()
            aside, aside_until = self._db.execute(
                "SELECT COALESCE(SUM(credits), 0), MAX(until) FROM aside WHERE service = ?",
                (service,),
            ).fetchone()
        return Holds(int(credits), until, aside=int(aside), aside_until=aside_until)

    def in_doubt(self, service: str, call: str, within: float) -> InDoubt | None:
        """The call `call` (a job's start, by its key) sent in the last `within` seconds with
        no answer recorded after: held by a call under way or a process that died with it,
        or settled as possibly charged, and not charged for sure since. None: none such."""
        with self._lock:
            since = self._write(self._settle_lapsed_at) - within
            (answered,) = self._db.execute(
                "SELECT MAX(at) FROM spend WHERE service = ? AND call = ? AND uncertain = 0",
                (service, call),
            ).fetchone()
            after = max(since, answered if answered is not None else since)
            credits, first, times = self._db.execute(
                "SELECT COALESCE(SUM(credits), 0), MIN(at), COUNT(*) FROM ("
                " SELECT credits, at FROM spend"
                "  WHERE service = ? AND call = ? AND uncertain = 1 AND at > ?"
                " UNION ALL SELECT credits, at FROM reserved"
                "  WHERE service = ? AND call = ? AND at > ?)",
                (service, call, after, service, call, after),
            ).fetchone()
        return InDoubt(int(credits), first, times) if first is not None else None

    def cap_use(self, cap: SpendingCap, service: str, drawing_on: int | None = None) -> CapUse:
        """What the ledger holds against the spending cap now (spent in its period, reserved;
        what is left of the credits set aside as `drawing_on`), its reads in one snapshot (a
        read transaction): a settle moving credits from held to spent meanwhile is seen before
        or after, never half."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                return self._use(cap, service, self.clock(), drawing_on)
            finally:
                self._db.execute("COMMIT")

    def by_endpoint_and_day(self, *, service: str | None = None) -> SpendTable:
        """The calls and their credits (sure, possibly) by endpoint and day (UTC); a killed
        process's calls whose lease has passed among them."""
        with self._lock:
            self._write(self._settle_lapsed)
        query = (
            "SELECT endpoint, date(at, 'unixepoch') AS day, COUNT(*),"
            " SUM(CASE WHEN uncertain = 0 THEN credits ELSE 0 END),"
            " SUM(CASE WHEN uncertain = 0 THEN 0 ELSE credits END) FROM spend"
            + (" WHERE service = ?" if service else "")
            + " GROUP BY endpoint, day ORDER BY day, endpoint"
        )
        with self._lock:
            rows = self._db.execute(query, [service] if service else []).fetchall()
        return SpendTable(Spend(*row) for row in rows)

    def saw(self, team: str, period: str, key: str, epoch: str, counts: str) -> None:
        """Keep what this machine last read of the other machines' spend in the `team`'s
        store for a `period` of its cap (under `key`, in the store's `epoch`; `counts` as
        JSON): what a store that lost its data is told again by its next process too."""
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO seen VALUES (?, ?, ?, ?, ?, ?)",
                (team, period, key, epoch, counts, self.clock()),
            )

    def seen_by(self, team: str) -> list[tuple[str, str, str, str]]:
        """What `saw` kept for the `team`, by period: (period, key, epoch, counts), the
        latest last."""
        with self._lock:
            found = self._db.execute(
                "SELECT period, key, epoch, counts FROM seen WHERE team = ? ORDER BY at", (team,)
            )
            return [(str(a), str(b), str(c), str(d)) for a, b, c, d in found.fetchall()]

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _ids(listed: str) -> frozenset[int]:
    """The reservations a `telling` row lists (`1,2`)."""
    return frozenset(int(it) for it in listed.split(",") if it)


def _open_file(path: Path) -> None:
    """Make the ledger file ready, never restarting the spend history without a word.

    A new ledger is made whole in a file of its own and linked into place, so that a ledger
    of 0 bytes is never one being made: it was emptied, and that is said. One SQLite cannot
    read is set aside (`<name>.unreadable-<time>-<pid>`, kept for a look) and a new one started,
    which is said too (decisions #134): what was spent is the service's to tell then, and
    calls go on being counted.
    """
    if not path.exists():
        _create(path)
    elif (found := path.stat()).st_size == 0:
        aside = wal.set_aside(path, (found.st_dev, found.st_ino))  # that one, not a new one
        if aside is not None:  # else another process set it aside first, and says so
            LOG.warning(
                "profnet-sheets: the ledger %s was empty (0 bytes): the spend it recorded is "
                f"gone; it is set aside as %s and a new one started: `{command('credits')}` "
                f"counts from now. {_CAP_UNKEPT}",
                clipped(str(path)),
                aside.name,
            )
        _create(path)
    seen = None
    with contextlib.suppress(FileNotFoundError):
        seen = wal.identity(path)  # the file found wanting, not one made meanwhile
    reason = wal.damage_marked(path)  # damaged in pages an earlier run met (`reason`)
    if reason is None:
        try:
            wal.ensure_wal(path)
            return
        except DamagedFile as damaged:
            reason = damaged.details
    _start_anew(path, reason or "unreadable", seen)


def _start_anew(path: Path, reason: str, seen: tuple[int, int] | None) -> None:
    """Set the ledger at `path` that cannot be read (`reason`) aside (`seen`: that file, not
    one another process made meanwhile) and start a new one, said once."""
    aside = wal.set_aside(path, seen)
    if aside is not None:  # else another process set it aside first, and says so
        LOG.warning(
            "profnet-sheets: the ledger %s could not be read (%s); it is set aside as %s and a "
            f"new one started: `{command('credits')}` counts from now. {_CAP_UNKEPT}",
            clipped(str(path)),
            reason,
            aside.name,
        )
    _create(path)
    wal.ensure_wal(path)


_CAP_UNKEPT = (
    "A spending cap refuses to buy in the period it was set aside in, its spend then unknown, "
    "until that file is deleted."
)


def set_aside_ledgers(path: Path) -> list[tuple[float, Path]]:
    """The ledgers once at `path` that could not be read and were set aside (`_open_file`),
    each with when (unix time), oldest first."""
    found = []
    for aside in path.parent.glob(f"{glob.escape(path.name)}.unreadable-*"):
        # `<time>-<pid>` (`<time>` before decision 568); not its -wal or -shm
        named = re.fullmatch(r"(\d+)(?:-\d+)?", aside.name.rpartition(".unreadable-")[2])
        if named is not None:
            found.append((float(named[1]), aside))
    return sorted(found)


def _create(path: Path) -> None:
    """Make an empty ledger at `path` at once (a ledger another process made meanwhile is
    kept)."""
    wal.create(path, _SCHEMA)
