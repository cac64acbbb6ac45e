"""A 1,000,000-row file is enriched through the streaming path in bounded memory."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from profnet_sheets.sandbox import start_sandbox

pytestmark = pytest.mark.integration
ROWS = 1_000_000
UNIQUE = 1_000
PEAK_RSS_LIMIT_MIB = 1024  # measured ~420 MiB here; a collected frame path would not be bounded


def test_a_million_rows_stream_through_in_bounded_memory(tmp_path: Path) -> None:
    rng = random.Random(7)
    source = tmp_path / "big.csv"
    pl.DataFrame(
        {
            "row": range(ROWS),
            "domain": [f"firm{rng.randrange(UNIQUE)}.io" for _ in range(ROWS)],
        }
    ).write_csv(source)
    out = tmp_path / "big-enriched.parquet"
    with start_sandbox(api_keys=("big",), credits=10**9) as sandbox:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PROFNET_")}
        env.update(
            PROFNET_API_KEY="big",
            PROFNET_BASE_URL=sandbox.base_url,
            PROFNET_CACHE_DIR=str(tmp_path / "cache"),
            PROFNET_CONFIG=str(tmp_path / "config.toml"),
        )
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "profnet_sheets",
                "enrich",
                str(source),
                "--column",
                "domain",
                "--kind",
                "company",
                "--fields",
                "company_name",
                "--out",
                str(out),
                "--yes",
                "--concurrency",
                "16",
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        _, status, usage = os.wait4(process.pid, 0)
        stderr = process.stderr.read() if process.stderr else ""
    assert os.waitstatus_to_exitcode(status) == 0, stderr
    assert f"{ROWS:,} rows: {ROWS:,} enriched, 0 with an error, 0 blank" in stderr
    peak_mib = usage.ru_maxrss / 1024
    assert peak_mib < PEAK_RSS_LIMIT_MIB, f"peak RSS {peak_mib:.0f} MiB"
    result = pl.scan_parquet(out)
    assert result.select(pl.len()).collect().item() == ROWS
    row = pl.col("row").cast(pl.Int64)
    in_order = result.select((row.diff().fill_null(1) == 1).all()).collect().item()
    assert in_order, "rows keep their order"
    assert result.select(pl.col("company_name").null_count()).collect().item() == 0
