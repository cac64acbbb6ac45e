"""Client: one typed method per endpoint, over the memo, the store, the budget and the ledger.

A call goes: arguments -> prepared parameters -> one CallKey -> the memo -> the store (under
the key's lock and, across processes, its claim) -> the service, within the budget. What is
kept, and for how long, is the CachePolicy's decision; what was charged, the ledger's record.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
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
    Doubt,
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
from profnet_sheets.client.keys import CallKey
from profnet_sheets.client.memo import Memo
from profnet_sheets.client.policy import error_for
from profnet_sheets.client.prepare import named_endpoint, prepare
from profnet_sheets.client.shared import Shared
from profnet_sheets.client.spend import Estimate, PlannedCall
from profnet_sheets.client.views import ClientViews
from profnet_sheets.config import ApiKey, Settings
from profnet_sheets.errors import (
    ArgumentError,
    ConfigurationError,
    OfflineMiss,
    ProfnetError,
    ServiceError,
    StoppedBuying,
    StoreError,
)
from profnet_sheets.redact import masked_url, shown
from profnet_sheets.spec import Endpoint
from profnet_sheets.spec.endpoints import SearchKind

LOG = logging.getLogger("profnet_sheets")


class Client(ClientViews):
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
        cache: str | Path | bool | None = None,
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
        if key is not None and not isinstance(key, ApiKey):
            raise ConfigurationError(
                f"api_key must be text, not {type(key).__name__}: give the key as text (or leave "
                "it out: PROFNET_API_KEY, or `profnet-sheets config --api-key -`)"
            )
        self.settings = settings or Settings.load(
            api_key=key,
            base_url=base_url,
            cache=_cache_place(cache),
            budget=budget,
            offline=offline,
            refresh=refresh,
            **options,
        )
        self._shared = Shared(self.settings)
        self._budget = self._shared.budget
        self._run = None
        self._policy = CachePolicy(self.settings)
        self._recorder = None
        self._aside = None
        self.profile = self.settings.profile

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
        payload, key, also = self._keyed(ep, prepare(ep, params, profile=self.profile))
        if raw is not None:
            shared.memo.alias(raw, key)
        return self._planned(ep, key, payload, max_items, also=also)

    def replan(self, plan: CallPlan) -> CallPlan | Found:
        """`plan_call` for a call another view of this client planned (a recording one: see
        `recorder.Recorder`), in this view's run and modes, drawing on what that view drew on
        (a search's results room); not prepared again."""
        return self._planned(
            plan.ep, plan.key, plan.payload, plan.max_items, plan.aside, also=plan.also
        )

    def _planned(
        self,
        ep: Endpoint,
        key: CallKey,
        payload: dict[str, Any],
        max_items: int | None,
        aside: int | None = None,
        *,
        also: tuple[CallKey, ...] = (),
    ) -> CallPlan | Found:
        """A prepared, keyed call: the memo's answer (Found), or its plan in this view
        (drawing on `aside`, or on what this view draws on). `also`: keys whose answers
        serve it too (`_keyed`)."""
        readable = self._policy.may_read(ep)
        if readable:
            for held in (key, *also):
                memo = self._shared.memo.get(held, self._policy.stale_ok)
                if memo is not None:
                    return Found(self._hand_out_memo(ep, memo))
        offline = self.settings.offline or self._recorder is not None
        drawn = self._aside if aside is None else aside
        doubt_ok = self._doubt_ok or self.settings.refresh
        return CallPlan(
            ep,
            key,
            payload,
            max_items,
            readable,
            offline,
            self._run,
            self.base_url,
            drawn,
            doubt_ok,
            also,
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
                self._budget,
                action.credits,
                action.endpoint,
                action.under_cap,
                action.aside,
                action.call,
            )
        if isinstance(action, Hold):
            return self._shared.hold(action.credits, action.endpoint, action.aside, action.call)
        if isinstance(action, Settle):
            reservations = list(action.reservations)
            self._shared.settle(
                self._budget,
                action.endpoint,
                action.charge,
                reservations,
                action.aside,
                action.call,
            )
            return None
        if isinstance(action, Save):
            self._save(action.endpoint, action.key, action.response, action.seconds)
            return None
        if isinstance(action, Doubt):
            return self._doubt(action.endpoint, action.call)
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

    def _cache_failed(self, ep: Endpoint, failure: StoreError) -> StoppedBuying:
        return self._shared.stopped(ep, str(failure), cause="cache")

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
        _, key, also = self._keyed(ep, prepare(ep, dict(params), profile=self.profile))
        if raw is not None:
            memo.alias(raw, key)
        try:
            return any(self._is_held(ep, held) for held in (key, *also))
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
            unique.setdefault(self._keyed(ep, payload)[1], (ep, payload))
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
        """A profile (1 credit), with its skills and certifications: both are always asked
        for, whatever the flags say (the same price; one answer then serves every ask)."""
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


def _cache_place(cache: object) -> str | None:
    """The cache a client is given as its setting: a place as text, False as `off` (no
    cache), True or None as the settings' own (PROFNET_CACHE, or the default folder)."""
    if cache is None or cache is True:
        return None
    if cache is False:
        return "off"
    if isinstance(cache, str | os.PathLike):
        return os.fspath(cache)
    raise ConfigurationError(
        f"cache={shown(cache)} is no cache: give a folder or a .sqlite file, 'memory', 'off' "
        "(or False), or a redis:// URL"
    )


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
