"""Put a SQLite file in WAL mode, also when several processes open it at the same moment."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

_BUSY, _LOCKED = 5, 6  # SQLITE_BUSY, SQLITE_LOCKED (primary codes)


def ensure_wal(path: Path, timeout: float = 30.0) -> None:
    """Switch `path` (made if missing) to WAL, which then stays its mode for every connection.

    Switching needs an exclusive lock. Two processes switching a new file at once each hold a
    shared lock and want that exclusive one: SQLite answers one of them "database is locked"
    at once, without waiting (its busy timeout does not apply to a deadlock). Here the loser
    tries again, by when the winner has switched and the pragma has nothing left to do.
    """
    deadline = time.monotonic() + timeout
    pause = 0.002
    while True:
        connection = sqlite3.connect(path, timeout=timeout, isolation_level=None)
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            code = getattr(error, "sqlite_errorcode", _BUSY) & 0xFF
            if code not in (_BUSY, _LOCKED) or time.monotonic() > deadline:
                raise
        finally:
            connection.close()
        time.sleep(pause)
        pause = min(pause * 2, 0.1)
