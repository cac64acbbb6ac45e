"""Values looked up one after another (the `lookup` command): each answer, each failure, what
stopped them; under Ctrl-C the call under way finishes and is kept (no polars)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from profnet_sheets.batch.marks import error_text, is_not_done
from profnet_sheets.client.finishing import result_of
from profnet_sheets.errors import (
    BudgetExceeded,
    ConfigurationError,
    InsufficientCredits,
    NotFound,
    ProfnetError,
    StoppedBuying,
    Unauthorized,
)

if TYPE_CHECKING:
    from profnet_sheets.client.client import Client

# The stops after which a run sends nothing more (its later calls raise them again, the
# caches still answering): the values after one are still asked, for what is cached.
SENDS_NOTHING_MORE = (BudgetExceeded, InsufficientCredits, StoppedBuying, Unauthorized)


def ends_the_lookup(error: ProfnetError) -> bool:
    """Whether `error` ends a lookup of several values (a limit, a stop, the key refused, the
    service not reached), rather than one value's own failure (not found, invalid, a service
    error), after which the others are still looked up, as enrich's rows are."""
    return isinstance(error, (Unauthorized, ConfigurationError)) or is_not_done(error_text(error))


@dataclass
class LookedUp:
    """What the values met: answers and failures by value, the stop (the value it came at,
    the error), and whether Ctrl-C (SIGTERM, SIGHUP) ended the lookup: not when the credits
    ran out, before it or in the call under way as it came (running again needs a top-up:
    that is what is said, as enrich says it)."""

    answers: dict[str, Any] = field(default_factory=dict)
    failures: dict[str, ProfnetError] = field(default_factory=dict)
    stop: tuple[str, ProfnetError] | None = None
    interrupted: bool = False
    # Whether an answer found nothing (enrich's rule for its kind: `Kind.record` gives None).
    found_nothing: Callable[[Any], bool] = lambda answer: answer is None

    def take(self, value: str, call: Future[Any]) -> None:
        """The outcome of `value`'s call, once it has one."""
        try:
            answer = result_of(call)
        except ProfnetError as error:
            if self.stop is not None:
                return  # after the stop, only the caches answer: nothing is sent
            self.failures[value] = error
            if ends_the_lookup(error):
                self.stop = value, error
        else:
            self.answered(value, answer)

    def answered(self, value: str, answer: Any) -> None:
        """`value`'s answer; one that found nothing (no data, no place) is marked as enrich
        marks it."""
        if self.found_nothing(answer):
            self.failures[value] = NotFound("not found: the service's answer holds no data")
        else:
            self.answers[value] = answer

    def unseen(self, value: str) -> bool:
        """Whether `value` has neither an answer nor a failure yet."""
        return value not in self.answers and value not in self.failures

    def goes_on(self) -> bool:
        """Whether the next value is asked: no stop, or one after which the caches answer."""
        return self.stop is None or isinstance(self.stop[1], SENDS_NOTHING_MORE)


def look_up_each(
    client: Client,
    endpoint: str,
    calls: Sequence[tuple[str, dict[str, Any]]],
    found_nothing: Callable[[Any], bool] | None = None,
) -> LookedUp:
    """Each value's call in turn, made on a thread of its own: a KeyboardInterrupt (Ctrl-C)
    ends the lookup, the call under way then finishing and kept, as enrich's calls under way
    are (one still waiting for its turn gives up, nothing sent); the values after it that
    the cache holds are still answered, as after any stop that sends nothing more.
    `found_nothing`: whether an answer found nothing (by default: no data)."""
    done, stop = LookedUp(), threading.Event()
    if found_nothing is not None:
        done.found_nothing = found_nothing

    def call(params: dict[str, Any]) -> Any:
        with client.pace.stop_waiting_when(stop):
            return client.call(endpoint, params)

    with ThreadPoolExecutor(1, thread_name_prefix="profnet-lookup") as pool:
        under_way: tuple[str, Future[Any]] | None = None
        asked = 0  # the values taken so far
        try:
            for value, params in calls:
                if not done.goes_on():
                    break  # the service not reached, a setting wrong: nothing more is asked
                asked += 1
                under_way = value, pool.submit(call, params)
                done.take(*under_way)
                under_way = None
        except KeyboardInterrupt:
            stop.set()
            client.pace.wake()
            if under_way is not None:
                with contextlib.suppress(KeyboardInterrupt):  # it gave up its turn: not sent
                    done.take(*under_way)
            with contextlib.suppress(KeyboardInterrupt):
                pool.shutdown(wait=True)  # one Ctrl-C met as it was handed over: kept too
            # From the value last asked (its call may have been handed over unseen, its
            # answer now cached): what the caches hold of those not answered.
            left = calls[max(asked - 1, 0) :]
            _from_the_cache(client, endpoint, [it for it in left if done.unseen(it[0])], done)
            done.interrupted = done.stop is None or not isinstance(
                done.stop[1], InsufficientCredits
            )
    return done


def _from_the_cache(
    client: Client, endpoint: str, calls: Sequence[tuple[str, dict[str, Any]]], done: LookedUp
) -> None:
    """The values of `calls` the caches hold, answered (free); the others left unanswered."""
    cached = client.with_options(offline=True)  # asks the caches only: nothing is sent
    for value, params in calls:
        with contextlib.suppress(ProfnetError):
            done.answered(value, cached.call(endpoint, params))
