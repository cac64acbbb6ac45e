"""Helpers for tests that run the command line as a user does: a subprocess, its own settings."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
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
    env: dict[str, str], *args: str, timeout: float = 120, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """`profnet-sheets ARGS` to completion (in the folder `cwd`), its output captured."""
    return subprocess.run(
        [*CLI, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
        cwd=cwd,
    )


def in_a_terminal(env: dict[str, str], *args: str) -> tuple[subprocess.Popen[bytes], int]:
    """`profnet-sheets ARGS` started in a pseudo-terminal: the process and the descriptor of
    the terminal's other side (what it shows is read, what is typed written there)."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [*CLI, *args], stdin=terminal, stdout=terminal, stderr=terminal, env=env, close_fds=True
    )
    os.close(terminal)
    return process, controller


def read_until(descriptor: int, marker: str, timeout: float = 30) -> str:
    """What a terminal shows until `marker` (or the program ends, or `timeout`)."""
    seen = b""
    deadline = time.monotonic() + timeout
    while marker.encode() not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([descriptor], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(descriptor, 4096)
            except OSError:  # the program ended: its side of the terminal is gone
                break
            if not chunk:
                break
            seen += chunk
    return seen.decode(errors="replace")
