"""The team's pace board on a real Redis: one learner while no rate is known, a cut always kept
and a probe only over the version its writer saw, slots spaced at the team's rate on Redis's
clock; a Pace whose Redis dies goes on alone and says so once."""

from __future__ import annotations

import logging
import uuid

import pytest
import redis

from profnet_sheets.client.pace import Pace, Ticket
from profnet_sheets.client.pace_redis import RedisPaceBoard, Slot
from tests.conftest import RedisServer

pytestmark = pytest.mark.integration


def boards(url: str, count: int) -> list[RedisPaceBoard]:
    prefix = f"test:{uuid.uuid4().hex}:pace"
    return [RedisPaceBoard(redis.Redis.from_url(url), prefix) for _ in range(count)]


def test_one_process_learns_the_rate_while_the_others_wait(redis_url: str) -> None:
    first, second = boards(redis_url, 2)
    assert first.draw() == "learn"
    assert second.draw() == "wait"
    assert first.draw() == "learn", "the learner stays the learner"
    first.publish(known=20.0, rate=19.0, lower=False, seen=0)
    slot = second.draw()
    assert isinstance(slot, Slot)
    assert slot.team.rate == 19.0


def test_slots_are_spaced_at_the_teams_rate(redis_url: str) -> None:
    first, second = boards(redis_url, 2)
    first.publish(known=10.0, rate=10.0, lower=False, seen=0)
    waits = []
    for board in (first, second) * 5:
        slot = board.draw()
        assert isinstance(slot, Slot)
        waits.append(slot.wait)
    assert waits[-1] == pytest.approx(0.9, abs=0.05), "ten slots at 10/s span 0.9 s"


def test_a_cut_is_kept_over_a_probe_that_did_not_see_it(redis_url: str) -> None:
    first, second = boards(redis_url, 2)
    start = first.publish(known=20.0, rate=19.0, lower=False, seen=0)
    assert start is not None
    cut = second.publish(known=12.0, rate=11.4, lower=True, seen=start.version)
    probe = first.publish(known=20.0, rate=19.2, lower=False, seen=start.version)
    assert cut is not None
    assert probe is not None
    assert probe.rate == 11.4, "the probe written over a version it had not seen is refused"
    assert first.team() == probe


def test_a_pace_whose_redis_dies_goes_on_alone_and_says_so_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = RedisServer()
    board = RedisPaceBoard(redis.Redis.from_url(server.url), f"test:{uuid.uuid4().hex}:pace")
    pace = Pace(cap=4)
    pace.share_through(board)
    board.publish(known=50.0, rate=50.0, lower=False, seen=0)
    ticket = pace.acquire()
    assert pace.view().rate == 50.0, "the team's rate adopted"
    pace.release(ticket, "answered")
    server.kill()
    with caplog.at_level(logging.WARNING, logger="profnet_sheets"):
        for _ in range(3):
            ticket = pace.acquire()
            assert isinstance(ticket, Ticket)
            pace.release(ticket, "answered")
    said = [r.message for r in caplog.records if "team's pace" in r.message]
    assert len(said) == 1, said
    assert pace.view().calls == 4
