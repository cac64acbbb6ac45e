"""The pace survives faults, over loopback against the sandbox: under issue 24's mix (20% 5xx,
10% 429 whatever the pace, 5% cut connections) on top of a per-second limit the client is not
told, the rate it learns stays near the one it learns without faults (it fell to 0.4 calls/s),
every row is enriched and each key paid once. Judged by ratios; the run's time is printed
beside the load (bench/throughput.py --faults has the 1,000-key figure)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import polars as pl
import pytest

from profnet_sheets import Client
from profnet_sheets.batch import enrich
from profnet_sheets.sandbox import RunningSandbox
from tests.integration.client.conftest import MakeClient, set_faults

pytestmark = pytest.mark.integration
LIMIT = 20.0  # calls per second per key, not told to the client
KEYS = 240
FAULT_MIX = {"fail_rate": 0.2, "throttle_rate": 0.1, "drop_rate": 0.05, "retry_after": 1}
CALM = {"fail_rate": 0, "throttle_rate": 0, "drop_rate": 0, "retry_after": 1}


def run(client: Client, prefix: str) -> tuple[pl.DataFrame, float]:
    """Enrich KEYS new domains; the frame and the seconds it took."""
    frame = pl.DataFrame({"site": [f"{prefix}{n}.example.com" for n in range(KEYS)]})
    began = time.monotonic()
    out = enrich(frame, "site", "company", client=client, progress=False)
    return out, time.monotonic() - began


def test_the_learnt_rate_survives_5xx_drops_and_random_429s(
    make_client: MakeClient, fresh: RunningSandbox, tmp_path: Path
) -> None:
    set_faults(fresh, rate_limit=LIMIT, latency_ms=150, latency_jitter_ms=100, **CALM)
    calm_client = make_client(cache=str(tmp_path / "calm"), cache_dir=tmp_path / "calm")
    _, calm_seconds = run(calm_client, "calm")
    # What the service took before the faults (the yardstick): the calls it answered a
    # second. The calm pace's own estimate can read the limit's first burst as rate (29/s).
    calm_rate = KEYS / calm_seconds
    set_faults(fresh, **FAULT_MIX)
    before = fresh.counted("get-company-details")
    # A cache of its own: nothing remembered, the pace learnt under the faults from the start.
    # Retries enough that no row is left to chance (0.35 ** 11 of a key: none).
    client = make_client(cache=str(tmp_path / "faulty"), cache_dir=tmp_path / "faulty", retries=10)
    out, seconds = run(client, "faulty")
    counted = fresh.counted("get-company-details")
    learnt = client.pace.core.known
    print(
        f"pace under faults: learnt {learnt:.1f}/s against {calm_rate:.1f}/s taken without "
        f"faults (limit {LIMIT:g}/s, learnt {calm_client.pace.core.known:.1f}/s); "
        f"{seconds:.1f} s against {calm_seconds:.1f} s "
        f"({seconds / calm_seconds:.2f}x); {counted['calls'] - before['calls']} calls; noise "
        f"{client.pace.core.noise:.0%}; "
        f"load {os.getloadavg()}"
    )
    assert out["company_error"].null_count() == KEYS, "every row enriched, retries included"
    assert counted["credits"] - before["credits"] == KEYS, "each key paid once"
    assert calm_client.pace.core.known >= 0.5 * LIMIT, "without faults, the limit is learnt"
    assert calm_rate >= 0.5 * LIMIT, "and kept to"
    assert learnt >= calm_rate / 2, f"learnt {learnt:.1f}/s against {calm_rate:.1f}/s"
