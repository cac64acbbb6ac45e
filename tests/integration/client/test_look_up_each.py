"""The `lookup` command's loop (batch/each.py) under Ctrl-C, against the sandbox: a call
handed over as Ctrl-C came is still taken, its answer kept and handed out."""

from __future__ import annotations

import _thread
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pytest
import requests

from profnet_sheets import Client, InsufficientCredits
from profnet_sheets.batch import each
from profnet_sheets.sandbox import RunningSandbox
from tests.integration.client.conftest import KEY, set_faults

pytestmark = pytest.mark.integration

CALLS = [(domain, {"domain": domain}) for domain in ("acme.com", "globex.com", "initech.com")]


def handing_over_as_ctrl_c_comes(sandbox: RunningSandbox) -> type[ThreadPoolExecutor]:
    """A pool whose second call, once the sandbox has it (and its answer is still on the
    way), meets Ctrl-C before the loop holds its future (a few bytecodes: made certain)."""

    class Pool(ThreadPoolExecutor):
        handed = 0

        def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
            future = super().submit(fn, *args, **kwargs)
            type(self).handed += 1
            if type(self).handed == 2:
                while sandbox.charged(KEY) < 2:  # charged as it arrives
                    time.sleep(0.01)
                raise KeyboardInterrupt
            return future

    return Pool


def test_a_call_handed_over_as_ctrl_c_came_is_answered_from_what_it_paid(
    make_client: Callable[..., Client], fresh: RunningSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before, the second value was shown as not fetched though its call went on, was paid
    and cached; the third, never sent, stays unanswered."""
    monkeypatch.setattr(each, "ThreadPoolExecutor", handing_over_as_ctrl_c_comes(fresh))
    set_faults(fresh, latency_ms=400)  # the second call still in flight when Ctrl-C lands
    looked = each.look_up_each(make_client(), "get-company-details", CALLS)
    assert looked.interrupted
    assert set(looked.answers) == {"acme.com", "globex.com"}
    assert looked.answers["globex.com"]["company_name"], "its answer, from what was paid"
    assert fresh.charged(KEY) == 2, "the third was never sent"


def test_a_ctrl_c_after_the_credits_ran_out_leaves_the_stop_as_what_ended_it(
    make_client: Callable[..., Client], fresh: RunningSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A review of decision 545: `lookup` exited 130 (`Interrupted`) when Ctrl-C came after
    a 402, though the credits running out ended it (enrich exits 4 then): the stop is what
    ended the lookup, and the values after it say so."""
    requests.put(
        f"{fresh.base_url}/_sandbox/keys", json={"key": KEY, "credits": 1}, timeout=5
    ).raise_for_status()

    class Pool(ThreadPoolExecutor):
        handed = 0

        def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
            type(self).handed += 1
            if type(self).handed == 3:  # the second met the 402: Ctrl-C comes after it
                raise KeyboardInterrupt
            return super().submit(fn, *args, **kwargs)

    monkeypatch.setattr(each, "ThreadPoolExecutor", Pool)
    looked = each.look_up_each(make_client(), "get-company-details", CALLS)
    assert looked.stop is not None
    assert looked.stop[0] == "globex.com"
    assert isinstance(looked.stop[1], InsufficientCredits)
    assert not looked.interrupted, "the credits running out ended it, not the Ctrl-C after"
    assert set(looked.answers) == {"acme.com"}
    assert fresh.charged(KEY) == 1


def test_credits_that_run_out_in_the_call_under_way_as_ctrl_c_came_end_it_as_out_of_credits(
    make_client: Callable[..., Client], fresh: RunningSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C first, then the call under way meets the 402: running again needs a top-up, so
    the lookup ends out of credits, as enrich ends (decision 539), not as interrupted."""
    requests.put(
        f"{fresh.base_url}/_sandbox/keys", json={"key": KEY, "credits": 1}, timeout=5
    ).raise_for_status()
    set_faults(fresh, latency_ms=400)

    class Pool(ThreadPoolExecutor):
        handed = 0

        def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
            type(self).handed += 1
            if type(self).handed == 2:  # Ctrl-C while the loop waits for its answer
                threading.Timer(0.1, _thread.interrupt_main).start()
            return super().submit(fn, *args, **kwargs)

    monkeypatch.setattr(each, "ThreadPoolExecutor", Pool)
    looked = each.look_up_each(make_client(), "get-company-details", CALLS)
    assert looked.stop is not None
    assert looked.stop[0] == "globex.com"
    assert isinstance(looked.stop[1], InsufficientCredits)
    assert not looked.interrupted
    assert set(looked.answers) == {"acme.com"}
    assert "initech.com" not in looked.failures, "never sent"
