"""Paid work on a thread of its own, so that Ctrl-C ends it the way a run ends: nothing more
sent, the call under way finished and kept."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_for
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from profnet_sheets.client.pace import Pace

T = TypeVar("T")


class Finished(KeyboardInterrupt, Generic[T]):
    """Ctrl-C (SIGTERM, SIGHUP) came while the work ran; it has finished since: `result()` is
    what it returned, or raises what it raised."""

    def __init__(self, future: Future[T]) -> None:
        super().__init__()
        self.future = future

    def result(self) -> T:
        return self.future.result()


# How often a thread waiting for a worker looks for a signal: the kernel may hand Ctrl-C to
# any thread, and Python runs its handler only on the main one once it runs code again.
SIGNAL_LOOK_S = 0.1


def result_of(future: Future[T]) -> T:
    """What `future` returns (or raises), waited for so that Ctrl-C is seen at once."""
    while True:
        try:
            return future.result(timeout=SIGNAL_LOOK_S)
        except TimeoutError:
            continue


def finishing(pace: Pace, work: Callable[[], T]) -> T:
    """What `work` returns, run on a thread of its own under `pace`. A KeyboardInterrupt here
    stops it sending (a call of it waiting for its turn gives up: Stopped, nothing sent), lets
    its call under way finish (another Ctrl-C changes nothing), then raises Finished."""
    stop = threading.Event()

    def run() -> T:
        with pace.stop_waiting_when(stop):
            return work()

    pool = ThreadPoolExecutor(1, thread_name_prefix="profnet-finishing")
    try:
        future = pool.submit(run)
        try:
            return result_of(future)
        except KeyboardInterrupt as interrupt:
            if future.done() and not future.cancelled() and future.exception() is interrupt:
                raise  # the work itself was stopped (a Stopped of its own): not ours to wait
            stop.set()
            pace.wake()
            while not future.done():
                try:
                    wait_for([future])
                except KeyboardInterrupt:
                    continue  # stopping already: what is under way finishes
            raise Finished(future) from None
    finally:
        pool.shutdown(wait=False)
