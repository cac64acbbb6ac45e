"""The deadlines of a process's attempts: one watchdog thread for all of them."""

from __future__ import annotations

import threading

from profnet_sheets.client.deadline import Deadline


def test_deadlines_share_one_thread_whatever_their_number() -> None:
    with Deadline(60):
        pass  # the watchdog is started by the first deadline
    before = threading.active_count()
    for _ in range(500):
        with Deadline(60):
            pass
    assert threading.active_count() == before


def test_a_deadline_that_passed_shuts_no_finished_attempt() -> None:
    deadline = Deadline(60)
    with deadline:
        pass
    deadline.expire()  # the watchdog's turn came after the attempt ended
    assert not deadline.expired


def test_an_attempt_still_on_at_its_deadline_is_expired() -> None:
    deadline = Deadline(60)
    with deadline:
        deadline.expire()
        assert deadline.expired
