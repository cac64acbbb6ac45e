"""The fast layer in front of the HTTP cache: answers kept in memory."""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
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

    def forget(self, key: MemoKey) -> None:
        with self._lock:
            self._entries.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
