"""Per-key locks: equal keys wait for each other, different keys never do, nothing piles up."""

from __future__ import annotations

import threading
import time

from profnet_sheets.client.keylocks import KeyLocks


class _SameHash:
    """Keys that all hash alike: a striped table would make them share one lock."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __hash__(self) -> int:
        return 7

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _SameHash) and other.name == self.name


def test_an_equal_key_waits_for_the_holder() -> None:
    locks = KeyLocks()
    order: list[str] = []
    held = threading.Event()

    def holder() -> None:
        with locks("company a"):
            held.set()
            time.sleep(0.05)
            order.append("holder done")

    thread = threading.Thread(target=holder)
    thread.start()
    held.wait(5)
    with locks("company a"):
        order.append("waiter in")
    thread.join(5)
    assert order == ["holder done", "waiter in"]


def test_different_keys_never_wait_even_when_their_hashes_collide() -> None:
    locks = KeyLocks()
    with locks(_SameHash("a")):
        started = time.monotonic()
        assert locks.acquire(_SameHash("b"), timeout=1)
        locks.release(_SameHash("b"))
        assert time.monotonic() - started < 0.5


def test_the_table_holds_only_keys_in_use() -> None:
    locks = KeyLocks()
    with locks("a"), locks("b"):
        assert len(locks) == 2
    assert len(locks) == 0


def test_a_timed_out_waiter_leaves_nothing_behind() -> None:
    locks = KeyLocks()
    assert locks.acquire("a")
    result: list[bool] = []
    thread = threading.Thread(target=lambda: result.append(locks.acquire("a", timeout=0.05)))
    thread.start()
    thread.join(5)
    assert result == [False]
    locks.release("a")
    assert len(locks) == 0
    assert locks.acquire("a", timeout=0)
    locks.release("a")


def test_many_threads_on_a_few_keys_are_exclusive_per_key() -> None:
    locks = KeyLocks()
    inside: dict[str, int] = {"a": 0, "b": 0, "c": 0}
    overlaps: list[str] = []
    guard = threading.Lock()

    def work(key: str) -> None:
        for _ in range(200):
            with locks(key):
                with guard:
                    inside[key] += 1
                    if inside[key] > 1:
                        overlaps.append(key)
                time.sleep(0)
                with guard:
                    inside[key] -= 1

    threads = [threading.Thread(target=work, args=(key,)) for key in "abcabcabc"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert overlaps == []
    assert len(locks) == 0


def test_reset_frees_every_lock() -> None:
    locks = KeyLocks()
    assert locks.acquire("a")
    locks.reset()
    assert locks.acquire("a", timeout=0)


def test_a_waiter_interrupted_leaves_nothing_behind() -> None:
    """Ctrl-C in a notebook while a call waits for an identical one."""
    import os
    import signal

    locks = KeyLocks()
    assert locks.acquire("k")
    timer = threading.Timer(0.1, os.kill, (os.getpid(), signal.SIGINT))  # a real Ctrl-C
    timer.start()
    try:
        locks.acquire("k", timeout=10)
    except KeyboardInterrupt:
        pass
    else:
        raise AssertionError("the wait was not interrupted")
    finally:
        timer.join()
    locks.release("k")
    assert len(locks) == 0
