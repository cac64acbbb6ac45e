"""One paid call as a sequence free of I/O: it yields what is to be done (actions) and is sent
what happened (facts); a driver does the actions, with threads and blocking I/O
(`client.Client`, `transport.Transport`) or with asyncio and the browser's fetch
(`async_client.AsyncClient`).

The sequence (after the memo, under the driver's exclusion of identical calls): the store ->
offline -> the gate -> the claim -> the store again -> the ceiling -> reserve (the budget) ->
attempts (each one's turn in the pace; at the first one's, the cap's hold, which other
processes see; the retry policy says when to repeat, the spend policy whether it may) ->
settle -> the stops -> save -> hand out. Decisions are the spend policy's, the retry
policy's and the cache policy's; no socket, no thread, no clock, no sleep here. An action
the driver could not do is thrown into the sequence (`generator.throw`), so that what was
reserved is always settled.
"""

from __future__ import annotations

import json
import random
from collections.abc import Awaitable, Callable, Generator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeVar

from profnet_sheets.client.answers import missing, unfinished
from profnet_sheets.client.keys import CallKey, canonical_json
from profnet_sheets.client.policy import (
    NEVER_SENT,
    Failure,
    RetryPolicy,
    parse_retry_after,
    says_out_of_credits,
)
from profnet_sheets.client.spend import Attempt, Charge, NeverSent, RunStopKind, SpendPolicy
from profnet_sheets.errors import (
    BudgetExceeded,
    OfflineMiss,
    ProfnetError,
    SearchError,
    ServiceError,
    StoppedBuying,
    TransportError,
)
from profnet_sheets.redact import masked, masked_url, shown
from profnet_sheets.spec import Endpoint, search_endpoint
from profnet_sheets.spec.errors import is_foreign
from profnet_sheets.words import counted

if TYPE_CHECKING:
    from profnet_sheets.client.pace import Outcome

T = TypeVar("T")
CLAIM_TRIES = 3  # claims lost before the call gives up (each time, nothing was sent)


class ClaimLost(NeverSent):
    """The call's claim was no longer this process's when its turn came (it lapsed, and another
    process may be paying for the call): the attempt was not sent."""


# -- facts ---------------------------------------------------------------------------------


@dataclass
class Sent:
    """One answer, from the wire or the HTTP cache: its body parsed once (None: not JSON).
    `expires`: until when a cached one is fresh (unix time); `attempts`: what each attempt of
    the call met (none for a cached answer), for the spend policy to settle."""

    status: int
    text: str
    body: Any
    headers: Mapping[str, str]
    from_cache: bool
    attempts: tuple[Attempt, ...] = ()
    expires: float | None = None
    response: Any = None  # from the wire: what the store keeps (None: never kept)
    out_of_credits: bool = False  # the answer says the account cannot pay (decided once)


@dataclass(frozen=True)
class Heard:
    """One attempt's answer: its body parsed once (None: not JSON), and whether it says the
    account cannot pay (`says_out_of_credits`, decided once for the retry, the pace and the
    client). `response`: what the store would keep (the driver's own kind of answer)."""

    status: int
    headers: Mapping[str, str]
    text: str  # the body's text, the key masked where the service quoted it back
    body: Any
    out_of_credits: bool
    response: Any
    quoted_key: bool = False  # it did: the answer is never kept


def heard(status: int, headers: Mapping[str, str], text: str, secret: str, response: Any) -> Heard:
    """What an attempt's answer says, from its status, headers and text; a key quoted back in
    an error answer (`secret`) masked where it arrives: it reaches no message, log nor cache."""
    body = json_or_none(text)
    quoted_key = bool(secret) and status != 200 and secret in text
    if quoted_key:
        text = masked(text, (secret,))
        body = json_or_none(text)
    said = body if body is not None else text  # a quota told in plain text
    return Heard(
        status, headers, text, body, says_out_of_credits(status, said), response, quoted_key
    )


def lesson(answer: Heard, retry_after_cap: float) -> tuple[Outcome, float | None]:
    """What an answer tells the pace: a 429 about speed (with its Retry-After, capped),
    a 5xx nothing, any other answer that the service answered."""
    if answer.status >= 500:
        return "failed", None
    if answer.status != 429:
        return "answered", None
    if answer.out_of_credits:
        return "failed", None  # out of credits: not a question of speed
    wait = parse_retry_after(answer.headers.get("Retry-After"))
    return "throttled", None if wait is None else min(wait, retry_after_cap)


# -- actions -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReadStore:
    """Read the store under `key` -> a Sent (from the cache) or None."""

    endpoint: Endpoint
    key: CallKey


@dataclass(frozen=True)
class Doubt:
    """What the ledger knows of the job start `call` (its key) sent before with no answer kept
    -> InDoubt, or None (none such, or the ledger cannot tell)."""

    endpoint: Endpoint
    call: str


@dataclass(frozen=True)
class Claim:
    """Claim `key` across the processes sharing the store, until the call ends -> None, or
    False when no other process can share it (nothing to read again: one process, the
    driver's own exclusion of identical calls)."""

    endpoint: Endpoint
    key: CallKey


@dataclass(frozen=True)
class Reserve:
    """Reserve `credits` in the budget and under the cap (`under_cap` False: the cap only
    asked, nothing held there: the hold comes at the call's turn) -> a Reservation (or the
    refusal thrown in)."""

    endpoint: Endpoint
    credits: int
    under_cap: bool = True
    aside: int | None = None  # credits set aside (budget, cap) the call draws on first
    call: str = ""  # the call's key when it starts a job: kept with its hold (in_doubt)


@dataclass(frozen=True)
class Hold:
    """Hold `credits` under the spending cap (shared by every process on the ledger) -> a
    Reservation of none of the budget (or the refusal thrown in)."""

    endpoint: Endpoint
    credits: int
    aside: int | None = None  # credits set aside (budget, cap) the call draws on first
    call: str = ""  # the call's key when it starts a job: kept with its hold (in_doubt)


@dataclass(frozen=True)
class Turn:
    """Wait until the pace lets an attempt start -> its ticket (or NeverSent thrown in: the
    run stopped, the claim lapsed, the call was cancelled in line)."""

    endpoint: Endpoint


@dataclass(frozen=True)
class Request:
    """Make one attempt, its turn taken (`ticket`) -> a Heard, or how it failed (a Failure);
    the pace learns how it went. `keyless`: sent without the API key (the path's proof)."""

    endpoint: Endpoint
    payload: dict[str, Any]
    ticket: Any
    keyless: bool = False


@dataclass(frozen=True)
class GiveBack:
    """Give a turn back unused (nothing was sent: the cap refused, the run stopped) -> None."""

    ticket: Any


@dataclass(frozen=True)
class Wait:
    """Wait `seconds` before the next attempt -> None."""

    seconds: float


@dataclass(frozen=True)
class Settle:
    """Record what a call charged and give back what it reserved -> None."""

    endpoint: Endpoint
    charge: Charge
    reservations: tuple[Any, ...]
    aside: int | None = None  # credits set aside whose room what it charged takes
    call: str = ""  # the call's key when it starts a job: kept with its spend (in_doubt)


@dataclass(frozen=True)
class Save:
    """Keep `response` under `key` for `seconds` -> None (a failure is the driver's to count)."""

    endpoint: Endpoint
    key: CallKey
    response: Any
    seconds: float


Action = (
    ReadStore | Doubt | Claim | Reserve | Hold | Turn | Request | GiveBack | Wait | Settle | Save
)
Flow = Generator[Action, Any, T]


# -- the attempts of one call --------------------------------------------------------------


def told(answer: bool) -> Flow[bool]:
    """A flow that decides at once: a plain `may_retry` answer, as a step of the sequence."""
    return answer
    yield  # pragma: no cover - makes this a generator


def attempts_of(
    ep: Endpoint,
    payload: dict[str, Any],
    retry: RetryPolicy,
    rng: random.Random,
    where: str,
    reached: Callable[[bool], bool] = lambda reached: True,
    may_retry: Callable[[Attempt], Flow[bool]] | None = None,
    attempts: list[Attempt] | None = None,
    on_turn: Callable[[int], Flow[None]] | None = None,
) -> Flow[Sent]:
    """The call's attempts, retried as the retry policy says; the final answer, whatever its
    status. `reached` is told after each attempt whether it reached the service (False back:
    deemed unreachable, not tried again); `may_retry` is asked before each repeat (the spend
    policy's say); `on_turn(number)` once each attempt's turn has come, before it is sent
    (what it raises gives the turn back, nothing sent). `attempts` (the caller's list, known
    whatever is raised) gets what each attempt met as it happens: one under way counts as one
    that went out with no answer yet. Raises TransportError when no answer came, ServiceError
    on a redirect (never followed)."""
    attempts = [] if attempts is None else attempts
    while True:
        number = len(attempts)
        ticket = yield Turn(ep)  # NeverSent thrown in: stopped while it waited, never left
        if on_turn is not None:
            try:
                yield from on_turn(number)
            except GeneratorExit:  # the flow closed unfinished: no driver left to give it to
                raise
            except BaseException:
                yield GiveBack(ticket)
                raise
        attempts.append(Attempt(went_out=True))  # under way: it may reach the service
        answer: Heard | Failure = yield Request(ep, payload, ticket)
        attempts.pop()
        if isinstance(answer, str):
            failure: Failure = answer
            fact = Attempt(went_out=failure not in NEVER_SENT)
            attempts.append(fact)
            wait = retry.after_failure(number, failure, rng)
            if not reached(fact.went_out):
                wait = None
            held_back = (
                wait is not None and may_retry is not None and not (yield from may_retry(fact))
            )
            if wait is None or held_back:
                raise transport_error(ep, failure, attempts, held_back, where)
        else:
            reached(True)
            status = answer.status
            if 300 <= status < 400:
                raise ServiceError(
                    f"{ep.name}: the service answered with a redirect "
                    f"({status}) to {shown(answer.headers.get('Location'))}; "
                    "it is not followed, so that the API key is never sent elsewhere. "
                    "Check the base URL (PROFNET_BASE_URL).",
                    endpoint=ep.name,
                    status=status,
                )
            fact = Attempt(went_out=True, status=status)
            attempts.append(fact)
            wait = retry.after_status(
                number,
                status,
                answer.headers,
                answer.body,
                rng,
                out_of_credits=answer.out_of_credits,
            )
            if wait is not None and may_retry is not None and not (yield from may_retry(fact)):
                wait = None
            if wait is None:
                return Sent(
                    status,
                    answer.text,
                    answer.body,
                    answer.headers,
                    False,
                    tuple(attempts),
                    response=None if answer.quoted_key else answer.response,
                    out_of_credits=answer.out_of_credits,
                )
        yield Wait(wait)


def transport_error(
    ep: Endpoint, failure: Failure, attempts: list[Attempt], held_back: bool, where: str
) -> TransportError:
    """The error of a call no answer came to, and what to do."""
    what = {
        "connect": "could not reach the service",
        "refused": "could not reach the service (the connection was refused)",
        "read": "lost the connection while waiting for the answer",
        "timeout": "timed out waiting for the answer (PROFNET_TIMEOUT)",
        "deadline": "timed out waiting for the answer: no whole answer within the call's "
        "deadline (PROFNET_DEADLINE), so it was not tried again",
    }[failure]
    if held_back and len(attempts) > 1:  # retried while the service said it charged nothing
        advice = (
            f" Tried {counted(len(attempts), 'time')}, then not again because the service may "
            "already have charged for it."
        )
    elif held_back:
        advice = " It was not retried because the service may already have charged for it."
    else:
        advice = f" Tried {counted(len(attempts), 'time')}."
    slow = " (or raise PROFNET_TIMEOUT for a slow service)" if failure == "timeout" else ""
    remedy = f"Check the network and PROFNET_BASE_URL{slow}, then try again."
    if ep.search_role == "create" and any(it.went_out for it in attempts):
        remedy += (
            " Trying again starts a new search, paid again: the one that may have started "
            "cannot be found without its request_id."
        )
    error = TransportError(
        f"{ep.name}: {what} at {masked_url(where)}.{advice} {remedy}",
        endpoint=ep.name,
        details="connect" if failure in NEVER_SENT else _DETAILS.get(failure, failure),
    )
    error.attempts = tuple(attempts)
    error.remedy = remedy
    return error


# An error's details name how it failed: a deadline passed is a timeout there (check and the
# front ends read "connect", "read", "timeout").
_DETAILS: dict[Failure, str] = {"deadline": "timeout"}


# -- one paid call -------------------------------------------------------------------------


class Books(Protocol):
    """The spend policy as a driver shares it between calls (`shared.Shared`): asked under
    its lock, the stops said when new. In memory: no I/O."""

    spend: SpendPolicy

    def count_reached(self, reached: bool) -> bool: ...
    def stop_unreachable(self) -> None: ...
    def count_lost(self, ep: Endpoint, attempt: Attempt) -> None: ...
    def count_answer(self, status: int, foreign: bool) -> None: ...
    def stop_runs(
        self, kind: RunStopKind, reason: str, said: ProfnetError | None = None
    ) -> None: ...
    def count_reading(self, understood: bool) -> None: ...
    def weigh_path(self, status: int, body: Any) -> bool: ...
    def count_path_proof(self, status: int | None, body: Any, doubted: int) -> str | None: ...


class Desk(Protocol):
    """What a client gives the sequence, in memory: the memo's answer, the gate of its run,
    the hand-out, the error of an answer, how long the cache policy keeps one."""

    def recalled(self, ep: Endpoint, key: CallKey) -> Any | None: ...
    def gate(self, ep: Endpoint) -> ProfnetError | None: ...
    def hand_out(self, ep: Endpoint, key: CallKey, sent: Sent) -> Any: ...
    def answer_error(
        self, ep: Endpoint, status: int, body: Any, headers: Any, out_of_credits: bool
    ) -> ProfnetError: ...
    def keep_for(self, ep: Endpoint, status: int, body: Any) -> float: ...


class CallPlan(NamedTuple):
    """One call as its driver hands it over: prepared, keyed, in a run, under modes."""

    ep: Endpoint
    key: CallKey
    payload: dict[str, Any]
    max_items: int | None
    readable: bool  # the caches may answer it
    offline: bool
    run: int | None
    where: str  # the service's base URL, for messages
    aside: int | None = None  # credits set aside (budget, cap) it draws on (a search's page)
    doubt_ok: bool = False  # a job start left in doubt may be sent again: the user was told
    also: tuple[CallKey, ...] = ()  # keys whose kept answers serve it too (the call as asked)


def paid_call(
    plan: CallPlan, books: Books, desk: Desk, retry: RetryPolicy, rng: random.Random
) -> Flow[Any]:
    """The sequence of one call the memo could not answer: its payload (or its error)."""
    ep, key = plan.ep, plan.key
    if plan.readable:
        found = yield from _held(plan, desk)
        if found is not None:
            return found.value
    if plan.offline:
        raise OfflineMiss(
            f"{ep.name}: offline, and this call is not in the cache "
            f"({canonical_json(plan.payload)[:200]}). Go online (offline=False, "
            "PROFNET_OFFLINE unset) to fetch it.",
            endpoint=ep.name,
        )
    refused = desk.gate(ep)
    if refused is not None:
        raise refused
    for _ in range(CLAIM_TRIES):
        shared = yield Claim(ep, key)
        if plan.readable and shared is not False:  # another process may have paid meanwhile
            found = yield from _held(plan, desk)
            if found is not None:
                return found.value
        call = in_doubt_key(plan)
        if call and not plan.doubt_ok:  # asked under the claim: no live run is starting it
            doubt = yield Doubt(ep, call)
            if doubt is not None:
                raise SearchError(
                    f"{doubt.said()} Nothing was sent. Quote it again to be told and asked "
                    "(in Python, client.with_options(refresh=True) starts it anew).",
                    code="in_doubt",
                    endpoint=ep.name,
                )
        ceiling = books.spend.ceiling(ep, plan.payload, plan.max_items)
        try:
            sent = yield from _bought(plan, books, desk, retry, rng, ceiling)
        except ClaimLost:
            continue  # nothing sent: claim again, and ask the store again under the claim
        return desk.hand_out(ep, key, sent)
    raise TransportError(
        f"{ep.name}: this call's claim lapsed {CLAIM_TRIES} times before its turn came (the "
        "machine is very busy, or the cache's Redis slow); nothing was sent, so that it is not "
        "paid twice. Try again, with fewer calls in flight.",
        endpoint=ep.name,
        details="claim",
    )


class Found(NamedTuple):
    """An answer the caches held, handed out."""

    value: Any


def _held(plan: CallPlan, desk: Desk) -> Flow[Found | None]:
    """The answer the memo or the store holds (handed out), or None: under the call's key,
    else under a key whose answer serves it too (`CallPlan.also`)."""
    keys = (plan.key, *plan.also)
    for key in keys:
        found = desk.recalled(plan.ep, key)
        if found is not None:
            return Found(found)
    for key in keys:
        sent: Sent | None = yield ReadStore(plan.ep, key)
        if sent is not None:
            return Found(desk.hand_out(plan.ep, key, sent))
    return None


def in_doubt_key(plan: CallPlan) -> str:
    """What the ledger knows a call by when it may be left in doubt (sent, no answer kept):
    its key when it starts a job (a search: a re-run would start, and pay for, another),
    else nothing (a lookup left in doubt is bought again as itself)."""
    return plan.key.digest if plan.ep.search_role == "create" else ""


def _bought(
    plan: CallPlan, books: Books, desk: Desk, retry: RetryPolicy, rng: random.Random, ceiling: int
) -> Flow[Sent]:
    """Decide (reserve its most), act (the attempts), settle (the spend policy, from what
    the attempts met), count the stops; keep what the cache policy says to keep."""
    ep, spend = plan.ep, books.spend
    call = in_doubt_key(plan)
    # The budget is this process's: reserved at once. The cap's hold, which other processes
    # see (and which a process killed leaves as possibly spent), is taken once the first
    # attempt's turn has come, not while the call waits for it.
    reservations = [(yield Reserve(ep, ceiling, under_cap=False, aside=plan.aside))]

    def on_turn(number: int) -> Flow[None]:
        refused = desk.gate(ep)  # a stop while this call waited for its turn holds for it too
        if refused is not None:
            raise _retry_refused(refused, ep, spend.settle(ep, attempts, ceiling).maybe)
        if number == 0:
            reservations.append((yield Hold(ep, ceiling, plan.aside, call)))

    told = 0  # the attempts told to the books so far

    def count_lost() -> None:
        """Tell the books what each attempt not told yet met (no answer read, or one)."""
        nonlocal told
        for attempt in attempts[told:]:
            books.count_lost(ep, attempt)
        told = len(attempts)

    def may_retry(attempt: Attempt) -> Flow[bool]:
        """Another attempt after `attempt`: allowed by the spend policy, and (after one that
        may have been charged) within the limits once its most is reserved again (a stop
        that came meanwhile refuses it at its turn)."""
        count_lost()
        if not spend.may_repeat(ep, attempt):
            return False
        if spend.maybe_charged(ep, attempt):
            try:
                reservations.append((yield Reserve(ep, ceiling, aside=plan.aside, call=call)))
            except BudgetExceeded:
                return False
        return True

    attempts: list[Attempt] = []  # what the attempts met, known whatever is raised
    charge: Charge | None = None
    try:
        try:
            sent = yield from attempts_of(
                ep,
                plan.payload,
                retry,
                rng,
                plan.where,
                books.count_reached,
                may_retry,
                attempts,
                on_turn,
            )
        except TransportError as error:
            charge = spend.settle(ep, attempts, ceiling)
            error.uncertain_attempts = charge.maybe_attempts
            if charge.maybe:  # said before the remedy: asking again may be charged again
                said = error.message.removesuffix(f" {error.remedy}")
                them = "it" if charge.maybe_attempts == 1 else "them"
                error.message = (
                    f"{said} {counted(charge.maybe_attempts, 'attempt')} went out with no "
                    f"answer: the service may have charged {counted(charge.maybe, 'credit')} "
                    f"for {them} (counted as possibly spent). {error.remedy}"
                ).rstrip()
                error.args = (error.message,)
            if error.details == "connect" and plan.run is not None:
                books.stop_unreachable()  # a call gave up, never reaching it
            raise
        books.count_answer(sent.status, is_foreign(sent.status, sent.body))
        if sent.out_of_credits:
            books.stop_runs(
                "credits",
                "the account has no credits left: top up, then run again (what was done "
                "is kept and will not be paid again)",
                desk.answer_error(ep, sent.status, sent.body, sent.headers, True),
            )
        elif sent.status == 401:
            books.stop_runs(  # every later call of the run would be refused too
                "key",
                "the service refused the API key",
                desk.answer_error(ep, sent.status, sent.body, sent.headers, False),
            )
        understood = missing(ep, sent.body) is None and not unfinished(ep, sent.body)
        charge = spend.settle(ep, attempts, ceiling, sent.body, understood)
        if sent.status == 200 and spend.price(ep).kind != "free":
            books.count_reading(understood)
        if books.weigh_path(sent.status, sent.body):
            proof = yield from _path_proof()
            heard = proof if isinstance(proof, Heard) else None
            books.count_path_proof(
                None if heard is None else heard.status,
                None if heard is None else heard.body,
                sent.status,
            )
        wrong = spend.wrong_path(sent.status, sent.body)  # proved so by this call, or another
        if wrong is not None:  # not the service: it charged nothing (a lost attempt may have)
            charge = Charge(maybe=charge.maybe, maybe_attempts=charge.maybe_attempts)
            raise spend.path_error(ep, wrong, charge)
    finally:
        # Anything else raised (a redirect refused, Ctrl-C during an attempt): what the
        # attempts met so far, an attempt under way as one that may have been charged.
        count_lost()
        settled = charge or spend.settle(ep, attempts, ceiling)
        yield Settle(ep, settled, tuple(reservations), plan.aside, call)
    seconds = desk.keep_for(ep, sent.status, sent.body)
    if seconds > 0 and sent.response is not None:
        yield Save(ep, plan.key, sent.response, seconds)
    return sent


# The free call that proves a base URL's path: the status of a search no service handed out,
# asked without the key (the service asks for its key first). `check` asks it both ways.
PATH_PROBE = search_endpoint("leads", "status")  # free, whatever the profile says
UNKNOWN_SEARCH = "profnet-sheets-setup-check"  # a request id no service has handed out


def _path_proof() -> Flow[Heard | Failure | None]:
    """Ask PATH_PROBE without the key, its turn taken: its answer (None: not sent)."""
    try:
        ticket = yield Turn(PATH_PROBE)
    except NeverSent:
        return None
    answer: Heard | Failure = yield Request(
        PATH_PROBE, {"request_id": UNKNOWN_SEARCH}, ticket, keyless=True
    )
    return answer


def _retry_refused(error: ProfnetError, ep: Endpoint, maybe: int) -> ProfnetError:
    """`error`, refusing an attempt after attempts that may have been charged (`maybe`
    credits, counted as possibly spent), said so: the call itself went out."""
    if not maybe:
        return error
    said = error.message.replace(f"{ep.name}: not sent", f"{ep.name}: its retry not sent", 1)
    error.message = (
        f"{said} An attempt before it went out with no sure answer: it may have been charged "
        f"({counted(maybe, 'credit')}, counted as possibly spent)."
    )
    error.args = (error.message,)
    if isinstance(error, StoppedBuying):
        error.possibly_charged, error.sent = maybe, True
    return error


# -- driving a flow ------------------------------------------------------------------------


def _step(flow: Flow[T], fact: Any, error: BaseException | None) -> tuple[bool, Any]:
    """The flow's next action after `fact` (or `error` thrown in): (False, action), or
    (True, its result) when it has ended."""
    try:
        return False, (flow.send(fact) if error is None else flow.throw(error))
    except StopIteration as done:
        return True, done.value


def drive(flow: Flow[T], do: Callable[[Action], Any]) -> T:
    """Run `flow` to its end with blocking actions: `do(action)` is its fact; what `do`
    raises is thrown into the flow (which settles, then raises it or decides otherwise)."""
    fact: Any = None
    error: BaseException | None = None
    while True:
        ended, action = _step(flow, fact, error)
        if ended:
            return action  # type: ignore[no-any-return]
        fact, error = None, None
        try:
            fact = do(action)
        except BaseException as failure:  # Ctrl-C too: thrown in, to settle
            error = failure


async def drive_async(flow: Flow[T], do: Callable[[Action], Awaitable[Any]]) -> T:
    """`drive`, with actions awaited (asyncio: no thread, no blocking call)."""
    fact: Any = None
    error: BaseException | None = None
    while True:
        ended, action = _step(flow, fact, error)
        if ended:
            return action  # type: ignore[no-any-return]
        fact, error = None, None
        try:
            fact = await do(action)
        except BaseException as failure:  # cancelled too: thrown in, to settle
            error = failure


def parse_json(text: str) -> Any:
    """A body's JSON, a leading byte order mark allowed (as requests' `Response.json` allows
    it); ValueError when it is not JSON."""
    return json.loads(text.removeprefix("\ufeff"))


def json_or_none(text: str) -> Any:
    try:
        return parse_json(text)
    except ValueError:
        return None
