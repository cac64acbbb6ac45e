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


@dataclass
class Recorder:
    """What one evaluation (of a formula) met: the calls missed since the last fetch, and the
    answer or the error each call fetched so far came back with (read before any cache: a
    search status is never cached, and an error must read as the call's own)."""

    missed: dict[CallKey, CallPlan] = field(default_factory=dict)
    answers: dict[CallKey, Any] = field(default_factory=dict)
    failures: dict[CallKey, Exception] = field(default_factory=dict)

    def recalled(self, key: CallKey) -> Found | None:
        """The answer fetched for `key` in this evaluation (its error raised), or None."""
        failure = self.failures.get(key)
        if failure is not None:
            raise failure
        return Found(self.answers[key]) if key in self.answers else None

    def miss(self, plan: CallPlan) -> None:
        """Note a call the caches could not answer, to be fetched (once per key)."""
        self.missed.setdefault(plan.key, plan)

    def take(self) -> list[CallPlan]:
        """The calls missed since the last take, in the order met."""
        plans = list(self.missed.values())
        self.missed.clear()
        return plans

    async def fetch(self, driver: AsyncClient, plans: list[CallPlan]) -> None:
        """Fetch `plans` together through `driver` (identical keys under way paid once, the
        pace and the spend policy as the driver keeps them); note each answer or error."""
        done = await asyncio.gather(
            *(driver.body(plan.ep.name, plan.payload, plan.max_items) for plan in plans),
            return_exceptions=True,
        )
        for plan, result in zip(plans, done, strict=True):
            if isinstance(result, Exception):
                self.failures[plan.key] = result
            elif isinstance(result, BaseException):  # cancelled, Ctrl-C: not an answer
                raise result
            else:
                self.answers[plan.key] = result
