"""One pace for every process on a key through the team's Redis: the rate learnt, shared, and
the slots each call draws from it (a shared schedule at that rate, on Redis's own clock)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Literal

REMEMBERED_MS = 600_000  # a rate learnt this lately starts the next process (as on disk)
LEARNING_MS = 3_000  # while no rate is known, one process learns it; the others wait this long

# One call's slot: the next free moment on Redis's clock (TIME: machines' clocks may differ),
# moved on by 1/rate. While no process has learnt a rate: 'learn' for the one process holding
# the learner's lease (taken if free), 'wait' for the others.
_DRAW = """
local rate = tonumber(redis.call('HGET', KEYS[2], 'rate'))
if not rate or rate <= 0 then
  local learner = redis.call('GET', KEYS[3])
  if not learner then
    redis.call('SET', KEYS[3], ARGV[1], 'PX', ARGV[2])
    return {'learn'}
  end
  if learner == ARGV[1] then return {'learn'} end
  return {'wait'}
end
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local slot = tonumber(redis.call('GET', KEYS[1])) or now
if slot < now then slot = now end
redis.call('SET', KEYS[1], tostring(slot + 1 / rate), 'PX', 60000)
local drawn = redis.call('INCR', KEYS[4])
redis.call('PEXPIRE', KEYS[4], 60000)
local second = math.floor(now - tonumber(ARGV[3])) - 1
local took = redis.call('GET', KEYS[5] .. ':took:' .. tostring(second)) or '0'
local refused = redis.call('GET', KEYS[5] .. ':refused:' .. tostring(second)) or '0'
return {tostring(slot - now), redis.call('HGET', KEYS[2], 'known'), tostring(rate),
        redis.call('HGET', KEYS[2], 'version'), drawn, tostring(second), took, refused,
        tostring(math.floor(slot))}
"""

# A call's verdict ('took': answered, not a 429; 'refused': a 429), counted in the second of
# Redis's clock its slot was in: what the service let through of the calls sent in each second,
# every process together.
_VERDICT = """
local key = KEYS[1] .. ':' .. ARGV[1] .. ':' .. ARGV[2]
redis.call('INCR', key)
redis.call('EXPIRE', key, 10)
"""

# A process's new rate: a lower one always (a cut), a higher one (a probe) only above the team's
# and when no process has published since the writer last looked (a probe never undoes another's
# cut, nor lowers another's probe).
_PUBLISH = """
local version = tonumber(redis.call('HGET', KEYS[1], 'version')) or 0
local rate = tonumber(redis.call('HGET', KEYS[1], 'rate'))
local new = tonumber(ARGV[2])
if ARGV[3] == '1' or not rate or (version == tonumber(ARGV[4]) and new > rate) then
  version = version + 1
  redis.call('HSET', KEYS[1], 'known', ARGV[1], 'rate', ARGV[2], 'version', version)
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  return {tostring(version), ARGV[1], ARGV[2]}
end
return {tostring(version), redis.call('HGET', KEYS[1], 'known'), tostring(rate)}
"""


@dataclass(frozen=True)
class TeamRate:
    """The rate the team's processes learnt on one key: `known` (the service's admitted rate as
    estimated), `rate` (what calls start at) and `version` (one more at each change)."""

    known: float
    rate: float
    version: int


@dataclass(frozen=True)
class Slot:
    """A call's turn on the team's schedule: in `wait` seconds, at the team's rate; `drawn`:
    the slots every process drew so far (this process's share of the key's calls told)."""

    wait: float
    team: TeamRate
    drawn: int
    second: int  # the last whole second on Redis's clock whose verdicts are in, and of the
    answered: int  # calls sent in it, every process's: those the service answered (not 429)...
    refused: int  # ...and those it refused (429)
    sent_in: int  # the second (Redis's clock) of this slot: its verdict is counted there


class RedisPaceBoard:
    """The team's pace of one key in Redis (`prefix`:rate, a hash; `prefix`:slot, the next free
    moment). Every method may raise redis-py's errors: the driver (pace.Pace) decides."""

    def __init__(self, connection: Any, prefix: str) -> None:
        self._rate_key = f"{prefix}:rate"
        self._slot_key = f"{prefix}:slot"
        self._learner_key = f"{prefix}:learner"
        self._drawn_key = f"{prefix}:drawn"
        self._seconds_key = f"{prefix}:second"
        self._verdict = connection.register_script(_VERDICT)
        self._token = uuid.uuid4().hex  # this process, as the learner
        self._draw = connection.register_script(_DRAW)
        self._publish = connection.register_script(_PUBLISH)
        self._connection = connection

    def team(self) -> TeamRate | None:
        """The rate learnt by the team within REMEMBERED_MS, or None."""
        kept = self._connection.hmget(self._rate_key, "known", "rate", "version")
        return _team(kept)

    def draw(self, lag: float = 0.0) -> Slot | Literal["learn", "wait"]:
        """This call's slot on the team's schedule; while no rate is learnt, 'learn' (this
        process finds it) or 'wait' (another one does, for LEARNING_MS at most). `lag`: the
        seconds a call's verdict may take."""
        got = self._draw(
            keys=[
                self._slot_key,
                self._rate_key,
                self._learner_key,
                self._drawn_key,
                self._seconds_key,
            ],
            args=[self._token, LEARNING_MS, repr(lag)],
        )
        first = got[0].decode() if isinstance(got[0], bytes) else str(got[0])
        if first == "learn":
            return "learn"
        if first == "wait":
            return "wait"
        team = _team(got[1:4])
        if team is None:
            return "learn"
        second, answered, refused, sent_in = (int(value) for value in got[5:9])
        return Slot(max(0.0, float(first)), team, int(got[4]), second, answered, refused, sent_in)

    def verdict(self, refused: bool, sent_in: int) -> None:
        """Count a call's verdict in the second its slot was in (Redis's clock): answered
        (what the team demonstrably took), or refused (a 429)."""
        self._verdict(keys=[self._seconds_key], args=["refused" if refused else "took", sent_in])

    def publish(self, known: float, rate: float, lower: bool, seen: int) -> TeamRate | None:
        """Say the rate this process learnt (`lower`: a cut, always kept; else kept when the
        team's version is still `seen`); the team's rate after it."""
        got = self._publish(
            keys=[self._rate_key],
            args=[repr(known), repr(rate), "1" if lower else "0", seen, REMEMBERED_MS],
        )
        return _team([got[1], got[2], got[0]])


def _team(values: list[Any]) -> TeamRate | None:
    """A TeamRate from Redis's (known, rate, version) as bytes or strings, or None."""
    if len(values) < 3 or any(value is None for value in values):
        return None
    try:
        known, rate, version = float(values[0]), float(values[1]), int(values[2])
    except (TypeError, ValueError):
        return None
    return TeamRate(known, rate, version) if rate > 0 and known > 0 else None
