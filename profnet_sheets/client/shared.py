"""What every view of one client shares: the store, the transport, the memo, the ledger, and the
spend policy, driven here with threads: asked under one lock, what it decides done on the
ledger (the cap's reservations, the spend recorded), the stops said in the log when new."""

from __future__ import annotations

import contextlib
import hashlib
import logging
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from profnet_sheets.client.account import former_service_name, service_name
from profnet_sheets.client.cache import CachePolicy
from profnet_sheets.client.embedded import SANDBOX_KEY, embedded_base_url
from profnet_sheets.client.ledger import Ledger
from profnet_sheets.client.memo import MemoCache
from profnet_sheets.client.pace_redis import RedisPaceBoard
from profnet_sheets.client.policy import longest_call
from profnet_sheets.client.spend import (
    Attempt,
    Budget,
    BudgetAside,
    CapUse,
    Charge,
    Quote,
    RunStopKind,
    SpendPolicy,
    StopCause,
    cap_refusal,
)
from profnet_sheets.client.store import AnswerStore
from profnet_sheets.client.team_ledger import TeamLedger
from profnet_sheets.client.transport import Transport
from profnet_sheets.config import ApiKey, Settings, unusable_cache
from profnet_sheets.errors import ConfigurationError, ProfnetError, StoppedBuying
from profnet_sheets.redact import masked_url
from profnet_sheets.spec import Endpoint
from profnet_sheets.words import command

# Where the stops are logged: a front end that says each stop itself silences it (the CLI).
STOPS_LOG = logging.getLogger("profnet_sheets.stopped")
LOG = logging.getLogger("profnet_sheets")


class Reservation(NamedTuple):
    """Credits a call holds: in its budget (`drawn` of them from `room`, what a search's
    results have set aside there), and under the cap (`ledger_id`, None: no cap)."""

    credits: int
    ledger_id: int | None
    drawn: int = 0
    room: BudgetAside | None = None  # itself: settled by it even once given back


class Shared:
    """The parts of one client its views share; the spend policy is asked under `lock`."""

    def __init__(self, settings: Settings) -> None:
        if settings.uses_sandbox:  # started once the cache is open: none for a Redis down
            base_url, key, service = "", ApiKey(SANDBOX_KEY), "sandbox"
        else:
            if settings.api_key is None:
                raise ConfigurationError(
                    f"A base URL is set but no API key: run `{command('config --api-key ...')}` "
                    "(or set PROFNET_API_KEY, or pass api_key)."
                )
            if settings.base_url is None:
                raise ConfigurationError(
                    "An API key is set but no base URL of the service: set PROFNET_BASE_URL, or "
                    "pass base_url (the address your provider gives with the key)."
                )
            if settings.api_key.placeholder is not None:
                raise ConfigurationError(
                    f"The API key is {settings.api_key.placeholder.strip()!r}, an example's "
                    "placeholder, not a key: nothing was sent. Set PROFNET_API_KEY (or pass "
                    f"api_key=, or run `{command('config --api-key')}`) to your account's key."
                )
            base_url, key = settings.base_url, settings.api_key  # never revealed here
            service = service_name(base_url)
        self.service = service
        self.api_key = key
        in_memory = settings.cache in ("memory", "off")
        try:
            self.store = AnswerStore(settings, service, key.fingerprint, CachePolicy(settings))
            local = _own_ledger(settings, service, in_memory)
            if local.path is not None and not settings.uses_sandbox:  # an older spelling's
                former = ledger_path(settings, former_service_name(base_url))
                local.absorb(former, service)
            self.ledger: Ledger | TeamLedger = local
            if self.store.redis is not None:  # a team's Redis: its spend and cap held there
                where = masked_url(str(self.store.where))
                self.ledger = TeamLedger(
                    local,
                    self.store.redis,
                    service,
                    settings.machine,
                    where,
                    cap=settings.spending_cap,
                )
        except (OSError, sqlite3.Error) as error:  # no such folder, no right; not a database
            raise unusable_cache(error, settings) from None
        self.base_url = base_url or embedded_base_url(settings)
        self.transport = Transport(settings, self.base_url)
        self.transport.reached = self.count_reached
        if self.store.redis is not None:  # one pace for the team's processes on the key
            prefix = f"profnet-pace:{service}:{key.fingerprint}"  # beside the cache's keys
            self.transport.pace.share_through(RedisPaceBoard(self.store.redis, prefix))
        elif not in_memory:  # processes sharing the cache share the pace learnt (client/pace.py)
            pace_file = f"{service}-{key.fingerprint}-pace.json"
            self.transport.pace.remember_in(settings.cache_dir / pace_file)
        self.settings = settings
        self.memo = MemoCache()
        self.spend = SpendPolicy(settings.prices, masked_url(self.base_url))
        self.budget = Budget(settings.budget)
        self.clock: Callable[[], float] = time.monotonic
        self.lock = threading.Lock()

    def quote(self, credits: int, budget: Budget, drawing_on: int | None = None) -> Quote:
        """What `credits` meets: `budget`, then the spending cap (what the ledger holds; the
        credits set aside as `drawing_on` taken first)."""
        use = self._cap_use(None, drawing_on)
        with self.lock:
            return self.spend.quote(credits, budget, use, self._budget_aside(drawing_on))

    def _budget_aside(self, aside: int | None) -> BudgetAside | None:
        """The room `aside` holds in this process's budgets, if any; under `lock`."""
        return self.spend.aside(aside, self.clock())

    def _cap_use(self, ep: Endpoint | None, drawing_on: int | None = None) -> CapUse | None:
        """What the ledger holds against the spending cap now (None: no cap; `drawing_on`:
        credits set aside the call may take from first); a ledger that cannot say stops
        buying (no silent fallback to a cap of its own)."""
        cap = self.settings.spending_cap
        try:
            return None if cap is None else self.ledger.cap_use(cap, self.service, drawing_on)
        except self.ledger.failures as error:
            raise self.stopped(ep, self.ledger.cap_failure(error), cause="ledger") from None

    def reserve(
        self,
        budget: Budget,
        credits: int,
        ep: Endpoint,
        under_cap: bool = True,
        drawing_on: int | None = None,
        call: str = "",
    ) -> Reservation:
        """Reserve a call's most in `budget`, then (`under_cap`) under the spending cap (taken
        from credits set aside as `drawing_on` first); raises BudgetExceeded, holding
        nothing, when either refuses. `call`: the call's key, kept with its hold when it
        starts a job (`Ledger.in_doubt`)."""
        with self.lock:
            room = self._budget_aside(drawing_on)
            drawn = self.spend.reserve(budget, credits, ep.name, room)
        drew = room if drawn else None
        try:
            if under_cap:
                held = self.hold(credits, ep, drawing_on, call).ledger_id
                return Reservation(credits, held, drawn, drew)
            # asked now: a call it refuses waits for nothing
            self.refuse_over_cap(credits, ep, drawing_on)
        except BaseException:  # refused, or the ledger failed: nothing is held
            with self.lock:
                self.spend.release(budget, credits, room, drawn)
            raise
        return Reservation(credits, None, drawn, drew)

    def refuse_over_cap(self, credits: int, ep: Endpoint, drawing_on: int | None = None) -> None:
        """Raise the cap's BudgetExceeded when what the ledger holds now leaves too little
        for `credits` (credits set aside as `drawing_on` taken first); nothing is held (the
        hold, at the call's turn, asks again)."""
        use = self._cap_use(ep, drawing_on) if credits else None
        refused = None if use is None else cap_refusal(use, credits, ep.name)
        if refused is not None:
            raise refused

    def hold(
        self, credits: int, ep: Endpoint, drawing_on: int | None = None, call: str = ""
    ) -> Reservation:
        """Hold a call's most in the ledger while it is under way, under the spending cap
        when one is set (shared by every process on the ledger); without one, in this
        machine's ledger only, so that a process killed mid-call leaves it there as possibly
        spent all the same. A Reservation of none of the budget; raises BudgetExceeded when
        the cap refuses, StoppedBuying when the ledger cannot hold it (a call it could not
        count is not made). `drawing_on`: credits set aside under the cap (`set_aside`) that
        the call takes its most from first."""
        cap = self.settings.spending_cap
        if not credits:
            return Reservation(0, None)
        lease, key = longest_call(self.settings), self.api_key.fingerprint
        if cap is None:
            try:
                held = self.ledger.hold(self.service, credits, ep.name, lease, key, call=call)
            except self.ledger.failures as error:  # its spend could not be counted either
                raise self.stopped(ep, self.ledger.hold_failure(error), cause="ledger") from None
            return Reservation(0, held)
        try:
            held = self.ledger.reserve_within(
                cap, self.service, credits, ep.name, lease, key, drawing_on, call=call
            )
        except self.ledger.failures as error:  # no silent fallback: nothing is held
            raise self.stopped(ep, self.ledger.cap_failure(error), cause="ledger") from None
        return Reservation(0, held)

    def set_aside(self, credits: int, ep: Endpoint, what: str, budget: Budget) -> int | None:
        """Set `credits` aside in `budget` (and those it is within) and under the spending cap
        for `ep`'s calls to come (`what`: what they are, for the cap's refusal), so that no
        other call, run or machine spends the room they need meanwhile; its id, None when no
        limit is set. Raises BudgetExceeded, or StoppedBuying when the ledger cannot hold
        them."""
        limited = any(held.limit is not None for held in budget.chain())
        cap = self.settings.spending_cap
        if not credits or (cap is None and not limited):
            return None
        made = secrets.randbits(62)  # the budget's, until the ledger names it
        if limited:
            with self.lock:
                self.spend.aside(None, self.clock())  # lapsed rooms first given back
                self.spend.set_aside(made, budget, credits, ep.name, self.clock())
        if cap is None:
            return made
        try:
            held = self.ledger.set_aside(cap, self.service, credits, what)
        except BaseException as error:  # nothing is held
            with self.lock:
                self.spend.end_aside(made)
            if isinstance(error, self.ledger.failures):  # no silent fallback
                raise self.stopped(ep, self.ledger.cap_failure(error), cause="ledger") from None
            raise
        with self.lock:
            self.spend.rename_aside(made, held)
        return held

    def aside_of(self, request_id: str) -> int | None:
        """The id of the credits set aside for the results of the search `request_id` (made
        by `name_aside`; None: none can be, no cap and none of this process's budgets holds
        its room)."""
        made = self._named(request_id)
        with self.lock:
            kept = made in self.spend.asides
        return made if kept or self.settings.spending_cap is not None else None

    def _named(self, request_id: str) -> int:
        named = hashlib.blake2b(f"{self.service}\0{request_id}".encode(), digest_size=8)
        return int.from_bytes(named.digest(), "big") >> 2  # 62 bits, as a reservation's

    def name_aside(self, aside: int, request_id: str) -> int:
        """Name credits set aside after the search `request_id` they are for, so that whoever
        reads it (another job, another process, later) draws on them and gives them back;
        their new id (the same one when the ledger could not rename them: they lapse)."""
        made = self._named(request_id)
        if self.settings.spending_cap is not None:
            try:
                self.ledger.rename_aside(aside, made)
            except self.ledger.failures:
                return aside
        with self.lock:
            self.spend.rename_aside(aside, made)
        return made

    def renew_aside(self, aside: int) -> bool:
        """Keep credits set aside a lease longer; whether they still are (a ledger failing
        that lets them lapse: taken as still set aside, its pages draw on them if so). Gone
        from the ledger (another process read the search and gave them back), their room in
        this process's budgets goes too."""
        with self.lock:
            kept = self.spend.renew_aside(aside, self.clock())
        if self.settings.spending_cap is None:
            return kept
        try:
            still = self.ledger.renew(aside)
        except self.ledger.failures:
            return True
        if not still:
            with self.lock:
                self.spend.end_aside(aside)
        return still

    def give_back(self, aside: int) -> None:
        """End credits set aside (never spent): their room is the budgets' and the cap's
        again (a ledger failing that lets them lapse)."""
        with self.lock:
            self.spend.end_aside(aside)
        if self.settings.spending_cap is not None:
            with contextlib.suppress(*self.ledger.failures):
                self.ledger.give_back(aside)

    def stopped(
        self, ep: Endpoint | None, reason: str, *, cause: StopCause | None = None
    ) -> StoppedBuying:
        """Stop buying for `reason` (`cause`: what failed, see `SpendPolicy.stop_buying`); the
        error of the call not sent (None: of a quote)."""
        self.stop_buying(reason, cause=cause)
        with self.lock:
            return self.spend.stopped_error(ep, reason)

    def settle(
        self,
        budget: Budget,
        ep: Endpoint,
        charge: Charge,
        reservations: list[Reservation],
        aside: int | None = None,
        call: str = "",
    ) -> None:
        """Record what a call charged (sure, maybe) and give back what it reserved, the
        ledger's part in one step (what it charged taken off the room of the credits set
        aside it drew on, `aside`; `call`: its key, when it starts a job)."""
        released = [it.ledger_id for it in reservations if it.ledger_id is not None]
        under_cap = aside if self.settings.spending_cap is not None else None
        if charge.total or released:
            try:
                self.ledger.settle(
                    self.service,
                    self.api_key.fingerprint,
                    ep.name,
                    charge,
                    released,
                    under_cap,
                    call=call,
                )
            except self.ledger.failures as error:  # kept on this machine; the team's is not
                self.stop_buying(self.ledger.record_failure(error), cause="ledger")
        room = next((it.room for it in reservations if it.room is not None), None)
        with self.lock:
            if room is not None and aside is not None:  # a page read: the room kept longer
                self.spend.renew_aside(aside, self.clock())
            self.spend.settled(
                budget,
                sum(it.credits for it in reservations),
                charge,
                room,
                sum(it.drawn for it in reservations),
            )

    def stop_buying(self, reason: str, *, cause: StopCause | None = None) -> None:
        """Send nothing more that costs credits, for `reason`, in any run, or (`cause`) until
        a run finds it works again (said once, in the log too): asking again might pay for
        what cannot be kept or read."""
        with self.lock:
            new = self.spend.stop_buying(reason, cause)
        if new:
            STOPS_LOG.error("profnet-sheets stopped buying: %s", reason)

    def count_unkept(self, failure: object) -> None:
        """One more answer paid for and not kept (`failure`: why); nothing more is bought."""
        with self.lock:
            why = self.spend.unkept()
        self.stop_buying(f"{failure}: {why}", cause="cache")

    def start_run(self) -> int:
        """A new run's number; a stop for a cache or a ledger that failed is lifted first
        when each works again (a probe that pays nothing, `trouble`)."""
        with self.lock:
            run = self.spend.start_run()
            proof = self.spend.to_prove()
        if proof is None:
            return run
        trouble = next(filter(None, (self.trouble(it) for it in sorted(proof.causes))), None)
        with self.lock:
            lifted = self.spend.proven(proof, trouble)
        if lifted:
            STOPS_LOG.warning(
                "profnet-sheets buys again: the %s works again",
                " and the ".join(sorted(proof.causes)),
            )
        return run

    def trouble(self, cause: StopCause) -> str | None:
        """Why what failed (`cause`) does not work yet, or None once it does: an answer kept
        and read back in the cache, a row written in the ledger (and the team's Redis
        answering)."""
        if cause == "cache":
            return self.store.trouble()
        return None if self.ledger.works() else "the ledger still cannot be written"

    def stop_runs(self, kind: RunStopKind, reason: str, said: ProfnetError | None = None) -> None:
        """Send nothing more that costs credits in the runs under way (see
        `SpendPolicy.stop_runs`), said in the log when new to them."""
        with self.lock:
            new = self.spend.stop_runs(kind, reason, said)
        if new:
            STOPS_LOG.error("profnet-sheets stopped buying in the runs under way: %s", reason)

    def count_reached(self, reached: bool) -> bool:
        """The transport's report of one connection attempt; False while the service is deemed
        unreachable (the runs under way are stopped then)."""
        with self.lock:
            fine = self.spend.reached(reached)
        if not fine:
            self.stop_unreachable()
        return fine

    def stop_unreachable(self) -> None:
        self.stop_runs("unreachable", self.spend.unreachable())

    def count_lost(self, ep: Endpoint, attempt: Attempt) -> None:
        """A paid attempt's fate (`SpendPolicy.lost`): the runs under way stop, as for a
        service unreachable, once too many in a row got no answer."""
        with self.lock:
            reason = self.spend.lost(ep, attempt)
        if reason is not None:
            self.stop_runs("unreachable", reason)

    def count_answer(self, status: int, foreign: bool) -> None:
        """An answer came: stop buying after too many in a row not the service's."""
        with self.lock:
            reason = self.spend.answered(status, foreign)
        if reason is not None:
            self.stop_buying(reason)

    def weigh_path(self, status: int, body: Any) -> bool:
        """Count an answer for the base URL's path; whether it calls for its proof
        (`SpendPolicy.weigh_path`)."""
        with self.lock:
            return self.spend.weigh_path(status, body)

    def count_path_proof(self, status: int | None, body: Any, doubted: int) -> str | None:
        """The proof's answer counted: stop buying when the path is not the service's (the
        reason returned), else None."""
        with self.lock:
            reason = self.spend.path_told(status, body, doubted)
        if reason is not None:
            self.stop_buying(reason)
        return reason

    def count_reading(self, understood: bool) -> None:
        """A paid answer read: stop buying after too many in a row not understood."""
        with self.lock:
            reason = self.spend.read(understood)
        if reason is not None:
            self.stop_buying(reason)


def machine_ledger(settings: Settings) -> tuple[str, Ledger | None]:
    """The configured service's name and this machine's own ledger of it (None: nothing was
    spent here), opened without the team's Redis: what is shown when that Redis is down."""
    service = "sandbox" if settings.uses_sandbox else service_name(settings.base_url or "")
    path = ledger_path(settings, service)
    return service, Ledger(path) if path.exists() else None


def _own_ledger(settings: Settings, service: str, in_memory: bool) -> Ledger:
    """This machine's ledger of spend: on disk in the cache folder, also when answers are kept
    in memory or not at all (spend is an account, not a cache: a cap counts across runs). In
    memory for the embedded sandbox's make-believe credits on a memory cache, and, said, when
    the folder cannot be written and no spending cap needs it."""
    if in_memory and settings.uses_sandbox:
        return Ledger(None)
    path = ledger_path(settings, service)
    if not in_memory:
        return Ledger(path)
    try:
        return Ledger(path)
    except (OSError, sqlite3.Error) as error:
        if settings.spending_cap is not None:
            raise ConfigurationError(
                f"The spending cap ({settings.spending_cap.said}) is kept in the ledger at {path}, "
                f"which cannot be written ({error}): set PROFNET_CACHE_DIR to a folder you can "
                "write (answers stay out of it with PROFNET_CACHE=off), or remove the cap."
            ) from None
        LOG.warning(
            "the ledger of spend is kept in memory, for this run only: %s cannot be written (%s)",
            path,
            error,
        )
        return Ledger(None)


def ledger_path(settings: Settings, service: str) -> Path:
    """The ledger of `service`'s spend: one per service (not per spelling of its URL)."""
    return settings.cache_dir / f"{service}-ledger.sqlite"
