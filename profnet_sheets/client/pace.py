"""The pace of a client's calls, learnt from the service's answers: how many may be in flight
and how fast they may start (adaptive concurrency and rate), never above the user's caps.

The service's rate limit is "not shown" and differs by plan, so it is found, not configured:

- **Slow start.** A client starts with `INITIAL_WINDOW` calls in flight and no rate. Before
  the first answer, every `EARLY_SECONDS` without a 429 (a gateway refuses at once) doubles
  the window, up to `EARLY_MOST`; then each answer that comes back without a 429, its latency
  flat, widens it by `SLOW_START_GAIN` (x4 per round trip), up to the cap; a window wider
  than the first burst has its calls paced over a quarter of the latency.
- **A 429 is the service's rate.** The first 429 ends the slow start: from then on calls are
  paced by rate (a token bucket whose rate adapts), `BETA` (95%) of what the service let
  through: the calls it did not refuse since the last cut (or over the last second), and the
  pace less the share it refused of the last `RECENT_CALLS`, the lower of the two; never less
  than half the rate before. It cuts again after a second and `ACCELERATE` answers, or as soon
  as the last cut's calls are told while a quarter of the calls are refused, so that 429s that
  come whatever the pace (random throttling) cannot drive it down; 429s that come back at once
  (a gateway's, long before answers) lower it meanwhile. 429s before any answer take one call
  off the window each; the first answer's latency turns the window into a rate. A Retry-After
  longer than `HOLD_ABOVE` holds every new call until then.
- **Probing.** Each answer without a 429 raises the rate by `PROBE`, the step doubling every
  `ACCELERATE` answers since the last cut, or, until a cut tells where the limit is, every
  `ACCELERATE_SECONDS` since the last 429 when that is sooner (a rate remembered low climbs
  back in minutes, not hours); a cut made while the service let nothing through for
  `OUTAGE_SECONDS` (an outage of 429s) tells nothing of the limit either, so after it time
  counts again; far below the last estimate it recovers faster
  (`RECOVER_SECONDS`). The service's own bucket absorbs the small saw-tooth around its limit,
  so about one call in a hundred meets a 429 and the pace stays at the limit. A run that says
  how many calls it has left (`expect`) is not probed for in its last `LAST_STRETCH_SECONDS`:
  a 429 there would put a Retry-After before its last answer.
- **Latency.** When answers slow down (the short average above `TOLERANCE` x the long one) the
  window stops growing and, unless paced by a rate, shrinks by a tenth once per latency; a
  timeout halves it (and the rate).
- **Told.** A rate the user gives (`--rate 20/s`) is the service's limit as the user knows
  it: calls are paced at it from the first one (no slow start), the window is the cap, and
  429s still lower it.
- **Shared.** Every call of a client goes through its one pace; a client on a cache on disk
  keeps the rate it learnt beside it (`remember_in`), and the next client on that cache (any
  process, within `REMEMBERED_SECONDS`) starts paced at it: no slow start, no overshoot.
  On a Redis cache the processes on one key go at one pace (`share_through`, the board in
  `pace_redis.py`): a new one starts at the team's rate, every call draws its slot from the
  team's schedule at that rate, and a cut by any process is everyone's (its admitted rate told
  by the share it refused, its own calls being only part of the key's).

`PaceCore` decides, with the time passed in (tests drive it with a fake clock); `Pace` makes it
thread-safe: `acquire()` blocks until a call may start, `release()` says how it went.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import math
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from profnet_sheets.client.pace_redis import RedisPaceBoard, Slot, TeamRate

from profnet_sheets.client.spend import NeverSent

Outcome = Literal["answered", "throttled", "timeout", "failed", "unused"]

INITIAL_WINDOW = 8  # calls in flight before anything is known (the earlier fixed default)
EARLY_SECONDS = 0.25  # before the first answer, the window doubles this often without a 429...
EARLY_MOST = 32  # ...up to this many in flight
SLOW_START_GAIN = 3.0  # window growth per answer while learning: x4 per round trip
SLOW_START_PACE = 4.0  # while learning, a window's calls start over a quarter of the latency
BETA = 0.95  # after a 429: this share of the rate the service let through
FLOOR = 0.5  # a cut never takes more than half of the rate it replaces
PROBE = 0.0005  # rate growth per answer near the limit...
ACCELERATE = 200.0  # ...doubling every this many answers without a 429...
ACCELERATE_SECONDS = 10.0  # ...or, before the first cut, this many seconds if sooner
TEAM_PROBE = 0.005  # a team's growth a second near the limit, at most (buckets hide overshoot)
RECOVER_SECONDS = 2.0  # far below the last estimate: +1 call/s per answer every this long
OUTAGE_SECONDS = 5.0  # every call refused this long: an outage, no limit (probing by time)
SPAN = 1.0  # seconds over which the service's admitted rate is measured (a per-second limit)
MARGIN = 2.0  # a call is decided once older than twice the time a 429 takes on average
MIN_RATE = 0.1  # calls per second: never slower
OVERLOADED = 0.25  # a share of 429s this high cuts again as soon as the last cut shows
TEAM_OVERLOADED = 0.1  # ...on a team's shared schedule, this high over a second since the cut
NOISE = 0.03  # 429s spread this thickly over a whole cycle come whatever the pace: no cut
NOISE_CALLS = 100  # ...told over at least this many calls since the last cut
NOISE_SAMPLE = 40  # 429s at this share of the calls sent below the rate are the noise's...
NOISE_MOST = 0.5  # ...up to this share (more refused below the rate: the rate is lower)
NOISE_SIGMAS = 3.0  # 429s beyond the noise's share count when more than chance explains...
NOISE_BEYOND = 0.05  # ...and a long cycle is cut when this share beyond it is refused
RECENT_CALLS = 20  # ...counted over a second, or over this many calls when a second has fewer
RECENT_CUT_CALLS = 5  # calls sent since a cut that tell what the service lets through since
TOLERANCE = 1.5  # latency counts as inflated above this many times its long average
HOLD_ABOVE = 1.0  # seconds: a longer Retry-After holds every new call until it has passed
SHOWN_SECONDS = 5.0  # the pace shown is measured over this long; a 429 is mentioned this long
KEPT_SECONDS = 10.0  # how long sent calls are remembered for the estimates
REMEMBERED_SECONDS = 600.0  # a rate learnt this lately starts the next client (any process)
WRITTEN_EVERY = 5.0  # seconds between two writes of the rate learnt
LAST_STRETCH_SECONDS = 3.0  # no probing when the calls left take less than this at the pace
PUBLISHED_EVERY = 1.0  # seconds between two raises of the team's rate by one process
LEARNING_WAIT = 3.0  # on a team: while another process finds the key's rate, wait this long...
LEARNING_STEP = 0.1  # ...looking this often
CLIMB = 1.02  # a team's rate known as a lower bound grows this much per second not refused
SENT_AS_DRAWN = 0.9  # a team's second tells the rate when this share of its slots was sent
SETTLING = 0.4  # the team's learner refines its first cut this long before telling the team
REMEASURED = 2  # ...measured again at most this many times when sent below the rate...
REMEASURE_FASTER = 1.25  # ...this much faster each time
VERDICT_LAG = 0.5  # seconds a team's verdicts of a second may take beyond twice the latency
TEAM_CUT = 0.98  # the team's rate this far below this process's is a cut, nearer its probing
TEAM_RECENT = 3  # a team's whole seconds pooled to tell an overload from the noise
TEAM_SIGMAS = 4.0  # ...beyond the noise by more than this many deviations (tested each second)
TEAM_NOISE_SECONDS = 10  # ...and the seconds, no busier than a cut's, that measure the noise
LOG = logging.getLogger("profnet_sheets")


@dataclass
class Ticket:
    """One call let through: when it started, and whether the service refused it (429)."""

    started: float
    throttled: bool = False
    sent_in: int | None = None  # on a team: the second of Redis's clock its slot was in
    paced_at: float = math.inf  # the rate it started at (inf: not paced by a rate)
    taken: bool = False  # the service took it: any verdict but a 429 (answered, 5xx, cut)


@dataclass(frozen=True)
class PaceView:
    """The pace as it is now: what the progress bars show."""

    in_flight: int
    window: int  # calls allowed in flight now
    rate: float | None  # calls per second allowed to start now (None: not paced)
    per_second: float  # calls answered per second, lately
    throttled: bool  # the service answered 429 lately
    throttles: int  # 429s received in all
    calls: int  # calls sent in all
    answers: int  # calls answered in all (a 429 is not an answer here)
    waiting: int  # calls waiting for their turn (none: more callers could keep it busier)

    def describe(self) -> str:
        """`service: 12.3 calls/s` (the calls it answers a second, not the lookups a cache
        answers) and, when it throttled lately, `, throttled by the service: paced at 12/s`."""
        shown = f"service: {self.per_second:.3g} calls/s"
        if self.throttled and self.rate is not None:
            shown += f", throttled by the service: paced at {self.rate:.3g}/s"
        elif self.throttled:
            shown += ", throttled by the service"
        return shown


class PaceCore:
    """The controller's decisions, with the time given: `start` says whether a call may start
    now (a Ticket), after how many seconds to ask again (a float), or not before another call
    ends (None); `finish` learns from how the call went."""

    def __init__(self, cap: int, rate_cap: float | None = None, initial: int = INITIAL_WINDOW):
        self.cap = max(1, cap)
        self.rate_cap = rate_cap
        self.window = float(min(self.cap, initial))
        self.rate: float | None = rate_cap
        self.learning = True  # slow start: no 429, no timeout, no slower answers yet
        self.known = math.inf  # the service's admitted rate as last estimated
        self.floor = MIN_RATE  # the least the last cut (and its echoes) may bring it to
        self.in_flight = 0
        self.next_at = -math.inf  # when the paced rate lets the next call start
        self.hold_until = -math.inf  # a long Retry-After: nothing starts before
        self.cut_at = -math.inf  # when the rate or window was last cut
        self.held_up = False  # ...while the service let nothing through (an outage of 429s)
        self.lowered_at = -math.inf  # ...or the rate lowered (told better by quick 429s)
        self.shrunk_at = -math.inf  # when the window last shrank for latency
        self.since_cut = 0.0  # answers since the last cut (a team's: its share counted whole)
        self.sent: deque[Ticket] = deque()  # calls started in the last KEPT_SECONDS
        self.first_started = math.inf  # when the first call started
        self.answered: deque[float] = deque()  # when calls were answered, SHOWN_SECONDS back
        self.latency = 0.0  # short average of answered calls' latency (seconds)
        self.baseline = 0.0  # long average
        self.samples = 0
        self.reject_delay = 0.0  # how long the service takes to answer a 429 (an average)
        self.throttled_at = -math.inf
        self.throttles = 0
        self.calls = 0
        self.waiting = 0  # callers waiting for their turn (the thread-safe Pace counts them)
        self.left: int | None = None  # calls a run still has to start (None: not known)
        self.team = False  # the rate is the team's, its calls paced by the team's schedule
        self.share = 1.0  # this process's share of the key's calls lately (1: alone)
        self.second = -1  # on a team: the last whole second on Redis's clock seen
        self.cut_second = -1  # ...the last one holding calls sent before the team's last cut
        self.early_most = EARLY_MOST  # the window before any answer (a team's learner: less)
        self.spread = SLOW_START_PACE  # while learning, a window's calls start over 1/this latency
        self.first_refused = math.inf  # when the first call the service refused started
        self.climbing = False  # a team's rate is a lower bound: raised each second not refused
        self.ceiling = math.inf  # ...up to this (the learner's first estimate)
        self.settling = 0.0  # seconds a first cut is refined before the team hears of it
        self.measured_from = -math.inf  # ...measured from then (or its first 429)...
        self.remeasured = 0  # ...measured again this many times (sent below the rate)
        self.noise = 0.0  # the share of 429s that come whatever the pace, as last measured
        # A cut made before the noise was measured: the rate before it, and the share refused
        # (of how many calls) that made it; undone once the noise explains it.
        self.undo: tuple[float, float, float, int] | None = None
        # A team's: the noise as its whole seconds tell it; the rate before, and the 429s of,
        # a cut made before the noise was measured; the seconds pooled to tell them.
        self.team_noise = 0.0
        self.team_took = 0.0  # calls the service let through in the second of its last cut
        self.team_undo: tuple[float, float, int, int, int] | None = None
        self.team_recent: deque[tuple[int, int]] = deque(maxlen=TEAM_RECENT)
        self.team_below: deque[tuple[int, int]] = deque(maxlen=TEAM_NOISE_SECONDS)
        if rate_cap is not None:  # the user knows the service's limit: no slow start
            self.learning = False
            self.known = rate_cap
            self.floor = max(MIN_RATE, FLOOR * rate_cap)
            self.window = float(self.cap)

    @property
    def learnt(self) -> float | None:
        """The service's rate as its answers taught it (past the slow start), or None: not
        learnt yet, or only the user's own cap (`rate_cap`, one run's choice that no other
        client goes by: it is neither kept for the next clients nor told to the team)."""
        known = self.known
        if self.learning or not math.isfinite(known):
            return None
        return None if self.rate_cap is not None and known >= self.rate_cap else known

    def start_from(self, rate: float) -> None:
        """Start at a rate the service took lately (learnt by an earlier client): paced by it
        at once, no slow start and no overshoot; probing goes on from there."""
        self.learning = False
        self.known = max(MIN_RATE, rate)
        self.floor = max(MIN_RATE, FLOOR * self.known)
        self.rate = BETA * self.known
        if self.rate_cap is not None:
            self.rate = min(self.rate, self.rate_cap)
        self.window = float(self.cap)

    def adopt(self, known: float, rate: float, now: float) -> None:
        """Go at the rate other processes on the key learnt (the team's): a lower one is a cut
        (the 429s of calls sent before it are its echoes), a higher one their probing. Lower
        by less than TEAM_CUT is not a cut: this process's own probes since it last adopted
        (about 1% a second) put it that far above the team's; read as a cut, every adoption
        put off the team's next verdict, and a rate over the limit went uncut for seconds."""
        lower = self.rate is None or rate < TEAM_CUT * self.rate
        self.learning = False
        self.team = True
        self.settling = 0.0  # another process learnt it
        self.known = max(MIN_RATE, known)
        self.floor = max(MIN_RATE, FLOOR * self.known)
        self.rate = max(MIN_RATE, rate if self.rate_cap is None else min(rate, self.rate_cap))
        self.window = float(self.cap)
        if lower:
            self.cut_at = now
            self.since_cut = 0
            self.cut_second = self.second + 1

    def settle(self, now: float) -> None:
        """A team's learner, SETTLING after its first cut: the service's rate is what it let
        through of the calls sent since the first one it refused (its bucket empty from then,
        its first burst not counted), unless too few were sent to tell; when none of the
        later half was refused, measured again at a faster pace (at most REMEASURED times)."""
        decided = now - self.reject_delay * MARGIN
        since = max(self.first_refused, self.measured_from)
        seconds = decided - since
        window = [sent for sent in self.sent if since <= sent.started <= decided]
        if len(window) < RECENT_CUT_CALLS or seconds <= 0 or self.rate is None:
            self.settling = 0.0
            return
        late = [sent for sent in window if sent.started >= since + seconds / 2]
        if late and not any(sent.throttled for sent in late) and self.remeasured < REMEASURED:
            # None refused lately: sent below the service's rate, the measure would only be a
            # lower bound (a climb of seconds for the team). Faster, towards the first estimate
            # (its burst counted: above the rate), and measured again from now.
            self.remeasured += 1
            self.rate = min(self.known, self.rate * REMEASURE_FASTER)
            self.measured_from = self.cut_at = now
            return
        self.settling = 0.0
        measured = sum(not sent.throttled for sent in window) / seconds
        # The calls may have gone out below the service's rate (the measure is then below it):
        # the team climbs from it (team_second) until a second is refused.
        self.climbing = True
        self.ceiling = self.known  # the first cut's estimate (its first burst counted): above
        self.known = max(MIN_RATE, min(measured, self.known))
        self.floor = max(MIN_RATE, FLOOR * self.known)
        self.rate = max(MIN_RATE, BETA * self.known)
        if self.rate_cap is not None:
            self.rate = min(self.rate, self.rate_cap)
        self.cut_at = now
        self.since_cut = 0

    def team_second(self, second: int, answered: int, refused: int, now: float) -> None:
        """Learn from the team's verdicts in a whole second on Redis's clock (every process's
        calls on the key): a second the service refused calls in, all sent after the last cut,
        tells its rate, the calls it answered then (its bucket empty: its first burst, or a
        process's share of the key's calls, is not a rate). A cut to BETA of it; never above."""
        if second <= self.second:
            return
        if self.second < 0:  # the first second seen: the ones before hold the learner's start
            self.cut_second = max(self.cut_second, second + 1)
        self.second = second
        if not self.team or self.rate is None or second <= self.cut_second:
            return
        counted = answered + refused
        if counted:
            self._team_noise(refused, counted)
        if counted < SENT_AS_DRAWN * self.rate:
            return  # fewer calls went out than the schedule drew: a second tells little
        noise = self.team_noise
        self.team_recent.append((refused, counted))
        pooled_refused, pooled = map(sum, zip(*self.team_recent, strict=True))
        beyond = _beyond(pooled_refused / pooled, pooled, noise, TEAM_SIGMAS) if noise else 1.0
        if not refused or not beyond:  # none refused, or no more than the noise explains
            if self.climbing:  # a whole second at the rate, none refused: above it, maybe
                self.known = min(self.ceiling, self.known * CLIMB)
                self.rate = BETA * self.known
                self.climbing = self.known < self.ceiling
                self.cut_second = second + 1
            return
        self.climbing = False
        # What got through: the calls answered, or the schedule's rate less the share refused
        # (fewer calls sent in that second than the schedule had: their 429s tell less); the
        # noise's 429s counted as if they had not come.
        share = refused / counted
        known = max(MIN_RATE, answered / (1 - noise), self.rate * (1 - _above(share, noise)))
        if answered:
            self.held_up = False
        elif refused >= RECENT_CUT_CALLS:  # a whole second of calls, none let through
            self.held_up = True
        if self.team_undo is not None:  # since a cut made before the noise was measured,
            # never below what the service let through then (while refusing): a limit's cut
            # is one, the noise's would come every second, to nothing, before it is measured
            known = max(known, self.team_undo[4])
        if BETA * known >= self.rate:
            return
        if not noise and self.team_undo is None:
            self.team_undo = (self.known, self.rate, refused, counted, answered)
            self.team_below.clear()  # sent before it: above what it says the service takes
        self.team_took = answered
        self.team_recent.clear()
        self.known = known
        self.floor = max(MIN_RATE, FLOOR * known)
        self.rate = max(MIN_RATE, BETA * known)
        if self.rate_cap is not None:
            self.rate = min(self.rate, self.rate_cap)
        self.cut_at = now
        self.since_cut = 0
        self.cut_second = second + 1

    def _team_noise(self, refused: int, counted: int) -> None:
        """Learn the 429s a team meets whatever its pace (noise) from a second of its calls.

        After a cut of its own, a second whose calls were no more than those the service let
        through in the second that made it (a limit's bucket, empty then, refills as fast)
        meets no limit's 429s: those it meets are the noise's, their share measured over the
        last TEAM_NOISE_SECONDS such seconds once NOISE_SAMPLE calls tell it (NOISE to
        NOISE_MOST; outside, none: more is a lower limit). The cut made before the noise was
        measured is undone when the noise explains the share that made it (asked again as the
        measure grows, over TEAM_NOISE_SECONDS)."""
        if counted > self.team_took:  # (none before a cut of its own: 0)
            return
        self.team_below.append((refused, counted))
        told, calls = map(sum, zip(*self.team_below, strict=True))
        if calls < NOISE_SAMPLE:
            return
        measured = told / calls
        self.team_noise = measured if NOISE <= measured <= NOISE_MOST else 0.0
        undo = self.team_undo
        if undo is None or not self.team_noise:
            return
        known, rate, cut_refused, cut_counted, _ = undo
        if not _beyond(cut_refused / cut_counted, cut_counted, self.team_noise):
            self.known, self.rate = max(self.known, known), max(self.rate or rate, rate)
            self.floor = max(MIN_RATE, FLOOR * self.known)
            self.team_undo = None
        elif len(self.team_below) == TEAM_NOISE_SECONDS:  # measured long enough: a limit's
            self.team_undo = None

    # -- starting a call ------------------------------------------------------------------------

    def start(self, now: float) -> Ticket | float | None:
        if now < self.hold_until:
            return self.hold_until - now
        early = self.learning and not self.samples and not self.throttles and self.calls > 0
        if early:  # no answer yet, and no 429 either (a gateway's would be back by now): widen
            doublings = math.floor((now - self.first_started) / EARLY_SECONDS)
            most = min(self.cap, self.early_most)
            self.window = max(self.window, min(most, INITIAL_WINDOW * 2**doublings))
        if self.in_flight >= min(self.cap, int(self.window)):
            if early and self.window < most:  # ask again at the next doubling
                return self.first_started + (doublings + 1) * EARLY_SECONDS - now
            return None
        rate = self._pacing()
        if rate is not None:
            if now < self.next_at:
                return self.next_at - now
            self.next_at = max(self.next_at, now) + 1.0 / rate
        self.in_flight += 1
        self.calls += 1
        ticket = Ticket(now, paced_at=math.inf if rate is None else rate)
        self.first_started = min(self.first_started, now)
        self.sent.append(ticket)
        while self.sent[0].started <= now - KEPT_SECONDS:
            self.sent.popleft()
        return ticket

    def _pacing(self) -> float | None:
        """Calls per second allowed to start: the rate, and while learning a window wider than
        the first burst spread over a quarter of the latency (no bursts of a whole window).
        None when the team's schedule paces the calls (the driver draws their slots)."""
        if self.team and not self.learning:
            return None
        if self.learning and self.samples and self.window > INITIAL_WINDOW:
            # a window no wider than the first burst (sent at once, unknowing) goes at once too
            spread = self.spread * self.window / self.latency
            return spread if self.rate is None else min(spread, self.rate)
        return self.rate

    # -- how it went ----------------------------------------------------------------------------

    def finish(
        self, ticket: Ticket, now: float, outcome: Outcome, retry_after: float | None = None
    ) -> None:
        self.in_flight = max(0, self.in_flight - 1)
        if outcome == "unused":  # its turn given back, nothing sent: no call, no lesson
            self.calls = max(0, self.calls - 1)
            for index, sent in enumerate(self.sent):
                if sent is ticket:
                    del self.sent[index]
                    break
            return
        took = max(1e-4, now - ticket.started)  # a clock that did not move: not zero
        ticket.taken = outcome in ("answered", "failed")
        if outcome == "answered":
            self._answered(took, now)
        elif outcome == "throttled":
            self._throttled(ticket, took, now, retry_after)
        elif outcome == "timeout" and ticket.started >= self.cut_at:
            self.learning = False
            self.window = max(1.0, min(self.window, self.in_flight + 1) / 2)
            if self.rate is not None:
                self.rate = max(MIN_RATE, self.rate * FLOOR)
            self.cut_at = now
            self.since_cut = 0

    def _answered(self, took: float, now: float) -> None:
        self.answered.append(now)
        while self.answered[0] <= now - SHOWN_SECONDS:
            self.answered.popleft()
        self.samples += 1
        if self.samples == 1:
            self.latency = self.baseline = took
        else:
            self.latency += 0.1 * (took - self.latency)
            self.baseline += (0.1 if self.samples <= 20 else 0.01) * (took - self.baseline)
        if self.rate is None and self.throttles and not self.learning:  # refused before
            self.known = self.window / self.latency  # any answer: now the rate can be told
            self.floor = max(MIN_RATE, FLOOR * self.known)
            self.rate = max(MIN_RATE, BETA * self.known)
            if self.rate_cap is not None:
                self.rate = min(self.rate, self.rate_cap)
            self.window = float(self.cap)
            self.since_cut = 0
            return
        if self.samples >= 5 and self.latency > TOLERANCE * self.baseline:
            self._slower(now)
            return
        if self.learning:
            self.window = min(self.cap, self.window + SLOW_START_GAIN)
        elif self.rate is not None:
            if self.rate < BETA * self.known:
                self.rate += 1.0 / RECOVER_SECONDS
            elif self.team and not self._last_stretch():
                # A team's probe does not accelerate: its bucket, refilled below its rate,
                # hides an overshoot for seconds, then refuses it all at once. After an outage
                # of 429s (its cuts tell no limit) it does, by time, until a second is refused
                # with some calls let through: that burst of 429s is the price of hours saved.
                if self.held_up:
                    probing = now - max(self.cut_at, self.throttled_at)
                    step = 1 + PROBE * 2 ** min(10.0, probing / ACCELERATE_SECONDS)
                    self.rate *= step ** (1 / self.share)
                else:  # PROBE an answer of the key's, at most TEAM_PROBE a second: this one's part
                    rate = max(MIN_RATE, self.rate)
                    growth = min(TEAM_PROBE, PROBE * rate)
                    self.rate *= (1 + growth) ** (1 / (self.share * rate))
            elif not self._last_stretch():
                # Each answer here stands for 1/share of the key's (a team's other processes).
                # Until a cut tells where the limit is, time since the last 429 counts too: a
                # rate learnt low (an outage of 429s, remembered or met mid-run: its cuts tell
                # no limit) took hours to come back by answers alone (and a few random 429s,
                # no cut, must not stop that, only restart the clock); after a cut, near a
                # limit of a call or two a second, it would overshoot every few seconds.
                doublings = self.since_cut / ACCELERATE
                if self.cut_at == -math.inf or self.held_up:
                    probing = now - max(self.cut_at, self.throttled_at, self.first_started)
                    doublings = max(doublings, probing / ACCELERATE_SECONDS)
                step = 1 + PROBE * 2 ** min(10.0, doublings)
                # Never far above what the window lets through: a rate no call waits for
                # tells nothing, and would be probed up without end.
                self.rate = min(self.rate * step ** (1 / self.share), self._window_rate())
            if self.rate_cap is not None:
                self.rate = min(self.rate, self.rate_cap)
        else:
            self.window = min(self.cap, self.window + 1 / self.window)
        self.since_cut += 1 / self.share

    def _window_rate(self) -> float:
        """Twice the calls per second the cap in flight lets through at the latency now."""
        return max(self.known if math.isfinite(self.known) else 0.0, 2 * self.cap / self.latency)

    def _last_stretch(self) -> bool:
        """The run's last calls start within LAST_STRETCH_SECONDS at this rate: probing could
        only earn a 429, whose retry (a Retry-After later) would be the run's last answer."""
        return (
            self.left is not None
            and self.rate is not None
            and self.left < self.rate * LAST_STRETCH_SECONDS
        )

    def _slower(self, now: float) -> None:
        """Answers come back slower: stop growing; unless a rate paces, shrink a little."""
        self.learning = False
        if self.rate is None and now - self.shrunk_at >= self.latency:
            self.window = max(1.0, self.window * 0.9)
            self.shrunk_at = now

    def _throttled(
        self, ticket: Ticket, took: float, now: float, retry_after: float | None
    ) -> None:
        ticket.throttled = True
        self.throttles += 1
        self.throttled_at = now
        first = self.throttles == 1
        self.first_refused = min(self.first_refused, ticket.started)
        self.reject_delay = took if first else self.reject_delay + 0.2 * (took - self.reject_delay)
        if retry_after is not None and retry_after > HOLD_ABOVE:
            self.hold_until = max(self.hold_until, now + retry_after)
        self.learning = False
        if self.rate is None and not self.samples:
            # Refused before any answer: nothing tells the rate yet. One call fewer in
            # flight per 429; the first answer (its latency) turns the window into a rate.
            self.window = max(1.0, self.window - 1)
            self.cut_at = now
            return
        self.window = float(self.cap)
        if self.team and self.rate is not None:
            return  # the team's verdicts second by second tell its rate (team_second)
        # What the service lets through: counted since the last cut (or over a second), and
        # the pace less the share it refused of the last calls; both err high, so the lower.
        current = self._current(now)
        # 429s that come whatever the pace (noise) say nothing of the rate: only the share
        # refused above theirs does, and what was let through is counted as if they had not.
        noise = self._noise_share(now, ticket)
        # What this process's calls were let through tells the service's rate when they are
        # all of the key's; a team's schedule sends at its rate: the share refused tells it.
        own = self._admitted(now, ticket, since_cut=True) if self.share >= 1 else None
        admitted = min(
            math.inf if own is None else own / (1 - noise),
            current * (1 - _above(self._last_share(now, ticket), noise)),
        )
        since = now - self.cut_at
        refused = self._refused_share(now, ticket)
        share = _beyond(*refused, noise)
        alone = not self.team or self.share >= 1  # its calls are all of the key's
        settled = self.rate is None or (
            since >= self.reject_delay * MARGIN  # the verdicts of the calls before it are in
            and (alone or since >= SPAN)  # a team's calls are many: a second's worth
            and (
                share >= (OVERLOADED if alone else TEAM_OVERLOADED)
                or (
                    since >= SPAN
                    and self.since_cut >= ACCELERATE
                    and not self._noise(ticket, share)
                )
            )
        )
        if ticket.started >= self.cut_at and settled:  # a new overload: cut to what it admits
            # Cut while the noise was not measured yet: undone if it explains the 429s.
            before = self.rate is not None and not noise
            self.undo = (self.known, self.rate or 0.0, *refused) if before else None
            # Never below what the service demonstrably took (its answers, counted).
            self.floor = max(MIN_RATE, FLOOR * current, BETA * self._took(now, ticket))
            self.held_up = self._nothing_let_through(now, ticket)  # an outage: no limit told
            self.known = max(self.floor, min(current, admitted))
            self.rate = max(MIN_RATE, BETA * self.known)
            if self.settling and self.throttles == 1:
                # A team's learner: its first burst counted, the estimate is above the rate;
                # less that burst (a full bucket: SPAN at the rate), below. It measures
                # between the two (settle), fewer calls refused meanwhile.
                self.rate = max(MIN_RATE, (self.known + self._past_burst(ticket)) / 2)
            self.cut_at = self.lowered_at = now
            self.next_at = now + 1.0 / self.rate
            self.since_cut = 0
        elif (
            self.rate is not None
            and self._quick_refusals()
            and self.share >= 1
            and not self.settling  # a team's learner measures its first cut (settle) instead
        ):
            # The same overload, told better by refusals that come at once (a gateway's); on
            # a team, by the process whose calls are still the only ones (the learner), from
            # what the service let through since the cut (echoes of before it not counted again).
            told = own if self.team and own is not None else admitted
            self.known = max(self.floor, min(self.known, told))
            lowered = max(BETA * self.floor, BETA * min(self.rate, told))
            if lowered < self.rate:
                self.lowered_at = now
            self.rate = lowered
        if self.rate_cap is not None and self.rate is not None:
            self.rate = min(self.rate, self.rate_cap)

    def _past_burst(self, ticket: Ticket) -> float:
        """The rate told by the first 429 if the service's bucket held SPAN at its rate at the
        start and the calls before drew on it all along (they did not: it errs low)."""
        before = sum(not sent.throttled for sent in self.sent if sent.started < ticket.started)
        return before / (max(0.0, ticket.started - self.first_started) + SPAN)

    def _noise_share(self, now: float, ticket: Ticket) -> float:
        """The share of 429s that come whatever the pace: among the calls (verdicts in) sent
        no faster than the service's rate as estimated at the last cut, when NOISE_SAMPLE of
        them tell it and it is at least NOISE (0 below); fewer: the last measure; before a
        first cut, 0 (nothing tells)."""
        if not math.isfinite(self.known):
            self.noise = 0.0
            return 0.0
        decided = max(ticket.started, now - self.reject_delay * MARGIN)
        below = [
            sent
            for sent in self.sent
            if sent.started <= decided
            and sent.paced_at <= self.known
            and (sent.taken or sent.throttled)  # its verdict in
        ]
        if len(below) >= NOISE_SAMPLE:  # else the last measure holds (probing sends above)
            share = sum(sent.throttled for sent in below) / len(below)
            self.noise = share if NOISE <= share <= NOISE_MOST else 0.0
        if self.undo is not None and self.noise:
            known, rate, refused, counted = self.undo
            self.undo = None
            if not _beyond(refused, counted, self.noise):  # the last cut was the noise's
                self.known, self.rate = max(self.known, known), max(self.rate or 0.0, rate)
                self.floor = max(MIN_RATE, FLOOR * self.known)
        return self.noise

    def _nothing_let_through(self, now: float, ticket: Ticket) -> bool:
        """Every call sent over the last OUTAGE_SECONDS was refused (their verdicts in, a few
        at least): an outage of 429s, whose cuts tell nothing of the service's limit."""
        decided = max(ticket.started, now - self.reject_delay * MARGIN)
        since = decided - OUTAGE_SECONDS
        if not self.sent or self.sent[0].started > since:
            return False  # not sending that long: a first burst's 429s
        told = [
            sent
            for sent in self.sent
            if since <= sent.started <= decided and (sent.taken or sent.throttled)
        ]
        return len(told) >= 2 and not any(sent.taken for sent in told)

    def _took(self, now: float, ticket: Ticket) -> float:
        """What the service demonstrably took lately: the calls it did not refuse (a 5xx or a
        lost connection comes whatever the pace) of those sent in a whole second since its
        first 429 (its first burst spent), the lower of two seconds in a row (a bucket refilled
        meanwhile is not a rate), the most over the last KEPT_SECONDS."""
        decided = max(ticket.started, now - self.reject_delay * MARGIN)
        whole = math.floor(decided - self.first_refused)
        if not math.isfinite(self.first_refused) or whole < 2:
            return 0.0
        seconds = [0] * whole
        for sent in self.sent:
            second = math.floor(sent.started - self.first_refused)
            if sent.taken and 0 <= second < whole:
                seconds[second] += 1
        lowest = min(KEPT_SECONDS, whole)  # the seconds kept whole (older ones are gone)
        counted = seconds[whole - int(lowest) + 1 :] if lowest < whole else seconds
        return float(max((min(pair) for pair in itertools.pairwise(counted)), default=0))

    def _noise(self, ticket: Ticket, beyond: float) -> bool:
        """The 429s since the last cut are spread over the whole cycle, as thickly as NOISE:
        they come whatever the pace (a limit refuses in a burst when the probe passes it);
        or, when their share below the rate is known (`_noise_share`), the last ones are
        fewer than NOISE_BEYOND more (`beyond`, `_refused_beyond`)."""
        if self.noise:
            return beyond < NOISE_BEYOND
        cycle = [sent for sent in self.sent if self.cut_at <= sent.started <= ticket.started]
        if len(cycle) < NOISE_CALLS:
            return False
        return sum(sent.throttled for sent in cycle) / len(cycle) >= NOISE

    def _quick_refusals(self) -> bool:
        """429s come back in a fraction of an answer's time: what the service let through is
        known at once (its answers are still on their way)."""
        return self.samples > 0 and self.reject_delay * MARGIN < self.latency / 2

    def _current(self, now: float) -> float:
        """Calls per second the pace lets start now: its rate or, when only the window paces,
        a window per latency (before any answer: the calls started over the last SPAN)."""
        if self.rate is not None:
            return self.rate
        lived = min(SPAN, max(now - self.first_started, self.latency, 1e-3))  # a young run
        started = sum(1 for ticket in self.sent if ticket.started > now - SPAN) / lived
        if not self.samples:
            return started
        return max(started, min(self.window, self.in_flight + 1) / self.latency)

    def _admitted(self, now: float, ticket: Ticket, since_cut: bool = False) -> float | None:
        """Calls per second the service let through over the last SPAN whose verdicts are in
        (calls sent no later than this one, or longer ago than a 429 takes), or None.
        `since_cut`: over the calls sent since a cut less than SPAN ago instead, when there are
        RECENT_CUT_CALLS (its bucket was empty then: what it let through since is its rate)."""
        decided = max(ticket.started, now - self.reject_delay * MARGIN)
        if since_cut and 0 < decided - self.cut_at < SPAN:
            after = [sent for sent in self.sent if self.cut_at <= sent.started <= decided]
            if len(after) >= RECENT_CUT_CALLS:
                return sum(not sent.throttled for sent in after) / (decided - self.cut_at)
        window = [sent for sent in self.sent if decided - SPAN < sent.started <= decided]
        if not window:
            return None
        # Over SPAN, or what the run has lived when younger (a latency at the least).
        seconds = min(SPAN, max(decided - self.first_started, self.latency, 1e-3))
        return sum(not sent.throttled for sent in window) / seconds

    def _refused_share(self, now: float, ticket: Ticket) -> tuple[float, int]:
        """The share of 429s among the calls started over the last SPAN, or the last
        RECENT_CALLS when a second holds fewer (verdicts in), since the last cut (the 429s of
        calls sent before it are its echoes), and how many calls that counts."""
        decided = max(ticket.started, now - self.reject_delay * MARGIN)
        window: list[Ticket] = []
        for sent in reversed(self.sent):
            if sent.started > decided:
                continue
            if sent.started < max(self.cut_at, self.lowered_at) or (
                sent.started <= decided - SPAN and len(window) >= RECENT_CALLS
            ):
                break
            window.append(sent)
        counted = max(RECENT_CALLS, len(window))
        return sum(sent.throttled for sent in window) / counted, counted

    def _last_share(self, now: float, ticket: Ticket) -> float:
        """The share of 429s among the last RECENT_CALLS calls whose verdicts are in."""
        decided = max(ticket.started, now - self.reject_delay * MARGIN)
        last = [sent for sent in reversed(self.sent) if sent.started <= decided][:RECENT_CALLS]
        return sum(sent.throttled for sent in last) / max(1, len(last))

    def view(self, now: float) -> PaceView:
        while self.answered and self.answered[0] <= now - SHOWN_SECONDS:
            self.answered.popleft()
        first = self.sent[0].started if self.sent else now
        seconds = max(1.0, min(SHOWN_SECONDS, now - first))
        return PaceView(
            in_flight=self.in_flight,
            window=min(self.cap, int(self.window)),
            rate=self.rate,
            per_second=len(self.answered) / seconds,
            throttled=now - self.throttled_at < SHOWN_SECONDS,
            throttles=self.throttles,
            calls=self.calls,
            answers=self.samples,
            waiting=self.waiting,
        )


def _beyond(share: float, counted: int, noise: float, sigmas: float = NOISE_SIGMAS) -> float:
    """The share of `counted` calls refused beyond the `noise`'s (`_above`), when more than
    chance explains (`sigmas` binomial deviations); else 0."""
    beyond = _above(share, noise)
    chance = sigmas * math.sqrt(noise * (1 - noise) / counted) / (1 - noise)
    return beyond if beyond > chance else 0.0


def _above(share: float, noise: float) -> float:
    """The share of calls refused above the noise's (429s that come whatever the pace), as a
    share of the calls the noise did not refuse."""
    return max(0.0, share - noise) / (1 - noise)


class Stopped(NeverSent):
    """The run a thread works for stopped while its call waited for its turn: nothing was sent
    (a KeyboardInterrupt, as Ctrl-C, so that the run ends the same way)."""


_local = threading.local()


def stoppable_sleep(seconds: float) -> None:
    """Wait `seconds`; Stopped (nothing sent) when the run this thread works for (a Pace's
    `stop_waiting_when`) stops meanwhile: a claim another process holds is not waited out
    after Ctrl-C (a killed one's, on Redis, lasts until its lease runs out)."""
    stop: threading.Event | None = getattr(_local, "stop", None)
    if stop is None:
        time.sleep(seconds)
    elif stop.wait(seconds):
        raise Stopped("stopped while waiting for another process's claim on the call")


class Pace:
    """The pace of every call of one client (its views share it), thread-safe."""

    def __init__(
        self,
        cap: int,
        rate_cap: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.core = PaceCore(cap, rate_cap)
        self._clock = clock
        self._ready = threading.Condition(threading.Lock())
        self._memory: Path | None = None  # where the rate learnt is kept for the next clients
        self._written = (0.0, -math.inf)  # the rate last written, and when (this clock)
        self._board: RedisPaceBoard | None = None  # the team's pace, when the cache is Redis
        self._seen = 0  # the team's rate's version this process goes by
        self._published = (0.0, -math.inf)  # the rate this process last said, and when
        self._learner_due: float | None = None  # waiting for another process to learn: until
        self._learner_told = -math.inf  # when a thread last heard that another one learns
        self._drawing = threading.Lock()  # held by the thread drawing (and awaiting) a slot
        self._drawn: deque[tuple[float, int]] = deque()  # this process's slots: when, team's count

    def share_through(self, board: RedisPaceBoard) -> None:
        """Go at one pace with every process on the key (the cache's Redis): start at the
        team's rate learnt lately, draw each call's slot from the team's schedule, say the rate
        learnt here. Redis out of reach: this process paces alone (said once)."""
        self._board = board
        with self._ready:  # the team's learner sends nothing blind: its 429s are everyone's
            self.core.early_most = INITIAL_WINDOW
            self.core.settling = SETTLING
            self.core.spread = 1.0  # a whole latency: fewer calls on their way when one is refused
        try:
            team = board.team()
        except Exception as error:  # any of redis-py's errors: the local pace goes on
            self._lose_board(error)
            return
        if team is not None:
            self._go_by(team)

    def remember_in(self, path: Path) -> None:
        """Keep the rate learnt in `path` (beside the cache, so every process on it shares it),
        and start from the one learnt there in the last REMEMBERED_SECONDS, if any."""
        self._memory = path
        try:
            kept = json.loads(path.read_text(encoding="utf-8"))
            rate, when = float(kept["rate"]), float(kept["at"])
        except (OSError, ValueError, TypeError, KeyError):
            return  # none yet, or unreadable: learn it again
        if math.isfinite(rate) and rate > 0 and 0 <= time.time() - when < REMEMBERED_SECONDS:
            with self._ready:
                self.core.start_from(rate)

    @property
    def cap(self) -> int:
        return self.core.cap

    def acquire(self) -> Ticket:
        """Wait until a call may start, and count it as started. Raises Stopped when the run
        this thread works for (`stop_waiting_when`) stops meanwhile."""
        stop: threading.Event | None = getattr(_local, "stop", None)
        with self._ready:
            self.core.waiting += 1
            try:
                while True:
                    if stop is not None and stop.is_set():
                        raise Stopped("stopped while waiting for the service's pace")
                    got = self.core.start(self._clock())
                    if isinstance(got, Ticket):
                        self._ready.notify()  # the next in line may be able to start too
                        break
                    self._ready.wait(got)
            finally:
                self.core.waiting -= 1
        if self._board is not None:
            with self._ready:  # not sent yet: no estimate counts it until its slot comes
                started, got.started = got.started, math.inf
            try:
                self._take_turn(got, stop)
            except BaseException:  # stopped, interrupted: the turn given back, never sent
                self.release(got, "unused")
                raise
            finally:
                with self._ready:
                    got.started = started if got.started == math.inf else got.started
        return got

    def _take_turn(self, ticket: Ticket, stop: threading.Event | None) -> None:
        """Draw this call's slot when no other thread of the process holds one it waits for:
        a slot drawn is at most one per process ahead, so a cut paces the very next calls."""
        while not self._drawing.acquire(timeout=LEARNING_STEP):
            if stop is not None and stop.is_set():
                raise Stopped("stopped while waiting for the team's pace")
        try:
            self._take_slot(ticket, stop)
        finally:
            self._drawing.release()

    def _take_slot(self, ticket: Ticket, stop: threading.Event | None) -> None:
        """Wait for this call's slot on the team's schedule (none while the team has no
        rate); the call starts then. Raises Stopped when its run stops."""
        while True:
            board = self._board
            if board is not None and self._learner_told_lately():  # one question per step
                self._pause(LEARNING_STEP, stop)
                continue
            try:
                slot: Slot | str = "learn" if board is None else board.draw(self._lag())
            except Exception as error:  # Redis gone: the local pace goes on (said once)
                self._lose_board(error)
                return
            if not isinstance(slot, str):
                break
            if slot == "learn" or not self._may_wait_for_learner():
                return  # this process finds the rate (alone, or after waiting long enough)
            # Another process is finding the key's rate: its 429s will be the team's lesson.
            self._pause(LEARNING_STEP, stop)
        self._go_by(slot.team)
        ticket.sent_in = slot.sent_in
        self._count_share(slot.drawn)
        with self._ready:
            self.core.team_second(slot.second, slot.answered, slot.refused, self._clock())
            told = self._publish(self._clock())
        if told is not None:
            self._tell_team(told)
        if slot.wait > 0:
            self._pause(slot.wait, stop)
        with self._ready:
            ticket.started = self._clock()

    def _lag(self) -> float:
        """How long a call's verdict may take to come back (the team's seconds wait for it)."""
        with self._ready:
            return MARGIN * max(self.core.latency, self.core.reject_delay) + VERDICT_LAG

    def pause(self, seconds: float) -> None:
        """Wait `seconds` before a call's next attempt; Stopped (nothing sent) when the run
        this thread works for (`stop_waiting_when`) stops meanwhile: Ctrl-C does not wait out
        a Retry-After."""
        self._pause(seconds, getattr(_local, "stop", None))

    def _pause(self, seconds: float, stop: threading.Event | None) -> None:
        """Wait for the team's pace; Stopped when the run stops (`acquire` gives the turn back)."""
        if stop is None:
            time.sleep(seconds)
        elif stop.wait(seconds):
            raise Stopped("stopped while waiting for the team's pace")

    def _learner_told_lately(self) -> bool:
        """Another thread heard within LEARNING_STEP that another process learns the rate."""
        with self._ready:
            told, due = self._learner_told, self._learner_due
        now = self._clock()
        return due is not None and now < due and now - told < LEARNING_STEP

    def _count_share(self, drawn: int) -> None:
        """This process's share of the slots drawn over the last SPAN (what it sees of the
        service's answers is that share of the key's)."""
        now = self._clock()
        with self._ready:
            self._drawn.append((now, drawn))
            while self._drawn[0][0] <= now - SPAN:
                self._drawn.popleft()
            counts = [count for _, count in self._drawn]  # threads may append out of order
            team = max(len(counts), max(counts) - min(counts) + 1)
            self.core.share = max(0.01, len(counts) / team)

    def _may_wait_for_learner(self) -> bool:
        """Whether this process still waits for another to find the rate (LEARNING_WAIT from
        the first time it was told to, in all: then it finds it itself)."""
        now = self._clock()
        with self._ready:
            if self._learner_due is None:
                self._learner_due = now + LEARNING_WAIT
            self._learner_told = now
            return now < self._learner_due

    def _go_by(self, team: TeamRate) -> None:
        """Adopt the team's rate when it changed since this process last looked."""
        with self._ready:
            if team.version == self._seen:
                return
            self._seen = team.version
            self.core.adopt(team.known, team.rate, self._clock())
            self._published = (self.core.rate or 0.0, self._published[1])

    def _lose_board(self, error: Exception) -> None:
        """Redis out of reach: this process paces alone from now on, and says so once."""
        with self._ready:
            if self._board is None:
                return
            self._board = None
            self.core.team = False
        LOG.warning(
            "The team's pace on Redis is out of reach (%s): this process paces its calls "
            "alone from now on.",
            type(error).__name__,
        )

    def _publish(self, now: float) -> tuple[float, float, bool, int] | None:
        """What to tell the team after a call (held lock): the rate learnt here when it was
        cut (at once) or raised (at most every PUBLISHED_EVERY), else None."""
        rate, known = self.core.rate, self.core.known
        if self._board is None or rate is None or self.core.learnt is None:
            return None
        if self.core.settling:
            if now - self.core.cut_at < self.core.settling:
                return None  # the learner's first cut, until measured (settle)
            self.core.settle(now)
            if self.core.settling:
                return None  # measured again (sent below the service's rate)
            rate, known = self.core.rate or rate, self.core.known
        said, when = self._published
        lower = rate < said
        if rate == said or (not lower and now - when < PUBLISHED_EVERY):
            return None
        self._published = (rate, now)
        self.core.team = True
        return known, rate, lower, self._seen

    def _tell_team(self, told: tuple[float, float, bool, int]) -> None:
        """Publish the rate learnt here; go by the team's (another's cut kept over a probe)."""
        board = self._board
        if board is None:
            return
        try:
            team = board.publish(*told)
        except Exception as error:  # Redis gone: the local pace goes on (said once)
            self._lose_board(error)
            return
        if team is None:
            return
        with self._ready:
            if team.rate == told[1]:
                self._seen = team.version  # its own: nothing to adopt
                return
        self._go_by(team)

    def release(self, ticket: Ticket, outcome: Outcome, retry_after: float | None = None) -> None:
        """How a started call went: answered (any answer but a 429 or a 5xx), throttled (a
        429 about speed), timeout, or failed (5xx, connection lost: no lesson)."""
        with self._ready:
            now = self._clock()
            self.core.finish(ticket, now, outcome, retry_after)
            self._ready.notify()
            rate = self._rate_to_write(now, WRITTEN_EVERY)
            told = self._publish(now)
        if rate is not None:
            self._keep(rate)
        if told is not None:
            self._tell_team(told)
        if outcome in ("answered", "throttled") and ticket.sent_in is not None:
            try:
                if self._board is not None:
                    self._board.verdict(outcome == "throttled", ticket.sent_in)
            except Exception as error:  # Redis gone: the local pace goes on (said once)
                self._lose_board(error)

    def _rate_to_write(self, now: float, every: float) -> float | None:
        """The rate learnt (from the service's 429s), when it changed and the last write is
        `every` seconds old (marked as written); else None. Called holding the lock."""
        rate = self.core.learnt
        due = self._memory is not None and now - self._written[1] >= every
        if not (due and rate is not None and rate != self._written[0]):
            return None
        self._written = (rate, now)
        return rate

    def close(self) -> None:
        """Keep the rate learnt since the last write (they are WRITTEN_EVERY seconds apart):
        the next client on the cache starts from where this one ended."""
        with self._ready:
            rate = self._rate_to_write(self._clock(), 0.0)
        if rate is not None:
            self._keep(rate)

    def _keep(self, rate: float) -> None:
        """Write the rate learnt for the next clients (atomically; a failure only means the
        next one learns it again)."""
        if self._memory is None:
            return
        temporary = self._memory.with_name(f"{self._memory.name}.{os.getpid()}.tmp")
        with contextlib.suppress(OSError):
            temporary.write_text(json.dumps({"rate": rate, "at": time.time()}), "utf-8")
            os.replace(temporary, self._memory)

    def view(self) -> PaceView:
        with self._ready:
            return self.core.view(self._clock())

    def progress_note(self) -> Callable[[], str | None]:
        """For one run's progress display: a function that says the pace (`describe()`) once
        the service answered (or throttled) a call sent after this moment, and None before (a
        rate of answers is not yet known: not `0 calls/s`)."""
        before = self.view()

        def note() -> str | None:
            view = self.view()
            heard = view.answers > before.answers or view.throttles > before.throttles
            return view.describe() if view.calls > before.calls and heard else None

        return note

    def expect(self, calls: int | None) -> None:
        """Say how many calls a run still has to start (None: not known, or the run ended):
        near its end, the pace stops probing above the service's rate."""
        with self._ready:
            self.core.left = calls
            # A run ended: what it learnt last is what the next one starts at.
            rate = self._rate_to_write(self._clock(), 0.0) if calls is None else None
        if rate is not None:
            self._keep(rate)

    def wake(self) -> None:
        """Let every waiting thread look again (a run stopped: its waiters give up)."""
        with self._ready:
            self._ready.notify_all()

    @contextmanager
    def stop_waiting_when(self, stop: threading.Event) -> Iterator[None]:
        """While in this block, this thread's calls give up waiting (Stopped) once `stop` is set
        (call `wake()` after setting it)."""
        before = getattr(_local, "stop", None)
        _local.stop = stop
        try:
            yield
        finally:
            _local.stop = before
