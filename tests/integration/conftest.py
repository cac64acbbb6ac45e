"""Helpers for tests that run the command line as a user does: a subprocess, its own settings."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CLI = [sys.executable, "-m", "profnet_sheets"]


def cli_env(base_url: str, key: str, home: Path) -> dict[str, str]:
    """The environment of a CLI run against a sandbox: no PROFNET_* of ours leaks in, the key
    and base URL are set, cache and config live under `home`."""
    values = {k: v for k, v in os.environ.items() if not k.startswith("PROFNET_")}
    values.update(
        PROFNET_API_KEY=key,
        PROFNET_BASE_URL=base_url,
        PROFNET_CACHE_DIR=str(home / "cache"),
        PROFNET_CONFIG=str(home / "config.toml"),
    )
    return values


def run_cli(
    env: dict[str, str], *args: str, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """`profnet-sheets ARGS` to completion, its output captured."""
    return subprocess.run(
        [*CLI, *args], capture_output=True, text=True, env=env, timeout=timeout, check=False
    )
