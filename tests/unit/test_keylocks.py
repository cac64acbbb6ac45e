"""Per-key locks: equal keys wait for each other, different keys never do, nothing piles up.

Sequenced by what the table says (`users`: threads holding or waiting), never by time.
"""

from __future__ import annotations

import os
import signal
import threading
import time

from profnet_sheets.client.keylocks import KeyLocks


def _until_waiting(locks: KeyLocks, key: str, users: int) -> None:
    """Return once `users` threads hold or wait for `key` (the others are blocked in acquire)."""
    while locks.users(key) < users:
        time.sleep(0)  # give the other thread its turn


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

    def waiter() -> None:
        with locks("company a"):
            order.append("waiter in")

    with locks("company a"):
        thread = threading.Thread(target=waiter)
        thread.start()
        _until_waiting(locks, "company a", 2)
        order.append("holder done")
    thread.join(10)
    assert order == ["holder done", "waiter in"]


def test_different_keys_never_wait_even_when_their_hashes_collide() -> None:
    locks = KeyLocks()
    with locks(_SameHash("a")):
        assert locks.acquire(_SameHash("b"), timeout=0), "free at once, without a wait"
        locks.release(_SameHash("b"))


def test_the_table_holds_only_keys_in_use() -> None:
    locks = KeyLocks()
    with locks("a"), locks("b"):
        assert len(locks) == 2
    assert len(locks) == 0


def test_a_timed_out_waiter_leaves_nothing_behind() -> None:
    locks = KeyLocks()
    assert locks.acquire("a")
    result: list[bool] = []
    thread = threading.Thread(target=lambda: result.append(locks.acquire("a", timeout=0)))
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
                time.sleep(0)  # give another thread its turn inside
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
    locks = KeyLocks()
    assert locks.acquire("k")

    def press_ctrl_c_once_waiting() -> None:
        _until_waiting(locks, "k", 2)
        os.kill(os.getpid(), signal.SIGINT)  # a real Ctrl-C

    presser = threading.Thread(target=press_ctrl_c_once_waiting)
    presser.start()
    try:
        locks.acquire("k", timeout=60)
    except KeyboardInterrupt:
        pass
    else:
        raise AssertionError("the wait was not interrupted")
    finally:
        presser.join(10)
    locks.release("k")
    assert len(locks) == 0
