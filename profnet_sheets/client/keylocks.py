"""Per-key locks, made on demand and dropped when free: identical calls wait, others never do."""

from __future__ import annotations

import os
import threading
from collections.abc import Hashable, Iterator
from contextlib import contextmanager


class _Slot:
    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.users = 0  # threads holding or waiting for `lock`


class KeyLocks:
    """One lock per key, for as long as a thread holds or waits for it.

    Striped locks (a fixed array indexed by a hash) make unrelated calls wait for each other
    whenever two keys share a stripe: with 16 calls in flight over 1,024 stripes, ~1.5% of
    calls waited a whole round trip for a call they had nothing to do with. Here only equal
    keys share a lock. requests-cache does not merge concurrent identical misses; without
    this, a thread pool asking for one company twice at once would pay twice.
    """

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._slots: dict[Hashable, _Slot] = {}

    def acquire(self, key: Hashable, timeout: float = -1) -> bool:
        """Take `key`'s lock, waiting at most `timeout` seconds (-1: as long as it takes)."""
        with self._guard:
            slot = self._slots.get(key)
            if slot is None:
                slot = self._slots[key] = _Slot()
            slot.users += 1
        try:
            if slot.lock.acquire(timeout=timeout):
                return True
        except BaseException:  # interrupted while waiting (Ctrl-C in a notebook)
            self._leave(key, slot)
            raise
        self._leave(key, slot)
        return False

    def release(self, key: Hashable) -> None:
        """Free `key`'s lock (held by this thread); the lock is dropped once nobody waits."""
        slot = self._slots[key]
        slot.lock.release()
        self._leave(key, slot)

    def _leave(self, key: Hashable, slot: _Slot) -> None:
        with self._guard:
            slot.users -= 1
            if not slot.users:
                del self._slots[key]

    @contextmanager
    def __call__(self, key: Hashable) -> Iterator[None]:
        """Hold `key`'s lock for the block."""
        self.acquire(key)
        try:
            yield
        finally:
            self.release(key)

    def users(self, key: Hashable) -> int:
        """Threads holding or waiting for `key`'s lock now."""
        with self._guard:
            slot = self._slots.get(key)
            return 0 if slot is None else slot.users

    def __len__(self) -> int:
        """Keys held or waited for now."""
        return len(self._slots)

    def reset(self) -> None:
        """No lock held: a forked child inherits locks held by threads it does not have."""
        self._guard = threading.Lock()
        self._slots = {}


# One table for the whole process: two clients on one cache (Excel and a notebook kernel share a
# process at times) must not pay twice for one call either.
PROCESS_LOCKS = KeyLocks()
if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(after_in_child=PROCESS_LOCKS.reset)
