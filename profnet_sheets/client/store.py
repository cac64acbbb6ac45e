"""Where answers live: requests-cache's cache (SQLite in WAL mode, Redis, or memory), as JSON.

Everything goes through requests-cache's public API: a backend (`SQLiteCache`, `RedisCache`,
`BaseCache`) with the JSON serializer; answers read from and written to its `responses`
mapping (a `CachedResponse`, its secret headers redacted), purged with
`delete(expired=True)`. Nothing is stored in a format that runs code when read
(requests-cache's default serializer does: not in a cache a team shares).
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import secrets
import shutil
import sqlite3
import sys
import time
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import requests
from requests.structures import CaseInsensitiveDict

from profnet_sheets.cache_file import foreign_parts, holds_other_data
from profnet_sheets.client.cache import KEPT_STATUSES, CachePolicy
from profnet_sheets.client.claims import Claims, FileClaims, Held, NoClaims, RedisClaims
from profnet_sheets.client.keys import CallKey
from profnet_sheets.client.pace import stoppable_sleep as pause
from profnet_sheets.client.policy import longest_call
from profnet_sheets.client.shared_redis import open_redis
from profnet_sheets.client.wal import (
    create,
    damage_marked,
    damaged_cache,
    ensure_wal,
    mark_damaged,
    remove,
    set_aside,
)
from profnet_sheets.config import Settings, free_bytes, names_a_cache_file, not_a_cache
from profnet_sheets.errors import StoreError
from profnet_sheets.redact import masked_url
from profnet_sheets.words import command

LOG = logging.getLogger("profnet_sheets")
PURGE_EVERY = 86400.0  # seconds: opening a cache purges expired answers at most this often
PROBE_SECONDS = 60.0  # how long a probe entry (`trouble`) would live, were it not forgotten
PROBE_BYTES = 16_384  # a probe entry's body at least: larger than most answers
PROBE_ROOM = 8  # a SQLite cache's disk must have room for this many of the largest answers
FORMAT = "json1"  # in file and namespace names: a cache in another format is never read as this
REDACTED = "REDACTED"  # what a secret header reads in a stored answer (requests-cache's word)


def _failures() -> tuple[type[BaseException], ...]:
    """What a failing store raises: the file system's and SQLite's errors, Redis's."""
    found: list[type[BaseException]] = [OSError, sqlite3.Error]
    try:
        import redis

        found.append(redis.exceptions.RedisError)
    except ImportError:  # pragma: no cover - depends on the extra being installed
        pass
    return tuple(found)


@dataclass(frozen=True)
class Stored:
    """A cached answer as the client needs it: status, body text, headers, and until when
    it is fresh (unix time; None: for ever)."""

    status: int
    text: str
    headers: Mapping[str, str]
    expires: float | None


class AnswerStore:
    """One service's answers in requests-cache, and the claims of the processes sharing it.

    A SQLite cache is opened as many times as threads use it at the same moment: each
    requests-cache `SQLiteCache` over the file has its own connection and its own write
    transaction and is lent to one thread at a time, so a save is committed when it returns
    and threads never wait on each other's reads. (One backend shared between threads shares
    one transaction: a save made while another thread's write was open returned uncommitted.)
    The key and what is kept are the caller's: `account` and `policy` are taken for callers
    that still pass them.
    """

    def __init__(
        self,
        settings: Settings,
        service: str,
        account: str = "",
        policy: CachePolicy | None = None,
    ) -> None:
        self.settings = settings
        self.where = answers_place(settings, service)
        self.redis: Any = None
        self.failures = _failures()
        self.secret = _secret_headers(settings.profile.redacted_headers)
        self.largest = PROBE_BYTES  # the largest answer saved: what a probe must hold
        self.opened: list[Any] = []  # every SQLite backend opened, to close them all
        self.idle: queue.SimpleQueue[Any] = queue.SimpleQueue()  # those no thread holds
        self.cache: Any = self._backend(service)  # SQLiteCache, RedisCache or BaseCache
        self.claims = self._claims(service)
        if isinstance(self.where, Path):
            _convert_old_file(self.where.with_name(f"{service}-http.sqlite"), self.cache)
            self.idle.put(self.cache)
            if not settings.serves_stale:  # Excel keeps them
                self._purge_when_due(self.where)

    # -- opening ----------------------------------------------------------------------------

    def _backend(self, service: str) -> Any:
        from requests_cache.backends.base import BaseCache

        where = self.where
        if where == "memory":
            return BaseCache()
        if isinstance(where, Path):
            where.parent.mkdir(parents=True, exist_ok=True)
            if not where.exists():
                create(where)  # made whole at once: a file of 0 bytes is never one being made
            elif where.stat().st_size == 0:  # SQLite would take it as new: the answers lost
                raise damaged_cache(where, "it is empty: 0 bytes")
            elif (said := damage_marked(where)) is not None:  # found damaged by a run before
                raise damaged_cache(where, said)
            parts = foreign_parts(where)  # a user's database is never written in
            if parts is None:
                raise damaged_cache(
                    where,
                    "its tables cannot be read: damaged, locked by another program, or made by "
                    "a newer SQLite",
                )
            if parts:
                raise not_a_cache(where, parts, self.settings)
            ensure_wal(where)  # requests-cache's own switch fails when processes open at once
            return self._sqlite()
        from requests_cache.backends.redis import RedisCache

        # requests-cache saves with SETEX, which redis-py deprecates (a warning each save).
        warnings.filterwarnings(
            "ignore", message="Call to deprecated setex", category=DeprecationWarning
        )
        self.redis = open_redis(where, self.settings)  # PINGed: unreachable or refused raises
        return RedisCache(
            namespace=namespace(service),
            connection=self.redis,
            serializer=_json_serializer(),
            decode_content=True,
        )

    def _sqlite(self) -> Any:
        """One more requests-cache backend over the SQLite file: its own connection."""
        from requests_cache.backends.sqlite import SQLiteCache

        cache = SQLiteCache(
            self.where, serializer=_json_serializer(), decode_content=True, wal=True, timeout=30
        )
        self.opened.append(cache)
        return cache

    @contextmanager
    def _lent(self) -> Iterator[Any]:
        """A backend no other thread uses meanwhile: an idle SQLite one (or one more, when
        every one is at work); Redis's and memory's one, whose calls are atomic, to all."""
        if not isinstance(self.where, Path):
            yield self.cache
            return
        try:
            cache = self.idle.get_nowait()
        except queue.Empty:
            cache = self._sqlite()
        try:
            yield cache
        except BaseException:
            # Never used again: a statement that failed in a write (a damaged page) leaves its
            # connection in the transaction, and requests-cache's next write retries its
            # BEGIN on that connection without end.
            with contextlib.suppress(Exception):
                cache.close()
            with contextlib.suppress(ValueError):
                self.opened.remove(cache)
            raise
        self.idle.put(cache)

    def _claims(self, service: str) -> Claims:
        """Claims that every process sharing the cache sees: lock files beside a SQLite cache,
        keys in its Redis; none in memory. A claim lasts at most as long as a call can."""
        lease = longest_call(self.settings)
        if isinstance(self.where, Path):
            path = self.where.resolve()
            return FileClaims(path.parent / f".{path.stem}-claims.lock", lease, sleep=pause)
        if self.where == "memory":
            return NoClaims()
        return RedisClaims(self.redis, namespace(service), lease, sleep=pause)

    # -- reading and writing ----------------------------------------------------------------

    def get(self, key: CallKey, *, stale_ok: bool = False) -> Stored | None:
        """The answer stored under `key` while fresh (with `stale_ok`, also after), or None."""
        try:
            with self._lent() as cache:
                cached = cache.responses.get(key.digest)  # no redirect aliases: none written
        except self.failures as error:
            raise self._failure("read from", error) from None
        except Exception as error:  # an entry this version cannot read: a miss
            LOG.debug("cache entry %s unreadable: %s", key.digest, error)
            return None
        if cached is None or cached.status_code not in KEPT_STATUSES:
            return None
        if cached.is_expired and not stale_ok:
            return None
        expires = cached.expires.timestamp() if cached.expires is not None else None
        return Stored(cached.status_code, cached.text, cached.headers, expires)

    def save(self, key: CallKey, response: requests.Response, seconds: float) -> None:
        """Keep `response` under `key` for `seconds`, the key header and the profile's extra
        headers redacted; committed when it returns (StoreError when it was not)."""
        expires = datetime.now(UTC) + timedelta(seconds=seconds)
        self.largest = max(self.largest, len(response.content or b""))
        kept = self._redacted(response, expires)
        try:
            with self._lent() as cache:
                cache.responses[key.digest] = kept  # save_response would copy and redact again
                if isinstance(self.where, Path) and not _written(cache, key, expires):
                    raise sqlite3.OperationalError(_not_written(self.where))
        except self.failures as error:
            raise self._failure("write to", error) from None

    def trouble(self) -> str | None:
        """Why answers cannot be claimed, kept and read back now, or None when they can: a
        probe entry as large as the largest answer saved, forgotten after, and for a SQLite
        file a disk with room for several (PROBE_ROOM of them); nothing is paid (what lifts a
        stop for a cache that failed)."""
        from requests_cache.models.response import CachedResponse

        sqlite = isinstance(self.where, Path)
        said = damage_marked(Path(self.where)) if sqlite else None
        if said is not None:
            return (
                f"the cache at {self.described()} is damaged ({said}): "
                f"`{command('cache clear')}` sets it aside, kept, and starts it anew"
            )
        free = free_bytes(Path(self.where)) if sqlite else None
        if free is not None and free < PROBE_ROOM * self.largest:
            return (
                f"the cache at {self.described()} still has too little room: {free:,} bytes "
                f"free on its disk"
            )
        probe = CallKey("probe", "", "probe", secrets.token_hex(8))
        expires = datetime.now(UTC) + timedelta(seconds=PROBE_SECONDS)
        body = b'{"probe": "' + b"x" * self.largest + b'"}'
        failing: tuple[type[BaseException], ...] = (StoreError, *self.failures)
        try:
            with self.claim(probe), self._lent() as cache:
                cache.responses[probe.digest] = CachedResponse(
                    content=body,
                    status_code=204,
                    expires=expires,
                    headers=CaseInsensitiveDict({"Content-Type": "application/json"}),
                )
                kept = _written(cache, probe, expires) if sqlite else True
                kept = kept and cache.responses.get(probe.digest) is not None
                cache.delete(probe.digest)
        except failing as error:
            reason = (str(error).strip().splitlines() or [type(error).__name__])[0][:200]
            return f"the cache at {self.described()} still fails ({reason})"
        return None if kept else f"the cache at {self.described()} still keeps nothing"

    def _redacted(self, response: requests.Response, expires: datetime) -> Any:
        """`response` as requests-cache keeps it, the profile's secret headers (the key's, by
        their names in any case) and those requests-cache redacts reading REDACTED in the
        request and in the answer; new header dicts: the caller's response is left as it was."""
        from requests_cache.models.response import CachedResponse

        kept = CachedResponse.from_response(response, expires=expires)
        kept.request.headers = _masked(kept.request.headers, self.secret)
        kept.headers = _masked(kept.headers, self.secret)
        return kept

    @contextmanager
    def claim(self, key: CallKey) -> Iterator[Held]:
        """The claim on `key` across the processes sharing this store."""
        try:
            holding = self.claims.hold(key.digest)
            held = holding.__enter__()
        except self.failures as error:
            raise self._failure("claim a call in", error) from None
        try:
            yield held
        finally:
            with contextlib.suppress(*self.failures):
                holding.__exit__(None, None, None)

    def claimed_now(self, key: CallKey) -> bool:
        """Whether a live process (or thread) holds the claim on `key` now: its call is under
        way; False when the claims cannot tell."""
        try:
            return self.claims.held_now(key.digest)
        except self.failures:
            return False

    def _failure(self, what: str, error: BaseException) -> StoreError:
        reason = (str(error).strip().splitlines() or [type(error).__name__])[0][:200]
        damaged = isinstance(error, sqlite3.DatabaseError) and not isinstance(
            error, sqlite3.OperationalError
        )
        if damaged and isinstance(self.where, Path):  # `database disk image is malformed`
            mark_damaged(self.where, reason)  # the next runs refuse it, not pay again
            reason += (
                f"; the file is damaged: `{command('cache clear')}` sets it aside, kept, and "
                "starts it anew"
            )
        return StoreError(f"could not {what} the cache at {self.described()} ({reason})")

    def forget(self, key: CallKey) -> None:
        with self._lent() as cache:
            cache.delete(key.digest)

    def clear(self) -> None:
        """Forget every answer. A SQLite file whose tables cannot be emptied (damaged) is
        DamagedFile: set aside by `cache clear`, never deleted (requests-cache's own `clear`
        deletes the file then)."""
        with self._whole_file(), self._lent() as cache:
            if isinstance(self.where, Path):
                cache.responses.clear()
                cache.redirects.clear()
            else:
                cache.clear()

    def purge(self) -> int:
        """Remove every expired answer; how many were removed."""
        with self._whole_file(), self._lent() as cache:
            before = len(cache.responses)
            cache.delete(expired=True)
            return max(0, before - len(cache.responses))

    @contextmanager
    def _whole_file(self) -> Iterator[None]:
        """Around a read or write of the whole SQLite file: a damaged one (SQLite's
        `database disk image is malformed`) raised as DamagedFile, which `cache clear` mends."""
        try:
            yield
        except sqlite3.DatabaseError as error:
            if isinstance(error, sqlite3.OperationalError) or not isinstance(self.where, Path):
                raise
            mark_damaged(self.where, str(error))
            raise damaged_cache(self.where, str(error)) from None

    def _purge_when_due(self, path: Path) -> None:
        """Purge expired answers when the last purge of this file is a day old or more."""
        stamp = path.with_name(f".{path.name}.purged")
        try:
            due = time.time() - stamp.stat().st_mtime >= PURGE_EVERY
        except FileNotFoundError:
            due = True
        if not due:
            return
        with contextlib.suppress(OSError), self._whole_file():
            stamp.touch()
            self.cache.delete(expired=True, vacuum=False)

    def info(self) -> dict[str, Any]:
        """Where answers are kept, how many, how many expired, and the size on disk."""
        with self._whole_file(), self._lent() as cache:
            responses = cache.responses
            entries = len(responses)
            if isinstance(self.where, Path):
                fresh = cache.count(expired=False)
                size: int | None = responses.size()
            else:
                fresh = sum(1 for _ in cache.filter(valid=True, expired=False))
                size = None
        return {
            "cache": self.described(),
            "answers": entries,
            "expired": entries - fresh,
            "size": size,
        }

    def described(self) -> str:
        """Where answers are kept, as a user can find it (a Redis URL without its password)."""
        if isinstance(self.where, Path):
            return str(self.where)
        if self.where == "memory":
            return "memory (this process only)"
        return str(masked_url(self.where))

    def close(self) -> None:
        for cache in self.opened or [self.cache]:
            cache.close()


def _json_serializer() -> Any:
    """requests-cache's JSON serializer without its indentation: the same JSON in one line,
    which the standard library writes in C (indented, it is written in Python, ~2 ms a save)."""
    from requests_cache.serializers import SerializerPipeline, Stage
    from requests_cache.serializers.preconf import json_preconf_stage

    return SerializerPipeline(
        [json_preconf_stage, Stage(dumps=json.dumps, loads=json.loads)],
        name="json",
        is_binary=False,
    )


def _secret_headers(profile_headers: tuple[str, ...]) -> set[str]:
    """The names (lower case) of the headers kept as REDACTED: the profile's, and those
    requests-cache's own `save_response` redacts (the store writes its rows directly)."""
    from requests_cache import DEFAULT_IGNORED_PARAMS

    return {name.lower() for name in (*profile_headers, *DEFAULT_IGNORED_PARAMS)}


def _masked(headers: Mapping[str, str], secret: set[str]) -> CaseInsensitiveDict[str]:
    """`headers` with the value of each one named in `secret` (lower case) REDACTED."""
    return CaseInsensitiveDict(
        {name: REDACTED if name.lower() in secret else value for name, value in headers.items()}
    )


def _written(cache: Any, key: CallKey, expires: datetime) -> bool:
    """Whether the SQLite file holds `key` until `expires` now. requests-cache's SQLite
    backend rolls a write back without raising when its commit fails (a full disk, a file
    that may not grow): only reading the row's expiry back tells (a key lookup, no body)."""
    responses = cache.responses
    with responses.connection() as connection:
        row = connection.execute(
            f"SELECT expires FROM {responses.table_name} WHERE key = ?", (key.digest,)
        ).fetchone()
    return row is not None and row[0] is not None and row[0] >= int(expires.timestamp())


def _not_written(where: Path) -> str:
    """Why a save SQLite rolled back did not happen, as far as the file system tells."""
    try:
        free = shutil.disk_usage(where.parent).free
    except OSError:
        return "the answer was not written: SQLite rolled it back"
    return f"the answer was not written: SQLite rolled it back, {free:,} bytes free on its disk"


def namespace(service: str) -> str:
    """The prefix of this service's keys in a shared Redis."""
    return f"profnet:{FORMAT}:{service}"


def answers_place(settings: Settings, service: str) -> Path | str:
    """The SQLite file, "memory", or the Redis URL that `settings` name."""
    where = settings.cache or ""
    if where in ("memory", "off"):
        return "memory"
    if where.startswith(("redis://", "rediss://", "unix://")):
        return where
    if where:  # a place named: a SQLite file, or a folder its file is made in
        path = Path(where).expanduser().absolute()  # said as the folder it is made in
        return path if names_a_cache_file(path) else path / f"{service}-answers.sqlite"
    return settings.cache_dir / f"{service}-answers.sqlite"  # a folder, whatever its name


def _an_earlier_cache(path: Path) -> bool:
    """Whether `path` is a cache file of an earlier version: a SQLite file holding its
    `responses` table and nothing a cache does not make (anything else is not ours to read
    into the cache, nor to delete)."""
    if not path.is_file() or holds_other_data(path) or foreign_parts(path) != []:
        return False
    uri = f"{path.resolve().as_uri()}?mode=ro"
    try:
        with contextlib.closing(sqlite3.connect(uri, uri=True, timeout=1)) as db:
            found = db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'responses'"
            ).fetchone()
    except sqlite3.Error:
        return False
    return found is not None


def _convert_old_file(old: Path, cache: Any) -> None:
    """Answers in a cache file of an earlier version (requests-cache's default serializer,
    never used again) are read once into `cache`, and the old file removed; a file that cannot
    be read is set aside under another name. Either way, one line says what happened."""
    if not _an_earlier_cache(old):  # none, or a user's file of that name: left alone
        return
    from requests_cache.backends.sqlite import SQLiteCache

    try:
        earlier = SQLiteCache(old, wal=True, timeout=30)
        moved = 0
        for key in list(earlier.responses.keys()):
            with contextlib.suppress(Exception):  # one unreadable answer: the others move
                cache.responses[key] = earlier.responses[key]
                moved += 1
        earlier.close()  # type: ignore[no-untyped-call]
    except Exception as error:
        aside = None
        with contextlib.suppress(OSError):
            aside = set_aside(old)
        if aside is None:  # gone meanwhile, or not ours to rename
            return
        print(
            f"profnet-sheets: the cache file {old} of an earlier version could not be read "
            f"({type(error).__name__}); it is set aside as {aside.name}.",
            file=sys.stderr,
        )
        return
    remove(old)  # with its -wal and -shm
    print(
        f"profnet-sheets: {moved} cached answers of an earlier version moved to {cache.db_path}.",
        file=sys.stderr,
    )
