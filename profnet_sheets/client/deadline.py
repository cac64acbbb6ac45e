"""A call's total deadline: at the deadline the connection of an attempt is shut, whatever the
server still sends (one byte at a time, or a body that never ends). requests' timeout bounds
each read; this bounds the whole attempt."""

from __future__ import annotations

import contextlib
import heapq
import itertools
import socket
import threading
import time
from types import TracebackType
from typing import Any

from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.poolmanager import PoolManager, ProxyManager

_CURRENT = threading.local()  # the Deadline of the attempt this thread is making


class Deadline:
    """The deadline of one attempt (a context entered on the thread that makes it): when it
    passes, the attempt's connection is shut (its reads end at once) and `expired` is True."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.expired = False
        self._lock = threading.Lock()
        self._done = False
        self._connection: HTTPConnection | None = None

    def __enter__(self) -> Deadline:
        _CURRENT.deadline = self
        _WATCHDOG.watch(self, time.monotonic() + self.seconds)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        with self._lock:
            self._done = True
            self._connection = None
        _CURRENT.deadline = None

    @property
    def done(self) -> bool:
        return self._done

    def watch(self, connection: HTTPConnection) -> None:
        """The connection this attempt uses (shut now if the deadline passed already)."""
        with self._lock:
            self._connection = connection
            late = self.expired and not self._done
        if late:
            _shut(connection)

    def expire(self) -> None:
        """The deadline has passed: the attempt's connection is shut, if it is still on."""
        with self._lock:
            if self._done:
                return
            self.expired = True
            connection = self._connection
        if connection is not None:
            _shut(connection)


class _Watchdog:
    """One thread for every deadline of the process (not a timer thread per attempt): it
    sleeps until the nearest one and expires those that passed; finished ones are dropped
    when their time comes."""

    def __init__(self) -> None:
        self._due: list[tuple[float, int, Deadline]] = []
        self._order = itertools.count()
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def watch(self, deadline: Deadline, when: float) -> None:
        with self._changed:
            heapq.heappush(self._due, (when, next(self._order), deadline))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="profnet-deadlines", daemon=True
                )
                self._thread.start()
            elif self._due[0][2] is deadline:  # the nearest now: wake up earlier
                self._changed.notify()

    def _run(self) -> None:
        with self._changed:
            while True:
                while self._due and self._due[0][2].done:
                    heapq.heappop(self._due)
                if not self._due:
                    self._changed.wait()
                    continue
                when, _, deadline = self._due[0]
                wait = when - time.monotonic()
                if wait > 0:
                    self._changed.wait(wait)
                    continue
                heapq.heappop(self._due)
                deadline.expire()  # never blocks: a lock held for an assignment, a shutdown


_WATCHDOG = _Watchdog()


def _shut(connection: HTTPConnection) -> None:
    """End every read and write on the connection's socket (a blocked read returns)."""
    sock = connection.sock
    if sock is not None:
        with contextlib.suppress(OSError):  # closed already
            sock.shutdown(socket.SHUT_RDWR)


def _watched() -> Deadline | None:
    deadline: Deadline | None = getattr(_CURRENT, "deadline", None)
    return deadline


class _WatchedHTTP(HTTPConnection):
    """A connection that the deadline of the attempt using it can shut."""

    def connect(self) -> None:
        super().connect()
        if (deadline := _watched()) is not None:
            deadline.watch(self)

    def request(self, *args: Any, **kwargs: Any) -> None:
        if (deadline := _watched()) is not None:
            deadline.watch(self)
        super().request(*args, **kwargs)


class _WatchedHTTPS(_WatchedHTTP, HTTPSConnection):
    """The same, over TLS."""


class _HTTPPool(HTTPConnectionPool):
    ConnectionCls = _WatchedHTTP


class _HTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _WatchedHTTPS


_WATCHED_POOLS = {"http": _HTTPPool, "https": _HTTPSPool}


class DeadlineAdapter(HTTPAdapter):
    """requests' adapter whose connections (direct, or through an HTTP proxy) a `Deadline`
    can shut."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = _WATCHED_POOLS

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> PoolManager:
        manager: PoolManager = super().proxy_manager_for(proxy, **proxy_kwargs)
        if type(manager) is ProxyManager:  # a SOCKS proxy's pools are its own
            manager.pool_classes_by_scheme = _WATCHED_POOLS
        return manager
