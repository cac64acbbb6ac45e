"""Where cached answers live: requests-cache's SQLite (readers never queue), Redis, or memory."""

from __future__ import annotations

import pickle
import sqlite3
import threading
import time
import weakref
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import requests
from requests_cache.backends.base import BaseCache
from requests_cache.backends.sqlite import SQLiteCache, SQLiteDict
from requests_cache.models.response import CachedResponse

from profnet_sheets.client.claims import Claims, FileClaims, NoClaims, RedisClaims
from profnet_sheets.client.wal import ensure_wal
from profnet_sheets.config import Settings, masked_url
from profnet_sheets.errors import ConfigurationError


@dataclass(frozen=True)
class Stored:
    """A cached answer as the client needs it: status, body text, headers, and until when
    it is fresh (unix time; None: for ever)."""

    status: int
    text: str
    headers: Mapping[str, str]
    expires: float | None


def save_answer(
    cache: BaseCache,
    key: str,
    response: requests.Response,
    expires: datetime,
    secrets: Iterable[str],
) -> None:
    """Save an answer as requests-cache stores one, with the headers named in `secrets`
    redacted as requests-cache redacts them.

    On SQLite the row is written directly, in requests-cache's own format (`row_of`; a test
    compares the two byte for byte): building a CachedResponse and unstructuring it with cattrs
    cost ~0.1 ms a call. Other backends go through requests-cache's CachedResponse. Either way,
    unlike requests-cache's `save_response`, URLs and bodies are not rewritten for ignored
    parameters: the client's secret only ever travels in a header.
    """
    hidden = frozenset(secrets)
    if isinstance(cache, ThreadReadsSQLiteCache):
        row = row_of(response, expires, hidden)
        cache.responses.write_raw(key, pickle.dumps(row), round(expires.timestamp()))
        return
    cached = CachedResponse.from_response(response, expires=expires)
    for headers in (cached.request.headers, cached.headers):
        for name in hidden:
            if name in headers:
                headers[name] = "REDACTED"
    if not _set_in_redis(cache.responses, key, cached):
        cache.responses[key] = cached


def _set_in_redis(responses: Any, key: str, cached: CachedResponse) -> bool:
    """Save to requests-cache's Redis table as it does, with SET EX: its SETEX is deprecated by
    redis-py (a DeprecationWarning a save). False: not that table, or an entry without TTL."""
    if type(responses).__name__ != "RedisDict" or not getattr(responses, "ttl", False):
        return False
    delta = cached.expires_delta
    seconds = None if delta is None else delta + responses.ttl_offset
    if seconds is None or seconds <= 0:
        return False
    responses.connection.set(responses._bkey(key), responses.serialize(cached), ex=seconds)
    return True


def _redacted(headers: Mapping[str, str], hidden: frozenset[str]) -> dict[str, str]:
    return {k: ("REDACTED" if k in hidden else v) for k, v in sorted(headers.items())}


def row_of(
    response: requests.Response, expires: datetime, hidden: frozenset[str]
) -> dict[str, Any]:
    """requests-cache's stored form of a response (cattrs' unstructured CachedResponse: fields
    at their defaults left out), with the `hidden` headers redacted."""
    sent = response.request
    request: dict[str, Any] = {"headers": _redacted(sent.headers, hidden), "method": sent.method}
    if sent.body:
        request["body"] = sent.body.encode() if isinstance(sent.body, str) else sent.body
    request["url"] = sent.url
    return {
        "_content": response.content,
        "created_at": datetime.now(UTC).isoformat(),
        "encoding": response.encoding,
        "expires": expires.isoformat(),
        "headers": _redacted(response.headers, hidden),
        "reason": response.reason,
        "request": request,
        "status_code": response.status_code,
        "url": response.url,
    }


def read_stored(cache: BaseCache, key: str, *, stale_ok: bool = False) -> Stored | None:
    """The fresh answer stored under `key` (with `stale_ok`, any answer still stored), or None.

    On SQLite the row is read and unpickled directly (~0.1 ms, against ~0.3 ms for
    requests-cache's full CachedResponse, which a warm batch of thousands feels); any other
    backend, or a row in another shape, goes through requests-cache.
    """
    if isinstance(cache, ThreadReadsSQLiteCache):
        found = cache.responses.read_raw(key)
        if found is None:
            return None
        stored = _from_unstructured(*found)
        if stored is not None:
            return stored if stale_ok or _fresh(stored.expires) else None
    try:  # the answers table itself: no redirect aliases are ever saved, none looked up
        response = cache.responses.get(key)
    except (AttributeError, KeyError):  # an entry requests-cache can no longer read
        return None
    if not isinstance(response, CachedResponse) or (response.is_expired and not stale_ok):
        return None
    expires = response.expires.timestamp() if response.expires is not None else None
    return Stored(response.status_code, response.text, dict(response.headers), expires)


def _fresh(expires: float | None) -> bool:
    return expires is None or expires > time.time()


def _from_unstructured(value: bytes, expires: float | None) -> Stored | None:
    """requests-cache's SQLite rows hold a pickled dict (its cattrs form of CachedResponse);
    None when the row is not in that shape."""
    try:
        fields = pickle.loads(value)
        content, status = fields["_content"], fields["status_code"]
        text = content.decode(fields.get("encoding") or "utf-8")
        headers = dict(fields.get("headers") or {})
        stamp = fields.get("expires")
        if isinstance(stamp, str):  # to the microsecond (the table's column holds whole seconds)
            expires = datetime.fromisoformat(stamp).timestamp()
    except Exception:
        return None
    if not isinstance(status, int):
        return None
    return Stored(status, text, headers, expires)


class ThreadReadsSQLiteDict(SQLiteDict):
    """requests-cache's SQLite table, with reads on one connection per thread.

    requests-cache shares one connection and one lock between every thread: a worker looking
    up a key waits while another one writes. In WAL mode readers do not need the writer's lock
    at all, so each thread reads on a connection of its own; writes are unchanged (serial, on
    the shared connection).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._readers = threading.local()
        self._generation = 0  # bumped by close(): every thread then opens a new reader
        super().__init__(*args, **kwargs)

    @contextmanager
    def connection(self, commit: bool = False) -> Iterator[sqlite3.Connection]:
        if commit:
            with super().connection(commit) as shared:
                yield shared
            return
        reader: _Reader | None = getattr(self._readers, "reader", None)
        if reader is None or reader.generation != self._generation:
            if reader is not None:
                reader.close()  # its own thread closes it: never one another thread uses
            connection = sqlite3.connect(
                self.db_path, isolation_level=None, **self.connection_kwargs
            )
            if self.busy_timeout is not None:
                connection.execute(f"PRAGMA busy_timeout={int(self.busy_timeout)}")
            reader = self._readers.reader = _Reader(connection, self._generation)
        yield reader.connection

    def read_raw(self, key: str) -> tuple[bytes, float | None] | None:
        """The stored bytes of `key` and its expiry (unix time), without deserialising."""
        with self.connection() as reader:
            row = reader.execute(
                f"SELECT value, expires FROM {self.table_name} WHERE key = ?",
                (key,),
            ).fetchone()
        return (bytes(row[0]), row[1]) if row is not None else None

    def write_raw(self, key: str, value: bytes, expires: int | None) -> None:
        """Store bytes already serialised (and their expiry, unix time) under `key`: one
        INSERT in autocommit on the shared writer connection (requests-cache's explicit
        BEGIN IMMEDIATE / COMMIT around it made three calls into SQLite of one)."""
        with self._lock, super().connection() as writer:
            writer.execute(
                f"INSERT OR REPLACE INTO {self.table_name} (key, value, expires) VALUES (?, ?, ?)",
                (key, sqlite3.Binary(value), expires),
            )

    def close(self) -> None:
        """Close the shared connection and this thread's reader; other threads' readers are
        replaced at their next read (or closed when their thread ends), never closed under
        them (requests-cache's clear() closes while other threads may be reading)."""
        self._generation += 1
        reader: _Reader | None = getattr(self._readers, "reader", None)
        if reader is not None:
            self._readers.reader = None
            reader.close()
        super().close()  # type: ignore[no-untyped-call]


class _Reader:
    """A thread's reader connection: closed when its thread ends (the thread-local holding
    it goes), so that thread pools made and dropped per batch do not pile connections up."""

    def __init__(self, connection: sqlite3.Connection, generation: int) -> None:
        self.connection = connection
        self.generation = generation
        self._closer = weakref.finalize(self, connection.close)

    def close(self) -> None:
        self._closer()


class ThreadReadsSQLiteCache(SQLiteCache):
    """requests-cache's SQLite backend (WAL) whose answers table reads per thread."""

    responses: ThreadReadsSQLiteDict

    def __init__(self, db_path: Path, **kwargs: Any) -> None:
        super().__init__(db_path, **kwargs)
        shared_lock = self.responses._lock
        self.responses.close()
        self.responses = ThreadReadsSQLiteDict(
            db_path, table_name="responses", lock=shared_lock, **kwargs
        )


def open_backend(settings: Settings, service: str) -> BaseCache:
    """The cache store: SQLite (WAL) in the user's cache directory, Redis, or memory."""
    where = settings.cache or ""
    if where in ("memory", "off"):
        return BaseCache()
    if where.startswith(("redis://", "rediss://", "unix://")):
        try:
            import redis
        except ImportError:  # pragma: no cover - depends on the extra being installed
            raise ConfigurationError(
                "PROFNET_CACHE names Redis but the redis package is missing: "
                "install profnet-sheets[redis]."
            ) from None
        from requests_cache.backends.redis import RedisCache

        return RedisCache(namespace=namespace(service), connection=redis.Redis.from_url(where))
    path = Path(where).expanduser() if where else settings.cache_dir
    if path.suffix not in (".sqlite", ".db"):
        path = path / f"{service}-http.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    ensure_wal(path)  # requests-cache's own switch fails when processes open a new file at once
    return ThreadReadsSQLiteCache(path, wal=True, timeout=30)


def where_kept(cache: BaseCache, settings: Settings) -> str:
    """Where `cache` keeps answers, as a user can find it: a file, memory, or a Redis URL
    (without the password it may hold)."""
    if isinstance(cache, SQLiteCache):
        return str(cache.responses.db_path)
    if type(cache) is BaseCache:
        return "memory (this process only)"
    return str(masked_url(settings.cache))


def namespace(service: str) -> str:
    """The prefix of this service's keys in a shared Redis."""
    return f"profnet:{service}"


def open_claims(settings: Settings, service: str, cache: BaseCache) -> Claims:
    """Claims that every process sharing `cache` sees: lock files beside a SQLite cache, keys
    in its Redis; none for a cache in memory. A claim lasts at most as long as a call can."""
    longest_wait = max(settings.retry_after_cap, settings.max_backoff)
    attempts = settings.retries + 1
    lease = min(1800.0, settings.connect_timeout + (settings.timeout + longest_wait) * attempts)
    if isinstance(cache, SQLiteCache):
        path = Path(cache.db_path).resolve()
        return FileClaims(path.parent / f".{path.stem}-claims.lock", lease)
    connection = getattr(cache.responses, "connection", None)
    if connection is not None and hasattr(connection, "register_script"):
        return RedisClaims(connection, namespace(service), lease)
    return NoClaims()
