"""Calls noted instead of sent: code that calls the blocking client (the formulas) runs against
the caches alone and notes the calls they could not answer; a driver without threads
(`AsyncClient`, xlwings Lite) fetches those together, and the next run reads what came back."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from profnet_sheets.client.call import CallPlan, Found
from profnet_sheets.client.keys import CallKey

if TYPE_CHECKING:
    from profnet_sheets.client.async_client import AsyncClient


class EnoughRecorded(BaseException):
    """A run cut short: it has missed as many calls as may go out at once, and those are sent
    before the rest of it is recorded (a BaseException: a formula's guard lets it through)."""


@dataclass
class Recorder:
    """What one evaluation (of a formula) met: the calls missed since the last fetch, and the
    answer or the error each call fetched so far came back with (read before any cache: a
    search status is never cached, and an error must read as the call's own).

    `enough`: a run that misses this many calls is cut short (EnoughRecorded), once, so that
    they are sent (`start`) while the run is made again for the rest: without it, no request
    leaves before every row of a range is recorded (a run is synchronous)."""

    missed: dict[CallKey, CallPlan] = field(default_factory=dict)
    answers: dict[CallKey, Any] = field(default_factory=dict)
    failures: dict[CallKey, Exception] = field(default_factory=dict)
    enough: int | None = None
    under_way: dict[CallKey, asyncio.Task[Any]] = field(default_factory=dict)

    def recalled(self, key: CallKey) -> Found | None:
        """The answer fetched for `key` in this evaluation (its error raised), or None."""
        failure = self.failures.get(key)
        if failure is not None:
            raise failure
        return Found(self.answers[key]) if key in self.answers else None

    def miss(self, plan: CallPlan) -> None:
        """Note a call the caches could not answer, to be fetched (once per key); the
        `enough`-th new one cuts the run short."""
        if plan.key in self.missed or plan.key in self.under_way:
            return
        self.missed[plan.key] = plan
        if self.enough is not None and len(self.missed) >= self.enough:
            self.enough = None  # once: the run made again records the rest
            raise EnoughRecorded

    def take(self) -> list[CallPlan]:
        """The calls missed since the last take, in the order met."""
        plans = list(self.missed.values())
        self.missed.clear()
        return plans

    def start(self, driver: AsyncClient, plans: list[CallPlan]) -> None:
        """Send `plans` through `driver` now, without waiting for them (`fetch` does)."""
        for plan in plans:
            if plan.key not in self.under_way:
                self.under_way[plan.key] = asyncio.ensure_future(driver.body(plan))

    async def fetch(self, driver: AsyncClient, plans: list[CallPlan]) -> None:
        """Fetch `plans`, and those started before, together through `driver` (identical keys
        under way paid once, the pace and the spend policy as the driver keeps them); note
        each answer or error."""
        self.start(driver, plans)
        keys, tasks = list(self.under_way), list(self.under_way.values())
        try:
            done = await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            self.abandon()
        for key, result in zip(keys, done, strict=True):
            if isinstance(result, Exception):
                self.failures[key] = result
            elif isinstance(result, BaseException):  # cancelled, Ctrl-C: not an answer
                raise result
            else:
                self.answers[key] = result

    def abandon(self) -> None:
        """The calls started and not awaited cancelled (as a cancelled `fetch` cancels them):
        the driver keeps what any of them was answered and settles the rest."""
        for task in self.under_way.values():
            task.cancel()
        self.under_way.clear()
