"""Claims across processes: real lock files (flock) and a real redis-server."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from profnet_sheets import TransportError
from profnet_sheets.client.claims import FileClaims, RedisClaims

KEY = "0123abcd" * 5


def _order_of_two_holders(claims: FileClaims | RedisClaims) -> list[str]:
    """Two threads claim one key; the first holds it 0.2 s. What each saw, in order."""
    seen: list[str] = []
    first_in = threading.Event()

    def first() -> None:
        with claims.hold(KEY):
            seen.append("first in")
            first_in.set()
            time.sleep(0.2)
            seen.append("first out")

    def second() -> None:
        first_in.wait(5)
        with claims.hold(KEY):
            seen.append("second in")

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    return seen


def test_a_file_claim_is_held_by_one_at_a_time(tmp_path: Path) -> None:
    claims = FileClaims(tmp_path / "claims.lock", lease=30)
    assert _order_of_two_holders(claims) == ["first in", "first out", "second in"]


def test_different_calls_do_not_wait_for_each_other(tmp_path: Path) -> None:
    claims = FileClaims(tmp_path / "claims.lock", lease=30)
    other = "fedcba98" * 5
    assert claims.stripe(KEY) != claims.stripe(other)
    with claims.hold(KEY):
        started = time.monotonic()
        with claims.hold(other):
            pass
        assert time.monotonic() - started < 0.05


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
        with (
            pytest.raises(TransportError, match="another process"),
            FileClaims(directory, lease=0.3).hold(KEY),
        ):
            pytest.fail("held by the other process: never entered without the claim")
        claims = FileClaims(directory, lease=600)
        holder.send_signal(signal.SIGKILL)
        holder.wait(10)
        started = time.monotonic()
        with claims.hold(KEY):
            assert time.monotonic() - started < 1, "the killed holder's claim went with it"
    finally:
        holder.kill()
        holder.wait(10)


def test_a_hung_holder_makes_others_give_up_without_paying(tmp_path: Path) -> None:
    patient = FileClaims(tmp_path / "claims.lock", lease=600)
    hasty = FileClaims(tmp_path / "claims.lock", lease=0.2)
    with patient.hold(KEY):
        started = time.monotonic()
        with pytest.raises(TransportError, match="nothing was sent"), hasty.hold(KEY):
            pytest.fail("entered without the claim")
        assert 0.15 < time.monotonic() - started < 2


def test_a_file_system_that_cannot_lock_turns_claims_off_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import errno
    import fcntl

    def no_locks(*args: object) -> None:
        raise OSError(errno.ENOLCK, "No locks available")

    claims = FileClaims(tmp_path / "nfs" / "claims.lock", lease=600)
    monkeypatch.setattr(fcntl, "lockf", no_locks)
    started = time.monotonic()
    with caplog.at_level("WARNING", logger="profnet_sheets"), claims.hold(KEY):
        pass
    assert time.monotonic() - started < 0.5, "no waiting for a lock that can never come"
    assert "cannot lock files" in caplog.text


def test_a_redis_claim_is_held_by_one_at_a_time(redis_url: str) -> None:
    import redis

    connection = redis.Redis.from_url(redis_url)
    claims = RedisClaims(connection, "profnet:test-claims", patience=30)
    assert _order_of_two_holders(claims) == ["first in", "first out", "second in"]
    assert connection.exists(f"profnet:test-claims:claim:{KEY}") == 0, "released"


def test_a_redis_claim_expires_and_is_released_only_by_its_owner(redis_url: str) -> None:
    import redis

    connection = redis.Redis.from_url(redis_url)
    name = f"profnet:test-lease:claim:{KEY}"
    connection.set(name, "a dead process", px=300)  # a holder that died without releasing
    claims = RedisClaims(connection, "profnet:test-lease", patience=30)
    started = time.monotonic()
    with claims.hold(KEY):
        assert 0.2 < time.monotonic() - started < 3, "taken over when the lease ran out"
        connection.set(name, "someone else")  # ours expired meanwhile and was taken over
    assert connection.get(name) == b"someone else", "never deletes another holder's claim"


def test_a_hung_redis_holder_makes_others_give_up_without_paying(redis_url: str) -> None:
    import redis

    connection = redis.Redis.from_url(redis_url)
    connection.set(f"profnet:test-hung:claim:{KEY}", "a hung process", px=60_000)
    started = time.monotonic()
    claims = RedisClaims(connection, "profnet:test-hung", patience=0.05)
    with pytest.raises(TransportError, match="nothing was sent"), claims.hold(KEY):
        pytest.fail("entered without the claim")
    assert time.monotonic() - started < 1


def test_a_live_redis_holder_keeps_its_claim_past_the_lease(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import redis

    monkeypatch.setattr(RedisClaims, "ttl", 0.6)
    connection = redis.Redis.from_url(redis_url)
    holder = RedisClaims(connection, "profnet:test-beat", patience=30)
    other = RedisClaims(connection, "profnet:test-beat", patience=0.3)
    with holder.hold(KEY):
        time.sleep(1.5)  # past the lease: the heartbeat renewed it
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
                RedisClaims.ttl = 1.0
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
        time.sleep(1.5)  # alive past its lease: still held
        connection = redis.Redis.from_url(redis_url)
        assert connection.exists(f"profnet:test-dead:claim:{KEY}") == 1
        holder.send_signal(signal.SIGKILL)
        holder.wait(10)
        started = time.monotonic()
        with RedisClaims(connection, "profnet:test-dead", patience=600).hold(KEY):
            assert time.monotonic() - started < 1.5, "the dead holder's claim ran out"
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
