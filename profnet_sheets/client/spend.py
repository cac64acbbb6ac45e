"""Spend decided in one place: what a call or a plan may cost, whether it may go, what it charged.

`SpendPolicy` is the twin of `CachePolicy`: it decides and never acts. It quotes a call or a
plan against the limits (the budget, the spending cap), reserves in the budget, tells whether
a paid call may be sent (the stops), and settles a call from the facts its attempts reported
into credits charged for sure, maybe, or none. It does no I/O, starts no thread, reads no
clock: a driver gives it facts (what the ledger says was used, what the transport heard, the
time) and does what it decides. The threaded client drives it today; a driver without threads
(Pyodide's fetch) drives the same object unchanged. It is not thread-safe: a driver with
threads calls it under one lock (the client's).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal, NamedTuple

from profnet_sheets.errors import (
    BudgetExceeded,
    ProfnetError,
    ServiceUnreachable,
    StoppedBuying,
)
from profnet_sheets.spec import Endpoint, Price, PriceTable, items_in, search_endpoint
from profnet_sheets.spec.errors import is_foreign
from profnet_sheets.words import command, counted

# The most items one page of lead or company results may hold (vendors use 25 or 100): what a
# results call is assumed to cost at most, when nothing better is known.
MAX_PAGE_ITEMS = 100
# After these, the service (or a gateway's upstream) may have done, and charged, the work.
MAYBE_DONE_STATUSES = frozenset({500, 502, 504})
# Paid answers in a row not understood, after which nothing more is bought.
UNREADABLE_IN_A_ROW = 3
# Connection attempts in a row (from every thread) that did not reach the service, with no
# answer between them, after which it is deemed unreachable and the runs under way stop.
UNREACHED_IN_A_ROW = 5
# Paid attempts in a row that went out and got no answer read (lost, or a 500, 502 or 504:
# each possibly charged), after which the service is deemed not to answer and the runs under
# way stop (random faults do not come this many in a row; a service slower than the timeout,
# or down behind its gateway, does at once, and each repeat could be charged again).
LOST_IN_A_ROW = 10
NO_ANSWER = "no answer from"  # how the reason of that stop starts (the rows' marks say it)

# Answers in a row that are not the service's (spec.errors.is_foreign), after which the base
# URL is deemed wrong and nothing more is bought.
FOREIGN_IN_A_ROW = 3
# How many times the base URL's path is asked to prove itself (`SpendPolicy.doubts_path`)
# when its proofs meet no answer, before it is left unproven.
PATH_PROOFS = 3
PathState = Literal["unproven", "proven", "foreign"]

BUDGET_SETTING = "budget=..., PROFNET_BUDGET"  # where a budget is set, as messages say it
CAP_SETTING = "PROFNET_SPENDING_CAP"

RunStopKind = Literal["credits", "unreachable", "key"]
# What failed, for a stop that a later run lifts once it is proven to work again (the
# driver's probe: nothing paid); any other stop holds for good.
StopCause = Literal["cache", "ledger"]


# -- facts reported by the drivers ----------------------------------------------------------


class NeverSent(KeyboardInterrupt):
    """An attempt stopped before it left (its run stopped while it waited for its turn): it
    cost nothing, and there is nothing of it to settle. A KeyboardInterrupt, as Ctrl-C, so that
    the run ends the same way."""


def answers_the_call(status: int) -> bool:
    """Whether a status is the service's answer to the call itself (done or refused), not
    a sign that it could not take it now (a 5xx, a 429)."""
    return status < 500 and status != 429


@dataclass(frozen=True)
class Attempt:
    """What the transport knows of one attempt, and nothing it decided: whether the request
    may have reached the service (False: the connection was never made), and the status of
    its answer (None: no answer came)."""

    went_out: bool
    status: int | None = None


@dataclass(frozen=True)
class CapUse:
    """What the ledger holds against the spending cap now: spent in its period (sure and
    maybe) and reserved by calls in flight, in every process sharing the ledger."""

    credits: int  # the cap's credits in its period
    name: str  # `500/day`
    used: int
    team: bool = False  # held in the team's Redis for every machine on it, not in one ledger
    # Of `used`, the room left of credits set aside (a search's results) that the call asked
    # about draws on: already counted, it is not counted twice.
    drawable: int = 0
    # Of `used`, the room set aside for searches' results not taken by their reading yet.
    aside: int = 0
    # A ledger set aside in the cap's period, unreadable (its file): what was spent in the
    # period before it is unknown, so the cap leaves nothing until the file is deleted.
    unknown: str | None = None
    renews: bool = True  # a cap of a day or a month; False: in all (no next period)

    @property
    def left(self) -> int:
        return 0 if self.unknown else max(0, self.credits - self.used)

    def room(self, credits: int) -> int:
        """What the cap leaves a call of at most `credits`: what it may draw on counted, and
        never less than that (the room was granted under the cap when it was set aside)."""
        if self.unknown:
            return 0
        drawn = min(credits, self.drawable)
        return max(0, self.credits - self.used + drawn, drawn)


# -- decisions ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Limit:
    """A limit on spending, what it leaves now, and where it is set."""

    left: int | None  # None: not set
    name: str  # `the budget`, `the spending cap 500/day`, `the team cap 500/day`
    setting: str  # `PROFNET_SPENDING_CAP`
    team: bool = False  # a cap every machine on the team's Redis shares
    aside: int = 0  # of what it counts, set aside for searches' results not read yet
    unknown: str | None = None  # the unreadable ledger set aside that it cannot count past
    renews: bool = True  # a cap of a day or a month has a next period; False: a cap in all

    def preview(self) -> str:
        """What a cost preview says when a run may cost more than the limit leaves."""
        if self.unknown:
            return f"{self.name} has 0 left: {self.unknown_said()}; nothing would be sent"
        if not self.left:
            return f"{self.name} has 0 left{self.aside_said()}: nothing would be sent"
        return f"{self.name} has {self.left} left{self.aside_said()}: the run may stop there"

    def over_said(self) -> str:
        """`Over the spending cap 100/day (40 left)`: the limit a plan passes, in a cost line."""
        if self.unknown:
            return f"Over {self.name} (0 left: {self.unknown_said()})"
        return f"Over {self.name} ({self.left} left{self.aside_said()})"

    def aside_said(self) -> str:
        """` (40 more set aside for ...)`: what may come back to it, or nothing."""
        return aside_said(self.aside)

    def unknown_said(self) -> str:
        """Why a cap leaves nothing while a ledger of its period is set aside, unreadable."""
        return (
            f"the ledger was set aside unreadable as {self.unknown}, so this period's spend "
            "before it is unknown (delete that file to count from zero)"
        )


def aside_said(aside: int) -> str:
    """What a cap's refusal says of the room it holds for searches' results not read yet."""
    if not aside:
        return ""
    return (
        f" ({aside} more set aside for the results of searches started and not read yet: "
        "what their reading does not take comes back)"
    )


@dataclass(frozen=True)
class Quote:
    """What a call or a plan may cost at most, against every limit that holds now."""

    credits: int
    limits: tuple[Limit, ...] = ()

    @property
    def short(self) -> Limit | None:
        """Of the limits that leave less than `credits`, the one that leaves the least (the
        budget before the cap when they leave the same): the one to name, the one a run
        stops at."""
        short = [it for it in self.limits if it.left is not None and self.credits > it.left]
        return min(short, key=lambda it: it.left or 0, default=None)

    @property
    def within(self) -> bool:
        """Whether every limit lets it run whole."""
        return self.short is None

    @property
    def left(self) -> int | None:
        """What the tightest limit leaves (None: no limit set)."""
        return min((it.left for it in self.limits if it.left is not None), default=None)

    @property
    def most(self) -> int:
        """The most it may spend: its credits, or what the limit it passes leaves (the run
        stops there), as a prompt asks it."""
        short = self.short
        return self.credits if short is None else min(self.credits, short.left or 0)

    @property
    def tightest(self) -> Limit | None:
        """The limit that leaves the least (None: no limit set)."""
        set_ = [it for it in self.limits if it.left is not None]
        return min(set_, key=lambda it: it.left or 0, default=None)

    @property
    def budget_left(self) -> int | None:
        """What the budget leaves (None: no budget set), as the cost lines show it."""
        return next((it.left for it in self.limits if it.setting == BUDGET_SETTING), None)

    @property
    def cap_left(self) -> int | None:
        """What the spending cap leaves in its period (None: no cap set)."""
        return next((it.left for it in self.limits if it.setting == CAP_SETTING), None)

    @property
    def team_cap_left(self) -> int | None:
        """What the team's spending cap (held in Redis) leaves in its period (None: no team
        cap: none set, or one held per ledger file)."""
        return next((it.left for it in self.limits if it.team), None)

    @property
    def nothing_left(self) -> bool:
        """Whether a limit leaves nothing at all: nothing paid would be sent."""
        short = self.short
        return short is not None and not short.left

    def refusal(self, what: str, endpoint: str | None = None) -> BudgetExceeded | None:
        """The error that refuses `what` (a call of `endpoint`, or more) before anything is
        sent, or None when it fits."""
        short = self.short
        if short is None:
            return None
        if short.unknown:
            said = (
                f"{what} was not sent: {short.name} ({short.setting}) leaves 0, as "
                f"{short.unknown_said()}."
            )
        else:
            said = (
                f"{what} may cost up to {counted(self.credits, 'credit')}, and {short.name} "
                f"({short.setting}) leaves {short.left}{short.aside_said()}; nothing was sent. "
                "Raise it, or ask for less."
            )
        return BudgetExceeded(
            said,
            endpoint=endpoint,
            needed=self.credits,
            left=short.left or 0,
            limit=short.setting,
            exhausted=not short.left,
            team=short.team,
            unknown=short.unknown,
            renews=short.renews,
        )


@dataclass
class InRowOrder:
    """What a run may still promise, call by call in row order: each call that fits is
    promised its most, one that no longer fits is not sent (a limit so cuts off where a
    spreadsheet user expects, not wherever concurrent workers race to it)."""

    left: int | None
    promised: int = 0

    def take(self, credits: int) -> bool:
        """Whether a call that may cost `credits` fits after those promised; promised if so."""
        if self.left is not None and self.promised + credits > self.left:
            return False
        self.promised += credits
        return True


@dataclass(frozen=True)
class Charge:
    """What one call charged, settled from its attempts: for sure (an answer understood), and
    maybe (attempts that went out and may have been done without an answer we can read)."""

    sure: int = 0
    maybe: int = 0
    items: int | None = None  # items a per-item call was charged for
    maybe_attempts: int = 0

    @property
    def total(self) -> int:
        return self.sure + self.maybe


@dataclass
class Budget:
    """Credits one client (or one run, `within` its client's) may spend: a call that could pass
    it is refused before it is sent. Calls reserve their price ceiling first and settle on the
    real charge afterwards, so that concurrent calls can never overshoot together. Changed only
    through `SpendPolicy` (under the driver's lock)."""

    limit: int | None
    within: Budget | None = None
    spent: int = 0
    uncertain: int = 0  # of `spent`, what may (or may not) have been charged
    reserved: int = 0

    @property
    def left(self) -> int | None:
        own = None if self.limit is None else max(0, self.limit - self.spent - self.reserved)
        outer = self.within.left if self.within is not None else None
        if own is None or outer is None:
            return outer if own is None else own
        return min(own, outer)

    def chain(self) -> Iterable[Budget]:
        """This budget and those it is within."""
        budget: Budget | None = self
        while budget is not None:
            yield budget
            budget = budget.within


ASIDE_LEASE = 600.0  # seconds credits set aside stay, unless renewed (a search read meanwhile)


@dataclass
class BudgetAside:
    """Credits of a budget (and of those it is within) set aside for a search's results, so
    that other calls of the client cannot leave it paid for with nothing to read it with:
    its pages, made in that budget or one within it, take their most from `room` first.
    Held in the budgets' `reserved` until given back, or `until` passes unrenewed."""

    budget: Budget
    room: int
    until: float
    ended: bool = False


def _sharing(
    budget: Budget, aside: BudgetAside | None
) -> tuple[list[tuple[Budget, bool]], list[Budget]]:
    """Each budget of `budget`'s chain and whether `aside` (still set aside) holds room in it
    too; and the budgets `aside` was set aside in that are not in that chain (a search
    started in one run of a client, read in another: both within the client's budget)."""
    theirs = list(aside.budget.chain()) if aside is not None else []
    ours = list(budget.chain())
    live = aside is not None and not aside.ended
    levels = [(held, live and any(held is other for other in theirs)) for held in ours]
    return levels, [other for other in theirs if not any(other is held for held in ours)]


def budget_left(budget: Budget, aside: BudgetAside | None = None) -> int | None:
    """What `budget` (and those it is within) leaves for one call, `aside`'s room counted as
    its own where it holds room (None: no limit)."""
    lefts = [
        max(0, held.limit - held.spent - held.reserved) + (aside.room if covered and aside else 0)
        for held, covered in _sharing(budget, aside)[0]
        if held.limit is not None
    ]
    return min(lefts) if lefts else None


@dataclass(frozen=True)
class RunStop:
    """A stop that holds for the runs under way when it was met (numbered up to `last_run`),
    not for later ones; `said`: the service's own words, for every later call of those."""

    reason: str
    last_run: int
    said: ProfnetError | None = None


@dataclass
class InARow:
    """Events of one kind counted in a row (any other starts the count again), up to `limit`."""

    limit: int
    count: int = 0

    def met(self, event: bool) -> bool:
        """Count `event` (True: one more of the kind); whether `limit` in a row are reached."""
        self.count = self.count + 1 if event else 0
        return self.count >= self.limit


@dataclass(frozen=True)
class Proof:
    """What a new run must find working (`causes`) before a stop is lifted, as of the
    `failures` counted when it was asked."""

    causes: frozenset[StopCause]
    failures: int


@dataclass
class Stops:
    """Why nothing more is bought: for good (`stopped`), or in the runs under way (no credits
    left, the service unreachable); and the counts in a row that lead there."""

    stopped: str | None = None
    runs: int = 0
    run_stops: dict[RunStopKind, RunStop] = field(default_factory=dict)
    # Paid answers not understood, in a row.
    unreadable: InARow = field(default_factory=partial(InARow, UNREADABLE_IN_A_ROW))
    # Connection attempts that failed, in a row.
    unreached: InARow = field(default_factory=partial(InARow, UNREACHED_IN_A_ROW))
    # Paid attempts with no answer read, in a row.
    lost: InARow = field(default_factory=partial(InARow, LOST_IN_A_ROW))
    # Answers not the service's, in a row.
    foreign: InARow = field(default_factory=partial(InARow, FOREIGN_IN_A_ROW))
    # Whether the base URL's path is the service's: proven by a 200, or by the free status
    # call asked without the key (`SpendPolicy.path_told`); foreign: it stops buying.
    path: PathState = "unproven"
    path_proofs: int = 0  # proofs asked that met no answer to judge by
    path_said: str = ""  # why the path is not the service's, once it was proven so
    unkept: int = 0  # answers paid for that could not be kept (a re-run pays them)
    cache_failed: bool = False  # the cache itself failed: what it held may not come back
    ledger_failed: int | None = None  # the last run when the ledger failed (a spend uncounted)
    # What failed for `stopped`, each to be proven working before a later run buys again
    # (None: a cause no probe can undo met too; the stop holds for good).
    lifted_by: frozenset[StopCause] | None = frozenset()
    failures: int = 0  # every stop_buying counted: a proof lifts no failure met after it began

    def run_stop(self, run: int | None, kind: RunStopKind) -> RunStop | None:
        """The stop of `kind` that holds for `run`, or None; for None (the client itself,
        outside any run) the last one met, which says why without holding."""
        stop = self.run_stops.get(kind)
        return stop if stop is not None and (run is None or run <= stop.last_run) else None


class SpendPolicy:
    """Every decision about credits, for one service at `prices`: see the module's doc."""

    def __init__(self, prices: PriceTable, where: str) -> None:
        self.prices = prices
        self.asides: dict[int, BudgetAside] = {}  # searches' results' room, by id
        self.where = where  # the service, its URL masked, for messages
        self.stops = Stops()

    # -- before a call: price, quote, gate, reserve -----------------------------------------

    def price(self, ep: Endpoint) -> Price:
        return self.prices.price(ep)

    def ceiling(self, ep: Endpoint, params: Mapping[str, Any], max_items: int | None = None) -> int:
        """The most a call can cost at this policy's prices (see `ceiling`)."""
        return ceiling(self.prices, ep, params, max_items)

    def risky(self, ep: Endpoint) -> bool:
        """A call never repeated once it may have been done: every paid POST, and any call
        that may cost more than a credit."""
        price = self.price(ep)
        if price.kind == "free":
            return False
        return ep.method == "POST" or price.kind == "per_item" or price.credits > 1

    def quote(
        self,
        credits: int,
        budget: Budget,
        cap: CapUse | None = None,
        aside: BudgetAside | None = None,
    ) -> Quote:
        """What `credits` meets: the budget's left (`aside`'s room taken first), then the
        spending cap's."""
        held_aside = max((self.set_aside_in(held) for held in budget.chain()), default=0)
        set_aside = max(0, held_aside - (aside.room if aside is not None else 0))
        limits = [Limit(budget_left(budget, aside), "the budget", BUDGET_SETTING, aside=set_aside)]
        if cap is not None:
            name = f"the {'team' if cap.team else 'spending'} cap {cap.name}"
            limits.append(
                Limit(
                    cap.room(credits),
                    name,
                    CAP_SETTING,
                    cap.team,
                    cap.aside,
                    cap.unknown,
                    cap.renews,
                )
            )
        return Quote(credits, tuple(limits))

    def gate(self, ep: Endpoint, run: int | None) -> ProfnetError | None:
        """Why a call of `ep` may not be sent in `run` (the error to raise), or None."""
        if self.price(ep).kind == "free":
            return None
        stops = self.stops
        if stops.stopped is not None:
            return self.stopped_error(ep, stops.stopped)
        if run is None:  # outside any run, each call asks the service (decision 213)
            return None
        for kind in ("credits", "key"):  # no credits left, the key refused
            stop = stops.run_stop(run, kind)
            said = stop.said if stop is not None else None
            if said is not None:  # said as the service said it, to every later call of the run
                return type(said)(
                    said.message,
                    endpoint=said.endpoint,
                    status=said.status,
                    code=said.code,
                    details=said.details,
                )
        unreachable = stops.run_stop(run, "unreachable")
        if unreachable is not None:
            return ServiceUnreachable(
                f"{ep.name}: not sent: {unreachable.reason}. Check the network and the base URL "
                f"(PROFNET_BASE_URL) with `{command('check')}`, then run again: what was "
                "done is kept and not paid again.",
                reason=unreachable.reason,
                endpoint=ep.name,
            )
        return None

    def reserve(
        self, budget: Budget, credits: int, endpoint: str, aside: BudgetAside | None = None
    ) -> int:
        """Hold `credits` in `budget` and every budget it is within, or raise BudgetExceeded
        holding nothing; what of them comes from `aside`'s room (held there already, so not
        held again where it holds room; still held where only it does, until the call is
        settled): returned, for `release` and `settled`."""
        levels, _ = _sharing(budget, aside)
        shared = any(covered for _, covered in levels)
        drawn = min(credits, aside.room) if aside is not None and shared else 0
        for held, covered in levels:
            need = credits - drawn if covered else credits
            if need and held.limit is not None and held.spent + held.reserved + need > held.limit:
                left = max(0, held.limit - held.spent - held.reserved)
                own = aside.room if covered and aside is not None else 0
                set_aside = max(0, self.set_aside_in(held) - own)
                raise BudgetExceeded(
                    f"{endpoint} may cost {counted(credits, 'credit')} and only {left} of the "
                    f"budget of {held.limit} are left{aside_said(set_aside)}; nothing was "
                    f"sent. Raise the budget ({BUDGET_SETTING}) to go on.",
                    endpoint=endpoint,
                    needed=credits,
                    left=left,
                    limit=BUDGET_SETTING,
                    exhausted=not left,
                )
        for held, covered in levels:
            held.reserved += credits - drawn if covered else credits
        if aside is not None:
            aside.room -= drawn
        return drawn

    def release(
        self, budget: Budget, credits: int, aside: BudgetAside | None = None, drawn: int = 0
    ) -> None:
        """Give back `credits` held in `budget` and those it is within (`drawn` of them
        from `aside`: back to its room, or no longer held when it has ended)."""
        levels, theirs = _sharing(budget, aside if drawn else None)
        for held, covered in levels:
            held.reserved -= credits - drawn if covered else credits
        if aside is None or not drawn:
            return
        if aside.ended:
            for held in theirs:
                held.reserved -= drawn
        else:
            aside.room += drawn

    def settled(
        self,
        budget: Budget,
        reserved: int,
        charge: Charge,
        aside: BudgetAside | None = None,
        drawn: int = 0,
    ) -> None:
        """Release what a call reserved in `budget` (and those it is within), `drawn` of it
        from `aside`; count what it charged. What it drew and did not charge is `aside`'s
        room again (nothing when it has ended)."""
        levels, theirs = _sharing(budget, aside if drawn else None)
        for held, covered in levels:
            held.reserved -= reserved - drawn if covered else reserved
            held.spent += charge.total
            held.uncertain += charge.maybe
        if aside is None or not drawn:
            return
        back = 0 if aside.ended else room_after(drawn, charge)
        aside.room += back
        for held, covered in levels:
            held.reserved -= drawn - back if covered else 0
        for held in theirs:
            held.reserved -= drawn - back

    # -- a search's results' room in the budgets ---------------------------------------------

    def set_aside(
        self, made: int, budget: Budget, credits: int, endpoint: str, now: float
    ) -> BudgetAside:
        """Set `credits` aside in `budget` (and those it is within) for calls of `endpoint`
        to come, as `made`, for ASIDE_LEASE unless renewed; or raise BudgetExceeded."""
        self.reserve(budget, credits, endpoint)
        aside = self.asides[made] = BudgetAside(budget, credits, now + ASIDE_LEASE)
        return aside

    def rename_aside(self, made: int, named: int) -> None:
        """Call the credits set aside as `made` `named` from now on (a search's request id)."""
        aside = self.asides.pop(made, None)
        if aside is not None:
            displaced = self.asides.get(named)
            if displaced is not None and displaced is not aside:  # never two under one name
                self.give_back(displaced)
            self.asides[named] = aside

    def renew_aside(self, made: int, now: float) -> bool:
        """Keep the credits set aside as `made` ASIDE_LEASE more; whether they still are."""
        aside = self.aside(made, now)
        if aside is not None:
            aside.until = now + ASIDE_LEASE
        return aside is not None

    def end_aside(self, made: int) -> None:
        """End the credits set aside as `made`: what is left of their room is their
        budgets' again."""
        aside = self.asides.pop(made, None)
        if aside is not None:
            self.give_back(aside)

    def give_back(self, aside: BudgetAside) -> None:
        """End `aside`: what is left of its room is its budgets' again (the room calls under
        way drew stays held until they are settled)."""
        if not aside.ended:
            for held in aside.budget.chain():
                held.reserved -= aside.room
            aside.room, aside.ended = 0, True

    def aside(self, made: int | None, now: float) -> BudgetAside | None:
        """The room the credits set aside as `made` hold in the budgets (None: none), those
        unrenewed past their `until` given back first."""
        for lapsed in [made for made, aside in self.asides.items() if aside.until < now]:
            self.give_back(self.asides.pop(lapsed))
        return None if made is None else self.asides.get(made)

    def set_aside_in(self, budget: Budget) -> int:
        """The room searches' results hold in `budget` (set aside there or within it)."""
        return sum(
            aside.room
            for aside in self.asides.values()
            if any(held is budget for held in aside.budget.chain())
        )

    # -- after each attempt, and after the call ----------------------------------------------

    def maybe_charged(self, ep: Endpoint, attempt: Attempt) -> bool:
        """Whether an attempt that did not end the call may have been done, and charged: it
        went out and no answer came, or the answer was a 500, 502 or 504 of a paid call."""
        if self.price(ep).kind == "free" or not attempt.went_out:
            return False
        return attempt.status is None or attempt.status in MAYBE_DONE_STATUSES

    def may_repeat(self, ep: Endpoint, attempt: Attempt) -> bool:
        """Whether an attempt the retry policy would repeat may be, as far as money goes: one
        that may have been charged only for a call that is not `risky` (a one-credit GET), and
        then its most is reserved again by the driver."""
        return not (self.maybe_charged(ep, attempt) and self.risky(ep))

    def charged_words(self, ep: Endpoint, status: int) -> str:
        """What an error answer's message says of what the call may have cost."""
        if status not in MAYBE_DONE_STATUSES or self.price(ep).kind == "free":
            return ""
        if self.risky(ep):
            return " It was not repeated: the service may have done, and charged, it already."
        return " Each attempt may have been charged (counted in the ledger as uncertain)."

    def settle(
        self,
        ep: Endpoint,
        attempts: Iterable[Attempt],
        ceiling: int,
        body: Any = None,
        understood: bool = False,
    ) -> Charge:
        """What a call charged, from the facts of its attempts (the last one's answer `body`,
        and whether it was `understood`): a 200 understood is charged at its price; each
        attempt that may have been done unanswered, and a paid 200 not understood, at most
        the call's `ceiling`, as maybe."""
        price = self.price(ep)
        if price.kind == "free":
            return Charge()
        facts = list(attempts)
        last = facts[-1] if facts else None
        maybe_attempts = sum(self.maybe_charged(ep, it) for it in facts)
        sure, items = 0, None
        if last is not None and last.status == 200:
            if understood:
                sure = price.charge(body)
                if price.kind == "per_item":
                    items = len(items_in(body, price.items_at))
            else:
                maybe_attempts += 1
        return Charge(sure, maybe_attempts * ceiling, items, maybe_attempts)

    # -- stops ------------------------------------------------------------------------------

    def start_run(self) -> int:
        """A new run's number: the stops met before it do not hold for it (nor the answers
        lost before it)."""
        self.stops.lost.count = 0
        self.stops.runs += 1
        return self.stops.runs

    def stop_buying(self, reason: str, cause: StopCause | None = None) -> bool:
        """Buy nothing more for `reason`: in any run when `cause` is None; with a `cause` (the
        cache or the ledger failed), until a later run proves it works again (`to_prove`). A
        cache that failed may not give back what it held. Whether this stop is new (to be
        said)."""
        stops = self.stops
        stops.failures += 1
        stops.cache_failed |= cause == "cache"
        if cause == "ledger":
            stops.ledger_failed = stops.runs
        liftable = stops.lifted_by is not None
        if cause is None or stops.lifted_by is None:
            stops.lifted_by = None
        else:
            stops.lifted_by = stops.lifted_by | {cause}
        if stops.stopped is None or (cause is None and liftable):  # what holds is said
            stops.stopped = reason
            return True
        return False

    def to_prove(self) -> Proof | None:
        """What a new run must find working before it buys again (None: no stop, or one for
        good)."""
        lifted_by = self.stops.lifted_by
        if self.stops.stopped is None or not lifted_by:
            return None
        return Proof(lifted_by, self.stops.failures)

    def proven(self, proof: Proof, trouble: str | None = None) -> bool:
        """What `proof` asked was found working again (`trouble` None): the stop is lifted,
        unless a failure came since the proof was asked (of any cause: the same one again
        too); whether it was. Found not working, the stop says why now (`trouble`), not
        what its first failure said. What was not kept is still counted (`kept_said`)."""
        if self.to_prove() != proof:
            return False
        if trouble is not None:
            self.stops.stopped = trouble
            return False
        self.stops.stopped, self.stops.lifted_by = None, frozenset()
        return True

    def stop_runs(self, kind: RunStopKind, reason: str, said: ProfnetError | None = None) -> bool:
        """Buy nothing more in the runs under way, for `reason` (`said`: the service's words,
        told to every later call of those runs); whether this stop is new to these runs. A
        later run asks again: that is free (a 402 is not charged; a service down takes
        nothing)."""
        stops = self.stops
        before = stops.run_stops.get(kind)
        stops.run_stops[kind] = RunStop(reason, stops.runs, said)
        return before is None or before.last_run < stops.runs

    def reached(self, reached: bool) -> bool:
        """Count a connection attempt; False once UNREACHED_IN_A_ROW in a row did not reach the
        service (the driver then stops the runs under way: `unreachable`)."""
        return not self.stops.unreached.met(not reached)

    def unreachable(self) -> str:
        """Why the runs under way stop when the service cannot be reached."""
        tls = (
            ": an https:// URL to a server that speaks only http fails so too"
            if self.where.lower().startswith("https://")
            else ""
        )
        return (
            f"the service at {self.where} could not be reached (no connection attempt got "
            f"through{tls})"
        )

    def answered(self, status: int, foreign: bool) -> str | None:
        """Count an answer that is not the service's (`foreign`) or is; the reason to stop
        buying once FOREIGN_IN_A_ROW came in a row (a wrong base URL path), else None."""
        if not self.stops.foreign.met(foreign):
            return None
        return self._not_the_service(
            f"{FOREIGN_IN_A_ROW} calls in a row with HTTP {status} pages that are not the "
            "service's answers"
        )

    def _not_the_service(self, answered: str) -> str:
        """Why buying stops when what answers at the base URL is not the service."""
        return (
            f"{self.where} answered {answered}: check the base URL (PROFNET_BASE_URL) and its "
            f"path with `{command('check')}`"
        )

    def weigh_path(self, status: int, body: Any) -> bool:
        """Count an answer for the base URL's path (a 200 that finds something proves it);
        whether it calls for the path's proof: one that finds nothing (`finds_nothing`)
        before any answer proved the path (`path_told`). A gateway at a wrong path may
        answer every call so: each row would read "not found", cached (and a 200 paid), and
        the run end as if it had succeeded."""
        stops = self.stops
        nothing = finds_nothing(status, body)
        if stops.path == "unproven" and status == 200 and not nothing:
            stops.path = "proven"
        unproven = stops.path == "unproven" and stops.path_proofs < PATH_PROOFS
        return unproven and nothing

    def path_told(self, status: int | None, body: Any, doubted: int) -> str | None:
        """Count the proof's answer (the free status of an unknown search, asked without the
        key; None: none came) to a call answered `doubted` (404 or 200) that found nothing:
        the service asks for its key first (401, 403), or judges the call (400), which
        proves the path, as does a 200 or a 404 unlike the doubted one; the same kind of
        answer without the key says that what answers is not the service: the reason to
        stop buying, else None."""
        stops = self.stops
        if stops.path == "foreign":  # said once: a later proof (a gateway's whim) undoes nothing
            return None
        alike = status == doubted and (status == 200 or not is_foreign(status, body))
        if alike:
            stops.path = "foreign"
            what = "HTTP 404 not_found" if doubted == 404 else "HTTP 200 with no data"
            stops.path_said = self._not_the_service(
                f"{what} with the API key and without it, which the service never does (it "
                "asks for its key first)"
            )
            return stops.path_said
        if status in (200, 400, 401, 403) or (status == 404 and not is_foreign(status, body)):
            stops.path = "proven"
        else:  # no answer, or one that judges nothing (a 5xx, a 429, a page): asked later
            stops.path_proofs += 1
        return None

    def wrong_path(self, status: int, body: Any) -> str | None:
        """Why an answer is not the service's once the base URL's path was proven wrong
        (`path_told`): an answer that finds nothing then says nothing of the row. None
        otherwise."""
        if self.stops.path != "foreign" or not finds_nothing(status, body):
            return None
        return self.stops.path_said

    def path_error(self, ep: Endpoint, reason: str, charge: Charge) -> StoppedBuying:
        """The error of a call whose answer proved the base URL's path wrong (`path_told`),
        and what its attempts may have cost (`charge`: an attempt before it that went out
        with no answer)."""
        cost = (
            f"an attempt before it went out with no answer: it may have been charged "
            f"({counted(charge.maybe, 'credit')}, counted as possibly spent)"
            if charge.maybe
            else "nothing was charged for it"
        )
        error = StoppedBuying(
            f"{ep.name}: profnet-sheets stopped buying ({reason}). Its answer was not kept; "
            f"{cost}. Fix the base URL and run again.",
            reason=reason,
            endpoint=ep.name,
        )
        error.possibly_charged, error.sent = charge.maybe, True
        return error

    def read(self, understood: bool) -> str | None:
        """Count a paid answer understood or not; the reason to stop buying once
        UNREADABLE_IN_A_ROW in a row were not, else None."""
        if not self.stops.unreadable.met(not understood):
            return None
        return (
            f"the service answered {UNREADABLE_IN_A_ROW} paid calls in a row in a form this "
            "version does not read (each counted as possibly charged); check the base URL "
            "(PROFNET_BASE_URL), or update profnet-sheets"
        )

    def lost(self, ep: Endpoint, attempt: Attempt) -> str | None:
        """Count an attempt of a paid call: one that may have been charged without an answer
        read, or one answered (a 503 or a 429 is neither: it leaves the count as it is); the
        reason to stop the runs under way once LOST_IN_A_ROW came in a row (the service deemed
        not to answer), else None."""
        if self.price(ep).kind == "free" or not attempt.went_out:
            return None  # a connection never made says nothing of the answers (`reached`)
        maybe = self.maybe_charged(ep, attempt)
        if not maybe and attempt.status is not None and not answers_the_call(attempt.status):
            return None  # a 503 or a 429 between lost ones: not done, and not answered either
        if not self.stops.lost.met(maybe):
            return None
        return (
            f"{NO_ANSWER} the service at {self.where}: none of {LOST_IN_A_ROW} paid calls in a "
            "row was answered (each lost after it went out, or a 500, 502 or 504: each possibly "
            "charged); it may be down, or slower than the timeout (PROFNET_TIMEOUT)"
        )

    def unkept(self) -> str:
        """Count an answer paid for and not kept; the reason to stop buying."""
        self.stops.unkept += 1
        return "what it buys could not be kept"

    def stopped_error(self, ep: Endpoint | None, reason: str) -> StoppedBuying:
        """The error of a call not sent (None: of a quote) because buying stopped for
        `reason`."""
        return StoppedBuying(
            f"{ep.name + ': not sent' if ep else 'Nothing sent'}: profnet-sheets stopped buying "
            f"({reason}). {self.kept_said()}; fix that and run again.",
            reason=reason,
            lifted_by=tuple(sorted(proof.causes)) if (proof := self.to_prove()) else (),
            endpoint=ep.name if ep else None,
        )

    def kept_said(self) -> str:
        """Whether a re-run pays again: what was paid is kept, or how many answers were not."""
        unkept, cache_failed = self.stops.unkept, self.stops.cache_failed
        if not unkept and cache_failed:
            return (
                "What was paid before the cache failed was saved in it: a re-run pays nothing "
                "for it only if the cache comes back with its data"
            )
        if not unkept:
            return "What was paid is kept: the calls done are not paid again"
        return (
            f"{counted(unkept, 'paid answer')} could not be kept in the cache: a re-run pays "
            f"{'it' if unkept == 1 else 'them'} again"
        ) + (", and the rest too if the cache comes back without its data" * cache_failed)


def ceiling(
    prices: PriceTable, ep: Endpoint, params: Mapping[str, Any], max_items: int | None = None
) -> int:
    """The most a call can cost at `prices`, known before it is made: a per-item call at most
    `max_items`, its `limit` (the spec's default when none is given, as `prepare` fills it
    in), or MAX_PAGE_ITEMS items."""
    price = prices.price(ep)
    if price.kind != "per_item":
        return price.credits
    if max_items is None:
        limit = params.get("limit")
        if not isinstance(limit, int):
            limit = next((p.default for p in ep.params if p.name == "limit"), None)
        max_items = int(limit) if isinstance(limit, int) else MAX_PAGE_ITEMS
    return price.upper_bound(max_items)


def results_most(prices: PriceTable, ep: Endpoint, params: Mapping[str, Any]) -> int:
    """What reading every result a search's `limit` allows can cost, for the call that starts
    it (0 for any other call): a search's creation is the start of its spend, not the end."""
    if ep.search is None or ep.search_role != "create":
        return 0
    limit = params.get("limit")
    results = search_endpoint(ep.search, "results")
    return prices.price(results).upper_bound(int(limit) if isinstance(limit, int) else 0)


def cap_refusal(cap: CapUse, credits: int, endpoint: str) -> BudgetExceeded | None:
    """Whether the spending cap refuses a call that may cost `credits` (the error), given what
    the ledger holds against it (the ledger asks this inside its write transaction). A call
    within the room set aside for it (`cap.drawable`) always may: that room was granted under
    the cap when it was set aside."""
    left = cap.room(credits)
    if credits <= left:
        return None
    if cap.unknown:
        return BudgetExceeded(
            f"{endpoint} was not sent: the ledger that counted this machine's spend under the "
            f"spending cap of {cap.name} could not be read and was set aside as {cap.unknown}, "
            "so what was spent in this period before is unknown and the cap cannot be kept. "
            "Check the spend with the service, then delete that file to count from zero, or "
            f"remove the cap ({CAP_SETTING})"
            + ("; the cap counts again from its next period." if cap.renews else "."),
            endpoint=endpoint,
            needed=credits,
            left=0,
            limit=CAP_SETTING,
            exhausted=True,
            unknown=cap.unknown,
            renews=cap.renews,
        )
    shared_by = (
        "every machine on the team's Redis" if cap.team else "every run on this service's ledger"
    )
    return BudgetExceeded(
        f"{endpoint} may cost {counted(credits, 'credit')} and only {left} of the "
        f"{'team' if cap.team else 'spending'} cap of {cap.name} are left (for {shared_by})"
        f"{aside_said(cap.aside)}; nothing was sent. "
        f"Raise the cap ({CAP_SETTING}, config --spending-cap)"
        + (" or wait for the next period." if cap.renews else "."),
        endpoint=endpoint,
        needed=credits,
        left=left,
        limit=CAP_SETTING,
        exhausted=not left,
        team=cap.team,
        renews=cap.renews,
    )


@dataclass(frozen=True)
class HeldCall:
    """A call's hold as the ledger keeps it: its credits, whether its lease still runs,
    whether it was made in the cap's period (a hold whose lease ran out counts there, as
    possibly spent), and the credits set aside it draws on (`source`, None: none)."""

    credits: int
    live: bool
    in_period: bool
    source: str | None = None


class Reserved(NamedTuple):
    """What calls under way and credits set aside hold against the cap (`credits`), of it
    the room set aside not taken by calls yet (`aside`), and the room left for one more call
    drawing on given credits set aside (`drawable`)."""

    credits: int
    aside: int
    drawable: int


def reserved_under_cap(
    holds: Iterable[HeldCall], asides: Mapping[str, int], drawing_on: str | None = None
) -> Reserved:
    """What calls under way and credits set aside (`asides`: the live ones, by id, with the
    room each has left) hold against the spending cap, and the room left of `drawing_on`.
    Credits set aside count as the more of their room and the live holds drawing on them: a
    page within its search's room takes no more of the cap."""
    rooms = rooms_after_lapse(asides, holds)
    under = dict.fromkeys(rooms, 0)
    reserved = 0
    for hold in holds:
        if hold.live and hold.source in under:
            under[hold.source] += hold.credits
        elif hold.live or hold.in_period:
            reserved += hold.credits
    free = {name: max(0, room - under[name]) for name, room in rooms.items()}
    reserved += sum(under.values()) + sum(free.values())
    drawable = 0 if drawing_on is None else free.get(drawing_on, 0)
    return Reserved(reserved, sum(free.values()), drawable)


def forgotten_by_team(told: Charge, counted: Charge, holding: int) -> Charge:
    """What a machine told its team it spent in a period (`told`, kept in its own ledger)
    beyond what the team's store counts under its name (`counted`) and still holds for calls
    the machine has settled (`holding`: a call between its two writes, or settled while the
    store could not be reached; each hold settles into the count, or lapses into it as
    maybe): what a store that lost its data (a Redis restarted without persistence) forgot,
    sure first as it was told. The team's spend is its count and this, never less than the
    machine knows."""
    missing = told.total - counted.total - holding
    if missing <= 0:
        return Charge()
    sure = min(missing, max(0, told.sure - counted.sure))
    return Charge(sure=sure, maybe=missing - sure)


def forgotten_of_others(
    counted: Mapping[str, Charge], seen: Mapping[str, Charge]
) -> dict[str, Charge]:
    """What a team store that lost its data forgot of machines that have not spoken since:
    by machine, its spend this machine saw there (`seen`) beyond what it holds now
    (`counted`), compared whole (a machine's own retell may count as sure what a lapsed hold
    showed as maybe), sure first as it was seen. Only asked once the store is known to have
    lost its data: in its lifetime a maybe is taken back when a lapsed hold's call settles."""
    forgotten = {
        machine: forgotten_by_team(was, counted.get(machine, Charge()), 0)
        for machine, was in seen.items()
    }
    return {machine: missing for machine, missing in forgotten.items() if missing.total}


def finds_nothing(status: int, body: Any) -> bool:
    """Whether an answer finds nothing: the service's 404 `not_found`, or a 200 whose `data`
    is null (a lookup that found no one)."""
    if status == 404:
        return not is_foreign(status, body)
    return status == 200 and isinstance(body, dict) and "data" in body and body["data"] is None


def rooms_after_lapse(asides: Mapping[str, int], holds: Iterable[HeldCall]) -> dict[str, int]:
    """The room of each credits set aside once the holds drawing on them whose lease ran out
    (their process died: possibly spent) have taken theirs."""
    rooms = dict(asides)
    for hold in holds:
        if not hold.live and hold.source in rooms:
            rooms[hold.source] = room_after(rooms[hold.source], Charge(maybe=hold.credits))
    return rooms


def room_after(room: int, charge: Charge) -> int:
    """The room left of credits set aside once a call drawing on them charged `charge`."""
    return max(0, room - charge.total)


@dataclass(frozen=True)
class PlannedCall:
    """One call of a plan, for `Client.estimate`."""

    endpoint: str
    params: Mapping[str, Any]


@dataclass(frozen=True)
class Estimate:
    """What a set of planned calls will cost: how many the cache answers, and the quote of the
    others' most against the limits."""

    calls: int
    unique: int
    cached: int
    quote: Quote

    @property
    def credits(self) -> int:
        return self.quote.credits

    @property
    def budget_left(self) -> int | None:
        return self.quote.budget_left

    @property
    def to_fetch(self) -> int:
        return self.unique - self.cached

    @property
    def within_budget(self) -> bool:
        return self.quote.within

    def summary(self) -> str:
        """`5 calls: 4 distinct, 1 already cached (free), 3 to fetch; at most 3 credits`,
        then what the limits say of it (the budget left, or the one that leaves too little)."""
        short = self.quote.short
        if short is not None:
            limits = f"; {short.preview()}"
        else:
            left = self.quote.budget_left
            limits = "" if left is None else f"; budget left {left}"
        return (
            f"{counted(self.calls, 'call')}: {self.unique:,} distinct, {self.cached:,} already "
            f"cached (free), {self.to_fetch:,} to fetch; at most "
            f"{counted(self.credits, 'credit')}{limits}"
        )

    def __str__(self) -> str:
        return self.summary()
