"""The embedded default: with no key and no base URL, a sandbox in a background thread serves
(playing the service profile the settings name: its hosts, key header, headers and prices)."""

from __future__ import annotations

import hashlib
import sqlite3
import sys
import threading
from pathlib import Path

from profnet_sheets.client.wal import ensure_wal
from profnet_sheets.config import Settings, unusable_cache
from profnet_sheets.errors import ConfigurationError
from profnet_sheets.extras import missing_extra
from profnet_sheets.words import command

SANDBOX_KEY = "embedded-sandbox-key"
NOTICE = (
    "profnet-sheets: no API key is configured, so the built-in SANDBOX answers, with synthetic "
    "data and no real credits spent.\n"
    "  To use the real service: set PROFNET_API_KEY (and PROFNET_BASE_URL), or run\n"
    f"  `{command('config --api-key ...')}` to keep them in your config file.\n"
)

_lock = threading.Lock()
_running: dict[Path, str] = {}
_notice = {"told": False}


def embedded_base_url(settings: Settings) -> str:
    """The base URL of this process's embedded sandbox, started on first use (and announced).
    It plays the settings' service profile, so that the client talks to it as to that service;
    each profile has a sandbox (and a state file) of its own."""
    try:
        from profnet_sheets.sandbox.server import start_sandbox
    except ModuleNotFoundError as error:
        said = missing_extra(error, "the built-in sandbox (no API key is configured)")
        if said is None:
            raise
        raise ConfigurationError(f"{said}; or set PROFNET_API_KEY and PROFNET_BASE_URL") from None

    profile = settings.profile
    name = "sandbox-state"
    if not profile.is_default:
        name += "-" + hashlib.sha256(repr(profile).encode()).hexdigest()[:10]
    db = settings.cache_dir / f"{name}.sqlite"
    with _lock:
        if db not in _running:
            try:
                db.parent.mkdir(parents=True, exist_ok=True)
                ensure_wal(db)  # garbage in it: DamagedFile, which `cache clear` starts anew
            except (OSError, sqlite3.Error) as error:
                raise unusable_cache(error, settings) from None
            sandbox = start_sandbox(
                api_keys=(SANDBOX_KEY,),
                credits=1_000_000,
                db=str(db),
                job_seconds=3.0,
                network_host=profile.network_hosts[0],
                key_header=profile.key_header,
                required_headers=dict(profile.headers),
                prices=dict(profile.prices.overrides),
            )
            sandbox.backend.set_key(SANDBOX_KEY, 1_000_000)  # topped up at every start
            _running[db] = sandbox.base_url
        if not _notice["told"] and not settings.quiet:
            sys.stderr.write(NOTICE)
            sys.stderr.flush()
            _notice["told"] = True
        return _running[db]
