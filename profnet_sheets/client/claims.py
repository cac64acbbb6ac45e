"""Claims on a call across processes: one process pays for it, the others wait for its answer.

Within a process, per-key locks (keylocks.PROCESS_LOCKS) merge identical calls. Processes sharing
one cache (Excel and a notebook on one SQLite file, a team on one Redis) need more: a claim
that the other processes see. The client claims a call only after the cache missed, then asks
the cache again under the claim, so a process that waited finds the answer and pays nothing.

- `FileClaims`: an OS byte-range lock (lockf, or msvcrt on Windows) on one byte of a lock
  file beside the SQLite cache. The operating system releases it when its process dies,
  however it dies.
- `RedisClaims`: `SET NX PX` with a short lease that a heartbeat renews while its holder lives
  (a dead holder's claim is free within 30 s), released by its owner only.
- `NoClaims`: for a cache in memory, which no other process shares.

A claim is waited for at most its lease (as long as a call can take, retries and their waits
included). A waiter never pays without the claim: when the lease runs out while another
holder is still at work (hung), it gives up with a TransportError and nothing is sent. A file
system without locks (some network drives) turns file claims off, once, with a warning.

Waiting reads the time from a `clock` and pauses with a `sleep`, both given (the real ones by
default), so that tests drive the waits with a fake clock instead of letting time pass.
"""

from __future__ import annotations

import errno
import logging
import os
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, ClassVar, Protocol

from profnet_sheets.client.keylocks import KeyLocks
from profnet_sheets.errors import TransportError

STRIPES = 1 << 20  # bytes of the lock file: two different calls practically never share one
_FIRST_WAIT = 0.002
_LONGEST_WAIT = 0.05


class Held(Protocol):
    """A claim held: asked, just before its call is sent, whether it is still this process's."""

    def still_ours(self) -> bool: ...


class Claims(Protocol):
    """Claims on calls, by cache key."""

    def hold(self, key: str) -> AbstractContextManager[Held]:
        """The claim on `key` while inside (waiting for it if need be)."""

    def held_now(self, key: str) -> bool:
        """Whether a claimant (another process, or another thread) holds `key` now: a live
        one for lock files; for Redis, possibly one that died within the claim's ttl. A
        hint for words only (a quote's): the call itself asks again under its claim.
        Nothing is held after."""


class Kept:
    """A claim that cannot be lost while held (none needed, or an OS lock of this process)."""

    def still_ours(self) -> bool:
        return True


KEPT = Kept()


class NoClaims:
    """No other process shares the cache: nothing to claim."""

    @contextmanager
    def hold(self, key: str) -> Iterator[Held]:
        yield KEPT

    def held_now(self, key: str) -> bool:
        return False  # answers kept in memory: no other process's claim to see


Clock = Callable[[], float]
Sleep = Callable[[float], object]


def _waits(deadline: float, clock: Clock) -> Iterator[float]:
    """Pauses between attempts (growing to _LONGEST_WAIT) until `clock` reaches `deadline`."""
    pause = _FIRST_WAIT
    while clock() < deadline:
        yield pause
        pause = min(pause * 2, _LONGEST_WAIT)


def _until(attempt: Callable[[], bool], deadline: float, clock: Clock, sleep: Sleep) -> bool:
    """Try `attempt` now, then after each pause until `deadline`: whether it ever succeeded."""
    if attempt():
        return True
    for pause in _waits(deadline, clock):
        sleep(pause)
        if attempt():
            return True
    return False


LOG = logging.getLogger("profnet_sheets")


class _LockingUnsupportedError(OSError):
    """The file system of the lock file does not lock (ENOLCK, ENOSYS, ...)."""


def _waited_too_long(lease: float) -> TransportError:
    return TransportError(
        f"another process (or thread) has been fetching this same call for {lease:.0f} s; "
        "nothing was sent, so that it is not paid twice. Try again later."
    )


if sys.platform == "win32":  # pragma: no cover - Windows (Excel's home); the same contract
    import msvcrt

    _SEEK = threading.Lock()  # msvcrt locks at the file position: seek and lock together

    def _try_lock(fd: int, offset: int) -> bool:
        with _SEEK:
            os.lseek(fd, offset, os.SEEK_SET)
            try:
                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            except OSError as error:
                if error.errno in (errno.EACCES, errno.EDEADLK):
                    return False
                raise _LockingUnsupportedError(str(error)) from None
        return True

    def _unlock(fd: int, offset: int) -> None:
        with _SEEK:
            os.lseek(fd, offset, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int, offset: int) -> bool:
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, offset, os.SEEK_SET)
        except OSError as error:
            if error.errno in (errno.EAGAIN, errno.EACCES):  # held by another process
                return False
            raise _LockingUnsupportedError(str(error)) from None
        return True

    def _unlock(fd: int, offset: int) -> None:
        fcntl.lockf(fd, fcntl.LOCK_UN, 1, offset, os.SEEK_SET)


class _LockFile:
    """One open lock file per process and path: a POSIX record lock goes when ANY descriptor
    of its file is closed by the process, so the descriptor is opened once and never closed
    (and the file is hidden, so that nobody opens it by chance)."""

    _open: ClassVar[dict[Path, _LockFile]] = {}
    _opening: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        self.threads = KeyLocks()  # one claimant per stripe within this process
        self.works = True  # False once the file system said it cannot lock

    @classmethod
    def forget_after_fork(cls) -> None:
        """A forked child holds none of its parent's record locks, nor its thread locks."""
        cls._open = {}
        cls._opening = threading.Lock()

    @classmethod
    def of(cls, path: Path) -> _LockFile:
        with cls._opening:
            found = cls._open.get(path)
            if found is None:
                found = cls._open[path] = cls(path)
            return found


if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(after_in_child=_LockFile.forget_after_fork)


class FileClaims:
    """Claims as byte-range locks on one file: released by the OS if their process dies.

    Each call's claim is one byte of the file (of STRIPES); within a process, threads take
    turns per stripe first (the OS lock belongs to the process, not to a thread).
    """

    def __init__(
        self, path: Path, lease: float, clock: Clock = time.monotonic, sleep: Sleep = time.sleep
    ) -> None:
        self.path = path
        self.lease = lease
        self._clock = clock
        self._sleep = sleep
        self._resolved = path.resolve()
        _LockFile.of(self._resolved)  # opened now: a folder that cannot be made fails here

    @property
    def _file(self) -> _LockFile:
        return _LockFile.of(self._resolved)  # looked up each time: a forked child reopens it

    @staticmethod
    def stripe(key: str) -> int:
        return int(key[:8], 16) % STRIPES

    @contextmanager
    def hold(self, key: str) -> Iterator[Held]:
        stripe = self.stripe(key)
        deadline = self._clock() + self.lease
        turns = self._file.threads
        if not _until(lambda: turns.acquire(stripe, timeout=0), deadline, self._clock, self._sleep):
            raise _waited_too_long(self.lease)
        try:
            locked = self._lock(stripe, deadline)
            try:
                yield KEPT
            finally:
                if locked:
                    _unlock(self._file.fd, stripe)
        finally:
            turns.release(stripe)

    def held_now(self, key: str) -> bool:
        stripe = self.stripe(key)
        turns = self._file.threads
        if not turns.acquire(stripe, timeout=0):  # a thread of this process holds it
            return True
        try:
            if not self._file.works:
                return False
            fd = self._file.fd
            try:
                free = _try_lock(fd, stripe)
            except _LockingUnsupportedError:
                return False
            if free:
                _unlock(fd, stripe)
            return not free
        finally:
            turns.release(stripe)

    def _lock(self, stripe: int, deadline: float) -> bool:
        """Take the OS lock of `stripe` (False: this file system cannot lock)."""
        if not self._file.works:
            return False
        fd = self._file.fd
        try:
            if _until(lambda: _try_lock(fd, stripe), deadline, self._clock, self._sleep):
                return True
        except _LockingUnsupportedError as error:
            self._file.works = False
            LOG.warning(
                "the file system of %s cannot lock files (%s): processes sharing this cache "
                "may pay twice for a call they make at the same moment",
                self.path,
                error,
            )
            return False
        raise _waited_too_long(self.lease)


# Deletes the claim only if it is still ours (it may have expired and been taken over).
_RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end"
# Extends the claim only if it is still ours.
_RENEW = (
    "if redis.call('get', KEYS[1]) == ARGV[1] then "
    "return redis.call('pexpire', KEYS[1], ARGV[2]) end"
)
_SAY_AFTER = 5.0  # seconds of waiting on another holder before saying so


class RedisClaims:
    """Claims as Redis keys (`SET NX PX`) that live `ttl` seconds unless their holder renews
    them: a heartbeat renews every claim this process holds, so a claim of a process that died
    is free within `ttl` (not after the longest call), and a live call keeps its claim however
    long it takes. A waiter waits at most `patience` (the longest a call can take).

    The heartbeat keeps real time whatever `clock` is given: it paces Redis's own expiry, which
    no clock in this process moves (`renew_held` is one beat)."""

    ttl: ClassVar[float] = 30.0

    def __init__(
        self,
        connection: Any,
        namespace: str,
        patience: float,
        clock: Clock = time.monotonic,
        sleep: Sleep = time.sleep,
    ) -> None:
        self.connection = connection
        self.namespace = namespace
        self.lease = patience
        self._clock = clock
        self._sleep = sleep
        self._release = connection.register_script(_RELEASE)
        self._renew = connection.register_script(_RENEW)
        self._held: dict[str, str] = {}
        self._guard = threading.Lock()
        self._beating: threading.Thread | None = None

    @contextmanager
    def hold(self, key: str) -> Iterator[Held]:
        name, owner = f"{self.namespace}:claim:{key}", uuid.uuid4().hex
        ttl_ms = self._ttl_ms
        started, said = self._clock(), False

        def claim() -> bool:
            nonlocal said
            if self.connection.set(name, owner, nx=True, px=ttl_ms):
                return True
            if not said and self._clock() - started > _SAY_AFTER:
                said = True
                LOG.warning(
                    "waiting for another process that is fetching the same call (%s); a "
                    "process that died frees it within %.0f s",
                    key[:12],
                    self.ttl,
                )
            return False

        if not _until(claim, started + self.lease * 1.1, self._clock, self._sleep):
            raise _waited_too_long(self.lease)
        self._keep_alive(name, owner)
        try:
            yield _RedisHeld(self, name, owner)
        finally:
            with self._guard:
                self._held.pop(name, None)
            self._release(keys=[name], args=[owner])

    def held_now(self, key: str) -> bool:
        return bool(self.connection.exists(f"{self.namespace}:claim:{key}"))

    def _keep_alive(self, name: str, owner: str) -> None:
        with self._guard:
            self._held[name] = owner
            if self._beating is None or not self._beating.is_alive():
                self._beating = threading.Thread(
                    target=self._heartbeat, name="profnet-claims", daemon=True
                )
                self._beating.start()

    def _heartbeat(self) -> None:
        """Renew every held claim a few times per `ttl`, for as long as the process lives."""
        while True:
            time.sleep(self.ttl / 3)
            self.renew_held()

    def renew_held(self) -> None:
        """One beat: every claim this process holds lives `ttl` seconds from now, renewed in
        one round trip (one by one, a busy Redis pool let claims lapse before their turn)."""
        with self._guard:
            held = list(self._held.items())
        if not held:
            return
        try:
            beat = self.connection.pipeline(transaction=False)
            for name, owner in held:
                self._renew(keys=[name], args=[owner, self._ttl_ms], client=beat)
            beat.execute()
        except Exception as error:  # Redis gone: the call's own save will say so
            LOG.debug("%d claims not renewed: %s", len(held), error)

    def renewed(self, name: str, owner: str) -> bool:
        """Whether the claim `name` is still `owner`'s, renewed for `ttl` if it is (False also
        when Redis cannot say: a call is never sent on a claim that may be another's)."""
        try:
            return bool(self._renew(keys=[name], args=[owner, self._ttl_ms]))
        except Exception as error:
            LOG.debug("claim %s not confirmed: %s", name, error)
            return False

    @property
    def _ttl_ms(self) -> int:
        return max(1, int(self.ttl * 1000))


class _RedisHeld:
    """A Redis claim held: still ours when its owner's token is still the key's value."""

    def __init__(self, claims: RedisClaims, name: str, owner: str) -> None:
        self._claims, self._name, self._owner = claims, name, owner

    def still_ours(self) -> bool:
        return self._claims.renewed(self._name, self._owner)
