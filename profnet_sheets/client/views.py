"""What a client's front ends read and set apart from its calls: its views, its spend and stops
(as the spend object says them), credits set aside, the cache's administration.

`Client` (client.py) is these views over the call pipeline and the 20 endpoints.
"""

from __future__ import annotations

import copy
import logging
import numbers
from collections.abc import Mapping
from typing import Any, Self

from profnet_sheets.client.cache import CachePolicy
from profnet_sheets.client.keys import CallKey, call_key
from profnet_sheets.client.ledger import InDoubt, Ledger
from profnet_sheets.client.pace import Pace
from profnet_sheets.client.prepare import named_endpoint, prepare, served_by, widest
from profnet_sheets.client.recorder import Recorder
from profnet_sheets.client.shared import Shared
from profnet_sheets.client.spend import Attempt, Budget, Quote
from profnet_sheets.client.team_ledger import TeamLedger
from profnet_sheets.config import ApiKey, Settings
from profnet_sheets.errors import ArgumentError, ProfnetError, TransportError
from profnet_sheets.redact import masked_url, shown
from profnet_sheets.spec import Endpoint, PriceTable, ServiceProfile, endpoint

LOG = logging.getLogger("profnet_sheets")
# How long a job start left in doubt is said at least, whatever the reuse window (0: never
# reuse): a re-run an hour after a kill pays again all the same.
DOUBT_HOURS = 24.0


class ClientViews:
    """A client's state as its front ends see it; the calls themselves are `Client`'s."""

    settings: Settings
    profile: ServiceProfile
    _shared: Shared
    _budget: Budget
    _run: int | None  # None: calls outside any run, each asking the service anew
    _policy: CachePolicy
    _recorder: Recorder | None  # set: calls the caches miss are noted, not sent
    _aside: int | None  # credits set aside under the cap its calls draw on
    _doubt_ok: bool = False  # its calls start a job left in doubt all the same (told so)

    # -- the client's views: other modes, another run, a budget of its own -------------------------

    def with_options(self, *, refresh: bool | None = None, offline: bool | None = None) -> Self:
        """A view of this client with other modes, sharing its caches, ledger and budget."""
        view = copy.copy(self)
        changes = {k: v for k, v in (("refresh", refresh), ("offline", offline)) if v is not None}
        view.settings = self.settings.with_changes(**changes)
        view._policy = CachePolicy(view.settings)
        return view

    def starting_in_doubt(self) -> Self:
        """A view of this client whose calls start a job left in doubt (`in_doubt`) all the
        same: the quote that said so was shown to the user, who went on."""
        view = copy.copy(self)
        view._doubt_ok = True
        return view

    def recording(self, recorder: Recorder) -> Self:
        """A view of this client (same caches, budget, ledger and run) that sends nothing: a
        call the caches cannot answer is noted in `recorder` and raises OfflineMiss, and a call
        `recorder` holds an answer or error for reads it (see `client.recorder`)."""
        view = copy.copy(self)
        view._recorder = recorder
        return view

    def drawing_on(self, aside: int | None) -> Self:
        """A view of this client (same caches, budget, ledger and run) whose calls take their
        most from credits set aside in the budget and under the spending cap (`set_aside`)
        first."""
        view = copy.copy(self)
        view._aside = aside
        return view

    def with_budget(self, limit: int | None, *, new_run: bool = True) -> Self:
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

    def new_run(self) -> Self:
        """A view of this client, with the same budget, for a new run: a stop met before it
        for no credits left or a service unreachable does not hold for it (it asks the
        service again, which is free), nor one for a cache or a ledger that failed once it
        works again (proven first, paying nothing); a stop for answers it cannot read, or
        not the service's, still does."""
        view = copy.copy(self)
        view._run = self._shared.start_run()
        return view

    # -- what it calls, and how --------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        return self._shared.base_url

    @property
    def service(self) -> str:
        """The name this client's service goes by in the cache and the ledger."""
        return self._shared.service

    @property
    def api_key(self) -> ApiKey:
        """The key a driver puts on its requests' header (it never shows itself)."""
        return self._shared.api_key

    @property
    def prices(self) -> PriceTable:
        """What each call costs: the spec's prices with the profile's over them. Everything
        that counts credits (the budget, the ledger, every cost preview) asks this table."""
        return self.profile.prices

    @property
    def pace(self) -> Pace:
        """The pace of this client's calls (shared by its views): `pace.view()` says how fast
        they go, how many are in flight, and whether the service throttles."""
        return self._shared.transport.pace

    def prepare(self, name: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """The parameters a call of endpoint `name` sends: normalised (page URLs on the
        profile's network hosts) and checked; InvalidParameter before anything is paid."""
        return prepare(named_endpoint(name), params, profile=self.profile)

    def key(self, name: str, params: Mapping[str, Any]) -> CallKey:
        """The key of a call as it is sent (`prepare.widest`), as every cache of this client
        knows it."""
        ep = named_endpoint(name)
        return self._keyed(ep, prepare(ep, dict(params), profile=self.profile))[1]

    def _key(self, ep: Endpoint, payload: dict[str, Any]) -> CallKey:
        shared = self._shared
        return call_key(shared.service, shared.api_key.fingerprint, ep, payload)

    def _keyed(
        self, ep: Endpoint, payload: dict[str, Any]
    ) -> tuple[dict[str, Any], CallKey, tuple[CallKey, ...]]:
        """A prepared call as it is sent (widened at the same price: `prepare.widest`), its
        key, and when it was widened the keys of the calls whose answers serve it too (as
        asked, then asking more: `prepare.served_by`; what an earlier version kept)."""
        wide = widest(ep, payload)
        if wide is None:
            return payload, self._key(ep, payload), ()
        return wide, self._key(ep, wide), tuple(self._key(ep, it) for it in served_by(ep, payload))

    # -- its spend: stops, ledger, budget ----------------------------------------------------------

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
    def ledger_failed(self) -> bool:
        """Whether the ledger failed (a hold or a spend it could not write) since this view's
        run began (outside any run: ever): what was spent may not all be counted, under the
        spending cap too."""
        failed = self._shared.spend.stops.ledger_failed
        return failed is not None and (self._run is None or failed >= self._run)

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

    def kept_said(self) -> str:
        """Whether a re-run pays again: what was paid is kept, or how many answers were not."""
        with self._shared.lock:
            return self._shared.spend.kept_said()

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

    def in_doubt(self, name: str, params: Mapping[str, Any]) -> InDoubt | None:
        """A job this call would start (a search) that a run sent within the reuse window
        and has no answer kept for: its process died with it in flight, or its answer was
        lost. The service may have started it and charged it (counted as possibly spent);
        starting it again pays again. None: none such, the ledger cannot tell (logged), or
        another run is starting it now (its claim held: a start waits for it, then reuses its
        answer, or, when none came, is refused by its call unless told: `starting_in_doubt`)."""
        ep = named_endpoint(name)
        key = self._key(ep, prepare(ep, dict(params), profile=self.profile))
        doubt = self._doubt(ep, key.digest)
        if doubt is None or self._shared.store.claimed_now(key):
            return None
        return doubt

    def _doubt(self, ep: Endpoint, call: str) -> InDoubt | None:
        """What the ledger knows of the job start `call` left in doubt within the reuse
        window, a day at least (None: nothing, or the ledger cannot tell: logged)."""
        within = max(self.settings.search_reuse_hours, DOUBT_HOURS) * 3600.0
        shared = self._shared
        try:
            return shared.ledger.in_doubt(shared.service, call, within)
        except shared.ledger.failures as error:
            LOG.warning("%s: the ledger cannot tell what runs before sent (%s)", ep.name, error)
            return None

    @property
    def budget(self) -> Budget:
        return self._budget

    # -- what a call or a run may spend (the spend object's word) ----------------------------------

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

    def ceiling(self, name: str, params: Mapping[str, Any], max_items: int | None = None) -> int:
        """The most a call with these (prepared) parameters can cost, at this client's prices."""
        return self._shared.spend.ceiling(named_endpoint(name), params, max_items)

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

    # -- credits set aside (a search's results) ----------------------------------------------------

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

    # -- the cache ---------------------------------------------------------------------------------

    def cache_info(self) -> dict[str, Any]:
        """Where answers are cached, how many (and how many expired), the size, the ledger."""
        found = self._shared.store.info()
        if self.settings.cache == "off":  # its store is one of memory that nothing reads
            found["cache"] = "off (no answer is looked up again)"
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

    # -- closing -----------------------------------------------------------------------------------

    def close(self) -> None:
        self._shared.transport.close()
        self._shared.store.close()
        self._shared.ledger.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _is_count(value: object) -> bool:
    """A whole number, 0 or more (not True or False; numpy's integers too)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and int(value) >= 0
