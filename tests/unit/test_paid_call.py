"""The sequence of one paid call (client/call.py) driven by hand: no socket, no thread, no
clock; the facts given, the actions it asks for checked in order."""

from __future__ import annotations

import ast
import json
import random
from pathlib import Path
from typing import Any

import pytest

import profnet_sheets
from profnet_sheets.client.call import (
    CLAIM_TRIES,
    PATH_PROBE,
    UNKNOWN_SEARCH,
    Action,
    CallPlan,
    Claim,
    ClaimLost,
    Flow,
    GiveBack,
    Heard,
    Hold,
    ReadStore,
    Request,
    Reserve,
    Save,
    Sent,
    Settle,
    Turn,
    Wait,
    heard,
    paid_call,
)
from profnet_sheets.client.keys import CallKey, call_key
from profnet_sheets.client.pace import Stopped
from profnet_sheets.client.policy import RetryPolicy
from profnet_sheets.client.spend import Attempt, Charge, NeverSent, RunStopKind, SpendPolicy
from profnet_sheets.errors import (
    BudgetExceeded,
    OfflineMiss,
    ProfnetError,
    StoppedBuying,
    TransportError,
)
from profnet_sheets.spec import Endpoint, PriceTable, endpoint

DETAILS, POSTS = endpoint("get-company-details"), endpoint("search-posts")
COMPANY = {"data": {"name": "Acme", "domain": "acme.io"}}


class Books:
    """The spend policy with no lock (one thread) and the stops it was told."""

    def __init__(self) -> None:
        self.spend = SpendPolicy(PriceTable(), "the service")
        self.told: list[str] = []

    def count_reached(self, reached: bool) -> bool:
        return self.spend.reached(reached)

    def stop_unreachable(self) -> None:
        self.told.append("unreachable")

    def count_lost(self, ep: Endpoint, attempt: Attempt) -> None:
        if self.spend.lost(ep, attempt) is not None:
            self.told.append("unreachable")

    def count_answer(self, status: int, foreign: bool) -> None:
        self.spend.answered(status, foreign)

    def stop_runs(self, kind: RunStopKind, reason: str, said: ProfnetError | None = None) -> None:
        self.told.append(kind)

    def count_reading(self, understood: bool) -> None:
        self.spend.read(understood)

    def weigh_path(self, status: int, body: Any) -> bool:
        return self.spend.weigh_path(status, body)

    def count_path_proof(self, status: int | None, body: Any, doubted: int) -> str | None:
        wrong = self.spend.path_told(status, body, doubted)
        if wrong is not None:
            self.told.append("wrong path")
        return wrong


class Desk:
    """A client's memory with nothing in it; answers handed out as their bodies."""

    def recalled(self, ep: Endpoint, key: CallKey) -> Any | None:
        return None

    def gate(self, ep: Endpoint) -> ProfnetError | None:
        return None

    def hand_out(self, ep: Endpoint, key: CallKey, sent: Sent) -> Any:
        return sent.body

    def answer_error(
        self, ep: Endpoint, status: int, body: Any, headers: Any, out_of_credits: bool
    ) -> ProfnetError:
        return ProfnetError(f"HTTP {status}")

    def keep_for(self, ep: Endpoint, status: int, body: Any) -> float:
        return 3600.0 if status == 200 else 0.0


def plan(ep: Endpoint, *, offline: bool = False) -> CallPlan:
    payload = {"domain": "acme.io"} if ep is DETAILS else {"keyword": "x"}
    key = call_key("svc", "fp", ep, payload)
    return CallPlan(ep, key, payload, None, True, offline, 1, "http://service.io")


def ok(body: Any = COMPANY) -> Heard:
    return heard(200, {}, json.dumps(body), "", response="the response")


def run(
    ep: Endpoint,
    facts: dict[type, list[Any]],
    desk: Desk | None = None,
    books: Books | None = None,
    **planned: Any,
) -> tuple[list[Action], Any]:
    """Drive the sequence, each action's fact taken in turn from `facts` by its kind (an
    exception is thrown in); the actions asked for, and the payload or the error raised."""
    books, asked = books or Books(), list[Action]()
    flow = paid_call(plan(ep, **planned), books, desk or Desk(), RetryPolicy(), random.Random(0))
    fact: Any = None
    try:
        while True:
            action = flow.throw(fact) if isinstance(fact, BaseException) else flow.send(fact)
            asked.append(action)
            queue = facts.get(type(action))
            fact = queue.pop(0) if queue else None
    except StopIteration as done:
        return asked, done.value
    except ProfnetError as error:
        return asked, error


def kinds(actions: list[Action]) -> list[str]:
    return [type(it).__name__ for it in actions]


def test_a_cheap_get_cut_once_is_reserved_again_tried_again_settled_and_saved() -> None:
    facts = {Reserve: ["r1", "r2"], Hold: ["h1"], Request: ["read", ok()]}
    asked, answer = run(DETAILS, facts)
    assert answer == COMPANY
    assert kinds(asked) == [
        "ReadStore", "Claim", "ReadStore", "Reserve", "Turn", "Hold", "Request", "Reserve",
        "Wait", "Turn", "Request", "Settle", "Save",
    ]  # fmt: skip
    first = next(it for it in asked if isinstance(it, Reserve))
    assert not first.under_cap, "the cap's hold waits for the turn; a retry's does not"
    settle = next(it for it in asked if isinstance(it, Settle))
    assert settle.charge == Charge(1, 1, None, 1)
    assert settle.reservations == ("r1", "h1", "r2")
    save = asked[-1]
    assert isinstance(save, Save)
    assert save.response == "the response"


def test_a_dear_call_cut_is_settled_as_maybe_and_not_repeated() -> None:
    asked, error = run(POSTS, {Reserve: ["r1"], Request: ["read"]})
    assert isinstance(error, TransportError)
    assert error.uncertain_attempts == 1
    assert kinds(asked)[-2:] == ["Request", "Settle"]
    settle = asked[-1]
    assert isinstance(settle, Settle)
    assert settle.charge == Charge(0, 5, None, 1)


def test_a_search_started_without_an_answer_says_trying_again_pays_again() -> None:
    """A new user's review: a search whose start timed out was charged 25, and the advice
    (`then try again`) paid 25 again without saying so."""
    _, error = run(endpoint("search-leads"), {Reserve: ["r1"], Request: ["timeout"]})
    assert isinstance(error, TransportError)
    assert str(error).endswith(
        "then try again. Trying again starts a new search, paid again: the one that may have "
        "started cannot be found without its request_id."
    )


def test_a_refused_reservation_sends_nothing_and_settles_nothing() -> None:
    refused = BudgetExceeded("no", needed=1, left=0)
    asked, error = run(DETAILS, {Reserve: [refused]})
    assert error is refused
    assert not any(isinstance(it, Turn | Request | Settle) for it in asked)


def test_the_caps_hold_is_taken_at_the_turn_and_a_refusal_gives_the_turn_back() -> None:
    """Calls waiting for the pace hold nothing other processes see (a killed process left
    twice as many holds as calls sent); the cap refusing at the turn sends nothing."""
    refused = BudgetExceeded("the cap", needed=1, left=0)
    asked, error = run(DETAILS, {Reserve: ["r1"], Turn: ["t1"], Hold: [refused]})
    assert error is refused
    assert kinds(asked)[3:] == ["Reserve", "Turn", "Hold", "GiveBack", "Settle"]
    given_back, settle = asked[-2], asked[-1]
    assert isinstance(given_back, GiveBack)
    assert given_back.ticket == "t1"
    assert isinstance(settle, Settle)
    assert settle.charge == Charge(0, 0, None, 0)
    assert settle.reservations == ("r1",), "the budget's reservation given back"


NOT_FOUND = {"message": "not_found", "details": "No such thing."}


def not_found() -> Heard:
    return heard(404, {}, json.dumps(NOT_FOUND), "", response="the 404")


def test_a_404_before_the_path_is_proven_asks_the_free_status_without_the_key() -> None:
    """A review: a base URL with a wrong path, at a gateway answering every call 404
    `not_found`, read as "not found" on every row, cached, exit 0. The first such 404 asks
    the free status of an unknown search without the key: the service asks for its key
    (401), the path is proven and never asked about again."""
    books = Books()
    asked, answer = run(
        DETAILS, {Request: [not_found(), heard(401, {}, "{}", "", None)]}, None, books
    )
    assert answer == NOT_FOUND, "a row not found, as the service said"
    requests = [it for it in asked if isinstance(it, Request)]
    assert [(it.endpoint, it.keyless) for it in requests] == [(DETAILS, False), (PATH_PROBE, True)]
    assert requests[1].payload == {"request_id": UNKNOWN_SEARCH}
    assert kinds(asked)[-4:] == ["Request", "Turn", "Request", "Settle"]
    asked, _ = run(DETAILS, {Request: [not_found()]}, None, books)
    assert sum(isinstance(it, Request) for it in asked) == 1, "proven once for good"


def test_a_404_the_path_answers_without_the_key_too_stops_buying_and_is_not_kept() -> None:
    books = Books()
    asked, error = run(DETAILS, {Request: [not_found(), not_found()]}, None, books)
    assert isinstance(error, StoppedBuying)
    assert "answered HTTP 404 not_found with the API key and without it" in str(error)
    assert "check the base URL (PROFNET_BASE_URL) and its path" in str(error)
    assert "Its answer was not kept; nothing was charged for it. Fix the base URL" in str(error)
    assert books.told == ["wrong path"]
    assert kinds(asked)[-1] == "Settle", "settled, never saved"
    settle = asked[-1]
    assert isinstance(settle, Settle)
    assert settle.charge.total == 0


def test_a_404_that_stops_after_an_attempt_lost_says_it_may_have_been_charged() -> None:
    """A review: `nothing was charged` after an attempt cut before the 404, settled as
    possibly spent."""
    facts = {Reserve: ["r1", "r2"], Hold: ["h1"], Request: ["read", not_found(), not_found()]}
    asked, error = run(DETAILS, facts)
    settle = [it for it in asked if isinstance(it, Settle)][-1]
    assert settle.charge.maybe == 1
    assert isinstance(error, StoppedBuying)
    assert (
        "Its answer was not kept; an attempt before it went out with no answer: it may have been "
        "charged (1 credit, counted as possibly spent). Fix the base URL and run again."
    ) in str(error)


@pytest.mark.parametrize("keyless", [401, 200], ids=["the service", "a gateway"])
def test_a_200_with_no_data_before_the_path_is_proven_asks_the_proof_too(keyless: int) -> None:
    """A new user's review: a gateway at a wrong path answering every call 200 `{"data":
    null}` was read as "not found", 60 credits counted spent, exit 0."""
    empty = {"status": "ok", "data": None}
    facts = {Request: [ok(empty), heard(keyless, {}, json.dumps(empty), "", None)]}
    asked, answer = run(DETAILS, facts)
    settle = [it for it in asked if isinstance(it, Settle)][-1]
    if keyless == 401:
        assert answer == empty, "the service found no one"
        return
    assert isinstance(answer, StoppedBuying)
    assert "answered HTTP 200 with no data with the API key and without it" in str(answer)
    assert settle.charge.total == 0, "not the service: nothing charged"
    assert not any(isinstance(it, Save) for it in asked)


def test_a_web_servers_page_to_the_proof_proves_nothing() -> None:
    """A review: an HTML 404 to the keyless proof proved the path, and the wrong path's
    `not_found` answers were then kept as "not found"."""
    spend = Books().spend
    assert spend.weigh_path(404, NOT_FOUND)
    assert spend.path_told(404, "<html>404 Not Found</html>", 404) is None
    assert spend.weigh_path(404, NOT_FOUND), "still unproven: asked again"


def test_a_lookup_answered_with_no_data_from_the_cache_is_not_found_too() -> None:
    """A review: after Ctrl-C or a stop, values the cache answered with no data read `null`
    or not done."""
    from profnet_sheets.batch.each import LookedUp

    looked = LookedUp()
    looked.answered("b.io", None)
    assert "b.io" not in looked.answers
    assert str(looked.failures["b.io"]).startswith("not found")


def test_a_path_proven_wrong_stays_so_whatever_a_later_proof_says() -> None:
    """A review: a concurrent proof answered 401 after one answered 404 turned the path back
    to proven, and the 404s of calls in flight were then kept as "not found"."""
    spend = Books().spend
    assert spend.path_told(404, NOT_FOUND, 404) is not None
    assert spend.path_told(401, {"message": "unauthorized"}, 404) is None
    assert spend.wrong_path(404, NOT_FOUND) is not None


def test_a_proof_that_meets_no_answer_judges_nothing_and_is_asked_again_a_few_times() -> None:
    books = Books()
    for _ in range(3):
        asked, answer = run(DETAILS, {Request: [not_found(), "read"]}, None, books)
        assert answer == NOT_FOUND
    asked, answer = run(DETAILS, {Request: [not_found()]}, None, books)
    assert sum(isinstance(it, Request) for it in asked) == 1, "asked 3 times, then left"
    assert books.told == []


def test_a_200_proves_the_path() -> None:
    books = Books()
    run(DETAILS, {Request: [ok()]}, None, books)
    asked, answer = run(DETAILS, {Request: [not_found()]}, None, books)
    assert (answer, sum(isinstance(it, Request) for it in asked)) == (NOT_FOUND, 1)


def test_a_stored_answer_is_handed_out_with_nothing_reserved() -> None:
    stored = Sent(200, json.dumps(COMPANY), COMPANY, {}, True)
    asked, answer = run(DETAILS, {ReadStore: [stored]})
    assert (kinds(asked), answer) == (["ReadStore"], COMPANY)


def test_a_widened_call_is_served_by_an_answer_kept_under_the_call_as_asked() -> None:
    """A profile is sent with skills and certifications at the same price (decision 596);
    an answer an earlier version kept under the call as asked still serves it, handed out
    under its own key (never as the wider answer's), and nothing is bought."""
    ep = endpoint("get-profile-details")
    asked_payload = {"profnet_url": "https://www.profnet.com/in/anna/", "include_skills": "false"}
    wide_payload = {**asked_payload, "include_skills": "true", "include_certifications": "true"}
    asked, wide = call_key("svc", "fp", ep, asked_payload), call_key("svc", "fp", ep, wide_payload)
    handed: list[CallKey] = []

    class Handing(Desk):
        def hand_out(self, ep: Endpoint, key: CallKey, sent: Sent) -> Any:
            handed.append(key)
            return sent.body

    stored = Sent(200, json.dumps({"data": {"full_name": "Anna"}}), {"data": {}}, {}, True)
    planned = CallPlan(ep, wide, wide_payload, None, True, False, 1, "http://x", also=(asked,))
    flow = paid_call(planned, Books(), Handing(), RetryPolicy(), random.Random(0))
    reads = [flow.send(None)]
    reads.append(flow.send(None))  # nothing under the wide key
    with pytest.raises(StopIteration):
        flow.send(stored)
    assert [read.key for read in reads if isinstance(read, ReadStore)] == [wide, asked]
    assert handed == [asked]


def test_offline_and_not_stored_asks_nothing_more() -> None:
    asked, error = run(DETAILS, {}, offline=True)
    assert isinstance(error, OfflineMiss)
    assert kinds(asked) == ["ReadStore"]


def flow_at_request() -> Flow[Any]:
    """A paid call's flow stepped to its attempt: read, claim, read again, reserve, request."""
    flow = paid_call(plan(DETAILS), Books(), Desk(), RetryPolicy(), random.Random(0))
    assert isinstance(flow.send(None), ReadStore)
    assert isinstance(flow.send(None), Claim)
    assert isinstance(flow.send(None), ReadStore)
    assert isinstance(flow.send(None), Reserve)
    assert isinstance(flow.send("r1"), Turn)
    assert isinstance(flow.send("t1"), Hold)
    assert isinstance(flow.send("h1"), Request)
    return flow


def flow_at_turn() -> Flow[Any]:
    """A paid call's flow stepped to waiting for its turn."""
    flow = paid_call(plan(DETAILS), Books(), Desk(), RetryPolicy(), random.Random(0))
    for expected, fact in ((ReadStore, None), (Claim, None), (ReadStore, None), (Reserve, None)):
        assert isinstance(flow.send(fact), expected)
    assert isinstance(flow.send("r1"), Turn)
    return flow


def test_ctrl_c_during_an_attempt_settles_it_as_maybe_then_goes_on() -> None:
    flow = flow_at_request()
    settle = flow.throw(KeyboardInterrupt())
    assert isinstance(settle, Settle)
    assert settle.charge.maybe == 1
    with pytest.raises(KeyboardInterrupt):
        flow.send(None)


def test_a_call_stopped_while_it_waits_for_its_turn_settles_as_nothing() -> None:
    """A run stopped (Cancel) while a call waited for the pace: it never left, so nothing
    may have been charged (before: counted as one maybe credit the service never saw)."""
    assert issubclass(Stopped, NeverSent)
    flow = flow_at_turn()
    settle = flow.throw(Stopped("stopped while waiting for the service's pace"))
    assert isinstance(settle, Settle)
    assert (settle.charge.sure, settle.charge.maybe) == (0, 0)
    with pytest.raises(Stopped):
        flow.send(None)


class StopsAfterTheFirstTurn(Desk):
    """Buying stops once the call's first attempt has gone out (`at_first_turn`: at once)."""

    def __init__(self, at_first_turn: bool = False) -> None:
        self.asked = 1 if at_first_turn else 0

    def gate(self, ep: Endpoint) -> ProfnetError | None:
        self.asked += 1
        if self.asked < 3:  # before the claim, at the first turn
            return None
        return SpendPolicy(PriceTable(), "the service").stopped_error(ep, "the cache failed")


def test_a_retry_refused_by_a_stop_says_the_attempt_before_it_may_have_been_charged() -> None:
    """The stop refuses the retry of a cut attempt: not "not sent" for the call, whose first
    attempt went out (counted as possibly spent)."""
    facts = {Reserve: ["r1", "r2"], Hold: ["h1"], Request: ["read"]}
    asked, error = run(DETAILS, facts, StopsAfterTheFirstTurn())
    assert isinstance(error, ProfnetError)
    assert str(error).startswith("get-company-details: its retry not sent: ")
    assert "may have been charged (1 credit, counted as possibly spent)" in str(error)
    settle = next(it for it in asked if isinstance(it, Settle))
    assert settle.charge.maybe == 1


def test_a_first_attempt_refused_by_a_stop_says_not_sent() -> None:
    asked, error = run(DETAILS, {Reserve: ["r1"]}, StopsAfterTheFirstTurn(at_first_turn=True))
    assert str(error).startswith("get-company-details: not sent: ")
    assert "may have been charged" not in str(error)
    assert "Request" not in kinds(asked)


def test_a_claim_lost_before_the_turn_sends_nothing_and_claims_again() -> None:
    lost = ClaimLost("lapsed")
    asked, answer = run(DETAILS, {Reserve: ["r1", "r2"], Turn: [lost, "t2"], Request: [ok()]})
    assert answer == COMPANY
    assert kinds(asked) == [
        "ReadStore", "Claim", "ReadStore", "Reserve", "Turn", "Settle",
        "Claim", "ReadStore", "Reserve", "Turn", "Hold", "Request", "Settle", "Save",
    ]  # fmt: skip
    settles = [it for it in asked if isinstance(it, Settle)]
    assert settles[0].charge == Charge(0, 0, None, 0)  # the lost turn cost nothing
    assert settles[1].charge == Charge(1, 0, None, 0)


def test_after_a_claim_lost_an_answer_another_process_saved_is_taken() -> None:
    stored = Sent(200, json.dumps(COMPANY), COMPANY, {}, True, ())
    asked, answer = run(DETAILS, {ReadStore: [None, None, stored], Turn: [ClaimLost("lapsed")]})
    assert answer == COMPANY
    assert kinds(asked)[-2:] == ["Claim", "ReadStore"]
    assert kinds(asked).count("Turn") == 1
    assert "Request" not in kinds(asked)


def test_claims_lost_again_and_again_give_up_having_sent_nothing() -> None:
    asked, error = run(DETAILS, {Turn: [ClaimLost("lapsed")] * CLAIM_TRIES})
    assert isinstance(error, TransportError)
    assert "nothing was sent" in str(error)
    assert kinds(asked).count("Claim") == CLAIM_TRIES
    assert all(it.charge == Charge(0, 0, None, 0) for it in asked if isinstance(it, Settle))


def test_the_call_module_imports_no_io_no_thread_no_clock() -> None:
    source = Path(profnet_sheets.__file__).parent / "client" / "call.py"
    tree = ast.parse(source.read_text())
    imported = {
        (node.module or "") if isinstance(node, ast.ImportFrom) else alias.name
        for node in tree.body  # module level: what importing it loads
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    io = {"requests", "sqlite3", "socket", "threading", "time", "asyncio", "os", "pathlib"}
    assert not {name.split(".")[0] for name in imported} & io
    assert "profnet_sheets.client.pace" not in imported, "its Outcome only for types"
    assert Wait(1.0).seconds == 1.0


def test_a_call_retried_then_held_back_says_how_many_times_it_went_out() -> None:
    """Helper 92: three timeouts (the first two retried: a one-credit lookup) ended with `It
    was not retried`, beside `3 attempts went out`."""
    from profnet_sheets.client.call import transport_error

    ep = endpoint("get-company-details")
    gone = [Attempt(went_out=True)] * 3
    said = str(transport_error(ep, "timeout", gone, True, "http://127.0.0.1:1"))
    assert "Tried 3 times, then not again because the service may already have charged" in said
    assert "not retried" not in said
    once = str(transport_error(ep, "timeout", gone[:1], True, "http://127.0.0.1:1"))
    assert "It was not retried because the service may already have charged for it." in once


def test_a_profile_asked_plain_is_served_by_what_was_kept_asking_more() -> None:
    """Helper 97: an earlier version's answer to `--skills` (kept under that call's key) did
    not serve a plain ask after the upgrade (1 credit more): every spelling that asks at
    least as much serves it, the call as asked first."""
    from profnet_sheets.client.prepare import served_by

    ep = endpoint("get-profile-details")
    plain = {"profnet_url": "u", "include_skills": "false", "include_certifications": "false"}
    served = served_by(ep, plain)
    assert served[0] == plain
    assert {"profnet_url": "u", "include_skills": "true", "include_certifications": "false"} in (
        served
    )
    assert all(it.get("include_skills") != "true" or it.get("include_certifications") != "true"
               for it in served), "the widest call is the call's own key, not another"  # fmt: skip
    assert served_by(ep, {"profnet_url": "u", "include_skills": "true"}) == [
        {"profnet_url": "u", "include_skills": "true"}
    ]
    assert served_by(DETAILS, {"domain": "acme.io"}) == [{"domain": "acme.io"}]
