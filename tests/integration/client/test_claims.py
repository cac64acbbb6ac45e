"""Claims across processes: real lock files (flock) and a real redis-server.

Waits run on a fake clock (tests.clocks.FakeClock): no test lets time pass or bounds one by the
wall clock. Where another process is the subject, it is real and sequenced by what it prints.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from profnet_sheets import TransportError
from profnet_sheets.client.claims import FileClaims, RedisClaims
from tests.clocks import FakeClock

KEY = "0123abcd" * 5


class _Turns:
    """The second claimant's sleep: it says that it waits, then waits until the first has left."""

    def __init__(self) -> None:
        self.second_waits, self.first_left = threading.Event(), threading.Event()

    def __call__(self, seconds: float) -> None:
        self.second_waits.set()
        self.first_left.wait(10)


def _order_of_two_holders(make: Callable[[_Turns], FileClaims | RedisClaims]) -> list[str]:
    """Two threads claim one key; the first leaves only once the second waits for it. What each
    saw, in order."""
    seen: list[str] = []
    first_in = threading.Event()
    turns = _Turns()
    claims = make(turns)

    def first() -> None:
        with claims.hold(KEY):
            seen.append("first in")
            first_in.set()
            assert turns.second_waits.wait(10), "the second never waited"
            seen.append("first out")
        turns.first_left.set()

    def second() -> None:
        first_in.wait(10)
        with claims.hold(KEY):
            seen.append("second in")

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    return seen


def test_a_file_claim_is_held_by_one_at_a_time(tmp_path: Path) -> None:
    def make(turns: _Turns) -> FileClaims:
        return FileClaims(tmp_path / "claims.lock", lease=30, sleep=turns)

    assert _order_of_two_holders(make) == ["first in", "first out", "second in"]


def test_different_calls_do_not_wait_for_each_other(tmp_path: Path) -> None:
    clock = FakeClock()
    claims = FileClaims(tmp_path / "claims.lock", lease=30, clock=clock, sleep=clock.sleep)
    other = "fedcba98" * 5
    assert claims.stripe(KEY) != claims.stripe(other)
    with claims.hold(KEY), claims.hold(other):
        pass
    assert clock.slept == [], "not one pause"


def test_the_os_releases_the_claim_of_a_killed_process(tmp_path: Path) -> None:
    directory = tmp_path / "claims.lock"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import sys, time
                from pathlib import Path
                from profnet_sheets.client.claims import FileClaims
                with FileClaims(Path({str(directory)!r}), lease=600).hold({KEY!r}):
                    print("held", flush=True)
                    time.sleep(600)
                """
            ),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "held"
        clock = FakeClock()
        with (
            pytest.raises(TransportError, match="another process"),
            FileClaims(directory, lease=0.3, clock=clock, sleep=clock.sleep).hold(KEY),
        ):
            pytest.fail("held by the other process: never entered without the claim")
        assert clock.waited >= 0.3, "waited its whole lease for the live holder"
        clock = FakeClock()
        claims = FileClaims(directory, lease=600, clock=clock, sleep=clock.sleep)
        holder.send_signal(signal.SIGKILL)
        holder.wait(10)
        with claims.hold(KEY):
            assert clock.slept == [], "the killed holder's claim went with it"
    finally:
        holder.kill()
        holder.wait(10)


def test_a_hung_holder_makes_others_give_up_without_paying(tmp_path: Path) -> None:
    clock = FakeClock()
    patient = FileClaims(tmp_path / "claims.lock", lease=600)
    hasty = FileClaims(tmp_path / "claims.lock", lease=0.2, clock=clock, sleep=clock.sleep)
    with patient.hold(KEY):
        with pytest.raises(TransportError, match="nothing was sent"), hasty.hold(KEY):
            pytest.fail("entered without the claim")
        assert 0.2 <= clock.waited < 0.2 + 0.05, "gave up once its lease had passed"


def test_a_file_system_that_cannot_lock_turns_claims_off_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import errno
    import fcntl

    def no_locks(*args: object) -> None:
        raise OSError(errno.ENOLCK, "No locks available")

    clock = FakeClock()
    claims = FileClaims(tmp_path / "nfs" / "claims.lock", lease=600, clock=clock, sleep=clock.sleep)
    monkeypatch.setattr(fcntl, "lockf", no_locks)
    with caplog.at_level("WARNING", logger="profnet_sheets"), claims.hold(KEY):
        pass
    assert clock.slept == [], "no waiting for a lock that can never come"
    assert "cannot lock files" in caplog.text


def test_a_redis_claim_is_held_by_one_at_a_time(redis_url: str) -> None:
    import redis

    connection = redis.Redis.from_url(redis_url)

    def make(turns: _Turns) -> RedisClaims:
        return RedisClaims(connection, "profnet:test-claims", patience=30, sleep=turns)

    assert _order_of_two_holders(make) == ["first in", "first out", "second in"]
    assert connection.exists(f"profnet:test-claims:claim:{KEY}") == 0, "released"


def test_a_redis_claim_expires_and_is_released_only_by_its_owner(redis_url: str) -> None:
    import redis

    connection = redis.Redis.from_url(redis_url)
    name = f"profnet:test-lease:claim:{KEY}"
    connection.set(name, "a dead process", px=60_000)  # a holder that died without releasing
    clock = FakeClock()
    clock.at(0.3, lambda: connection.delete(name))  # Redis drops it when its lease runs out
    claims = RedisClaims(
        connection, "profnet:test-lease", patience=30, clock=clock, sleep=clock.sleep
    )
    with claims.hold(KEY):
        assert 0.3 <= clock.waited < 0.3 + 0.05, "taken over when the lease ran out"
        connection.set(name, "someone else")  # ours expired meanwhile and was taken over
    assert connection.get(name) == b"someone else", "never deletes another holder's claim"


def test_a_hung_redis_holder_makes_others_give_up_without_paying(redis_url: str) -> None:
    import redis

    connection = redis.Redis.from_url(redis_url)
    connection.set(f"profnet:test-hung:claim:{KEY}", "a hung process", px=60_000)
    clock = FakeClock()
    claims = RedisClaims(
        connection, "profnet:test-hung", patience=0.05, clock=clock, sleep=clock.sleep
    )
    with pytest.raises(TransportError, match="nothing was sent"), claims.hold(KEY):
        pytest.fail("entered without the claim")
    assert 0.05 <= clock.waited < 0.05 * 1.1 + 0.05, "gave up once its patience had passed"


def test_a_live_redis_holder_keeps_its_claim_past_the_lease(redis_url: str) -> None:
    import redis

    connection = redis.Redis.from_url(redis_url)
    name = f"profnet:test-beat:claim:{KEY}"
    holder = RedisClaims(connection, "profnet:test-beat", patience=30)
    clock = FakeClock()
    other = RedisClaims(
        connection, "profnet:test-beat", patience=0.3, clock=clock, sleep=clock.sleep
    )
    with holder.hold(KEY):
        connection.pexpire(name, 1_000)  # its lease nearly out, as after a long call
        holder.renew_held()  # one beat of the heartbeat
        assert connection.pttl(name) > 1_000 * 10, "renewed for a whole ttl"
        with pytest.raises(TransportError, match="nothing was sent"), other.hold(KEY):
            pytest.fail("entered while the live holder held the claim")


def test_a_killed_process_frees_its_redis_claim_within_the_lease(redis_url: str) -> None:
    import redis

    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import time
                import redis
                from profnet_sheets.client.claims import RedisClaims
                RedisClaims.ttl = 0.5
                claims = RedisClaims(redis.Redis.from_url({redis_url!r}), "profnet:test-dead", 600)
                with claims.hold({KEY!r}):
                    print("held", flush=True)
                    time.sleep(600)
                """
            ),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "held"
        connection = redis.Redis.from_url(redis_url)
        assert connection.exists(f"profnet:test-dead:claim:{KEY}") == 1
        holder.send_signal(signal.SIGKILL)
        holder.wait(10)
        # Redis's own clock frees the claim (within its 0.5 s ttl): waiting for it is the subject
        with RedisClaims(connection, "profnet:test-dead", patience=600).hold(KEY):
            assert connection.exists(f"profnet:test-dead:claim:{KEY}") == 1, "now ours"
    finally:
        holder.kill()
        holder.wait(10)


def test_a_forked_child_does_not_inherit_held_locks(tmp_path: Path) -> None:
    """A child forked while a thread held a claim (and its key's lock) can still claim."""
    import os

    from profnet_sheets.client.keylocks import PROCESS_LOCKS

    claims = FileClaims(tmp_path / "claims.lock", lease=2)
    held, release = threading.Event(), threading.Event()

    def holder() -> None:
        with PROCESS_LOCKS("a key"), claims.hold(KEY):
            held.set()
            release.wait(10)

    thread = threading.Thread(target=holder)
    thread.start()
    held.wait(5)
    child = os.fork()
    if child == 0:  # the child: no holder thread here; both locks must be free
        code = 1
        try:
            with PROCESS_LOCKS("a key"), FileClaims(tmp_path / "claims.lock", lease=0.5).hold(KEY):
                code = 0
        finally:
            os._exit(code)
    release.set()
    thread.join(10)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_a_claim_that_lapsed_before_the_turn_is_not_paid_on(redis_url: str) -> None:
    """A claim lapses while its call waits for its turn (a starved machine: the heartbeat came
    too late), another process claims the key, pays and saves: the first one, when its turn
    comes, finds the claim no longer its own, sends nothing, claims again and reads the
    answer the other paid for. One call paid, not two."""
    import redis

    from profnet_sheets import Client
    from profnet_sheets.sandbox import start_sandbox

    connection = redis.Redis.from_url(redis_url)
    with start_sandbox(api_keys=("lapse-key",), credits=1_000, seed=3) as sandbox:
        client = Client(api_key="lapse-key", base_url=sandbox.base_url, cache=redis_url)
        pace = client._shared.transport.pace  # the turn: where a starved call waits
        turns = []
        acquire = pace.acquire

        def late_turn() -> object:
            turns.append(1)
            if len(turns) == 1:
                for claim in connection.scan_iter("*:claim:*"):
                    connection.delete(claim)  # lapsed: the heartbeat came too late
                other = subprocess.run(
                    [
                        sys.executable,
                        "-c",
                        "from profnet_sheets import Client\n"
                        f"Client(api_key='lapse-key', base_url={sandbox.base_url!r}, "
                        f"cache={redis_url!r}).get_company_details(domain='lapse.io')",
                    ],
                    capture_output=True,
                    text=True,
                    timeout=120,
                    check=False,
                )
                assert other.returncode == 0, other.stderr
            return acquire()

        pace.acquire = late_turn  # type: ignore[method-assign]
        try:
            answer = client.get_company_details(domain="lapse.io")
        finally:
            client.close()
        assert "lapse" in repr(answer), answer
        assert sandbox.calls(endpoint="get-company-details") == 1, "paid once, by the other"
        assert len(turns) == 1, "the turn's pace ticket given back when the claim was lost"


def test_a_held_redis_claim_says_whether_it_is_still_ours(redis_url: str) -> None:
    import redis

    connection = redis.Redis.from_url(redis_url)
    name = f"profnet:test-ours:claim:{KEY}"
    claims = RedisClaims(connection, "profnet:test-ours", patience=30)
    with claims.hold(KEY) as held:
        connection.pexpire(name, 1_000)
        assert held.still_ours()
        assert connection.pttl(name) > 1_000 * 10, "asking renews it for a whole ttl"
        connection.set(name, "another process", ex=60)  # lapsed, and taken
        assert not held.still_ours()
        assert connection.get(name) == b"another process", "never renews another's claim"
