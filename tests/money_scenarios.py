"""The money guarantees as a table of scenarios: what the service does to each attempt of each
call, and what must be counted. Run against the spend policy driven with no thread and a fake
clock (tests/unit/test_spend_policy.py) and against the threaded client over loopback
(tests/integration/test_spend_scenarios.py): the same decisions whatever drives them."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

# What the service does to one attempt: `ok` answers well (for the lead results: 7 results),
# `garbled` answers 200 with a body no version reads, `cut` reads the request and closes the
# connection without an answer, `rate` is a 429 about speed (Retry-After 1), `quota` a 429 of
# a month's quota used up; `undecodable` a 200 whose gzip body is not gzip; `short` a 200 whose
# connection closes before its body's length; `bom` answers well,
# its JSON led by a UTF-8 byte order mark; a number answers
# that status with an error body (a 302 is a redirect, never followed).
Answer = str | int
# A step of a scenario between calls: the clock moves on a day (a daily cap renews).
A_DAY_LATER = "a day later"

DAY = 86_400.0
START = 1_790_000_000.0  # when the scenarios start: a fixed moment, in the middle of a UTC day


@dataclass(frozen=True)
class Scenario:
    name: str
    endpoint: str
    calls: tuple[tuple[Answer, ...] | str, ...]  # each call's attempts, or A_DAY_LATER
    sure: int  # credits charged for sure
    maybe: int  # credits that may have been charged
    sent: int  # attempts that reached the service
    errors: tuple[str | None, ...]  # each call's error class, None: answered
    budget: int | None = None
    cap: str | None = None  # PROFNET_SPENDING_CAP, `3/day`
    notes: dict[str, Any] = field(default_factory=dict)


SCENARIOS = (
    Scenario("answered", "get-company-details", (("ok",),), 1, 0, 1, (None,)),
    Scenario(
        "a cheap GET cut once is tried again; the cut one counts maybe",
        "get-company-details",
        (("cut", "ok"),),
        1,
        1,
        2,
        (None,),
    ),
    Scenario(
        "a cheap GET whose answer is cut short is tried again; the cut one counts maybe",
        "get-company-details",
        (("short", "ok"),),
        1,
        1,
        2,
        (None,),
    ),
    Scenario(
        "a dear call cut is not repeated: its price counts maybe",
        "search-posts",
        (("cut",),),
        0,
        5,
        1,
        ("TransportError",),
    ),
    Scenario(
        "a 500 on a dear call is not repeated",
        "search-posts",
        ((500,),),
        0,
        5,
        1,
        ("ServiceError",),
    ),
    Scenario(
        "a 503 is retried and costs nothing",
        "search-posts",
        ((503, "ok"),),
        5,
        0,
        2,
        (None,),
    ),
    Scenario(
        "each 502 of a cheap call counts maybe",
        "get-company-details",
        ((502, 502, "ok"),),
        1,
        2,
        3,
        (None,),
    ),
    Scenario(
        "a paid answer nobody reads counts maybe",
        "get-company-details",
        (("garbled",),),
        0,
        1,
        1,
        ("ServiceError",),
    ),
    Scenario(
        "a paid answer led by a byte order mark is read, as requests reads it",
        "get-company-details",
        (("bom",),),
        1,
        0,
        1,
        (None,),
    ),
    Scenario(
        "a 402 is not charged, nor repeated",
        "get-company-details",
        ((402,),),
        0,
        0,
        1,
        ("InsufficientCredits",),
    ),
    Scenario(
        "a month's quota used up is out of credits, not repeated",
        "get-company-details",
        (("quota",),),
        0,
        0,
        1,
        ("InsufficientCredits",),
    ),
    Scenario(
        "a 429 about speed is waited out",
        "get-company-details",
        (("rate", "ok"),),
        1,
        0,
        2,
        (None,),
    ),
    Scenario(
        "a per-item page is charged for its items",
        "get-lead-results",
        (("ok",),),
        7,
        0,
        1,
        (None,),
    ),
    Scenario(
        "a budget that cannot cover a repeat after a cut ends the call there",
        "get-company-details",
        (("cut", "ok"),),
        0,
        1,
        1,
        ("TransportError",),
        budget=1,
    ),
    Scenario(
        "a budget refuses what may pass it before anything is sent",
        "search-posts",
        (("ok",),),
        0,
        0,
        0,
        ("BudgetExceeded",),
        budget=4,
    ),
    Scenario(
        "a cap refuses the calls past it, maybe spend included",
        "get-company-details",
        (("ok",), ("cut", "ok"), ("ok",), ("ok",)),
        2,
        1,
        3,
        (None, None, "BudgetExceeded", "BudgetExceeded"),
        cap="3/day",
    ),
    Scenario(
        "a redirect after a 500 keeps the 500 as maybe",
        "get-company-details",
        ((500, 302),),
        0,
        1,
        2,
        ("ServiceError",),
    ),
    Scenario(
        "a paid 200 whose body cannot be decoded counts maybe, and a cheap GET is asked again",
        "get-company-details",
        (("undecodable", "ok"),),
        1,
        1,
        2,
        (None,),
    ),
    Scenario(
        "a daily cap renews the next day",
        "get-company-details",
        (("ok",), ("ok",), ("ok",), A_DAY_LATER, ("ok",)),
        3,
        0,
        3,
        (None, None, "BudgetExceeded", None),
        cap="2/day",
    ),
)


def calls_of(
    scenario: Scenario, sleep: Callable[[float], None]
) -> Iterator[tuple[int, tuple[Answer, ...]]]:
    """Each call of a scenario: its number and what the service does to its attempts; the
    clock moved on (`sleep`) where the scenario says a day passes."""
    for number, step in enumerate(scenario.calls):
        if step == A_DAY_LATER:
            sleep(DAY)
            continue
        assert not isinstance(step, str)
        yield number, step


def heard(answer: Answer) -> bool:
    """Whether the transport hears an answer to this attempt (False: it went out, no answer
    can be read: cut, or a body that cannot be decoded)."""
    return answer not in ("cut", "short", "undecodable")


def params_of(endpoint: str, number: int) -> dict[str, Any]:
    """The parameters of a scenario's call `number` (each call a different one: none cached)."""
    if endpoint == "get-company-details":
        return {"domain": f"company{number}.io"}
    if endpoint == "search-posts":
        return {"keyword": f"topic {number}"}
    if endpoint == "get-lead-results":
        return {"request_id": f"job{number}", "page": 1}
    raise ValueError(endpoint)


def answer_of(endpoint: str, answer: Answer) -> tuple[int, Any, dict[str, str]] | None:
    """What the service answers to an attempt: status, body, headers (None: the connection is
    closed with no answer)."""
    if answer == "cut":
        return None
    if answer == "undecodable":
        return 200, "this is not gzip", {"Content-Encoding": "gzip"}
    if answer == "short":  # the connection closed 10 bytes into a 1,024-byte body
        return 200, '{"data": {', {"Content-Length": "1024"}
    if answer == "garbled":
        return 200, {"unexpected": True}, {}
    if answer == "bom":
        status, body, headers = answer_of(endpoint, "ok") or (200, None, {})
        return status, "\ufeff" + json.dumps(body), headers
    if answer == "rate":
        return 429, {"message": "rate_limited"}, {"Retry-After": "1"}
    if answer == "quota":
        details = "You have exceeded your monthly quota"
        return 429, {"message": "Too many requests", "details": details}, {}
    if isinstance(answer, int):
        return answer, {"message": "error", "details": f"HTTP {answer}"}, {}
    if endpoint == "get-lead-results":
        results = [{"profnet_url": f"https://www.profnet.io/in/p{i}"} for i in range(7)]
        page = {"request_id": "j", "page": 1, "total_pages": 1, "total_results": 7}
        return 200, {**page, "results": results}, {}
    if endpoint == "search-posts":
        return 200, {"data": {"posts": [], "paging": {}}}, {}
    return 200, {"data": {"name": "Acme", "domain": "acme.io"}}, {}


def assert_settled(scenario: Scenario, client: Any, sent: int, errors: list[str | None]) -> None:
    """What a driver's client ended with after `scenario` (`sent`: the attempts the service
    heard, `errors`: each call's error name or None): the scenario's own figures, nothing
    left reserved. Closes the client."""
    sure, maybe = client.spent(), client.spent(uncertain=True)
    client.close()
    assert (sure, maybe, sent) == (scenario.sure, scenario.maybe, scenario.sent)
    assert tuple(errors) == scenario.errors
    assert client.budget.reserved == 0, "every reservation settled"
