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
import numbers
import time
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from profnet_sheets.client import jobs
from profnet_sheets.client.answers import conformed, missing, payload, unfinished
from profnet_sheets.client.cache import CachePolicy
from profnet_sheets.client.call import (
    Action,
    CallPlan,
    Claim,
    Flow,
    Found,
    GiveBack,
    Hold,
    ReadStore,
    Request,
    Reserve,
    Save,
    Sent,
    Settle,
    Turn,
    Wait,
    drive,
    json_or_none,
    paid_call,
    parse_json,
)
from profnet_sheets.client.claims import KEPT, Held
from profnet_sheets.client.jobs import SearchJob
from profnet_sheets.client.keylocks import PROCESS_LOCKS
from profnet_sheets.client.keys import CallKey, call_key
from profnet_sheets.client.ledger import Ledger
from profnet_sheets.client.memo import Memo
from profnet_sheets.client.pace import Pace
from profnet_sheets.client.policy import error_for
from profnet_sheets.client.prepare import prepare
from profnet_sheets.client.recorder import Recorder
from profnet_sheets.client.shared import Shared
from profnet_sheets.client.spend import (
    Attempt,
    Budget,
    Estimate,
    PlannedCall,
    Quote,
)
from profnet_sheets.client.team_ledger import TeamLedger
from profnet_sheets.config import ApiKey, Settings
from profnet_sheets.errors import (
    ArgumentError,
    InvalidParameter,
    OfflineMiss,
    ProfnetError,
    ServiceError,
    StoppedBuying,
    StoreError,
    TransportError,
)
from profnet_sheets.redact import masked_url, shown
from profnet_sheets.spec import ENDPOINTS, Endpoint, PriceTable, ServiceProfile, endpoint
from profnet_sheets.spec.endpoints import SearchKind
from profnet_sheets.words import looks_like

LOG = logging.getLogger("profnet_sheets")


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
        self._shared = Shared(self.settings)
        self._budget = self._shared.budget
        self._run: int | None = None  # calls outside any run: each asks the service anew
        self._policy = CachePolicy(self.settings)
        self._recorder: Recorder | None = None  # set: calls the caches miss are noted, not sent
        self._aside: int | None = None  # credits set aside under the cap its calls draw on
        self.profile: ServiceProfile = self.settings.profile

    # -- the client itself ----------------------------------------------------------------------

    def __repr__(self) -> str:
        if not hasattr(self, "_shared"):  # its __init__ failed (a traceback shows `self`)
            return "<Client (not set up)>"
        mode = " sandbox" if self.settings.uses_sandbox else ""
        left = "" if self._budget.limit is None else f" ({self._budget.left} left)"  # this view's
        return (
            f"<Client{mode} {masked_url(self._shared.base_url)} key={self._shared.api_key!r} "
            f"budget={self._budget.limit}{left} offline={self.settings.offline}>"
        )

    def with_options(self, *, refresh: bool | None = None, offline: bool | None = None) -> Client:
        """A view of this client with other modes, sharing its caches, ledger and budget."""
        view = copy.copy(self)
        changes = {k: v for k, v in (("refresh", refresh), ("offline", offline)) if v is not None}
        view.settings = self.settings.with_changes(**changes)
        view._policy = CachePolicy(view.settings)
        return view

    def recording(self, recorder: Recorder) -> Client:
        """A view of this client (same caches, budget, ledger and run) that sends nothing: a
        call the caches cannot answer is noted in `recorder` and raises OfflineMiss, and a call
        `recorder` holds an answer or error for reads it (see `client.recorder`)."""
        view = copy.copy(self)
        view._recorder = recorder
        return view

    def drawing_on(self, aside: int | None) -> Client:
        """A view of this client (same caches, budget, ledger and run) whose calls take their
        most from credits set aside in the budget and under the spending cap (`set_aside`)
        first."""
        view = copy.copy(self)
        view._aside = aside
        return view

    def set_aside(self, credits: int, name: str, what: str) -> int | None:
        """Set `credits` aside in this view's budget and under the spending cap for calls of
        endpoint `name` to come (`what` they are, said if the cap refuses: BudgetExceeded),
        so that no other call, run or machine spends the room they need meanwhile; None when
        neither limit is set. Calls made through a `drawing_on` view take their room first;
        unrenewed (`renew_aside`) they go after a lease, as nothing spent; `give_back` ends
        them."""
        return self._shared.set_aside(credits, named_endpoint(name), what, self._budget)

    def name_aside(self, aside: int, request_id: str) -> int:
        """Name credits set aside after the search `request_id` they are for (`aside_of`
        finds them then); their id now."""
        return self._shared.name_aside(aside, request_id)

    def aside_of(self, request_id: str) -> int | None:
        """The credits set aside for the results of the search `request_id` (None: none)."""
        return self._shared.aside_of(request_id)

    def renew_aside(self, aside: int) -> bool:
        """Keep credits set aside a lease longer; whether they still are set aside."""
        return self._shared.renew_aside(aside)

    def give_back(self, aside: int) -> None:
        """End credits set aside: their room is the budget's and the cap's again."""
        self._shared.give_back(aside)

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
        return prepare(named_endpoint(name), params, profile=self.profile)

    def ceiling(self, name: str, params: Mapping[str, Any], max_items: int | None = None) -> int:
        """The most a call with these (prepared) parameters can cost, at this client's prices."""
        return self._shared.spend.ceiling(named_endpoint(name), params, max_items)

    def left_unrepeated(self, error: ProfnetError) -> bool:
        """Whether the call that failed with `error` was left unrepeated by its own retries
        for money's sake: its last attempt may have been done, and charged, and the spend
        policy never repeats such a call (`may_repeat`). A caller that must have the answer
        (a search's results page) may ask again, within the limits; any other failure the
        call's retries have repeated as far as they should."""
        if error.endpoint is None:
            return False
        if isinstance(error, TransportError):
            attempt = Attempt(went_out=error.details != "connect")
        elif error.status is not None:
            attempt = Attempt(went_out=True, status=error.status)
        else:
            return False
        return not self._shared.spend.may_repeat(endpoint(error.endpoint), attempt)

    @property
    def service(self) -> str:
        """The name this client's service goes by in the cache and the ledger."""
        return self._shared.service

    @property
    def stopped(self) -> str | None:
        """Why this client stopped buying (a cache that failed, answers it cannot read), or
        why this run did (no credits left, the service unreachable; the client itself, outside
        any run: the last run that did), or None while it buys."""
        stops = self._shared.spend.stops
        if stops.stopped is not None or not stops.run_stops:  # a formula asks: kept quick
            return stops.stopped
        held = (stops.run_stop(self._run, kind) for kind in ("credits", "unreachable", "key"))
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
        stop = self._shared.spend.stops.run_stop(self._run, "unreachable")
        return None if stop is None else stop.reason

    @property
    def unkept(self) -> int:
        """Answers this client (all its views) paid for and could not keep in the cache: a
        re-run pays them again."""
        return self._shared.spend.stops.unkept

    @property
    def cache_failed(self) -> bool:
        """Whether the cache itself failed (a read, a claim or a save): what it held before
        may not come back, so a re-run is free only if it does."""
        return self._shared.spend.stops.cache_failed

    @property
    def key_refused(self) -> bool:
        """Whether the service refused the API key in this run (a 401: the run stopped; the
        client itself: in the last run that stopped for it)."""
        return self._shared.spend.stops.run_stop(self._run, "key") is not None

    @property
    def out_of_credits(self) -> bool:
        """Whether the service said, in this run, that the account has no credits left (the
        run stopped; the client itself: in the last run that stopped for it)."""
        return self._shared.spend.stops.run_stop(self._run, "credits") is not None

    def spent(self, *, uncertain: bool = False) -> int:
        """Credits the ledger holds for this service (`uncertain`: only those that may have
        been charged without an answer)."""
        return self.ledger.total(service=self._shared.service, uncertain=uncertain)

    @property
    def ledger(self) -> Ledger | TeamLedger:
        """This machine's ledger, or on a team's Redis the team's (with this machine's in it)."""
        return self._shared.ledger

    @property
    def team_cap(self) -> bool:
        """Whether the spending cap (when one is set) is a team's: every machine on the team's
        Redis spends under it, each counting what all spent."""
        return isinstance(self._shared.ledger, TeamLedger)

    @property
    def budget(self) -> Budget:
        return self._budget

    def with_budget(self, limit: int | None, *, new_run: bool = True) -> Client:
        """A view of this client for a new run (a batch run's, a form action's) with a budget
        of its own within the client's: both limits hold, and the view's `budget.spent` counts
        only what was spent through it. Caches and ledger are shared (see `new_run`; with
        `new_run=False`, the view stays in this client's run, whose stops hold for it).
        ArgumentError (a ProfnetError and a ValueError) for a limit that is not a whole number
        of credits, 0 or more, or None."""
        if limit is not None and not _is_count(limit):
            raise ArgumentError(
                f"budget={shown(limit)}: give a whole number of credits, 0 or more (or None: no "
                "budget of its own)"
            )
        view = self.new_run() if new_run else copy.copy(self)
        view._budget = Budget(None if limit is None else int(limit), within=self._budget)
        return view

    def new_run(self) -> Client:
        """A view of this client, with the same budget, for a new run: a stop met before it
        for no credits left or a service unreachable does not hold for it (it asks the
        service again, which is free), nor one for a cache or a ledger that failed once it
        works again (proven first, paying nothing); a stop for answers it cannot read, or
        not the service's, still does."""
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
        ep = named_endpoint(name)
        return payload(ep, self._body(ep, {**(params or {}), **more}, max_items))

    def call_as(self, name: str, raw: Hashable, make: Callable[[], Mapping[str, Any]]) -> Any:
        """`call(name, make())`, remembered under `raw`: the arguments as a front end hands them
        over (Excel's cells). A warm repeat answers from the memo without calling `make` (the
        normalisation of what a user typed costs more than the remembered answer), with the
        memo's own copy of the answer: read it, never change it."""
        ep = named_endpoint(name)
        alias = (name, raw)
        if self._policy.may_read(ep):
            memo = self._shared.memo.get_alias(alias, self._policy.stale_ok)
            if memo is not None and memo.status == 200:
                return payload(ep, memo.shared)
        return payload(ep, self._body(ep, dict(make()), alias=alias))

    def key(self, name: str, params: Mapping[str, Any]) -> CallKey:
        """The key of a call, as every cache of this client knows it."""
        ep = named_endpoint(name)
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
        """The body of a successful answer, from the memo, the store or the service: the
        sequence of `call.paid_call`, driven here with blocking I/O under the key's lock (and,
        across processes, its claim). `alias`: what the memo remembers the call's key under
        (default: the arguments themselves)."""
        plan = self.plan_call(ep, params, max_items, alias)
        if isinstance(plan, Found):
            return plan.value
        recorder = self._recorder
        if recorder is not None:
            fetched = recorder.recalled(plan.key)
            if fetched is not None:
                return fetched.value
        try:
            with PROCESS_LOCKS(plan.key), _Claimed() as claimed:
                return drive(self.paid_flow(plan), lambda action: self._do(action, claimed))
        except OfflineMiss:
            if recorder is not None and not self.settings.offline:
                recorder.miss(plan)
            raise

    # -- what a driver of calls uses (this client's blocking `_body`; `AsyncClient`) ----------
    # Public by contract for the drivers only: a call is planned (`plan_call`), its sequence
    # made (`paid_flow`), and the actions every driver does alike done here (`book`); the
    # driver itself only sends, waits and claims.

    @property
    def api_key(self) -> ApiKey:
        """The key a driver puts on its requests' header (it never shows itself)."""
        return self._shared.api_key

    def plan_call(
        self,
        ep: Endpoint,
        params: dict[str, Any],
        max_items: int | None = None,
        alias: Hashable | None = None,
    ) -> CallPlan | Found:
        """What the memo holds for a call (Found), or the call planned: prepared and keyed
        (InvalidParameter before anything is paid). Both drivers start here."""
        shared, policy = self._shared, self._policy
        raw = alias if alias is not None else _frozen(ep.name, params)
        if policy.may_read(ep) and raw is not None and alias is None:
            memo = shared.memo.get_alias(raw, policy.stale_ok)
            if memo is not None:
                return Found(self._hand_out_memo(ep, memo))
        payload = prepare(ep, params, profile=self.profile)
        key = self._key(ep, payload)
        if raw is not None:
            shared.memo.alias(raw, key)
        return self._planned(ep, key, payload, max_items)

    def replan(self, plan: CallPlan) -> CallPlan | Found:
        """`plan_call` for a call another view of this client planned (a recording one: see
        `recorder.Recorder`), in this view's run and modes, drawing on what that view drew on
        (a search's results room); not prepared again."""
        return self._planned(plan.ep, plan.key, plan.payload, plan.max_items, plan.aside)

    def _planned(
        self,
        ep: Endpoint,
        key: CallKey,
        payload: dict[str, Any],
        max_items: int | None,
        aside: int | None = None,
    ) -> CallPlan | Found:
        """A prepared, keyed call: the memo's answer (Found), or its plan in this view
        (drawing on `aside`, or on what this view draws on)."""
        readable = self._policy.may_read(ep)
        if readable:
            memo = self._shared.memo.get(key, self._policy.stale_ok)
            if memo is not None:
                return Found(self._hand_out_memo(ep, memo))
        offline = self.settings.offline or self._recorder is not None
        drawn = self._aside if aside is None else aside
        return CallPlan(
            ep, key, payload, max_items, readable, offline, self._run, self.base_url, drawn
        )

    def paid_flow(self, plan: CallPlan) -> Flow[Any]:
        """The sequence of a call the memo could not answer (no I/O: see `call.paid_call`),
        for a driver to drive (`call.drive`, `call.drive_async`)."""
        transport = self._shared.transport
        return paid_call(plan, self._shared, _Desk(self), transport.policy, transport.rng)

    def _do(self, action: Action, claimed: _Claimed) -> Any:
        """An action of the sequence, done with blocking I/O: the claim held in `claimed`,
        asked when the attempt's turn comes whether it is still this process's."""
        shared = self._shared
        if isinstance(action, Turn):
            return shared.transport.turn(action.endpoint, claimed.still_ours)
        if isinstance(action, Request):
            key = None if action.keyless else shared.api_key
            return shared.transport.attempt(action.endpoint, action.payload, key, action.ticket)
        if isinstance(action, GiveBack):
            shared.transport.pace.release(action.ticket, "unused")
            return None
        if isinstance(action, Wait):
            shared.transport.sleep(action.seconds)
            return None
        if isinstance(action, Claim):
            try:
                claimed.held = claimed.enter_context(shared.store.claim(action.key))
            except StoreError as failure:
                raise self._cache_failed(action.endpoint, failure) from None
            return None
        return self.book(action)

    def book(self, action: Action) -> Any:
        """An action of `paid_flow` every driver does alike, at once (the store, the budget
        and the ledger: SQLite or memory in this process): read the store, reserve, settle,
        save. Its fact, for the driver to send into the flow."""
        if isinstance(action, ReadStore):
            return self._from_store(action.endpoint, action.key)
        if isinstance(action, Reserve):
            return self._shared.reserve(
                self._budget, action.credits, action.endpoint, action.under_cap, action.aside
            )
        if isinstance(action, Hold):
            return self._shared.hold(action.credits, action.endpoint, action.aside)
        if isinstance(action, Settle):
            reservations = list(action.reservations)
            self._shared.settle(
                self._budget, action.endpoint, action.charge, reservations, action.aside
            )
            return None
        if isinstance(action, Save):
            self._save(action.endpoint, action.key, action.response, action.seconds)
            return None
        raise TypeError(f"{action!r} is not done at once")  # pragma: no cover

    def _is_held(self, ep: Endpoint, key: CallKey) -> bool:
        """Whether the memo or the store holds an answer for `key` (a stored one is kept in the
        memo, not handed out: nothing is made for a caller)."""
        if self._shared.memo.get(key, self._policy.stale_ok) is not None:
            return True
        sent = self._from_store(ep, key)
        if sent is not None:
            self._into_memo(ep, key, sent)
        return sent is not None

    def _from_store(self, ep: Endpoint, key: CallKey) -> Sent | None:
        """The answer the store holds for `key`, or None; a store that fails stops buying."""
        try:
            held = self._shared.store.get(key, stale_ok=self._policy.stale_ok)
        except StoreError as failure:
            raise self._cache_failed(ep, failure) from None
        if held is None:
            return None
        body = json_or_none(held.text)
        return Sent(held.status, held.text, body, held.headers, True, expires=held.expires)

    def quote(self, credits: int, *, drawing_on: int | None = None) -> Quote:
        """What a call or a run that may cost up to `credits` meets: the budget left, then the
        spending cap's, as the spend policy says (ValueError for a `credits` that is not a
        whole number, 0 or more); `drawing_on`: credits set aside under the cap it may take
        first (a search's results: `aside_of`)."""
        if not _is_count(credits):
            raise ArgumentError(
                f"credits={shown(credits)}: give a whole number of credits, 0 or more"
            )
        return self._shared.quote(int(credits), self._budget, drawing_on)

    def refuse_unless_affordable(
        self, credits: int, what: str, endpoint: str | None = None
    ) -> None:
        """Raise BudgetExceeded, before anything is sent, when `what` (which may cost up to
        `credits`) does not fit in the budget or the spending cap; the message gives both."""
        refused = self.quote(credits).refusal(what, endpoint)
        if refused is not None:
            raise refused

    def _save(self, ep: Endpoint, key: CallKey, response: Any, seconds: float) -> None:
        """Save an answer in the store for `seconds` (the cache policy's word). A save that
        fails (a disk full, a database locked past its busy timeout, Redis gone) is never
        raised: the answer is paid for, and the caller still gets (and counts) it; but nothing
        more is bought, since it could not be kept either."""
        try:
            self._shared.store.save(key, response, seconds)
        except StoreError as failure:
            self._shared.count_unkept(failure)
        except Exception as error:  # anything else: this answer is not kept, the rest go on
            with self._shared.lock:
                self._shared.spend.unkept()
            LOG.warning(
                "%s: the answer could not be saved in the cache (%s: %s); it is used now",
                ep.name,
                type(error).__name__,
                error,
            )

    def refusal(self, name: str) -> ProfnetError | None:
        """The error a paid call of the endpoint `name` would be refused with now, unsent
        (this run out of credits, the key refused, the service unreached, buying stopped),
        or None: it may be sent."""
        return self._gate(named_endpoint(name))

    def _gate(self, ep: Endpoint) -> ProfnetError | None:
        """Why a paid call may not be sent now (this client or this run stopped buying)."""
        shared = self._shared
        with shared.lock:
            return shared.spend.gate(ep, self._run)

    def _cache_failed(self, ep: Endpoint, failure: StoreError) -> StoppedBuying:
        return self._shared.stopped(ep, str(failure), cause="cache")

    def kept_said(self) -> str:
        """Whether a re-run pays again: what was paid is kept, or how many answers were not."""
        with self._shared.lock:
            return self._shared.spend.kept_said()

    def _error(
        self,
        ep: Endpoint,
        status: int,
        body: Any,
        headers: Any = None,
        out_of_credits: bool | None = None,
    ) -> ProfnetError:
        """The error of an error answer, with what the spend policy says it may have cost."""
        charged = self._shared.spend.charged_words(ep, status)
        return error_for(ep, status, body, headers, charged=charged, out_of_credits=out_of_credits)

    def _hand_out(self, ep: Endpoint, key: CallKey, sent: Sent) -> Any:
        """Keep an answer in the memo (no longer than the store keeps it), hand it out (a
        copy of its own: the caller may change it)."""
        status, body = self._into_memo(ep, key, sent)
        if status == 200:  # the memo's copy shares lists with `body`: the caller gets another
            body = json.loads(json.dumps(body))
        told = None if sent.from_cache else sent.out_of_credits  # read from the wire once
        return self._payload_or_error(ep, status, body, sent.headers, told)

    def _into_memo(self, ep: Endpoint, key: CallKey, sent: Sent) -> tuple[int, Any]:
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

    def _hand_out_memo(self, ep: Endpoint, memo: Memo) -> Any:
        """A remembered answer: a 200 was understood and conformed when it was kept."""
        if memo.status == 200:
            return memo.body()
        return self._payload_or_error(ep, memo.status, memo.body())

    def _payload_or_error(
        self,
        ep: Endpoint,
        status: int,
        body: Any,
        headers: Any = None,
        out_of_credits: bool | None = None,
    ) -> Any:
        if status != 200 or unfinished(ep, body):
            raise self._error(ep, status, body, headers, out_of_credits)
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
        ep = named_endpoint(name)
        if not self._policy.may_read(ep):
            return False
        memo, raw = self._shared.memo, _frozen(ep.name, params)
        if raw is not None and memo.get_alias(raw, self._policy.stale_ok) is not None:
            return True
        key = self._key(ep, prepare(ep, dict(params), profile=self.profile))
        if raw is not None:
            memo.alias(raw, key)
        try:
            return self._is_held(ep, key)
        except ProfnetError:  # a cached 404 is held too; a store that failed stops buying:
            return True  # nothing is paid (the run's rows say why)

    def estimate(self, calls: Iterable[PlannedCall | tuple[str, Mapping[str, Any]]]) -> Estimate:
        """The cost of a set of planned calls: identical calls count once, cached ones nothing
        (offline, none costs anything: nothing is sent); a search's creation counts with every
        result its limit allows (read later, paid per result; a search started before: its
        results not read yet, within its own room)."""
        total = 0
        unique: dict[CallKey, tuple[Endpoint, dict[str, Any]]] = {}
        for call in calls:
            name, params = _planned(call)
            ep = named_endpoint(name)
            payload = prepare(ep, params, profile=self.profile)
            unique.setdefault(self._key(ep, payload), (ep, payload))
            total += 1
        cached = credits = 0
        asides: list[int | None] = []  # the rooms of searches started before, theirs
        for ep, payload in unique.values():
            if ep.search is not None and ep.search_role == "create":
                unread, request_id = jobs.unread_most(self, ep.search, payload)
                credits += unread
                if request_id is not None:
                    asides.append(self.aside_of(request_id))
            if self.is_cached(ep.name, payload):
                cached += 1
            elif not self.settings.offline:  # offline, nothing is sent: nothing is paid
                credits += self._shared.spend.ceiling(ep, payload)
        drawing = asides[0] if len(asides) == 1 else None
        return Estimate(total, len(unique), cached, self.quote(credits, drawing_on=drawing))

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
            raise ArgumentError(f"kind must be 'leads' or 'companies', got {shown(kind)}")
        return jobs.start_search(self, kind, filters)

    def forget_search(self, kind: SearchKind, filters: Mapping[str, Any], request_id: str) -> None:
        """Forget the cached creation of a search with these filters if it is still the job
        `request_id` (seen failed): a newer run of the same search is kept."""
        jobs.forget_search(self, kind, filters, request_id)

    def attach_search(self, kind: SearchKind, request_id: str) -> SearchJob:
        """A search job started earlier (maybe by another process), by its request_id: its
        pages draw on the credits set aside for its results when it started, if still there."""
        return SearchJob(self.with_options(refresh=False), kind, request_id)


def _is_count(value: object) -> bool:
    """A whole number, 0 or more (not True or False; numpy's integers too)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and int(value) >= 0


def _planned(call: Any) -> tuple[str, Mapping[str, Any]]:
    """A planned call's endpoint name and parameters, or a TypeError saying what is wanted."""
    if isinstance(call, PlannedCall):
        return call.endpoint, call.params
    if isinstance(call, tuple | list) and len(call) == 2 and isinstance(call[1], Mapping):
        return call[0], call[1]
    raise TypeError(
        f"estimate takes planned calls, (endpoint, parameters) pairs such as "
        f"('get-company-details', {{'domain': 'stripe.com'}}) or PlannedCall(...), not "
        f"{shown(call)}"
    )


def named_endpoint(name: str) -> Endpoint:
    """The endpoint called `name`, or InvalidParameter naming it and the one it looks like
    (`get_company_details`: did you mean get-company-details?)."""
    try:
        return endpoint(name)
    except KeyError:
        pass
    names = [ep.name for ep in ENDPOINTS]
    spelt = str(name).strip().lower().replace("_", "-").replace(" ", "-").lstrip("/")
    like = spelt if spelt in names else looks_like(spelt, names)
    hint = f"did you mean {like}? " if like else ""
    raise InvalidParameter(
        f"no endpoint named {shown(name)}: {hint}give an endpoint's name as the spec writes "
        "it, such as get-company-details",
        parameter="endpoint",
        value=name,
    )


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


class _Claimed(contextlib.ExitStack):
    """The claims a call took (one, or another after one lapsed) and the one it holds now."""

    held: Held = KEPT

    def still_ours(self) -> bool:
        return self.held.still_ours()


class _Desk:
    """A client's parts in memory, as the sans-IO call asks them (`call.Desk`)."""

    def __init__(self, client: Client) -> None:
        self.client = client

    def recalled(self, ep: Endpoint, key: CallKey) -> Any | None:
        client = self.client
        memo = client._shared.memo.get(key, client._policy.stale_ok)
        return None if memo is None else client._hand_out_memo(ep, memo)

    def gate(self, ep: Endpoint) -> ProfnetError | None:
        return self.client._gate(ep)

    def hand_out(self, ep: Endpoint, key: CallKey, sent: Sent) -> Any:
        return self.client._hand_out(ep, key, sent)

    def answer_error(
        self, ep: Endpoint, status: int, body: Any, headers: Any, out_of_credits: bool
    ) -> ProfnetError:
        return self.client._error(ep, status, body, headers, out_of_credits=out_of_credits)

    def keep_for(self, ep: Endpoint, status: int, body: Any) -> float:
        return self.client._policy.keep_for(ep, status, body)


def _json(ep: Endpoint, text: str) -> Any:
    try:
        return parse_json(text)
    except ValueError:
        raise ServiceError(
            f"{ep.name}: the service answered with something that is not JSON: {text[:200]!r}. "
            "Try again later.",
            endpoint=ep.name,
        ) from None
