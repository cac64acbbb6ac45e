"""The fast layer in front of the HTTP cache: answers kept in memory, and one lock per key."""

from __future__ import annotations

import json
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

MemoKey = tuple[str, str, str]  # (service, endpoint, canonical parameters)


def canonical_json(params: dict[str, Any]) -> str:
    """One text per set of parameters, whatever the order they were given in."""
    return json.dumps(params, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class Memo:
    """An answer as kept: its body as JSON text (each hit parses a fresh copy), its status."""

    status: int
    text: str
    expires: float

    def body(self) -> Any:
        return json.loads(self.text)


class MemoCache:
    """A bounded, expiring, thread-safe map from call keys to answers. A hit costs microseconds.

    A requests-cache hit costs ~0.6 ms (request preparation and key hashing): too slow for Excel
    recalculating thousands of cells. This layer answers repeats before any of that happens.
    """

    def __init__(self, max_entries: int = 100_000) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[MemoKey, Memo] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: MemoKey, stale_ok: bool = False) -> Memo | None:
        """The answer kept for `key` while fresh (with `stale_ok`, also after), or None."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        if entry.expires < time.monotonic() and not stale_ok:
            with self._lock:
                self._entries.pop(key, None)
            return None
        return entry

    def put(self, key: MemoKey, status: int, text: str, ttl: float, stale_ok: bool = False) -> None:
        """Keep an answer for `ttl` seconds (an already stale one only for `stale_ok` readers)."""
        if ttl <= 0 and not stale_ok:
            return
        with self._lock:
            self._entries[key] = Memo(status, text, time.monotonic() + ttl)
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


class KeyLocks:
    """Striped locks: identical calls wait for each other (and then hit the cache), others don't.

    requests-cache does not merge concurrent identical misses; without this, a thread pool
    asking for one company twice at once would pay twice.
    """

    def __init__(self, stripes: int = 1024) -> None:
        self._locks = [threading.Lock() for _ in range(stripes)]

    def __call__(self, key: Hashable) -> threading.Lock:
        return self._locks[hash(key) % len(self._locks)]

    def reset(self) -> None:
        """New, free locks: a forked child inherits them as held by threads it does not have."""
        self._locks = [threading.Lock() for _ in self._locks]


# One set for the whole process: two clients on one cache (Excel and a notebook kernel share a
# process at times) must not pay twice for one call either.
PROCESS_LOCKS = KeyLocks()
if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(after_in_child=PROCESS_LOCKS.reset)
