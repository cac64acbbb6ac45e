"""The Recorder (client/recorder.py): a run cut short once at the first wave, keys noted once,
the calls started early awaited with the rest, and abandoned with the formula."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest

from profnet_sheets.client.async_client import AsyncClient
from profnet_sheets.client.call import CallPlan
from profnet_sheets.client.keys import CallKey
from profnet_sheets.client.recorder import EnoughRecorded, Recorder


def key(name: str) -> CallKey:
    return CallKey("service", "", "get-company-details", name)


def plan(name: str) -> CallPlan:
    """A plan as the Recorder reads it: its key."""
    return cast(CallPlan, type("Plan", (), {"key": key(name)})())


def names(plans: list[CallPlan]) -> list[str]:
    return [p.key.params for p in plans]


class Driver:
    """AsyncClient's `body` as the Recorder uses it: each key's answer after `gate`."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.asked: list[str] = []

    async def body(self, asked: CallPlan) -> Any:
        name = asked.key.params
        self.asked.append(name)
        await self.gate.wait()
        if name.startswith("bad"):
            raise ValueError(name)
        return {"name": name}

    def as_client(self) -> AsyncClient:
        return cast(AsyncClient, self)


def test_a_run_is_cut_once_at_enough_new_keys() -> None:
    recorder = Recorder(enough=3)
    recorder.miss(plan("a"))
    recorder.miss(plan("a"))  # the same key again: not a new call
    recorder.miss(plan("b"))
    with pytest.raises(EnoughRecorded):
        recorder.miss(plan("c"))
    assert recorder.enough is None
    recorder.miss(plan("d"))  # the run made again: noted, never cut
    assert names(recorder.take()) == ["a", "b", "c", "d"]


def test_no_cut_without_enough_and_the_signal_passes_a_formulas_guard() -> None:
    recorder = Recorder()
    for key in "abcdefghij":
        recorder.miss(plan(key))
    assert len(recorder.take()) == 10
    assert not issubclass(EnoughRecorded, Exception)  # `except Exception` lets it through


def test_calls_started_early_are_awaited_with_the_rest_and_not_noted_again() -> None:
    async def scenario() -> tuple[Recorder, Driver]:
        recorder, driver = Recorder(), Driver()
        recorder.start(driver.as_client(), [plan("a"), plan("bad")])
        await asyncio.sleep(0)
        assert driver.asked == ["a", "bad"]  # under way before the rest is recorded
        recorder.miss(plan("a"))  # the run made again meets them: under way, not missed
        recorder.miss(plan("c"))
        rest = recorder.take()
        assert names(rest) == ["c"]
        driver.gate.set()
        await recorder.fetch(driver.as_client(), rest)
        return recorder, driver

    recorder, driver = asyncio.run(scenario())
    assert driver.asked == ["a", "bad", "c"]  # each once
    assert recorder.answers == {key("a"): {"name": "a"}, key("c"): {"name": "c"}}
    assert isinstance(recorder.failures[key("bad")], ValueError)
    assert recorder.under_way == {}


def test_abandoned_calls_are_cancelled() -> None:
    async def scenario() -> list[asyncio.Task[Any]]:
        recorder, driver = Recorder(), Driver()
        recorder.start(driver.as_client(), [plan("a"), plan("b")])
        tasks = list(recorder.under_way.values())
        await asyncio.sleep(0)
        recorder.abandon()
        await asyncio.wait(tasks)
        return tasks

    tasks = asyncio.run(scenario())
    assert all(task.cancelled() for task in tasks)
