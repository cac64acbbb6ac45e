"""The pace against the sandbox's plans over loopback: every row enriched, each key paid once
(a 429 never pays), the limit found without being told; calls waiting their turn are not sent
when a run stops. Correctness only: the pace's figures are bench/throughput.py's."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import polars as pl
import pytest
import requests

from profnet_sheets.batch import enrich
from profnet_sheets.batch.engine import EnrichmentInterrupted
from profnet_sheets.client.pace import BETA
from profnet_sheets.sandbox import RunningSandbox
from tests.integration.client.conftest import MakeClient

pytestmark = pytest.mark.integration

Plan = Callable[..., None]


@pytest.fixture
def plan(fresh: RunningSandbox) -> Iterator[Plan]:
    """Set the sandbox's limits and latency for one test; calm again afterwards."""

    def put(**faults: Any) -> None:
        url = f"{fresh.base_url}/_sandbox/faults"
        requests.put(url, json=faults, timeout=5).raise_for_status()

    yield put
    put(
        rate_limit=None,
        rate_limit_per_minute=None,
        limit_retry_after=True,
        latency_ms=0,
        latency_jitter_ms=0,
    )


def sites(count: int, prefix: str) -> pl.DataFrame:
    return pl.DataFrame({"site": [f"{prefix}{n}.example.com" for n in range(count)]})


@pytest.mark.parametrize("retry_after", [True, False])
def test_a_per_second_limit_it_is_not_told_is_found_and_kept(
    make_client: MakeClient, fresh: RunningSandbox, plan: Plan, retry_after: bool
) -> None:
    plan(rate_limit=20, limit_retry_after=retry_after, latency_ms=150, latency_jitter_ms=100)
    client = make_client()
    out = enrich(sites(150, "second"), "site", "company", client=client, progress=False)
    assert out["company_error"].null_count() == 150, "every row enriched"
    counted = fresh.counted("get-company-details")
    assert counted["credits"] == 150, "each key paid once: 429s cost nothing, never twice"
    assert counted["errors"] > 0, "the limit was met"
    # How few 429s the pace meets is a figure of wall-clock time (a loaded machine delays the
    # answers the pace learns from): tests/unit/test_pace.py holds it on a simulated clock and
    # bench/throughput.py measures it; here, only what must hold whatever the machine's load.
    view = client.pace.view()
    assert view.rate is not None, "the pace went by rate once the service said 429"
    assert view.throttles == counted["errors"]


def test_a_run_tells_the_pace_how_many_calls_it_has_left_then_that_it_ended(
    make_client: MakeClient, fresh: RunningSandbox, plan: Plan
) -> None:
    plan(latency_ms=150)
    client = make_client(concurrency=4)
    told: list[int | None] = []
    expect = client.pace.expect

    def spy(calls: int | None) -> None:
        told.append(calls)
        expect(calls)

    client.pace.expect = spy  # type: ignore[method-assign]
    enrich(sites(20, "left"), "site", "company", client=client, progress=False)
    assert told[-1] is None, "the run's end is said: other calls probe again"
    counts = [calls for calls in told[:-1] if calls is not None]
    assert counts, "what is left is said while the run goes"
    assert counts == sorted(counts, reverse=True)
    assert counts[0] <= 20


def test_a_per_minute_limit_without_retry_after_is_ridden_out(
    make_client: MakeClient, fresh: RunningSandbox, plan: Plan
) -> None:
    plan(rate_limit_per_minute=120, limit_retry_after=False)  # 120 at once, then 2 a second
    client = make_client(retries=8)
    out = enrich(sites(130, "minute"), "site", "company", client=client, progress=False)
    assert out["company_error"].null_count() == 130
    assert fresh.counted("get-company-details")["credits"] == 130
    assert client.pace.view().rate is not None


def test_the_users_rate_is_kept_without_a_single_429(
    make_client: MakeClient, fresh: RunningSandbox, plan: Plan
) -> None:
    plan(rate_limit=10)
    client = make_client(rate_limit="8/s")
    out = enrich(sites(30, "told"), "site", "company", client=client, progress=False)
    assert out["company_error"].null_count() == 30
    assert fresh.counted("get-company-details")["errors"] == 0


def test_calls_waiting_for_their_turn_are_not_sent_when_the_run_stops(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    client = make_client(rate_limit="2/s")

    def stop_soon(done: int, total: int) -> None:
        if done >= 2:
            raise KeyboardInterrupt

    with pytest.raises(EnrichmentInterrupted) as stopped:
        enrich(sites(60, "stop"), "site", "company", client=client, progress=stop_soon)
    fetched = stopped.value.result["company_error"].null_count()
    assert 2 <= fetched < 10
    assert fresh.counted("get-company-details")["credits"] == fetched, (
        "nothing paid beyond what was kept"
    )
    assert client.pace.view().in_flight == 0


def test_the_next_client_on_the_cache_starts_at_the_pace_learnt(
    make_client: MakeClient, fresh: RunningSandbox, plan: Plan
) -> None:
    plan(rate_limit=20, latency_ms=100, latency_jitter_ms=50)
    first = make_client()
    enrich(sites(100, "learn"), "site", "company", client=first, progress=False)
    first.close()  # what it learnt since its last write is kept too
    learnt = first.pace.core.known
    assert math.isfinite(learnt)
    before = fresh.counted("get-company-details")
    second = make_client()  # the same cache directory: another process would do the same
    assert second.pace.view().rate == pytest.approx(BETA * learnt), (
        "paced from its first call at the rate learnt, as a cut paces it: no slow start"
    )
    out = enrich(sites(60, "next"), "site", "company", client=second, progress=False)
    assert out["company_error"].null_count() == 60
    after = fresh.counted("get-company-details")
    assert after["credits"] - before["credits"] == 60, "each key paid once"
