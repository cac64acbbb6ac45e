"""The one in-process memo in front of the store: answers by call key, in microseconds."""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

from profnet_sheets.client.keys import CallKey


class Memo:
    """An answer as kept: its status, until when, and its body parsed once (`shared`: for
    readers that never change it); `body()` gives each caller a fresh copy (from JSON text
    made on the first such call)."""

    __slots__ = ("_text", "expires", "shared", "status")

    def __init__(self, status: int, expires: float, shared: Any) -> None:
        self.status, self.expires, self.shared = status, expires, shared
        self._text: str | None = None

    def body(self) -> Any:
        if self._text is None:
            self._text = json.dumps(self.shared)
        return json.loads(self._text)


class MemoCache:
    """A bounded, expiring, thread-safe map from call keys to answers. A hit costs microseconds.

    A store read costs a tenth of a millisecond or more (a row read and deserialised): too slow
    for Excel recalculating thousands of cells. Raw arguments as a formula hands them over can
    be aliased to their key, so that a warm repeat skips normalisation too.
    """

    def __init__(self, max_entries: int = 100_000) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[CallKey, Memo] = OrderedDict()
        self._aliases: dict[Hashable, CallKey] = {}
        self._lock = threading.Lock()

    def get(self, key: CallKey, stale_ok: bool = False) -> Memo | None:
        """The answer kept for `key` while fresh (with `stale_ok`, also after), or None."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        if entry.expires < time.monotonic() and not stale_ok:
            with self._lock:
                self._entries.pop(key, None)
            return None
        return entry

    def get_alias(self, raw: Hashable, stale_ok: bool = False) -> Memo | None:
        """The answer kept for the call that raw arguments `raw` make, or None."""
        key = self._aliases.get(raw)
        return None if key is None else self.get(key, stale_ok)

    def alias(self, raw: Hashable, key: CallKey) -> None:
        """Remember that raw arguments `raw` make the call `key`."""
        if len(self._aliases) >= 2 * self.max_entries:
            self._aliases.clear()
        self._aliases[raw] = key

    def put(self, key: CallKey, status: int, body: Any, ttl: float, stale_ok: bool = False) -> None:
        """Keep an answer for `ttl` seconds (an already stale one only for `stale_ok` readers)."""
        if ttl <= 0 and not stale_ok:
            return
        memo = Memo(status, time.monotonic() + ttl, body)
        with self._lock:
            self._entries[key] = memo
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def forget(self, key: CallKey) -> None:
        with self._lock:
            self._entries.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._aliases.clear()

    def __len__(self) -> int:
        return len(self._entries)
