"""AsyncClient: the client's calls driven by asyncio and a fetch function (the browser's fetch
under Pyodide: xlwings Lite), with no thread: the same sequence (`call.paid_call`), caches,
budget, spending cap, ledger and stops as `Client`'s; identical calls under way paid once."""

from __future__ import annotations

import asyncio
import copy
import time
from collections import deque
from collections.abc import Awaitable, Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import requests
from requests.structures import CaseInsensitiveDict
from requests.utils import get_encoding_from_headers

from profnet_sheets.client.answers import payload
from profnet_sheets.client.call import (
    Action,
    CallPlan,
    Claim,
    Found,
    GiveBack,
    Heard,
    Request,
    Turn,
    Wait,
    drive_async,
    heard,
    lesson,
)
from profnet_sheets.client.client import Client
from profnet_sheets.client.keys import CallKey
from profnet_sheets.client.outgoing import with_query
from profnet_sheets.client.pace import Outcome, Ticket
from profnet_sheets.client.policy import Failure
from profnet_sheets.client.prepare import named_endpoint
from profnet_sheets.client.spend import Budget, NeverSent, Quote
from profnet_sheets.client.transport import USER_AGENT
from profnet_sheets.spec import Endpoint


@dataclass(frozen=True)
class Fetch:
    """One attempt as a fetch function makes it: the key is in `headers`, never in `url`."""

    method: str
    url: str
    headers: Mapping[str, str]
    body: bytes | None
    timeout: float  # seconds for the whole answer


@dataclass(frozen=True)
class Fetched:
    """What came back: the status, the headers (any case), the body decoded (gzip undone)."""

    status: int
    headers: Mapping[str, str]
    content: bytes


class Unanswered(Exception):  # noqa: N818 - a fact, not a bug
    """No answer came to a fetch; `failure` says how: `connect` or `refused` (never sent),
    `read` (it may have reached the service), `timeout`."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(failure)
        self.failure: Failure = failure


FetchFunction = Callable[[Fetch], Awaitable[Fetched]]
Sleep = Callable[[float], Awaitable[None]]


# Calls whose sequence may run at once, per call the pace may have in flight (`_Line.admitted`).
PREPARED_AHEAD = 2


class CancelledInLine(NeverSent):
    """A call cancelled while it waited for its turn in the pace: it never left, so the
    sequence settles it as nothing; the driver raises `cancelled` again once it has."""

    def __init__(self, cancelled: asyncio.CancelledError) -> None:
        super().__init__("cancelled while waiting for the service's pace")
        self.cancelled = cancelled


@dataclass
class _Line:
    """The calls waiting for their turn in the pace, first come first served: only the first
    asks the pace (the others wait to be first), so that an answer wakes one call, not all."""

    waiting: deque[asyncio.Future[None]]
    freed: asyncio.Event | None = None  # set when a call ends: the pace may let one start
    admission: asyncio.Semaphore | None = None
    loop: asyncio.AbstractEventLoop | None = None  # the loop the two above were made in

    def _in_this_loop(self) -> None:
        loop = asyncio.get_running_loop()
        if self.loop is not loop:  # made anew in the loop that uses them
            self.loop, self.freed, self.admission = loop, None, None

    def freed_event(self) -> asyncio.Event:
        self._in_this_loop()
        if self.freed is None:
            self.freed = asyncio.Event()
        return self.freed

    def admitted(self, in_flight_cap: int) -> asyncio.Semaphore:
        """The calls whose sequence runs (read, reserve, prepare, send, settle, keep): as many
        again as may be in flight, ready in line; the rest wait before doing anything, so
        that answers are not held up while a whole range is prepared (decision 367)."""
        self._in_this_loop()
        if self.admission is None:
            self.admission = asyncio.Semaphore(PREPARED_AHEAD * in_flight_cap)
        return self.admission

    def wake_first(self) -> None:
        if self.waiting and not self.waiting[0].done():
            self.waiting[0].set_result(None)


async def browser_fetch(request: Fetch) -> Fetched:
    """One attempt through the browser's fetch (Pyodide's `pyfetch`), redirects not followed.
    A fetch that fails says nothing of whether the request left: counted as `read` (it may
    have been charged)."""
    from pyodide.http import pyfetch  # type: ignore[import-not-found]  # only under Pyodide

    try:
        answer = await asyncio.wait_for(
            pyfetch(
                request.url,
                method=request.method,
                headers=dict(request.headers),
                body=request.body,
                redirect="manual",
            ),
            request.timeout,
        )
        content = await answer.bytes()
    except TimeoutError:
        raise Unanswered("timeout") from None
    except Exception:  # the browser tells no more (CORS refused, network down, cut)
        raise Unanswered("read") from None
    if answer.status == 0:  # a redirect the browser did not follow: its target hidden
        return Fetched(302, {}, b"")
    return Fetched(answer.status, CaseInsensitiveDict(answer.headers), content)


class AsyncClient:
    """The service, paid for at most once per answer, from asyncio with no thread.

    Built over a `Client` (made from the same arguments, or given as `client`) whose caches,
    budget, cap and ledger it uses; only the waits and the attempts differ: `fetch` makes
    one attempt (default: the browser's fetch under Pyodide), `sleep` waits before a retry
    (default `asyncio.sleep`). Identical calls under way at once (one recalculation of a
    sheet) are paid once: the later ones wait for the first and read its answer. Calls of
    different keys go out together, as many as the pace lets. There are no claims across
    processes (one process, no threads): the in-flight map is the claim.
    """

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        cache: str | None = None,
        budget: int | None = None,
        *,
        fetch: FetchFunction | None = None,
        sleep: Sleep | None = None,
        clock: Callable[[], float] = time.monotonic,
        client: Client | None = None,
        **options: Any,
    ) -> None:
        try:
            self.client = client or Client(api_key, base_url, cache, budget, **options)
        finally:
            del api_key  # a traceback showing local variables must not show the key
        self.fetch: FetchFunction = fetch or browser_fetch
        self.sleep: Sleep = sleep or asyncio.sleep
        self.clock = clock
        self._in_flight: dict[CallKey, asyncio.Future[None]] = {}
        self._line = _Line(deque())  # shared by views, as the pace is

    # -- views, limits and spend: the client's ------------------------------------------------

    def _view(self, client: Client) -> AsyncClient:
        view = copy.copy(self)  # the same in-flight map: a view's calls are the same calls
        view.client = client
        return view

    def driving(self, client: Client) -> AsyncClient:
        """A view driving `client` (a view of this one's client: another run, budget or mode)
        with the same in-flight map: what one recalculation asks of either is paid once."""
        return self._view(client)

    def new_run(self) -> AsyncClient:
        """A view for a new run (see `Client.new_run`): a 402 or an unreachable service met
        before does not hold for it."""
        return self._view(self.client.new_run())

    def with_budget(self, limit: int | None) -> AsyncClient:
        """A view for a new run with a budget of its own (see `Client.with_budget`)."""
        return self._view(self.client.with_budget(limit))

    @property
    def budget(self) -> Budget:
        return self.client.budget

    @property
    def stopped(self) -> str | None:
        return self.client.stopped

    def first_wave(self) -> int:
        """How many calls the pace lets go out at once now (at least one)."""
        return max(1, int(self.client.pace.core.window))

    def quote(self, credits: int) -> Quote:
        return self.client.quote(credits)

    def spent(self, *, uncertain: bool = False) -> int:
        return self.client.spent(uncertain=uncertain)

    def close(self) -> None:
        self.client.close()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.close()

    # -- calls --------------------------------------------------------------------------------

    async def call(
        self,
        name: str,
        params: Mapping[str, Any] | None = None,
        *,
        max_items: int | None = None,
        **more: Any,
    ) -> Any:
        """`Client.call`, awaited: endpoint `name`'s payload (or its error)."""
        ep = named_endpoint(name)
        return payload(ep, await self._body(ep, {**(params or {}), **more}, max_items))

    async def call_as(self, name: str, raw: Hashable, make: Callable[[], Mapping[str, Any]]) -> Any:
        """`Client.call_as`, awaited: a warm repeat answers from the memo without `make`."""
        ep = named_endpoint(name)
        return payload(ep, await self._body(ep, dict(make()), alias=(name, raw)))

    async def body(self, plan: CallPlan) -> Any:
        """The body of a successful answer (what `call` reads its payload from), as the
        blocking client's `_body` gives it, for a call a `Recorder` noted (`plan`, made by a
        recording view of this client: not prepared again)."""
        return await self._settled(lambda: self.client.replan(plan))

    async def get_company_details(self, **params: Any) -> dict[str, Any]:
        """Company details (1 credit): see `Client.get_company_details`."""
        found: dict[str, Any] = await self.call("get-company-details", params)
        return found

    async def get_profile_details(self, **params: Any) -> dict[str, Any]:
        """A profile (1 credit): see `Client.get_profile_details`."""
        found: dict[str, Any] = await self.call("get-profile-details", params)
        return found

    async def _body(
        self,
        ep: Endpoint,
        params: dict[str, Any],
        max_items: int | None = None,
        alias: Hashable | None = None,
    ) -> Any:
        """The body of a successful answer: the memo, else the sequence of `call.paid_call`
        driven with awaited actions, once per key among the calls under way."""
        return await self._settled(lambda: self.client.plan_call(ep, params, max_items, alias))

    async def _settled(self, planned: Callable[[], CallPlan | Found]) -> Any:
        """The memo's answer (`planned()`), else the call's sequence driven, once per key
        among the calls under way (a call of the same key under way: its end awaited, then
        `planned()` again)."""
        client = self.client
        while True:
            plan = planned()
            if isinstance(plan, Found):
                return plan.value
            busy = self._in_flight.get(plan.key)
            if busy is None:
                break
            await asyncio.wait({busy})  # the same call under way: then the caches answer
        done = asyncio.get_running_loop().create_future()
        self._in_flight[plan.key] = done
        try:
            async with self._line.admitted(client.pace.core.cap):
                return await drive_async(client.paid_flow(plan), self._do)
        except CancelledInLine as never:  # settled as nothing: still a cancellation
            raise never.cancelled from None
        finally:
            del self._in_flight[plan.key]
            done.set_result(None)

    async def _do(self, action: Action) -> Any:
        """An action of the sequence: an attempt or a wait awaited; the rest at once."""
        if isinstance(action, Turn):
            return await self._turn()
        if isinstance(action, Request):
            answer = await self._attempt(
                action.endpoint, action.payload, action.ticket, action.keyless
            )
            await _let_the_next_start()
            return answer
        if isinstance(action, GiveBack):
            self.client.pace.core.finish(action.ticket, self.clock(), "unused", None)
            self._line.freed_event().set()
            return None
        if isinstance(action, Wait):
            await self.sleep(action.seconds)
            return None
        if isinstance(action, Claim):
            return False  # one process: the in-flight map holds the key, no one else
        return self.client.book(action)

    async def _attempt(
        self, ep: Endpoint, params: dict[str, Any], ticket: Ticket, keyless: bool = False
    ) -> Heard | Failure:
        """One attempt, its turn taken (`ticket`): the answer, or how it failed; the pace
        learns how it went. `keyless`: sent without the API key."""
        settings, key = self.client.settings, self.client.api_key
        keyed = {} if keyless else {settings.key_header: key.reveal()}
        get = ep.method == "GET"
        outcome: Outcome = "failed"
        retry_after: float | None = None
        try:  # the turn is taken: given back whatever happens, the request's making included
            url = self.client.base_url.rstrip("/") + ep.path
            prepared = requests.Request(
                ep.method,
                with_query(url, params) if get else url,
                json=None if get else params,
                headers={
                    "User-Agent": USER_AGENT,
                    "Accept": "application/json",
                    **settings.headers,
                },
            ).prepare()
            url, body = prepared.url or "", prepared.body
            plain = dict(prepared.headers)
            asked = Fetch(
                ep.method,
                url,
                {**plain, **keyed},  # the key put on last
                body.encode() if isinstance(body, str) else body,
                settings.deadline,
            )
            try:
                fetched = await asyncio.wait_for(self.fetch(asked), settings.deadline)
            except TimeoutError:
                outcome = "timeout"
                return "deadline"
            except Unanswered as failure:
                outcome = "timeout" if failure.failure == "timeout" else "failed"
                return failure.failure
            except Exception:  # whatever else the fetch raised: it may have gone out
                return "read"
            if _cut_short(fetched):  # a fetch that handed over what it read of a cut answer
                return "read"
            kept = _kept(fetched, ep.method, url, plain)
            answer = heard(fetched.status, kept.headers, kept.text, key.reveal(), kept)
            outcome, retry_after = lesson(answer, settings.retry_after_cap)
            return answer
        finally:
            self.client.pace.core.finish(ticket, self.clock(), outcome, retry_after)
            self._line.freed_event().set()

    async def _turn(self) -> Ticket:
        """Wait, without blocking the loop, until the pace lets a call start: in line, first
        come first served. Cancelled meanwhile: CancelledInLine (nothing was sent)."""
        core, line = self.client.pace.core, self._line
        mine: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        line.waiting.append(mine)
        core.waiting += 1
        try:
            if line.waiting[0] is not mine:
                await mine  # until the calls before this one have started
            while True:
                got = core.start(self.clock())
                if isinstance(got, Ticket):
                    return got
                freed = line.freed_event()
                freed.clear()
                if got is None:
                    await freed.wait()
                else:
                    await asyncio.sleep(got)
        except asyncio.CancelledError as cancelled:
            raise CancelledInLine(cancelled) from None
        finally:
            core.waiting -= 1
            line.waiting.remove(mine)
            line.wake_first()  # the next in line asks the pace now


async def _let_the_next_start() -> None:
    """Let the loop run once, so that the call the pace let start when this one's answer came
    sends its request before this answer is settled and kept (the in-flight limit is the
    service's, not a limit on this process's work). A cancellation meanwhile is put off to
    the next wait: the answer is in hand, to be settled and kept first."""
    try:
        await asyncio.sleep(0)
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
            task.cancel()  # again: delivered at this task's next wait


def _cut_short(fetched: Fetched) -> bool:
    """Whether an answer's body is shorter than its Content-Length says (one not encoded: a
    decoded body's length is not the one sent): its connection closed before the end."""
    headers = CaseInsensitiveDict(fetched.headers)
    length = headers.get("Content-Length")
    if not length or not length.isdigit() or headers.get("Content-Encoding"):
        return False
    return len(fetched.content) < int(length)


def _kept(fetched: Fetched, method: str, url: str, headers: Mapping[str, str]) -> Any:
    """A fetched answer as the store keeps it (requests-cache's CachedResponse), and as the
    sequence reads it (`text` decoded as requests decodes it: the charset the headers name,
    UTF-8 for JSON or when
    they name none; never guessed from the bytes, which costs more than the rest together)."""
    from requests_cache.models.request import CachedRequest
    from requests_cache.models.response import CachedResponse

    kept_headers = CaseInsensitiveDict(fetched.headers)
    return CachedResponse(
        status_code=fetched.status,
        content=fetched.content,
        headers=kept_headers,
        url=url,
        encoding=get_encoding_from_headers(kept_headers) or "utf-8",
        request=CachedRequest(method=method, url=url, headers=CaseInsensitiveDict(headers)),
    )
