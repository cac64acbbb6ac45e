"""The team's spend on its Redis: the spending cap's reservations and every machine's spend per
day, month and in all, dated by the Redis server's clock (facts gathered for SpendPolicy)."""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import math
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from profnet_sheets.client.ledger import (
    LAPSED_KEPT,
    TELLING_LEASE,
    UNSETTLED,
    Holds,
    InDoubt,
    Ledger,
    SpendTable,
    Told,
    ToldTeam,
)
from profnet_sheets.client.spend import (
    ASIDE_LEASE,
    CapUse,
    Charge,
    HeldCall,
    cap_refusal,
    forgotten_by_team,
    forgotten_of_others,
    reserved_under_cap,
    room_after,
    rooms_after_lapse,
)
from profnet_sheets.config import SpendingCap

LOG = logging.getLogger("profnet_sheets")

# The reservations held (by id: credits, lease end, when, machine, endpoint), and the ids of
# those whose lease ran out.
Held = tuple[dict[str, dict[str, Any]], list[str]]
SURE, MAYBE = "sure", "maybe"  # the two kinds of spend a machine's fields hold
DAYS_SHOWN = 7  # the days the team's view shows, today's included
# How long one reading of the Redis server's clock (TIME) is carried on by this process's
# monotonic clock: a round trip saved on each call's hold and settle, a drift of parts per
# million over it.
SERVER_CLOCK_FOR = 60.0
TEAM_ROW = "(every machine)"  # the name of a day's or period's total row
SEEN_KEPT_EVERY = 1.0  # seconds between two writes of what was seen of the others' spend


@dataclass(frozen=True)
class Seen:
    """What a process last read of the other machines' spend in a period of its cap: the
    period's key, the counts, and the team's Redis's epoch then (`TeamLedger.epoch_key`)."""

    key: str
    counts: dict[str, Charge]  # by machine
    epoch: str


@dataclass(frozen=True)
class MachineSpend:
    """What one machine spent in one day or period, for sure and maybe."""

    period: str  # `2025-05-17`, `2025-05`, `in all`
    machine: str
    sure: int
    maybe: int

    def line(self, width: int = 24) -> str:
        """The row, its machine's name `width` wide."""
        line = f"{self.period:10}  {self.machine:{width}} {self.sure:>8}"
        return line + (f" {self.maybe:>9}" if self.maybe else "")


class TeamSpendTable(list[MachineSpend]):
    """The team's spend by day and period and by machine: a list of MachineSpend shown as a
    table of credits (a `possibly` column when some possibly were spent)."""

    EMPTY = "No credits spent yet."

    def lines(self) -> list[str]:
        if not self:
            return [self.EMPTY]
        width = max(24, *(len(spend.machine) for spend in self))  # names go up to 64
        maybe = any(spend.maybe for spend in self)
        header = f"{'period':10}  {'machine':{width}} {'credits':>8}"
        header += f" {'possibly':>9}" if maybe else ""
        rows = [header]
        for period, group in itertools.groupby(self, key=lambda spend: spend.period):
            spends = list(group)
            rows += [spend.line(width) for spend in spends]
            if len(spends) > 1:  # the team's own total of the day or period
                sure, possibly = sum(it.sure for it in spends), sum(it.maybe for it in spends)
                rows.append(MachineSpend(period, TEAM_ROW, sure, possibly).line(width))
        return rows

    def __str__(self) -> str:
        return "\n".join(self.lines())


def period_keys(moment: float) -> dict[str, str]:
    """The names of the day, the month and the whole that `moment` (unix time) falls in."""
    day = datetime.fromtimestamp(moment, UTC)
    return {"day": day.strftime("%Y-%m-%d"), "month": day.strftime("%Y-%m"), "total": "in all"}


class TeamLedger:
    """The ledger of a team on one Redis: this machine's spend in its own SQLite ledger
    (`local`, what `total` and `by_endpoint_and_day` read), and the team's in Redis, where the
    spending cap's reservations are held for every machine (`reserve_within`, `cap_use`).

    The period a credit counts in is the Redis server's (TIME), never a machine's clock. A
    reservation not released within its lease (its process died) is then counted as spent,
    maybe, in the period it was made in, under its machine's name. Each decision is taken in
    one optimistic transaction (WATCH / MULTI, repeated when another machine wrote meanwhile):
    what Redis holds is read, `spend.cap_refusal` decides, the reservation is written.
    """

    def __init__(
        self,
        local: Ledger,
        connection: Any,
        service: str,
        machine: str,
        where: str,
        clock: Callable[[], float] | None = None,
        cap: SpendingCap | None = None,
    ) -> None:
        import redis

        self.local = local
        self.redis = connection
        self.prefix = f"profnet:team-spend:{service}"
        self.machine = machine
        self.where = where  # the Redis URL, its password masked, for messages
        self.clock = clock  # None: the Redis server's TIME (tests move it on)
        self.cap = cap  # this machine's PROFNET_SPENDING_CAP, told the team as it spends
        self._retold = False  # what Redis forgot of this machine's spend counted there again
        self._server_clock: tuple[float, float] | None = None  # (TIME, monotonic) read then
        self.monotonic: Callable[[], float] = time.monotonic  # what carries TIME on
        # What the cap's period held of other machines' spend when last read here (by period:
        # its key, the counts): told the team again were its Redis to forget (decision 527).
        self._seen: dict[str, Seen] = {}
        self._epoch: str | None = None  # the Redis's epoch as this process last read it
        self._seen_lock = threading.Lock()
        self._seen_loaded = False  # what earlier processes of this machine saw, read
        self._unsaved: dict[str, Seen] = {}  # seen since last kept in this machine's ledger
        self._saved_at = -math.inf  # when it was (this process's monotonic clock)
        self._last_cap: SpendingCap | None = None  # the cap last asked about, read at close
        # Under what this machine's ledger keeps the running totals of what it told this
        # team: the service's, on this Redis (another Redis, another team: not counted there).
        self.told_as = f"{self.prefix}@{where}"
        self.failures: tuple[type[BaseException], ...] = (*local.failures, redis.RedisError)

    @property
    def path(self) -> Path | None:
        return self.local.path

    @property
    def held_key(self) -> str:
        return f"{self.prefix}:held"

    @property
    def aside_key(self) -> str:
        """Credits set aside for searches' results (by id: room, lease end, when, machine,
        what for), apart from the calls' holds: an earlier version neither counts them nor
        settles them as possibly spent."""
        return f"{self.prefix}:aside"

    def spend_key(self, period: str, name: str) -> str:
        return f"{self.prefix}:{period}:{name}"

    @property
    def epoch_key(self) -> str:
        """A token the team's Redis keeps until it loses its data (restarted without
        persistence, flushed): another one than a process read before says the counts it
        read then may be forgotten there (decision 527)."""
        return f"{self.prefix}:epoch"

    @property
    def caps_key(self) -> str:
        return f"{self.prefix}:caps"

    def _tell_cap(self, pipe: Any, now: float, cap: SpendingCap | None) -> int:
        """Queue the cap this machine spends under (none: it spends with none), as of `now`,
        for the team; returns where its result comes in the pipeline's (`_known_there`)."""
        said = {"cap": None if cap is None else str(cap), "at": now}
        pipe.hset(self.caps_key, self.machine, json.dumps(said))
        return len(pipe) - 1

    def _known_there(self, added: Any) -> None:
        """After telling the team this machine's cap: when that added this machine to the
        team's Redis (`added`, HSET's count), it is new there, or a Redis restarted without
        persistence forgot it with the team's spend: what this machine told it is counted
        there again now, for every machine's cap, not at its next command (decision 519). A
        Redis failing meanwhile leaves it to this machine's next reservation."""
        if not added:
            return
        try:
            self._retell_said()
        except self.failures as error:
            self._retold = False
            LOG.debug("the team's Redis %s could not be told again: %s", self.where, error)

    def _retell_once(self) -> bool:
        """Retell (`_retell_said`) at this process's first reservation or hold, and again at
        the next after one failed (what a Redis restarted empty forgot, counted again);
        whether it retold now. Raises Redis's error."""
        if self._retold:
            return False
        self._retell_said()
        self._retold = True
        return True

    def _retell_said(self) -> None:
        """`retell`, said in the log when Redis had forgotten some of this machine's spend."""
        retold = self.retell()
        if retold:
            LOG.warning(
                "profnet-sheets: the team's Redis %s had forgotten %s credit(s) this machine "
                "spent (restarted without persistence?): counted there again, in every "
                "machine's team cap.",
                self.where,
                max(retold.values()),
            )

    def caps(self, days: int = DAYS_SHOWN) -> dict[str, str | None]:
        """The spending cap each machine used in the last `days` days (None: none)."""
        since = self._now(self.redis) - days * 86_400
        found = {
            _text(name): json.loads(value)
            for name, value in self.redis.hgetall(self.caps_key).items()
        }
        return {name: it["cap"] for name, it in sorted(found.items()) if it["at"] >= since}

    def cap_failure(self, error: BaseException) -> str:
        """Why nothing more is bought when the team's Redis (or this machine's own ledger,
        which holds each reservation too) failed the spending cap."""
        if isinstance(error, self.local.failures):
            reason = self.local.reason(error)
            return f"this machine's ledger could not hold the spending cap ({reason})"
        return f"the team's Redis cache {self.where} could not hold the spending cap ({error})"

    def record_failure(self, error: BaseException) -> str:
        """Why nothing more is bought when the team's Redis (or this machine's own ledger)
        failed to count a call's spend."""
        if isinstance(error, self.local.failures):
            return self.local.record_failure(error)
        return f"the team's Redis cache {self.where} could not count the spend ({error})"

    def hold_failure(self, error: BaseException) -> str:
        """Why nothing more is bought when this machine's ledger could not hold a call under
        way (a Redis failing a hold with no cap to keep is not one: the call is held here)."""
        return self.local.hold_failure(error)

    # -- time and what Redis holds ------------------------------------------------------------

    def _now(self, redis: Any) -> float:
        """The Redis server's time (the team's one clock): read with TIME at most every
        SERVER_CLOCK_FOR seconds, carried on by this process's monotonic clock between."""
        if self.clock is not None:
            return self.clock()
        now = self.monotonic()
        read = self._server_clock
        if read is not None and now - read[1] < SERVER_CLOCK_FOR:
            return read[0] + (now - read[1])
        seconds, micros = redis.time()
        self._server_clock = (int(seconds) + int(micros) / 1_000_000, self.monotonic())
        return self._server_clock[0]

    def _held(self, redis: Any, now: float) -> Held:
        """The reservations held (by id), and those whose lease ran out."""
        return _holding(redis.hgetall(self.held_key), now)

    def _spent(self, counted: dict[Any, Any], held: Any, told: ToldTeam) -> int:
        """Spent in a period (sure and maybe), on every machine, from the period's hash
        (`counted`): this machine's share never less than what it told the team (`told`, its
        own ledger's running total) less its settled calls the team still holds (`held`),
        were Redis to forget."""
        total = sum(int(value) for value in counted.values())
        return total + self._forgotten(counted, held, told).total

    def _told(self, period: str, now: float) -> ToldTeam:
        """What this machine told the team it spent in the `period` of `now`, sure and maybe,
        and the calls of it Redis may not count yet (read before the team's Redis)."""
        return self.local.told_in(self.told_as, self.machine, _told_period(period, now))

    def _forgotten(
        self,
        counted: dict[Any, Any],
        held: Any,
        told: ToldTeam,
        told_there: frozenset[int] = frozenset(),
    ) -> Charge:
        """What this machine told the team it spent in a period (`told`) beyond what the
        period's hash (`counted`) holds under its name and its calls Redis is being told (of
        those, the ones `told_there` already are counted), or holds (`held`) for while it was
        not told (each hold settles, or lapses, into the count): `spend.forgotten_by_team`
        decides."""
        mine = {SURE: 0, MAYBE: 0}
        for field, value in counted.items():
            kind, _, machine = _text(field).partition(":")
            if machine == self.machine and kind in mine:
                mine[kind] += int(value)
        standing = {int(name) for name in held}
        telling = sum(
            it.credits
            for it in told.telling
            if (it.live and it.id not in told_there) or it.holds & standing
        )
        counted_here = Charge(sure=mine[SURE], maybe=mine[MAYBE])
        return forgotten_by_team(told.told, counted_here, telling)

    def works(self) -> bool:
        """Whether this machine's ledger takes a row and the team's Redis answers now."""
        try:
            self.redis.ping()
        except self.failures:
            return False
        return self.local.works()

    def retell(self) -> dict[str, int]:
        """Count again in the team's Redis what this machine told it it spent and it forgot
        (a Redis restarted without persistence), in the day, the month and the whole of the
        Redis server's now, so that every machine's cap counts it again; returns the credits
        counted again, by period (none: nothing was forgotten)."""
        retold: dict[str, int] = {}
        # Holds whose lease ran out counted first, as maybe: one standing for a call settled
        # while Redis was down (its note here gone) is then in the count, not told again.
        self.settle_lapsed()

        def attempt(pipe: Any) -> None:
            retold.clear()
            now = self._now(self.redis)
            named = period_keys(now).items()
            keys = {period: self.spend_key(period, name) for period, name in named}
            pipe.watch(self.held_key, *keys.values())
            held, _ = self._held(pipe, now)
            counted = {period: pipe.hgetall(key) for period, key in keys.items()}
            # Read once the counts are watched: a call settled there since aborts this retell
            # (it is asked again), one settled before is in both, its mark says so.
            told = {period: self._told(period, now) for period in keys}
            being = sorted({it.id for one in told.values() for it in one.telling if it.live})
            marks = pipe.mget([self.told_key(it) for it in being]) if being else []
            there = frozenset(it for it, mark in zip(being, marks, strict=True) if mark)
            pipe.multi()
            self._tell_cap(pipe, now, self.cap)  # known there again: `_known_there`
            for period, key in keys.items():
                missing = self._forgotten(counted[period], held, told[period], there)
                for kind, credits in ((SURE, missing.sure), (MAYBE, missing.maybe)):
                    if credits:
                        pipe.hincrby(key, f"{kind}:{self.machine}", credits)
                if missing.total:
                    retold[period] = missing.total

        self.redis.transaction(attempt)
        return retold

    def _period_key(self, cap: SpendingCap, now: float) -> str:
        return self.spend_key(cap.period, period_keys(now)[cap.period])

    def told_key(self, telling: int) -> str:
        """Where a call's spend, once counted here, is marked so while its machine's ledger
        may still note it as being told (TELLING_LEASE)."""
        return f"{self.prefix}:told:{telling}"

    def doubt_key(self, call: str) -> str:
        """The team's starts of the job `call` (a search) left in doubt (a hold that lapsed,
        an answer lost), by reservation or telling id: {at, credits}; gone once one of them
        is charged for sure (`in_doubt`)."""
        return f"{self.prefix}:doubt:{call}"

    def _queue_doubt(self, pipe: Any, call: str, name: str, at: float, credits: int) -> None:
        pipe.hset(self.doubt_key(call), name, json.dumps({"at": at, "credits": credits}))
        pipe.expire(self.doubt_key(call), int(LAPSED_KEPT))

    def lapsed_key(self, reservation: str) -> str:
        """Where a lapsed reservation is kept a while, for its call, were it still alive, to
        settle in its place."""
        return f"{self.prefix}:lapsed:{reservation}"

    def _asides(self, redis: Any, now: float) -> Held:
        """The credits set aside (by id), and those whose lease ran out."""
        return _holding(redis.hgetall(self.aside_key), now)

    def _use(
        self,
        cap: SpendingCap,
        now: float,
        holding: Held,
        spent: int,
        asides: Held,
        drawing_on: int | None = None,
    ) -> CapUse:
        """What the team holds against the cap at `now`: spent in its period (`spent`, sure and
        maybe; holds whose lease ran out, of the period, as maybe), held by calls under way
        (`holding`) and set aside (`asides`), on every machine; and the room left of the
        credits set aside as `drawing_on` for a call drawing on them (`spend` counts)."""
        period = period_keys(now)[cap.period]
        held, lapsed = holding
        holds = [
            HeldCall(
                int(it["credits"]),
                name not in lapsed,
                period_keys(it["at"])[cap.period] == period,
                None if it.get("source") is None else str(it["source"]),
            )
            for name, it in held.items()
        ]
        set_aside, gone = asides
        rooms = {name: int(it["credits"]) for name, it in set_aside.items() if name not in gone}
        drawn = None if drawing_on is None else str(drawing_on)
        under_cap = reserved_under_cap(holds, rooms, drawn)
        used = spent + under_cap.credits
        return CapUse(
            cap.credits,
            cap.said,
            used,
            True,
            under_cap.drawable,
            under_cap.aside,
            renews=cap.renews,
        )

    def _count(self, pipe: Any, moment: float, machine: str, kind: str, credits: int) -> None:
        """Queue `credits` spent by `machine` at `moment` into its day, month and whole."""
        for period, name in period_keys(moment).items():
            pipe.hincrby(self.spend_key(period, name), f"{kind}:{machine}", credits)

    def _settle_lapsed(self, pipe: Any, holding: Held, asides: Held) -> None:
        """Queue the reservations whose lease ran out as spent, maybe, in their own period
        (one that drew on credits set aside taking what it possibly spent off their room),
        and the credits set aside whose lease ran out gone, as nothing spent."""
        found, gone = asides
        if gone:
            pipe.hdel(self.aside_key, *gone)
        held, lapsed = holding
        for name in lapsed:
            it = held[name]
            self._count(pipe, it["at"], it["machine"], MAYBE, it["credits"])
            if it.get("call"):
                self._queue_doubt(pipe, it["call"], name, it["at"], int(it["credits"]))
            pipe.hdel(self.held_key, name)
            pipe.set(self.lapsed_key(name), json.dumps(it), ex=int(LAPSED_KEPT))
        rooms = {name: int(it["credits"]) for name, it in found.items() if name not in gone}
        drawn = [
            HeldCall(int(held[name]["credits"]), False, True, str(held[name]["source"]))
            for name in lapsed
            if held[name].get("source") is not None
        ]
        for name, room in rooms_after_lapse(rooms, drawn).items():
            if room != rooms[name]:
                pipe.hset(self.aside_key, name, json.dumps(found[name] | {"credits": room}))

    def _drop(self, pipe: Any, released: Sequence[int]) -> list[int]:
        """Queue the reservations `released` dropped, and the lapsed ones among them read
        and forgotten (their positions in the transaction's results: `_undo_lapsed`)."""
        if not released:
            return []
        pipe.hdel(self.held_key, *(str(reservation) for reservation in released))
        at = len(pipe)  # the commands queued so far: the results before ours
        for reservation in released:
            pipe.get(self.lapsed_key(str(reservation)))
            pipe.delete(self.lapsed_key(str(reservation)))
        return [at + 2 * n for n in range(len(released))]

    def _undo_lapsed(self, results: list[Any], positions: list[int]) -> None:
        """Take back the possibly spent credits counted for reservations that lapsed while
        their calls were alive (they settled their real cost now)."""
        lapsed = [json.loads(results[at]) for at in positions if results[at] is not None]
        if not lapsed:
            return
        with self.redis.pipeline() as pipe:
            for it in lapsed:
                self._count(pipe, it["at"], it["machine"], MAYBE, -int(it["credits"]))
            pipe.execute()

    # -- the ledger's interface -----------------------------------------------------------------

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
        """Reserve `credits` under the team's spending cap, or raise the BudgetExceeded of
        `spend.cap_refusal`; returns the reservation, to `release` once the call is recorded.
        `drawing_on`: credits set aside (`set_aside`) whose room the call takes first."""
        reservation = secrets.randbits(62)

        def made(now: float, source: int | None) -> tuple[str, str, dict[str, Any]]:
            hold = self._hold(now, credits, endpoint, lease, key, call)
            if source is not None:
                hold["source"] = source
            return self.held_key, str(reservation), hold

        self._reserve(cap, credits, endpoint, made, drawing_on)
        # This machine's own ledger holds it too: a process killed with the call in flight
        # leaves it there as possibly spent, as in the team's (and seen with the Redis down).
        try:
            self.local.hold(service, credits, endpoint, lease, key, reservation, call=call)
        except BaseException:  # not held here: not held at all (the call is not made)
            self.release(reservation)
            raise
        return reservation

    def _hold(
        self, now: float, credits: int, endpoint: str, lease: float, key: str, call: str = ""
    ) -> dict[str, Any]:
        """A call's hold as the team's Redis keeps it, made at `now` (`call`: its key, when
        it starts a job)."""
        hold = {"credits": credits, "until": now + lease, "at": now, "key": key}
        return (
            hold
            | {"machine": self.machine, "endpoint": endpoint or UNSETTLED}
            | ({"call": call} if call else {})
        )

    def set_aside(self, cap: SpendingCap, service: str, credits: int, label: str) -> int:
        """Set `credits` aside under the team's cap for calls to come (see `Ledger.set_aside`),
        in the team's Redis only: a process that dies leaves them to lapse, as nothing spent."""
        aside = secrets.randbits(62)

        def made(now: float, source: int | None) -> tuple[str, str, dict[str, Any]]:
            room = {"credits": credits, "until": now + ASIDE_LEASE, "at": now, "label": label}
            return self.aside_key, str(aside), room | {"machine": self.machine}

        self._reserve(cap, credits, label, made)
        return aside

    def _reserve(
        self,
        cap: SpendingCap,
        credits: int,
        endpoint: str,
        made: Callable[[float, int | None], tuple[str, str, dict[str, Any]]],
        drawing_on: int | None = None,
    ) -> None:
        """Write what `made(now, source)` gives (a hash, a field, its value) once the cap has
        room for `credits`, in one optimistic transaction (WATCH / MULTI, repeated when another
        machine wrote meanwhile); raise the cap's BudgetExceeded otherwise. `source`: the
        credits set aside as `drawing_on`, when they still are (renewed)."""
        retold_now = self._retell_once()
        refused = None
        told_at = 0
        restored: dict[str, int] = {}  # the counts written back (by field), and how many more
        more = 0
        seen: Seen | None = None
        new_epoch = False

        def attempt(pipe: Any) -> None:
            nonlocal refused, told_at, restored, more, seen, new_epoch
            now = self._now(self.redis)  # before the watch: one WATCH for every key
            told = self._told(cap.period, now)  # this machine's ledger, not in the watch
            period_key = self._period_key(cap, now)
            pipe.watch(self.held_key, self.aside_key, period_key, self.epoch_key)
            # Read on the watched connection, not on a second one from the pool: 64 threads
            # holding a watch and waiting for another connection would wait for each other.
            holding, asides = self._held(pipe, now), self._asides(pipe, now)
            found = pipe.hgetall(period_key)
            counted, restored, seen, epoch = self._with_seen(pipe, cap.period, period_key, found)
            spent = self._spent(counted, holding[0], told)
            use = self._use(cap, now, holding, spent, asides, drawing_on)
            refused = cap_refusal(use, credits, endpoint)
            pipe.multi()
            more = self._queue_restored(pipe, period_key, found, restored, seen, epoch)
            new_epoch = epoch is None
            self._settle_lapsed(pipe, holding, asides)
            told_at = self._tell_cap(pipe, now, cap)
            if refused is not None:
                return
            live = _live(asides, drawing_on)
            if live is not None:
                renewed = live | {"until": now + ASIDE_LEASE}
                pipe.hset(self.aside_key, str(drawing_on), json.dumps(renewed))
            key, field, value = made(now, None if live is None else drawing_on)
            pipe.hset(key, field, json.dumps(value))

        results = self.redis.transaction(attempt)
        self._last_cap = cap
        if seen is not None:
            self._remember(cap.period, seen, bool(restored))
        self._said_restored(more, new_epoch)
        if not retold_now:  # a new machine's first call: told a moment ago
            self._known_there(results[told_at])
        if refused is not None:
            raise refused

    def _queue_restored(
        self,
        pipe: Any,
        key: str,
        found: dict[Any, Any],
        restored: dict[str, int],
        seen: Seen,
        epoch: str | None,
    ) -> int:
        """Queue, in a MULTI whose reads were watched, the counts `restored` under `key` (a
        period's spend as `found`) and a new epoch when the Redis had none; how many credits
        they add."""
        if epoch is None:  # new, or its data lost: a new epoch from here
            pipe.set(self.epoch_key, seen.epoch)
        for name, credits in restored.items():
            pipe.hset(key, name, credits)
        held_there = {_text(name): int(value) for name, value in found.items()}
        return sum(it - held_there.get(name, 0) for name, it in restored.items())

    def _said_restored(self, more: int, new_epoch: bool) -> None:
        """The warning of `more` credits other machines spent counted again in the Redis, or,
        when it had no epoch and nothing was counted again (`new_epoch`), that what the others
        spent before is unknown here."""
        if more:
            LOG.warning(
                "profnet-sheets: the team's Redis %s had forgotten %s credit(s) other machines "
                "spent (restarted without persistence?): counted there again, as this machine "
                "last saw them.",
                self.where,
                more,
            )
        elif new_epoch:
            LOG.warning(
                "profnet-sheets: the team's Redis %s held no count of the team's spend (a new "
                "team, or a Redis that lost its data): it counts from now. Spend of other "
                "machines that this machine never saw is counted under the team cap again once "
                "a machine that saw it runs.",
                self.where,
            )

    def _write_back(self, cap: SpendingCap) -> None:
        """Count again in the Redis what it forgot of the other machines' spend in the cap's
        period, as this process last saw it (`_with_seen`), with no reservation: what a
        refusal found is then the team's count too, not only this process's."""
        restored: dict[str, int] = {}
        more = 0
        seen: Seen | None = None
        new_epoch = False

        def attempt(pipe: Any) -> None:
            nonlocal restored, more, seen, new_epoch
            period_key = self._period_key(cap, self._now(self.redis))
            pipe.watch(period_key, self.epoch_key)
            found = pipe.hgetall(period_key)
            _, restored, seen, epoch = self._with_seen(pipe, cap.period, period_key, found)
            pipe.multi()
            more = self._queue_restored(pipe, period_key, found, restored, seen, epoch)
            new_epoch = epoch is None

        self.redis.transaction(attempt)
        if seen is not None:
            self._remember(cap.period, seen, bool(restored))
        self._said_restored(more, new_epoch)

    def _with_seen(
        self, pipe: Any, period: str, key: str, found: dict[Any, Any]
    ) -> tuple[dict[str, int], dict[str, int], Seen, str | None]:
        """`_with_lost` on what `pipe` read under WATCH (`found`, a `period`'s spend under
        `key`), and what to remember as seen now with the Redis's epoch (None: it has none, a
        new one is in the Seen). The epoch is read, and watched, only for a process's first
        counts and when a count is lower than seen (`_lower`)."""
        counted = {_text(name): int(value) for name, value in found.items()}
        self._load_seen()
        with self._seen_lock:
            epoch = self._epoch
        there = epoch
        lower = self._lower(period, key, counted)
        if epoch is None or lower:
            pipe.watch(self.epoch_key)
            there = _epoch(pipe.get(self.epoch_key))
        merged, restored = self._with_lost(period, key, counted, there, lower)
        others = self._others(merged)
        return merged, restored, Seen(key, others, there or secrets.token_hex(8)), there

    def _others(self, counted: dict[str, int]) -> dict[str, Charge]:
        """The other machines' spend in a period's counts (by field), by machine."""
        spends: dict[str, Charge] = {}
        for name, credits in counted.items():
            kind, _, machine = name.partition(":")
            if machine == self.machine or kind not in (SURE, MAYBE):
                continue
            was = spends.get(machine, Charge())
            sure, maybe = (credits, 0) if kind == SURE else (0, credits)
            spends[machine] = Charge(sure=was.sure + sure, maybe=was.maybe + maybe)
        return spends

    def _lower(self, period: str, key: str, counted: dict[str, int]) -> dict[str, int]:
        """The counts (by field) that make up the other machines' spend this process last
        read under `key` beyond `counted` (`spend.forgotten_of_others`)."""
        with self._seen_lock:
            before = self._seen.get(period)
        if before is None or before.key != key:
            return {}
        now = self._others(counted)
        fields: dict[str, int] = {}
        for machine, missing in forgotten_of_others(now, before.counts).items():
            was = now.get(machine, Charge())
            for kind, credits, held in (
                (SURE, missing.sure, was.sure),
                (MAYBE, missing.maybe, was.maybe),
            ):
                if credits:
                    fields[f"{kind}:{machine}"] = held + credits
        return fields

    def _with_lost(
        self,
        period: str,
        key: str,
        counted: dict[str, int],
        there: str | None,
        lower: dict[str, int] | None = None,
    ) -> tuple[dict[str, int], dict[str, int]]:
        """`counted` (a `period`'s spend under `key`) with the other machines' counts this
        process read there before above them, when the Redis's epoch is not the one it read
        them in (`there`; None: none, its data lost): forgotten, counted again; and those
        counts alone. In the same epoch a count is lower only when a lapsed hold's maybe was
        taken back (its call settled after all). `lower`: `_lower` of these, when known."""
        self._load_seen()
        with self._seen_lock:
            before = self._seen.get(period)
        if lower is None:
            lower = self._lower(period, key, counted)
        lost = before is not None and (there is None or there != before.epoch)
        restored = lower if lost else {}
        return counted | restored, restored

    def _remember(self, period: str, seen: Seen, restored: bool) -> None:
        """`seen` as what this process last read of a `period`, kept in this machine's ledger
        too at most every SEEN_KEPT_EVERY seconds (at once when it told Redis again what it
        had forgotten; what is left at `close`): a command run after a Redis restart tells
        it again as a process that stayed up does."""
        with self._seen_lock:
            self._seen[period], self._epoch = seen, seen.epoch
            self._unsaved[period] = seen
            due = restored or self.monotonic() - self._saved_at >= SEEN_KEPT_EVERY
        if due:
            self._keep_seen()

    def _keep_seen(self) -> None:
        """What was seen since last kept, in this machine's ledger (`Ledger.saw`)."""
        with self._seen_lock:
            unsaved, self._unsaved = self._unsaved, {}
            self._saved_at = self.monotonic()
        for period, seen in unsaved.items():
            counts = {machine: [it.sure, it.maybe] for machine, it in seen.counts.items()}
            try:
                self.local.saw(self.told_as, period, seen.key, seen.epoch, json.dumps(counts))
            except self.local.failures as error:
                LOG.debug("the ledger %s could not keep what was seen: %s", self.path, error)

    def _load_seen(self) -> None:
        """What this machine's earlier processes last saw of the others (`Ledger.seen_by`),
        read once, under what this process has seen itself."""
        with self._seen_lock:
            if self._seen_loaded:
                return
            self._seen_loaded = True
        try:
            rows = self.local.seen_by(self.told_as)
        except self.local.failures:
            return
        with self._seen_lock:
            for period, key, epoch, counts in rows:
                charges = {
                    machine: Charge(sure=int(sure), maybe=int(maybe))
                    for machine, (sure, maybe) in json.loads(counts).items()
                }
                # Its own epoch: this process reads the Redis's at its first reservation.
                self._seen.setdefault(period, Seen(key, charges, epoch))

    def rename_aside(self, aside: int, name: int) -> None:
        """Give credits set aside another id (see `Ledger.rename_aside`)."""

        def attempt(pipe: Any) -> None:
            pipe.watch(self.aside_key)
            found = pipe.hget(self.aside_key, str(aside))
            pipe.multi()
            if found is not None:
                pipe.hdel(self.aside_key, str(aside))
                pipe.hset(self.aside_key, str(name), found)

        self.redis.transaction(attempt)

    def renew(self, aside: int) -> bool:
        """Keep credits set aside (`set_aside`) for ASIDE_LEASE seconds more from now; whether
        they still were."""
        found = False

        def attempt(pipe: Any) -> None:
            nonlocal found
            now = self._now(self.redis)
            pipe.watch(self.aside_key)
            live = _live(self._asides(pipe, now), aside)
            found = live is not None
            pipe.multi()
            if live is not None:
                pipe.hset(
                    self.aside_key, str(aside), json.dumps(live | {"until": now + ASIDE_LEASE})
                )

        self.redis.transaction(attempt)
        return found

    def give_back(self, aside: int) -> None:
        """End credits set aside: their room is the team cap's again (a Redis gone leaves
        them to lapse, as nothing spent)."""
        with contextlib.suppress(*self.failures):
            self.redis.hdel(self.aside_key, str(aside))

    def hold(
        self, service: str, credits: int, endpoint: str, lease: float, key: str, call: str = ""
    ) -> int:
        """Hold `credits` for a call under way with no cap to check: in the team's Redis, as
        under a cap (every machine's team cap counts it; its spend, settled here first, is
        not counted again there meanwhile), and in this machine's ledger. A Redis that fails
        leaves it held here only: no cap to keep, the call is made."""
        reservation = secrets.randbits(62)
        with contextlib.suppress(*self.failures):
            retold_now = self._retell_once()
            now = self._now(self.redis)
            hold = self._hold(now, credits, endpoint, lease, key, call)
            with self.redis.pipeline(transaction=False) as pipe:
                pipe.hset(self.held_key, str(reservation), json.dumps(hold))
                told_at = self._tell_cap(pipe, now, self.cap)
                results = pipe.execute()
            if not retold_now:
                self._known_there(results[told_at])
        try:
            return self.local.hold(service, credits, endpoint, lease, key, reservation, call=call)
        except BaseException:  # not held here: not held at all (the call is not made)
            self.release(reservation)
            raise

    def release(self, reservation: int) -> None:
        """Drop a reservation (its call is recorded, or was never sent). A Redis gone keeps
        it until its lease runs out: it then counts as maybe spent, never as nothing."""
        self.local.release(reservation)
        with contextlib.suppress(*self.failures), self.redis.pipeline() as pipe:
            positions = self._drop(pipe, [reservation])
            self._undo_lapsed(pipe.execute(), positions)

    def record(
        self,
        service: str,
        key: str,
        endpoint: str,
        credits: int,
        items: int | None,
        uncertain: bool = False,
    ) -> None:
        """Note credits spent in this machine's ledger, then in the team's (see `settle`)."""
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
        call: str = "",
    ) -> None:
        """Note what a call charged and drop its reservations `released`: in this machine's
        ledger, then in the team's in one MULTI/EXEC (no machine sees the credits both spent
        and held). Raises Redis's error when that fails: the spend is this machine's to tell,
        the cap no longer holds, and the team's reservations count as possibly spent once
        their lease runs out. `aside`: the credits set aside the call drew on, whose room what
        it charged then takes."""
        try:
            counted_at = self._now(self.redis)
        except self.failures:  # a Redis gone: the spend is kept here first, then its error
            # Dated by this machine's clock (minutes off at most), to be told again (`retell`)
            # should the Redis come back without the hold that stands for it.
            periods = _told_periods(self.local.clock())
            told = Told(self.told_as, self.machine, periods, secrets.randbits(62))
            self.local.settle(service, key, endpoint, charge, released, told=told, call=call)
            self.local.told_done(told, counted=False)
            raise  # asked once: a Redis that hangs is waited for once
        # Noted here first, as being told: a retell meanwhile does not count it again.
        telling = secrets.randbits(62)
        told = Told(self.told_as, self.machine, _told_periods(counted_at), telling)
        unkept: BaseException | None = None
        try:
            self.local.settle(service, key, endpoint, charge, released, told=told, call=call)
        except self.local.failures as error:  # the team's count still takes it; raised after
            unkept = error
        positions: list[int] = []
        told_at = 0

        def attempt(pipe: Any) -> None:
            nonlocal positions, told_at
            live = None
            if aside is not None and charge.total:  # its room, changed in the same MULTI
                pipe.watch(self.aside_key)
                live = _live(self._asides(pipe, counted_at), aside)
            pipe.multi()
            for kind, credits in ((SURE, charge.sure), (MAYBE, charge.maybe)):
                if credits:
                    self._count(pipe, counted_at, self.machine, kind, credits)
            if charge.total:  # counted: a retell before its ledger says so does not subtract it
                pipe.set(self.told_key(telling), 1, ex=int(TELLING_LEASE) + 60)
            positions = self._drop(pipe, released)
            if call and charge.sure:  # started for sure: no longer in doubt, team-wide
                pipe.delete(self.doubt_key(call))
            elif call:  # settled now: a hold of it that lapsed meanwhile is not in doubt too
                if released:
                    pipe.hdel(self.doubt_key(call), *map(str, released))
                if charge.maybe:  # its answer lost: in doubt for every machine
                    self._queue_doubt(pipe, call, str(telling), counted_at, charge.maybe)
            told_at = self._tell_cap(pipe, counted_at, self.cap)
            if live is not None:
                room = {"credits": room_after(int(live["credits"]), charge)}
                pipe.hset(self.aside_key, str(aside), json.dumps(live | room))

        try:
            results = self.redis.transaction(attempt)
        except self.failures:
            self.local.told_done(told, counted=False)
            raise
        self.local.told_done(told, counted=True)
        self._undo_lapsed(results, positions)
        self._known_there(results[told_at])
        if unkept is not None:
            raise unkept

    def cap_use(self, cap: SpendingCap, service: str, drawing_on: int | None = None) -> CapUse:
        """What the team holds against the spending cap now (spent in its period, reserved,
        set aside; the room left of the credits set aside as `drawing_on`), read in one
        MULTI: a settle moving credits from held to spent meanwhile is seen before or after,
        never half."""
        now = self._now(self.redis)
        told = self._told(cap.period, now)
        with self.redis.pipeline() as pipe:
            pipe.hgetall(self.held_key)
            pipe.hgetall(self._period_key(cap, now))
            pipe.hgetall(self.aside_key)
            pipe.hexists(self.caps_key, self.machine)
            pipe.get(self.epoch_key)
            found, spent_by, asides, known, there = pipe.execute()
        # A machine refused by its own cap (its running total counted here) makes no
        # reservation: a Redis that forgot it hears its spend again now, for the others' caps.
        self._known_there(not known)
        holding = _holding(found, now)
        period_key = self._period_key(cap, now)
        counts = {_text(name): int(value) for name, value in spent_by.items()}
        epoch = _epoch(there)
        counted, restored = self._with_lost(cap.period, period_key, counts, epoch)
        if restored:  # told the Redis too, for every machine's cap and view
            with contextlib.suppress(*self.failures):
                self._write_back(cap)
        elif epoch is not None:  # what a refusal read is seen too
            self._remember(cap.period, Seen(period_key, self._others(counted), epoch), False)
        self._last_cap = cap
        spent = self._spent(counted, holding[0], told)
        return self._use(cap, now, holding, spent, _holding(asides, now), drawing_on)

    def settle_lapsed(self) -> None:
        """Count the reservations whose lease ran out (their process died) as spent, maybe,
        in their own period, on every machine: what a reservation does on its way, done now."""

        def attempt(pipe: Any) -> None:
            now = self._now(self.redis)
            pipe.watch(self.held_key, self.aside_key)
            holding, asides = self._held(pipe, now), self._asides(pipe, now)
            pipe.multi()
            self._settle_lapsed(pipe, holding, asides)

        self.redis.transaction(attempt)

    def in_flight(self, service: str) -> int:
        """Credits held now by calls under way on every machine of the team (those of a
        process that died count as possibly spent once their lease has passed)."""
        return self.holds(service).credits

    def in_doubt(self, service: str, call: str, within: float) -> InDoubt | None:
        """A job's start (`call`) any machine of the team sent in the last `within` seconds
        with no answer kept since (held by a call under way or a process that died with it,
        or settled as possibly charged; the Redis server's clock): `Ledger.in_doubt` for the
        team, or this machine's own ledger's when it knows more (a Redis that failed when the
        start was held or settled, or fails now)."""
        local = self.local.in_doubt(service, call, within)
        try:
            now = self._now(self.redis)
            with self.redis.pipeline(transaction=True) as pipe:  # one snapshot of both
                pipe.hgetall(self.held_key)
                pipe.hgetall(self.doubt_key(call))
                holding, doubts = pipe.execute()
        except self.failures:
            return local
        found = {
            name: it for name, it in _holding(holding, now)[0].items() if it.get("call") == call
        }
        found |= {_text(name): json.loads(value) for name, value in doubts.items()}
        recent = [it for it in found.values() if float(it["at"]) > now - within]
        team = None
        if recent:
            first = min(float(it["at"]) for it in recent)
            team = InDoubt(sum(int(it["credits"]) for it in recent), first, len(recent))
        known = [doubt for doubt in (team, local) if doubt is not None]
        return max(known, key=lambda doubt: (doubt.times, doubt.credits), default=None)

    def holds(self, service: str) -> Holds:
        """The calls under way on every machine of the team: their credits, when the last
        lease ends (the Redis server's clock), and the machines holding them."""
        self.settle_lapsed()
        now = self._now(self.redis)
        held, _ = self._held(self.redis, now)
        found, gone = self._asides(self.redis, now)
        asides = [it for name, it in found.items() if name not in gone]
        return Holds(
            sum(int(it["credits"]) for it in held.values()),
            max((float(it["until"]) for it in held.values()), default=None),
            tuple(sorted({str(it["machine"]) for it in held.values()})),
            aside=sum(int(it["credits"]) for it in asides),
            aside_until=max((float(it["until"]) for it in asides), default=None),
        )

    def unrecorded(self, period: str = "day") -> int:
        """Credits this machine told the team it spent in the current `period` (`day`,
        `month`, `total`: the Redis server's) beyond what the team's Redis counts under its
        name and holds for its settled calls: what `retell` would count again."""
        now = self._now(self.redis)
        told = self._told(period, now)  # before the team's holds: a call held or told
        held, _ = self._held(self.redis, now)
        counted = self.redis.hgetall(self.spend_key(period, period_keys(now)[period]))
        return self._forgotten(counted, held, told).total

    def team_spend(self, days: int = DAYS_SHOWN) -> TeamSpendTable:
        """Each machine's spend in the last `days` days (the server's), this month and in all."""
        self.settle_lapsed()
        now = self._now(self.redis)
        periods = [("day", period_keys(now - back * 86_400)["day"]) for back in range(days)][::-1]
        periods += [("month", period_keys(now)["month"]), ("total", "in all")]
        found = []
        for period, name in periods:
            by_machine: dict[str, dict[str, int]] = {}
            for field, value in self.redis.hgetall(self.spend_key(period, name)).items():
                kind, _, machine = _text(field).partition(":")
                by_machine.setdefault(machine, {SURE: 0, MAYBE: 0})[kind] = int(value)
            found += [
                MachineSpend(name, machine, spend[SURE], spend[MAYBE])
                for machine, spend in sorted(by_machine.items())
            ]
        return TeamSpendTable(found)

    def total(
        self, *, service: str | None = None, since: float = 0.0, uncertain: bool = False
    ) -> int:
        return self.local.total(service=service, since=since, uncertain=uncertain)

    def by_endpoint_and_day(self, *, service: str | None = None) -> SpendTable:
        return self.local.by_endpoint_and_day(service=service)

    def absorb(self, former: Path, service: str) -> int:
        return self.local.absorb(former, service)

    def close(self) -> None:
        if self._last_cap is not None:  # what the others spent by now, seen for next time
            with contextlib.suppress(*self.failures):
                self.cap_use(self._last_cap, "")
        self._keep_seen()
        self.local.close()  # the connection is the store's: it closes it


def _told_period(period: str, now: float) -> str:
    """The name a `period` (`day`, `month`, `total`) of `now` has in a machine's `Told`."""
    return f"{period}:{period_keys(now)[period]}"


def _told_periods(now: float) -> tuple[str, ...]:
    """The names of the day, the month and the whole of `now`, as `Told` keeps them."""
    return tuple(_told_period(period, now) for period in period_keys(now))


def _holding(found: dict[Any, Any], now: float) -> Held:
    """The reservations of the held hash `found` (by id), and those whose lease ran out."""
    held = {_text(name): json.loads(value) for name, value in found.items()}
    return held, [name for name, it in held.items() if it["until"] <= now]


def _live(asides: Held, aside: int | None) -> dict[str, Any] | None:
    """The credits set aside as `aside`, while their lease runs (None: gone, or lapsed)."""
    found, gone = asides
    name = None if aside is None else str(aside)
    return None if name is None or name not in found or name in gone else found[name]


def _epoch(read: bytes | str | None) -> str | None:
    """A team's Redis epoch as read (None: it has none)."""
    return None if read is None else _text(read)


def _text(name: bytes | str) -> str:
    """A hash field's name as text (redis-py gives bytes unless told to decode)."""
    return name.decode() if isinstance(name, bytes) else name
