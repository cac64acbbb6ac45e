"""The sandbox's state in SQLite: keys and balances, usage, search jobs, remembered entities."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS accounts (key TEXT PRIMARY KEY, balance INTEGER NOT NULL,
                                     starting INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS usage (key TEXT NOT NULL, endpoint TEXT NOT NULL,
                                  calls INTEGER NOT NULL DEFAULT 0,
                                  credits INTEGER NOT NULL DEFAULT 0,
                                  errors INTEGER NOT NULL DEFAULT 0,
                                  PRIMARY KEY (key, endpoint));
CREATE TABLE IF NOT EXISTS jobs (request_id TEXT PRIMARY KEY, seq INTEGER NOT NULL,
                                 key TEXT NOT NULL, kind TEXT NOT NULL, params TEXT NOT NULL,
                                 created REAL NOT NULL, seconds REAL NOT NULL,
                                 total INTEGER NOT NULL, fail_at INTEGER);
CREATE TABLE IF NOT EXISTS entities (kind TEXT NOT NULL, id TEXT NOT NULL, body TEXT NOT NULL,
                                     PRIMARY KEY (kind, id));
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


@dataclass(frozen=True)
class Job:
    """A search job as stored; its status is computed from the clock (see backend)."""

    request_id: str
    seq: int
    key: str
    kind: str
    params: dict[str, Any]
    created: float
    seconds: float
    total: int
    fail_at: int | None  # progress at which the job fails; None: it completes


class Store:
    """Thread-safe access to the sandbox database (in memory unless a path is given)."""

    def __init__(self, path: str | None = None) -> None:
        self._lock = threading.Lock()
        self._db = sqlite3.connect(
            path or ":memory:", check_same_thread=False, isolation_level=None
        )
        if path:
            self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- accounts and usage ---------------------------------------------------------------------

    def ensure_key(self, key: str, credits: int) -> None:
        """Add a key with a starting balance (an existing key keeps its balance)."""
        with self._lock:
            self._db.execute(
                "INSERT OR IGNORE INTO accounts (key, balance, starting) VALUES (?, ?, ?)",
                (key, credits, credits),
            )

    def set_balance(self, key: str, credits: int) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO accounts (key, balance, starting) VALUES (?, ?, ?) "
                "ON CONFLICT (key) DO UPDATE SET balance = excluded.balance, "
                "starting = excluded.starting",
                (key, credits, credits),
            )

    def balance(self, key: str) -> int | None:
        with self._lock:
            row = self._db.execute("SELECT balance FROM accounts WHERE key = ?", (key,)).fetchone()
        return None if row is None else int(row[0])

    def record_call(self, key: str, endpoint: str, credits: int, error: bool) -> None:
        """Count a call and charge its credits, in one transaction."""
        with self._lock:
            self._db.execute("BEGIN")
            if credits:
                self._db.execute(
                    "UPDATE accounts SET balance = balance - ? WHERE key = ?", (credits, key)
                )
            self._db.execute(
                "INSERT INTO usage (key, endpoint, calls, credits, errors) VALUES (?, ?, 1, ?, ?) "
                "ON CONFLICT (key, endpoint) DO UPDATE SET calls = calls + 1, "
                "credits = credits + excluded.credits, errors = errors + excluded.errors",
                (key, endpoint, credits, int(error)),
            )
            self._db.execute("COMMIT")

    def usage(self, key: str) -> dict[str, dict[str, int]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT endpoint, calls, credits, errors FROM usage WHERE key = ? "
                "ORDER BY endpoint",
                (key,),
            ).fetchall()
        return {row[0]: {"calls": row[1], "credits": row[2], "errors": row[3]} for row in rows}

    # -- jobs -----------------------------------------------------------------------------------

    def next_job_seq(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM jobs").fetchone()
        return int(row[0])

    def add_job(self, job: Job) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO jobs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    job.request_id,
                    job.seq,
                    job.key,
                    job.kind,
                    json.dumps(job.params, sort_keys=True),
                    job.created,
                    job.seconds,
                    job.total,
                    job.fail_at,
                ),
            )

    def job(self, request_id: str) -> Job | None:
        with self._lock:
            row = self._db.execute(
                "SELECT request_id, seq, key, kind, params, created, seconds, total, fail_at "
                "FROM jobs WHERE request_id = ?",
                (request_id,),
            ).fetchone()
        if row is None:
            return None
        return Job(row[0], row[1], row[2], row[3], json.loads(row[4]), *row[5:])

    # -- entities the sandbox has shown (ids that only the service hands out) ---------------------

    def remember(self, kind: str, items: Iterable[tuple[str, Any]]) -> None:
        rows = [(kind, key, json.dumps(body)) for key, body in items]
        if rows:
            with self._lock:
                self._db.executemany("INSERT OR REPLACE INTO entities VALUES (?, ?, ?)", rows)

    def recall(self, kind: str, key: str) -> Any:
        with self._lock:
            row = self._db.execute(
                "SELECT body FROM entities WHERE kind = ? AND id = ?", (kind, key)
            ).fetchone()
        return None if row is None else json.loads(row[0])

    # -- meta (the clock offset) ------------------------------------------------------------------

    def get_meta(self, name: str, default: str) -> str:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
        return default if row is None else str(row[0])

    def set_meta(self, name: str, value: str) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (name, value))

    def reset(self) -> None:
        """Forget jobs, usage and entities; balances go back to their starting values."""
        with self._lock:
            self._db.executescript(
                "BEGIN; DELETE FROM jobs; DELETE FROM usage; DELETE FROM entities; "
                "DELETE FROM meta; UPDATE accounts SET balance = starting; COMMIT;"
            )
