"""Client: one typed method per endpoint, over the memo, the store, the budget and the ledger.

A call goes: arguments -> prepared parameters -> one CallKey -> the memo -> the store (under
the key's lock and, across processes, its claim) -> the service, within the budget. What is
kept, and for how long, is the CachePolicy's decision; what was charged, the ledger's record.
"""

from __future__ import annotations

import contextlib
import copy
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from profnet_sheets.client import jobs
from profnet_sheets.client.account import former_service_name, service_name
from profnet_sheets.client.answers import conformed, missing, payload, unfinished
from profnet_sheets.client.cache import CachePolicy
from profnet_sheets.client.embedded import SANDBOX_KEY, embedded_base_url
from profnet_sheets.client.jobs import SearchJob, SearchKind
from profnet_sheets.client.keylocks import PROCESS_LOCKS
from profnet_sheets.client.keys import CallKey, call_key, canonical_json
from profnet_sheets.client.ledger import Budget, Ledger, price_ceiling
from profnet_sheets.client.memo import Memo, MemoCache
from profnet_sheets.client.pace import Pace
from profnet_sheets.client.policy import error_for, longest_call
from profnet_sheets.client.prepare import prepare
from profnet_sheets.client.store import AnswerStore
from profnet_sheets.client.transport import Sent, Transport
from profnet_sheets.config import ApiKey, Settings, unusable_cache
from profnet_sheets.errors import (
    BudgetExceeded,
    ConfigurationError,
    OfflineMiss,
    ProfnetError,
    ServiceError,
    ServiceUnreachable,
    StoppedBuying,
    StoreError,
    TransportError,
)
from profnet_sheets.redact import masked_url
from profnet_sheets.spec import Endpoint, PriceTable, ServiceProfile, endpoint, items_in
from profnet_sheets.spec.errors import is_foreign
from profnet_sheets.words import command, counted

LOG = logging.getLogger("profnet_sheets")
# Where the stops are logged: a front end that says each stop itself silences it (the CLI).
STOPS_LOG = logging.getLogger("profnet_sheets.stopped")
UNREADABLE_IN_A_ROW = 3
# Connection attempts in a row (from every thread) that did not reach the service, with no
# answer between them, after which it is deemed unreachable and nothing more is sent.
UNREACHED_IN_A_ROW = 5
# Answers in a row that are not the service's (spec.errors.is_foreign), after which the base
# URL is deemed wrong and nothing more is bought.
FOREIGN_IN_A_ROW = 3


RunStopKind = Literal["credits", "unreachable"]


@dataclass(frozen=True)
class RunStop:
    """A stop that holds for the runs under way when it was met (numbered up to `last_run`),
    not for later ones; `said`: the service's own words, for every later call of those."""

    reason: str
    last_run: int
    said: ProfnetError | None = None


@dataclass(frozen=True)
class PlannedCall:
    """One call of a plan, for `Client.estimate`."""

    endpoint: str
    params: Mapping[str, Any]


@dataclass(frozen=True)
class Estimate:
    """What a set of planned calls will cost: how many the cache answers, credits at most."""

    calls: int
    unique: int
    cached: int
    credits: int
    budget_left: int | None

    @property
    def to_fetch(self) -> int:
        return self.unique - self.cached

    @property
    def within_budget(self) -> bool:
        return self.budget_left is None or self.credits <= self.budget_left


BUDGET_SETTING = "budget=..., PROFNET_BUDGET"  # where a budget is set, as messages say it


@dataclass(frozen=True)
class Limit:
    """A limit on spending, what it leaves now, and where it is set."""

    left: int | None  # None: not set
    name: str  # `the budget`, `the spending cap 500/day`
    setting: str  # `PROFNET_SPENDING_CAP`

    def preview(self) -> str:
        """What a cost preview says when a run may cost more than the limit leaves."""
        if not self.left:
            return f"{self.name} has 0 left: nothing would be sent"
        return f"{self.name} has {self.left} left: the run may stop there"


class _Shared:
    """What every view of one client shares: the store, the transport, the memo, the ledger
    and the budget."""

    def __init__(self, settings: Settings) -> None:
        if settings.uses_sandbox:
            base_url, key, service = embedded_base_url(settings), ApiKey(SANDBOX_KEY), "sandbox"
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
            base_url, key = settings.base_url, settings.api_key  # never revealed here
            service = service_name(base_url)
        self.base_url = base_url
        self.service = service
        self.api_key = key
        in_memory = settings.cache in ("memory", "off")
        try:
            self.store = AnswerStore(settings, service, key.fingerprint, CachePolicy(settings))
            self.ledger = Ledger(None if in_memory else _ledger_path(settings, service))
            if not in_memory and not settings.uses_sandbox:  # spend under an older spelling
                former = _ledger_path(settings, former_service_name(base_url))
                self.ledger.absorb(former, service)
        except (OSError, sqlite3.Error) as error:  # no such folder, no right; not a database
            raise unusable_cache(error, settings) from None
        self.transport = Transport(settings, base_url)
        self.transport.reached = self.count_reached
        if not in_memory:  # processes sharing the cache share the pace learnt (client/pace.py)
            pace_file = f"{service}-{key.fingerprint}-pace.json"
            self.transport.pace.remember_in(settings.cache_dir / pace_file)
        self.memo = MemoCache()
        self.budget = Budget(settings.budget)
        self.stopped: str | None = None  # why this client stopped buying for good, once it has
        self.runs = 0  # runs started on this client (`Client.with_budget`, `Client.new_run`)
        self.run_stops: dict[RunStopKind, RunStop] = {}  # the stops that hold for runs only
        self.unreadable_in_a_row = 0  # paid answers not understood, one after another
        self.unreached_in_a_row = 0  # connection attempts that failed, one after another
        self.foreign_in_a_row = 0  # answers not the service's (a wrong path), one after another
        self.unkept = 0  # answers paid for that the store could not keep (a re-run pays them)
        self.lock = threading.Lock()

    def stop_buying(self, reason: str) -> None:
        """Send nothing more that costs credits, for `reason`, in any run (said once, in the
        log too): asking again might pay for what cannot be kept or read."""
        with self.lock:
            if self.stopped is None:
                self.stopped = reason
                STOPS_LOG.error("profnet-sheets stopped buying: %s", reason)

    def count_unkept(self) -> None:
        """One more answer paid for and not kept."""
        with self.lock:
            self.unkept += 1

    def start_run(self) -> int:
        """A new run's number: the stops met before it do not hold for it."""
        with self.lock:
            self.runs += 1
            return self.runs

    def stop_runs(self, kind: RunStopKind, reason: str, said: ProfnetError | None = None) -> None:
        """Send nothing more that costs credits in the runs under way, for `reason` (`said`:
        the service's own words, told to every later call of those runs). A later run asks
        again: that is free (a 402 is not charged; nothing reaches a service that is down)."""
        with self.lock:
            before = self.run_stops.get(kind)
            self.run_stops[kind] = RunStop(reason, self.runs, said)
        if before is None or before.last_run < self.runs:
            STOPS_LOG.error("profnet-sheets stopped buying in the runs under way: %s", reason)

    def run_stop(self, run: int | None, kind: RunStopKind) -> RunStop | None:
        """The stop of `kind` that holds for `run`, or None; for None (the client itself,
        outside any run) the last one met, which says why without holding."""
        stop = self.run_stops.get(kind)
        return stop if stop is not None and (run is None or run <= stop.last_run) else None

    def count_reached(self, reached: bool) -> bool:
        """Stop the runs under way after UNREACHED_IN_A_ROW connection attempts in a row that
        did not reach the service; False while it is deemed unreachable (a call gives up at
        once: in a later run, after its first attempt that does not connect either)."""
        with self.lock:
            self.unreached_in_a_row = 0 if reached else self.unreached_in_a_row + 1
            lost = self.unreached_in_a_row >= UNREACHED_IN_A_ROW
        if lost:
            self.stop_unreachable()
        return not lost

    def stop_unreachable(self) -> None:
        """Stop the runs under way: the service could not be reached (UNREACHED_IN_A_ROW
        attempts in a row failed, or a call gave up without any of its attempts reaching it)."""
        self.stop_runs(
            "unreachable",
            f"the service at {masked_url(self.base_url)} could not be reached "
            "(no connection attempt got through)",
        )

    def count_foreign(self, status: int, foreign: bool) -> None:
        """Stop buying after FOREIGN_IN_A_ROW answers in a row that are not the service's
        (`is_foreign`: a web server's error page at a wrong path, never read as not found)."""
        with self.lock:
            self.foreign_in_a_row = self.foreign_in_a_row + 1 if foreign else 0
            many = self.foreign_in_a_row >= FOREIGN_IN_A_ROW
        if many:
            self.stop_buying(
                f"{masked_url(self.base_url)} answered {FOREIGN_IN_A_ROW} calls in a row with "
                f"HTTP {status} pages that are not the service's answers: check the base URL "
                f"(PROFNET_BASE_URL) and its path with `{command('check')}`"
            )

    def count_reading(self, understood: bool) -> None:
        """Stop buying after UNREADABLE_IN_A_ROW paid answers in a row not understood."""
        with self.lock:
            self.unreadable_in_a_row = 0 if understood else self.unreadable_in_a_row + 1
            many = self.unreadable_in_a_row >= UNREADABLE_IN_A_ROW
        if many:
            self.stop_buying(
                f"the service answered {UNREADABLE_IN_A_ROW} paid calls in a row in a form this "
                "version does not read (each counted as possibly charged); check the base URL "
                "(PROFNET_BASE_URL), or update profnet-sheets"
            )


def _ledger_path(settings: Settings, service: str) -> Path:
    """The ledger of `service`'s spend: one per service (not per spelling of its URL)."""
    return settings.cache_dir / f"{service}-ledger.sqlite"


class Client:
    """The service, one method per endpoint, paid for at most once per answer.

    `Client()` with nothing configured runs on the embedded sandbox (and says so on stderr).
    Settings come from the arguments, then PROFNET_* environment variables, then the config
    file (see `profnet_sheets.config.Settings`). Methods return the answer's payload: the
    `data` of the envelope (the list of places for find-geocode-by-location; the whole body for
    paged results and search status). They raise the errors of `profnet_sheets.errors`.
    """

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        cache: str | Path | None = None,
        budget: int | None = None,
        *,
        offline: bool | None = None,
        refresh: bool | None = None,
        settings: Settings | None = None,
        **options: Any,
    ) -> None:
        try:
            key = ApiKey(api_key) if isinstance(api_key, str) else api_key
        finally:
            del api_key  # a traceback showing local variables must not show the key
        self.settings = settings or Settings.load(
            api_key=key,
            base_url=base_url,
            cache=str(cache) if cache is not None else None,
            budget=budget,
            offline=offline,
            refresh=refresh,
            **options,
        )
        self._shared = _Shared(self.settings)
        self._budget = self._shared.budget
        self._run: int | None = None  # calls outside any run: each asks the service anew
        self._policy = CachePolicy(self.settings)
        self.profile: ServiceProfile = self.settings.profile

    # -- the client itself ----------------------------------------------------------------------

    def __repr__(self) -> str:
        if not hasattr(self, "_shared"):  # its __init__ failed (a traceback shows `self`)
            return "<Client (not set up)>"
        mode = " sandbox" if self.settings.uses_sandbox else ""
        return (
            f"<Client{mode} {masked_url(self._shared.base_url)} key={self._shared.api_key!r} "
            f"budget={self.settings.budget} offline={self.settings.offline}>"
        )

    def with_options(self, *, refresh: bool | None = None, offline: bool | None = None) -> Client:
        """A view of this client with other modes, sharing its caches, ledger and budget."""
        view = copy.copy(self)
        changes = {k: v for k, v in (("refresh", refresh), ("offline", offline)) if v is not None}
        view.settings = self.settings.with_changes(**changes)
        view._policy = CachePolicy(view.settings)
        return view

    @property
    def base_url(self) -> str:
        return self._shared.base_url

    @property
    def prices(self) -> PriceTable:
        """What each call costs: the spec's prices with the profile's over them. Everything
        that counts credits (the budget, the ledger, every cost preview) asks this table."""
        return self.profile.prices

    def prepare(self, name: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """The parameters a call of endpoint `name` sends: normalised (page URLs on the
        profile's network hosts) and checked; InvalidParameter before anything is paid."""
        return prepare(endpoint(name), params, profile=self.profile)

    def ceiling(self, name: str, params: Mapping[str, Any], max_items: int | None = None) -> int:
        """The most a call with these (prepared) parameters can cost, at this client's prices."""
        return price_ceiling(self.prices, endpoint(name), params, max_items)

    @property
    def service(self) -> str:
        """The name this client's service goes by in the cache and the ledger."""
        return self._shared.service

    @property
    def stopped(self) -> str | None:
        """Why this client stopped buying (a cache that failed, answers it cannot read), or
        why this run did (no credits left, the service unreachable; the client itself, outside
        any run: the last run that did), or None while it buys."""
        shared = self._shared
        if shared.stopped is not None or not shared.run_stops:  # a formula asks: kept quick
            return shared.stopped
        held = (shared.run_stop(self._run, kind) for kind in ("credits", "unreachable"))
        return next((stop.reason for stop in held if stop is not None), None)

    @property
    def pace(self) -> Pace:
        """The pace of this client's calls (shared by its views): `pace.view()` says how fast
        they go, how many are in flight, and whether the service throttles."""
        return self._shared.transport.pace

    @property
    def unreachable(self) -> str | None:
        """Why this run stopped sending because the service could not be reached (its URL
        masked; the client itself: the last run that did), or None."""
        stop = self._shared.run_stop(self._run, "unreachable")
        return None if stop is None else stop.reason

    @property
    def unkept(self) -> int:
        """Answers this client (all its views) paid for and could not keep in the cache: a
        re-run pays them again."""
        return self._shared.unkept

    @property
    def out_of_credits(self) -> bool:
        """Whether the service said, in this run, that the account has no credits left (the
        run stopped; the client itself: in the last run that stopped for it)."""
        return self._shared.run_stop(self._run, "credits") is not None

    def spent(self, *, uncertain: bool = False) -> int:
        """Credits the ledger holds for this service (`uncertain`: only those that may have
        been charged without an answer)."""
        return self.ledger.total(service=self._shared.service, uncertain=uncertain)

    @property
    def ledger(self) -> Ledger:
        return self._shared.ledger

    @property
    def budget(self) -> Budget:
        return self._budget

    def with_budget(self, limit: int | None) -> Client:
        """A view of this client for a new run (a batch run's, a form action's) with a budget
        of its own within the client's: both limits hold, and the view's `budget.spent` counts
        only what was spent through it. Caches and ledger are shared (see `new_run`)."""
        view = self.new_run()
        view._budget = Budget(limit, within=self._budget)
        return view

    def new_run(self) -> Client:
        """A view of this client, with the same budget, for a new run: a stop met before it
        for no credits left or a service unreachable does not hold for it (it asks the
        service again, which is free); a stop for a cache that failed or answers it cannot
        read still does."""
        view = copy.copy(self)
        view._run = self._shared.start_run()
        return view

    def close(self) -> None:
        self._shared.transport.close()
        self._shared.store.close()
        self._shared.ledger.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- calls ----------------------------------------------------------------------------------

    def call(
        self,
        name: str,
        params: Mapping[str, Any] | None = None,
        *,
        max_items: int | None = None,
        **more: Any,
    ) -> Any:
        """Call endpoint `name` with parameters, returning its payload (see the class doc).
        `max_items`: the most items a per-item call may be paid for (the budget reserves it)."""
        ep = endpoint(name)
        return payload(ep, self._body(ep, {**(params or {}), **more}, max_items))

    def call_as(self, name: str, raw: Hashable, make: Callable[[], Mapping[str, Any]]) -> Any:
        """`call(name, make())`, remembered under `raw`: the arguments as a front end hands them
        over (Excel's cells). A warm repeat answers from the memo without calling `make` (the
        normalisation of what a user typed costs more than the remembered answer), with the
        memo's own copy of the answer: read it, never change it."""
        ep = endpoint(name)
        alias = (name, raw)
        if self._policy.may_read(ep):
            memo = self._shared.memo.get_alias(alias, self._policy.stale_ok)
            if memo is not None and memo.status == 200:
                return payload(ep, memo.shared)
        return payload(ep, self._body(ep, dict(make()), alias=alias))

    def key(self, name: str, params: Mapping[str, Any]) -> CallKey:
        """The key of a call, as every cache of this client knows it."""
        ep = endpoint(name)
        return self._key(ep, prepare(ep, dict(params), profile=self.profile))

    def _key(self, ep: Endpoint, payload: dict[str, Any]) -> CallKey:
        shared = self._shared
        return call_key(shared.service, shared.api_key.fingerprint, ep, payload)

    def _body(
        self,
        ep: Endpoint,
        params: dict[str, Any],
        max_items: int | None = None,
        alias: Hashable | None = None,
    ) -> Any:
        """The body of a successful answer, from the memo, the store or the service. `alias`:
        what the memo remembers the call's key under (default: the arguments themselves)."""
        shared, policy = self._shared, self._policy
        readable, stale = policy.may_read(ep), policy.stale_ok
        raw = alias if alias is not None else _frozen(ep.name, params)
        if readable and raw is not None and alias is None:
            memo = shared.memo.get_alias(raw, stale)
            if memo is not None:
                return self._from_memo(ep, memo)
        payload = prepare(ep, params, profile=self.profile)
        key = self._key(ep, payload)
        if raw is not None:
            shared.memo.alias(raw, key)
        if readable:
            memo = shared.memo.get(key, stale)
            if memo is not None:
                return self._from_memo(ep, memo)
        with PROCESS_LOCKS(key):
            if readable:
                found = self._stored(ep, key)
                if found is not None:
                    return found
            if self.settings.offline:
                raise OfflineMiss(
                    f"{ep.name}: offline, and this call is not in the cache "
                    f"({canonical_json(payload)[:200]}). Go online (offline=False) to fetch it.",
                    endpoint=ep.name,
                )
            self._check_buying(ep)
            with contextlib.ExitStack() as claimed:
                try:
                    claimed.enter_context(shared.store.claim(key))
                except StoreError as failure:
                    raise self._stopped(ep, str(failure)) from None
                if readable:  # another process may have paid for it while this one waited
                    found = self._stored(ep, key)
                    if found is not None:
                        return found
                ceiling = price_ceiling(self.prices, ep, payload, max_items)
                sent = self._send(ep, key, payload, ceiling)
            return self._remember(ep, key, sent)

    def _stored(self, ep: Endpoint, key: CallKey) -> Any | None:
        """The answer the memo or the store holds for `key` (kept in the memo), or None."""
        memo = self._shared.memo.get(key, self._policy.stale_ok)
        if memo is not None:
            return self._from_memo(ep, memo)
        sent = self._read(ep, key)
        return None if sent is None else self._remember(ep, key, sent)

    def _held(self, ep: Endpoint, key: CallKey) -> bool:
        """Whether the memo or the store holds an answer for `key` (a stored one is kept in the
        memo, not handed out: nothing is made for a caller)."""
        if self._shared.memo.get(key, self._policy.stale_ok) is not None:
            return True
        sent = self._read(ep, key)
        if sent is not None:
            self._memorised(ep, key, sent)
        return sent is not None

    def _read(self, ep: Endpoint, key: CallKey) -> Sent | None:
        """The answer the store holds for `key`, or None; a store that fails stops buying."""
        try:
            held = self._shared.store.get(key, stale_ok=self._policy.stale_ok)
        except StoreError as failure:
            raise self._stopped(ep, str(failure)) from None
        if held is None:
            return None
        body = _json_or_none(held.text)
        return Sent(held.status, held.text, body, held.headers, True, 0, expires=held.expires)

    def _send(self, ep: Endpoint, key: CallKey, payload: dict[str, Any], ceiling: int) -> Sent:
        """Send a call the caches cannot answer, within the budget; record what it cost (an
        answer not understood as possibly charged); keep what the policy says to keep."""
        shared = self._shared
        reserved = [self._reserve(ceiling, ep)]
        charged = 0  # what the budget settles on: the charge, and what may have been charged

        def afford_retry() -> bool:
            """Another attempt after one that may have been charged: within the budget?"""
            try:
                reserved.append(self._reserve(ceiling, ep))
            except BudgetExceeded:
                return False
            return True

        maybe = 0  # of `charged`, what may (or may not) have been charged
        try:
            try:
                sent = shared.transport.send(ep, payload, shared.api_key, afford_retry)
            except TransportError as error:
                if error.may_have_been_charged:
                    charged = maybe = ceiling * error.uncertain_attempts
                    self._record(ep, charged, None, uncertain=True)
                elif error.details == "connect" and self._run is not None:
                    shared.stop_unreachable()  # a call gave up, never reaching it
                raise
            shared.count_foreign(sent.status, is_foreign(sent.status, sent.body))
            price = self.prices.price(ep)
            if sent.out_of_credits:
                shared.stop_runs(
                    "credits",
                    "the account has no credits left: top up, then run again (what was done "
                    "is kept and will not be paid again)",
                    error_for(ep, price, sent.status, sent.body, sent.headers, out_of_credits=True),
                )
            if sent.status == 200 and price.kind != "free":
                understood = missing(ep, sent.body) is None and not unfinished(ep, sent.body)
                if understood:
                    charged = price.charge(sent.body)
                    items = len(items_in(sent.body, price.items_at))
                    self._record(ep, charged, items if price.kind == "per_item" else None)
                else:  # charged, maybe, for an answer this version cannot read
                    sent.uncertain += 1
                shared.count_reading(understood)
            if sent.uncertain:  # attempts that went out and may have been done unanswered
                maybe = sent.uncertain * ceiling
                charged += maybe
                self._record(ep, maybe, None, uncertain=True)
        finally:
            self._budget.settle(sum(credits for credits, _ in reserved), charged, maybe)
            for _, held in reserved:  # the spend is recorded now: the reservations go
                if held is not None:
                    shared.ledger.release(held)
        self._keep(ep, key, sent)
        return sent

    def _reserve(self, credits: int, ep: Endpoint) -> tuple[int, int | None]:
        """Reserve a call's most in the budget, then under the spending cap (shared by every
        process on the ledger); raises BudgetExceeded, holding nothing, when either refuses."""
        self._budget.reserve(credits, ep.name)
        cap = self.settings.spending_cap
        if cap is None or not credits:
            return credits, None
        shared = self._shared
        try:
            held = shared.ledger.reserve_within(
                cap,
                shared.service,
                credits,
                ep.name,
                longest_call(self.settings),
                shared.api_key.fingerprint,
            )
        except BudgetExceeded:
            self._budget.settle(credits, 0)
            raise
        return credits, held

    def short_limit(self, credits: int) -> Limit | None:
        """The first limit, the budget then the spending cap, that leaves less than `credits`
        (what a run may cost at most), with what it leaves; None when both let it run."""
        limits = [Limit(self.budget.left, "the budget", BUDGET_SETTING)]
        cap = self.settings.spending_cap
        if cap is not None:
            cap_left = self.ledger.cap_left(cap, self._shared.service)
            limits.append(Limit(cap_left, f"the spending cap {cap}", "PROFNET_SPENDING_CAP"))
        return next((it for it in limits if it.left is not None and credits > it.left), None)

    def refuse_unless_affordable(self, credits: int, what: str) -> None:
        """Raise BudgetExceeded, before anything is sent, when `what` (which may cost up to
        `credits`) does not fit in the budget or the spending cap; the message gives both."""
        short = self.short_limit(credits)
        if short is not None:
            raise BudgetExceeded(
                f"{what} may cost up to {credits} credits, and {short.name} ({short.setting}) "
                f"leaves {short.left}; nothing was sent. Raise it, or ask for less.",
                needed=credits,
                left=short.left or 0,
            )

    def _keep(self, ep: Endpoint, key: CallKey, sent: Sent) -> None:
        """Save an answer in the store for as long as the policy says. A save that fails (a
        disk full, a database locked past its busy timeout, Redis gone) is never raised: the
        answer is paid for, and the caller still gets (and counts) it; but nothing more is
        bought, since it could not be kept either."""
        seconds = self._policy.keep_for(ep, sent.status, sent.body)
        if seconds <= 0 or sent.response is None:
            return
        try:
            self._shared.store.save(key, sent.response, seconds)
        except StoreError as failure:
            self._shared.count_unkept()
            self._shared.stop_buying(f"{failure}: what it buys could not be kept")
        except Exception as error:  # anything else: this answer is not kept, the rest go on
            self._shared.count_unkept()
            LOG.warning(
                "%s: the answer could not be saved in the cache (%s: %s); it is used now",
                ep.name,
                type(error).__name__,
                error,
            )

    def _check_buying(self, ep: Endpoint) -> None:
        """Raise, before a paid call is sent, when this client or this run stopped buying."""
        shared = self._shared
        if self.prices.price(ep).kind == "free":
            return
        if shared.stopped is not None:
            raise self._stopped(ep, shared.stopped)
        if self._run is None:  # outside any run, each call asks the service (decision 213)
            return
        no_credits = shared.run_stop(self._run, "credits")
        said = no_credits.said if no_credits is not None else None
        if said is not None:  # said as the service said it, to every later call of the run
            raise type(said)(
                said.message,
                endpoint=said.endpoint,
                status=said.status,
                code=said.code,
                details=said.details,
            )
        unreachable = shared.run_stop(self._run, "unreachable")
        if unreachable is not None:
            raise ServiceUnreachable(
                f"{ep.name}: not sent: {unreachable.reason}. Check the network and the base URL "
                f"(PROFNET_BASE_URL) with `{command('check')}`, then run again: what was "
                "done is kept and not paid again.",
                reason=unreachable.reason,
                endpoint=ep.name,
            )

    def _stopped(self, ep: Endpoint, reason: str) -> StoppedBuying:
        self._shared.stop_buying(reason)
        return StoppedBuying(
            f"{ep.name}: not sent: profnet-sheets stopped buying ({reason}). "
            f"{self.kept_said()}; fix that and run again.",
            reason=reason,
            endpoint=ep.name,
        )

    def kept_said(self) -> str:
        """Whether a re-run pays again: what was paid is kept, or how many answers were not."""
        unkept = self._shared.unkept
        if not unkept:
            return "What was paid is kept: the calls done are not paid again"
        return (
            f"{counted(unkept, 'paid answer')} could not be kept in the cache: a re-run pays "
            f"{'it' if unkept == 1 else 'them'} again"
        )

    def _record(
        self, ep: Endpoint, credits: int, items: int | None, uncertain: bool = False
    ) -> None:
        shared = self._shared
        shared.ledger.record(
            shared.service, shared.api_key.fingerprint, ep.name, credits, items, uncertain
        )

    def _remember(self, ep: Endpoint, key: CallKey, sent: Sent) -> Any:
        """Keep an answer in the memo (no longer than the store keeps it), hand it out (a
        copy of its own: the caller may change it)."""
        status, body = self._memorised(ep, key, sent)
        if status == 200:  # the memo's copy shares lists with `body`: the caller gets another
            body = json.loads(json.dumps(body))
        told = None if sent.from_cache else sent.out_of_credits  # read from the wire once
        return self._answer(ep, status, body, sent.headers, told)

    def _memorised(self, ep: Endpoint, key: CallKey, sent: Sent) -> tuple[int, Any]:
        """An answer's status and body, kept in the memo as long as the policy and the store
        allow (a 200 conformed)."""
        status, body = sent.status, sent.body
        if body is None and status == 200:
            body = _json(ep, sent.text)
        elif body is None:
            body = sent.text[:500]
        keep_for = self._policy.keep_for(ep, status, body)
        if sent.from_cache and sent.expires is not None:
            keep_for = min(keep_for, sent.expires - time.time()) if keep_for > 0 else keep_for
        if keep_for > 0 or (sent.from_cache and self._policy.stale_ok):
            kept = conformed(ep, body) if status == 200 else body
            self._shared.memo.put(key, status, kept, keep_for, self._policy.stale_ok)
        return status, body

    def _from_memo(self, ep: Endpoint, memo: Memo) -> Any:
        """A remembered answer: a 200 was understood and conformed when it was kept."""
        return memo.body() if memo.status == 200 else self._answer(ep, memo.status, memo.body())

    def _answer(
        self,
        ep: Endpoint,
        status: int,
        body: Any,
        headers: Any = None,
        out_of_credits: bool | None = None,
    ) -> Any:
        if status != 200 or unfinished(ep, body):
            price = self.prices.price(ep)
            raise error_for(ep, price, status, body, headers, out_of_credits=out_of_credits)
        lacking = missing(ep, body)
        if lacking is not None:
            raise ServiceError(
                f"{ep.name}: the answer has no {lacking}, which this version needs; the service "
                f"may have changed or be failing (it may have charged for it: counted as "
                f"uncertain). It said: {str(body)[:300]}",
                endpoint=ep.name,
                status=status,
                body=body,
            )
        return conformed(ep, body)

    # -- the cache ------------------------------------------------------------------------------

    def cache_info(self) -> dict[str, Any]:
        """Where answers are cached, how many (and how many expired), the size, the ledger."""
        found = self._shared.store.info()
        return {
            "service": masked_url(self.base_url)
            + (" (embedded sandbox)" if self.settings.uses_sandbox else ""),
            **found,
            "in memory now": len(self._shared.memo),
            "ledger": str(self._shared.ledger.path or "memory"),
        }

    def purge_cache(self) -> int:
        """Remove every expired answer from the store; how many were removed."""
        return self._shared.store.purge()

    def forget(self, name: str, params: Mapping[str, Any]) -> None:
        """Forget the cached answer of one call (memo and store): the next one is sent."""
        key = self.key(name, params)
        self._shared.memo.forget(key)
        self._shared.store.forget(key)

    def clear_cache(self) -> None:
        """Forget every cached answer of this service (memo and store)."""
        self._shared.store.clear()
        self._shared.memo.clear()

    # -- what things cost ---------------------------------------------------------------------

    def is_cached(self, name: str, params: Mapping[str, Any]) -> bool:
        """Whether this call would be answered without the network (and so cost nothing).

        Asks the memo, then the store by key (no request is built), and keeps a found answer
        in the memo under `params` too, so that a plan's look at the cache also warms the
        calls (a call with these parameters then skips their preparation).
        """
        ep = endpoint(name)
        if not self._policy.may_read(ep):
            return False
        memo, raw = self._shared.memo, _frozen(ep.name, params)
        if raw is not None and memo.get_alias(raw, self._policy.stale_ok) is not None:
            return True
        key = self._key(ep, prepare(ep, dict(params), profile=self.profile))
        if raw is not None:
            memo.alias(raw, key)
        try:
            return self._held(ep, key)
        except ProfnetError:  # a cached 404 is held too; a store that failed stops buying
            return True

    def estimate(self, calls: Iterable[PlannedCall | tuple[str, Mapping[str, Any]]]) -> Estimate:
        """The cost of a set of planned calls: identical calls count once, cached ones nothing."""
        total = 0
        unique: dict[CallKey, tuple[Endpoint, dict[str, Any]]] = {}
        for call in calls:
            name, params = (call.endpoint, call.params) if isinstance(call, PlannedCall) else call
            ep = endpoint(name)
            payload = prepare(ep, params, profile=self.profile)
            unique.setdefault(self._key(ep, payload), (ep, payload))
            total += 1
        cached = credits = 0
        for ep, payload in unique.values():
            if self.is_cached(ep.name, payload):
                cached += 1
            else:
                credits += price_ceiling(self.prices, ep, payload)
        return Estimate(total, len(unique), cached, credits, self.budget.left)

    # -- the 20 endpoints -----------------------------------------------------------------------

    def _dict(self, name: str, /, **params: Any) -> dict[str, Any]:
        result: dict[str, Any] = self.call(name, params)  # what the signatures below say
        return result

    def _list(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self.call(name, params)
        return result

    def get_company_details(
        self,
        *,
        company_id: str | int | None = None,
        profnet_url: str | None = None,
        domain: str | None = None,
    ) -> dict[str, Any]:
        """Company details (1 credit) by numeric id, company page URL, or domain (any form:
        `https://www.acme.com/about` is `acme.com`). Give one of the three."""
        return self._dict(
            "get-company-details", company_id=company_id, profnet_url=profnet_url, domain=domain
        )

    def search_posts(
        self,
        *,
        keyword: str,
        sort_by: str | None = None,
        date_posted: str | None = None,
        start: int | None = None,
    ) -> dict[str, Any]:
        """Posts matching a keyword (5 credits): `{posts, paging}`. sort_by `date` or
        `relevance`; date_posted `past-24h`, `past-week` or `past-month`; start an offset."""
        return self._dict(
            "search-posts", keyword=keyword, sort_by=sort_by, date_posted=date_posted, start=start
        )

    def search_jobs(
        self,
        *,
        keyword: str | None = None,
        geo_id: str | int | None = None,
        date_posted: str | None = None,
        experience_level: str | None = None,
        job_type: str | None = None,
        remote: str | None = None,
        company_id: str | int | None = None,
        industry_id: str | int | None = None,
        start: int | None = None,
    ) -> dict[str, Any]:
        """Job postings (10 credits): `{jobs, paging}`. At least one search field; geo_id from
        find_geocode_by_location; job_type full-time/part-time/contract/internship; remote
        on-site/remote/hybrid."""
        return self._dict(
            "search-jobs",
            keyword=keyword,
            geo_id=geo_id,
            date_posted=date_posted,
            experience_level=experience_level,
            job_type=job_type,
            remote=remote,
            company_id=company_id,
            industry_id=industry_id,
            start=start,
        )

    def get_lead_results(self, *, request_id: str, page: int | None = None) -> dict[str, Any]:
        """One page of a completed lead search (1 credit per result): the paged envelope
        `{request_id, page, total_pages, total_results, results}`. See `search_leads`."""
        return self._dict("get-lead-results", request_id=request_id, page=page)

    def get_job_details(self, *, job_id: str | int) -> dict[str, Any]:
        """A job posting by id (1 credit)."""
        return self._dict("get-job-details", job_id=job_id)

    def get_post_details(self, *, urn: str | int) -> dict[str, Any]:
        """A post (1 credit) by its numeric id; URN-style values from post lists are accepted."""
        return self._dict("get-post-details", urn=urn)

    def get_company_posts(
        self,
        *,
        profnet_url: str,
        type: str | None = None,
        start: int | None = None,
        pagination_token: str | None = None,
    ) -> dict[str, Any]:
        """A company page's posts or reposts (1 credit): `{posts, paging}`."""
        return self._dict(
            "get-company-posts",
            profnet_url=profnet_url,
            type=type,
            start=start,
            pagination_token=pagination_token,
        )

    def google_full_profiles(
        self,
        *,
        name: str | None = None,
        company_name: str | None = None,
        job_title: str | None = None,
        location: str | None = None,
        keywords: str | None = None,
        limit: int | None = None,
    ) -> list[dict[str, Any]]:
        """Profiles found through a web search (1 credit per profile returned, at most
        `limit`, 1-5, default 3). Give at least one of name, company_name, job_title,
        location, keywords."""
        return self._list(
            "google-full-profiles",
            name=name,
            company_name=company_name,
            job_title=job_title,
            location=location,
            keywords=keywords,
            limit=limit,
        )

    def find_geocode_by_location(self, *, location: str) -> list[dict[str, Any]]:
        """Places matching a place name (1 credit): `[{geo_id, name, type}]`. The geo ids are
        the location filters of search_leads, search_companies and search_jobs."""
        return self._list("find-geocode-by-location", location=location)

    def get_profile_details(
        self,
        *,
        profnet_url: str,
        include_skills: bool | str | None = None,
        include_certifications: bool | str | None = None,
    ) -> dict[str, Any]:
        """A profile (1 credit); skills and certifications when asked for."""
        return self._dict(
            "get-profile-details",
            profnet_url=profnet_url,
            include_skills=include_skills,
            include_certifications=include_certifications,
        )

    def get_company_search_status(self, *, request_id: str) -> dict[str, Any]:
        """Status of a company search (free, never cached): `{status, request_id, progress,
        total_results}`."""
        return self._dict("get-company-search-status", request_id=request_id)

    def get_lead_search_status(self, *, request_id: str) -> dict[str, Any]:
        """Status of a lead search (free, never cached)."""
        return self._dict("get-lead-search-status", request_id=request_id)

    def get_profile_posts(
        self,
        *,
        profnet_url: str,
        type: str | None = None,
        start: int | None = None,
        pagination_token: str | None = None,
    ) -> dict[str, Any]:
        """A profile's posts, comments or reactions (1 credit): `{posts, paging}`."""
        return self._dict(
            "get-profile-posts",
            profnet_url=profnet_url,
            type=type,
            start=start,
            pagination_token=pagination_token,
        )

    def google_schools(
        self,
        *,
        school_name: str | None = None,
        location: str | None = None,
        keyword: str | None = None,
        page: int | None = None,
    ) -> dict[str, Any]:
        """School pages found through a web search (1 credit): `{results}`."""
        return self._dict(
            "google-schools", school_name=school_name, location=location, keyword=keyword, page=page
        )

    def get_company_results(self, *, request_id: str, page: int | None = None) -> dict[str, Any]:
        """One page of a completed company search (1 credit per company). See
        `search_companies`."""
        return self._dict("get-company-results", request_id=request_id, page=page)

    def search_companies(self, **filters: Any) -> SearchJob:
        """Start (or reuse) a company search (25 credits, even for 0 results): a SearchJob.

        Filters: industry_codes, industry_codes_exclude, company_headcounts (codes A-H or
        labels such as 51-200), company_headcount_growth ({min, max} or (min, max)),
        headquarters_location, headquarters_location_exclude (geo ids), hiring_on_profnet,
        recent_activities, keywords; or sales_nav_url instead. limit 1-1000 (default 100).
        An identical search within the reuse window (24 h) reuses the first, free.
        """
        return jobs.start_search(self, "companies", filters)

    def search_leads(self, **filters: Any) -> SearchJob:
        """Start (or reuse) a lead search (50 credits, even for 0 results): a SearchJob.

        Filters: title_keywords, current_company_names, current_company_ids,
        past_company_names, past_company_ids, geo_codes (geo ids), industry_codes, school_ids,
        keywords; or sales_nav_url instead. limit 1-2500 (default 100).
        """
        return jobs.start_search(self, "leads", filters)

    def get_recommendations_received(self, *, profnet_url: str) -> dict[str, Any]:
        """Recommendations a profile received (1 credit): `{recommendations}`."""
        return self._dict("get-recommendations-received", profnet_url=profnet_url)

    def get_recommendations_given(self, *, profnet_url: str) -> dict[str, Any]:
        """Recommendations a profile gave (1 credit): `{recommendations}`."""
        return self._dict("get-recommendations-given", profnet_url=profnet_url)

    def find_custom_headcount(
        self,
        *,
        profnet_url: str,
        where_they_live: Sequence[str | int] | str | None = None,
        where_they_studied: Sequence[str | int] | str | None = None,
        what_they_do: Sequence[str | int] | str | None = None,
        what_they_are_skilled_at: Sequence[str | int] | str | None = None,
        what_they_studied: Sequence[str | int] | str | None = None,
        keywords: str | None = None,
        include_subsidiaries: bool | str | None = None,
    ) -> dict[str, Any]:
        """How many people of a company or school match filters (1 credit):
        `{profnet_url, filters, headcount}`."""
        return self._dict(
            "find-custom-headcount",
            profnet_url=profnet_url,
            where_they_live=where_they_live,
            where_they_studied=where_they_studied,
            what_they_do=what_they_do,
            what_they_are_skilled_at=what_they_are_skilled_at,
            what_they_studied=what_they_studied,
            keywords=keywords,
            include_subsidiaries=include_subsidiaries,
        )

    # -- searches -------------------------------------------------------------------------------

    def search(self, kind: SearchKind, **filters: Any) -> SearchJob:
        """search_leads or search_companies by kind ("leads" or "companies")."""
        if kind not in ("leads", "companies"):
            raise ValueError(f"kind must be 'leads' or 'companies', got {kind!r}")
        return jobs.start_search(self, kind, filters)

    def forget_search(self, kind: SearchKind, filters: Mapping[str, Any], request_id: str) -> None:
        """Forget the cached creation of a search with these filters if it is still the job
        `request_id` (seen failed): a newer run of the same search is kept."""
        jobs.forget_search(self, kind, filters, request_id)

    def attach_search(self, kind: SearchKind, request_id: str) -> SearchJob:
        """A search job started earlier (maybe by another process), by its request_id."""
        return SearchJob(self.with_options(refresh=False), kind, request_id)


def _frozen(name: str, params: Mapping[str, Any]) -> Hashable | None:
    """A hashable image of raw call arguments, or None when they hold something unhashable.

    Types are part of it, also of list items: `[True]` and `[1]` are different arguments.
    """
    items = []
    for key, value in params.items():
        if value is None:
            continue
        if isinstance(value, list | tuple):
            shown: Any = tuple((type(item).__name__, item) for item in value)
        else:
            shown = value
        items.append((key, type(value).__name__, shown))
    frozen = (name, *sorted(items, key=lambda item: item[0]))
    try:
        hash(frozen)
    except TypeError:
        return None
    return frozen


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _json(ep: Endpoint, text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        raise ServiceError(
            f"{ep.name}: the service answered with something that is not JSON: {text[:200]!r}. "
            "Try again later.",
            endpoint=ep.name,
        ) from None
