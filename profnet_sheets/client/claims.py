"""Claims on a call across processes: one process pays for it, the others wait for its answer.

Within a process, per-key locks (memo.PROCESS_LOCKS) merge identical calls. Processes sharing
one cache (Excel and a notebook on one SQLite file, a team on one Redis) need more: a claim
that the other processes see. The client claims a call only after the cache missed, then asks
the cache again under the claim, so a process that waited finds the answer and pays nothing.

- `FileClaims`: an OS file lock (flock, or msvcrt on Windows) on one of 4096 lock files beside
  the SQLite cache. The operating system releases it when its process dies, however it dies.
- `RedisClaims`: `SET NX PX` with a lease, released by its owner only.
- `NoClaims`: for a cache in memory, which no other process shares.

A claim is never waited for longer than its lease: a hung holder delays the others, it does
not block them for ever.
"""

from __future__ import annotations

import os
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

STRIPES = 4096  # lock files: two different calls rarely share one
_FIRST_WAIT = 0.002
_LONGEST_WAIT = 0.05


class Claims(Protocol):
    """Claims on calls, by cache key."""

    def hold(self, key: str) -> Any:
        """A context manager: the claim on `key` while inside (waiting for it if need be)."""


class NoClaims:
    """No other process shares the cache: nothing to claim."""

    @contextmanager
    def hold(self, key: str) -> Iterator[None]:
        yield


def _waits(lease: float) -> Iterator[float]:
    """Pauses between attempts (growing to _LONGEST_WAIT) until `lease` seconds have passed."""
    deadline = time.monotonic() + lease
    pause = _FIRST_WAIT
    while time.monotonic() < deadline:
        yield pause
        pause = min(pause * 2, _LONGEST_WAIT)


if sys.platform == "win32":  # pragma: no cover - Windows (Excel's home); the same contract as flock
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


class FileClaims:
    """Claims as OS file locks in `directory`: released by the OS if their process dies."""

    def __init__(self, directory: Path, lease: float) -> None:
        self.directory = directory
        self.lease = lease
        directory.mkdir(parents=True, exist_ok=True)

    def path(self, key: str) -> Path:
        return self.directory / f"{int(key[:8], 16) % STRIPES:03x}.lock"

    @contextmanager
    def hold(self, key: str) -> Iterator[None]:
        fd = os.open(self.path(key), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            locked = _try_lock(fd)
            for pause in _waits(self.lease) if not locked else ():
                time.sleep(pause)
                if locked := _try_lock(fd):
                    break
            try:
                yield
            finally:
                if locked:
                    _unlock(fd)
        finally:
            os.close(fd)


# Deletes the claim only if it is still ours (it may have expired and been taken over).
_RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end"


class RedisClaims:
    """Claims as Redis keys with a lease (`SET NX PX`): a dead holder's claim expires."""

    def __init__(self, connection: Any, namespace: str, lease: float) -> None:
        self.connection = connection
        self.namespace = namespace
        self.lease = lease
        self._release = connection.register_script(_RELEASE)

    @contextmanager
    def hold(self, key: str) -> Iterator[None]:
        name, owner = f"{self.namespace}:claim:{key}", uuid.uuid4().hex
        lease_ms = max(1, int(self.lease * 1000))
        claimed = bool(self.connection.set(name, owner, nx=True, px=lease_ms))
        for pause in _waits(self.lease) if not claimed else ():
            time.sleep(pause)
            if claimed := bool(self.connection.set(name, owner, nx=True, px=lease_ms)):
                break
        try:
            yield
        finally:
            if claimed:
                self._release(keys=[name], args=[owner])
