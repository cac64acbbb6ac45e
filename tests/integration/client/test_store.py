"""The cache store on a real SQLite file: per-thread readers, the direct read, the wire options."""

from __future__ import annotations

import gc
import os
import pickle
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from profnet_sheets import Client, NotFound
from profnet_sheets.client.ledger import Ledger
from profnet_sheets.client.session import Transport
from profnet_sheets.client.store import (
    Stored,
    ThreadReadsSQLiteCache,
    open_backend,
    read_stored,
)
from profnet_sheets.config import Settings
from profnet_sheets.spec import API_KEY_HEADER, endpoint

from .conftest import MakeClient


def _answers_table(client_cache: Path) -> Path:
    (found,) = client_cache.glob("*-http.sqlite")
    return found


def test_the_direct_read_gives_what_requests_cache_reads(
    make_client: MakeClient, tmp_path: Path
) -> None:
    client = make_client()
    client.get_company_details(domain="direct.io")
    with pytest.raises(NotFound):
        client.get_company_details(domain="missing.invalid")
    cache = _cache(client)
    keys = list(cache.responses.keys())
    assert len(keys) == 2
    for key in keys:
        fast = read_stored(cache, key)
        full = cache.responses[key]
        assert fast is not None
        assert fast.status == full.status_code
        assert fast.text == full.text
        assert dict(fast.headers) == dict(full.headers)
        assert full.expires is not None
        assert fast.expires == pytest.approx(full.expires.timestamp(), abs=1)
    assert {read_stored(cache, key).status for key in keys} == {200, 404}  # type: ignore[union-attr]


def test_a_row_in_another_shape_is_read_by_requests_cache(
    make_client: MakeClient,
) -> None:
    client = make_client()
    client.get_company_details(domain="shape.io")
    cache = _cache(client)
    (key,) = list(cache.responses.keys())
    expected = read_stored(cache, key)
    # What a future requests-cache might write: not the dict the fast path knows.
    raw = cache.responses.read_raw(key)
    assert raw is not None
    with sqlite3.connect(cache.db_path) as con:
        con.execute(
            "UPDATE responses SET value = ? WHERE key = ?",
            (pickle.dumps(("a", "tuple")), key),
        )
    assert read_stored(cache, key) is None, "unreadable by both: a miss, not an error"
    with sqlite3.connect(cache.db_path) as con:
        con.execute("UPDATE responses SET value = ? WHERE key = ?", (raw[0], key))
    assert read_stored(cache, key) == expected


def test_an_expired_row_is_a_miss_unless_stale_answers_are_wanted(
    make_client: MakeClient,
) -> None:
    client = make_client(expiry={"get-company-details": 0.3})
    client.get_company_details(domain="old.io")
    cache = _cache(client)
    (key,) = list(cache.responses.keys())
    assert read_stored(cache, key) is not None
    time.sleep(0.4)  # to the microsecond, as requests-cache's CachedResponse.expires says
    assert read_stored(cache, key) is None
    assert cache.responses[key].is_expired, "requests-cache agrees"
    assert read_stored(cache, key, stale_ok=True) is not None


def test_readers_do_not_wait_for_a_writer_and_all_see_it(tmp_path: Path) -> None:
    cache = ThreadReadsSQLiteCache(tmp_path / "t-http.sqlite", wal=True, timeout=30)
    table = cache.responses
    table["k0"] = "v0"
    seen: list[str] = []
    with table.connection(commit=True) as writer:  # a write transaction held open
        writer.execute(
            "INSERT OR REPLACE INTO responses (key, value, expires) VALUES (?, ?, NULL)",
            ("k1", table.serialize("v1")),
        )

        def read() -> None:
            seen.append(table["k0"])  # would wait for the writer on the shared connection

        thread = threading.Thread(target=read)
        thread.start()
        thread.join(timeout=5)
        assert not thread.is_alive(), "a reader waited for the open write transaction"
    assert seen == ["v0"]
    cache.close()  # type: ignore[no-untyped-call]


def _open_handles(path: Path) -> int:
    """How many file descriptors of this process point at `path` (Linux /proc)."""
    fds = Path("/proc/self/fd")
    return sum(1 for fd in fds.iterdir() if _points_at(fd, path))


def _points_at(fd: Path, path: Path) -> bool:
    try:
        return Path(os.readlink(fd)) == path
    except OSError:
        return False


def test_readers_of_finished_threads_are_closed(tmp_path: Path) -> None:
    """Thread pools made per batch (Excel recalculates a range per call) must not pile up
    reader connections until the process runs out of file descriptors."""
    path = tmp_path / "t-http.sqlite"
    cache = ThreadReadsSQLiteCache(path, wal=True, timeout=30)
    cache.responses["k"] = "v"
    before = _open_handles(path.resolve())
    for _ in range(20):
        with ThreadPoolExecutor(8) as pool:
            assert set(pool.map(lambda _: cache.responses["k"], range(32))) == {"v"}
    gc.collect()
    # At most the last pool's readers linger while its threads are torn down: 20 pools of 8
    # threads left 160 open before readers were closed with their thread.
    assert _open_handles(path.resolve()) <= before + 8
    cache.close()  # type: ignore[no-untyped-call]


def test_clearing_while_other_threads_read_is_safe(tmp_path: Path) -> None:
    """requests-cache's clear() closes connections: never one another thread is reading on
    (that crashed the interpreter). Run apart, so that a crash fails this test only."""
    script = textwrap.dedent(
        f"""
        import threading
        from pathlib import Path
        from profnet_sheets.client.store import ThreadReadsSQLiteCache
        cache = ThreadReadsSQLiteCache(Path({str(tmp_path / "c-http.sqlite")!r}), wal=True)
        stop = threading.Event()
        def read():
            while not stop.is_set():
                cache.responses.write_raw("k", b"x", None)
                cache.responses.read_raw("k")
        threads = [threading.Thread(target=read) for _ in range(4)]
        for thread in threads:
            thread.start()
        for _ in range(30):
            cache.clear()
        stop.set()
        for thread in threads:
            thread.join()
        print("ok")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], check=False, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "ok"


def test_the_direct_read_of_a_memory_store_goes_through_requests_cache() -> None:
    from requests_cache.backends.base import BaseCache

    assert read_stored(BaseCache(), "nothing") is None


def test_the_key_header_is_redacted_in_what_is_saved(make_client: MakeClient) -> None:
    client = make_client()
    client.get_company_details(domain="redacted.io")
    cache = _cache(client)
    (key,) = list(cache.responses.keys())
    saved = cache.responses[key]
    assert saved.request.headers[API_KEY_HEADER] == "REDACTED"


def test_a_remote_service_takes_the_proxy_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.corp.example:3128")
    monkeypatch.setenv("NO_PROXY", "")
    settings = Settings.load(cache="memory", cache_dir=tmp_path)
    transport = Transport(settings, "https://api.example.com", "svc-test")
    try:
        assert transport.wire_options["proxies"].get("https") == "http://proxy.corp.example:3128"
    finally:
        transport.close()
    loopback = Transport(settings, "http://127.0.0.1:9", "svc-test")
    try:
        assert loopback.wire_options["proxies"] == {}, "loopback never goes through a proxy"
    finally:
        loopback.close()


def test_stored_is_what_the_client_keeps(make_client: MakeClient) -> None:
    client = make_client()
    client.get_company_details(domain="kept.io")
    again = make_client()  # a new client: memory is empty, the store holds the answer
    ep = endpoint("get-company-details")
    held = again.is_cached(ep.name, {"domain": "kept.io"})
    assert held
    assert isinstance(read_stored(_cache(again), _only_key(again)), Stored)


def _cache(client: Client) -> ThreadReadsSQLiteCache:
    cache = client._shared.transport.cache
    assert isinstance(cache, ThreadReadsSQLiteCache)
    return cache


def _only_key(client: Client) -> str:
    (key,) = list(_cache(client).responses.keys())
    return str(key)


def test_rows_are_written_in_requests_cache_s_own_format(make_client: MakeClient) -> None:
    """The direct writer and requests-cache agree: same dict, and requests-cache reads it."""
    from requests_cache.models.response import CachedResponse

    client = make_client()
    client.get_company_details(domain="format.io")  # a GET
    client.search_leads(keywords="format", limit=2)  # a POST with a JSON body
    cache = _cache(client)
    for key in list(cache.responses.keys()):
        raw = cache.responses.read_raw(key)
        assert raw is not None
        ours = pickle.loads(raw[0])
        theirs_object = cache.responses[key]  # requests-cache deserialises our row ...
        assert isinstance(theirs_object, CachedResponse)
        theirs = pickle.loads(cache.responses.serialize(theirs_object))  # ... and writes it back
        assert ours == theirs
        assert theirs_object.request.headers[API_KEY_HEADER] == "REDACTED"
        assert raw[1] == theirs_object.expires_unix


@pytest.mark.parametrize(
    ("name", "payload"),
    [("get-company-details", {"domain": "direct.io"}), ("search-leads", {"keywords": "d"})],
)
def test_a_row_is_what_requests_cache_would_have_written(
    make_client: MakeClient, name: str, payload: dict[str, str]
) -> None:
    from datetime import UTC, datetime, timedelta

    from requests_cache.models.response import CachedResponse

    from profnet_sheets.client.session import IGNORED_PARAMETERS
    from profnet_sheets.client.store import row_of

    client = make_client()
    transport, key = client._shared.transport, client._shared.api_key
    response = transport._request(endpoint(name), payload, key)
    expires = datetime.now(UTC) + timedelta(days=1)
    cache = _cache(client)
    theirs_object = CachedResponse.from_response(response, expires=expires)
    from requests_cache.cache_keys import redact_response

    redact_response(theirs_object, IGNORED_PARAMETERS)
    theirs = pickle.loads(cache.responses.serialize(theirs_object))
    ours = row_of(response, expires, frozenset(IGNORED_PARAMETERS))
    assert {k: v for k, v in ours.items() if k != "created_at"} == {
        k: v for k, v in theirs.items() if k != "created_at"
    }


def _open_cache_and_ledger(folder: str, start: Any) -> None:
    """In a forked child: open the store and the ledger as a Client does; exit 1 on an error.
    (Everything is imported before the fork, so that the children really start together.)"""
    start.wait()
    try:
        settings = Settings.load(environ={}, cache=folder, cache_dir=folder)
        open_backend(settings, "svc-race").close()
        Ledger(Path(folder) / "svc-race-ledger.sqlite")
    except Exception as error:  # any error: the child reports it as its exit code
        print(f"{type(error).__name__}: {error}", file=sys.stderr)
        os._exit(1)
    os._exit(0)


def test_processes_opening_a_new_cache_at_once_all_succeed(tmp_path: Path) -> None:
    """Switching a new file to WAL deadlocks between processes doing it at the same moment;
    SQLite then fails one at once ("database is locked", ~4% of openings before the fix)."""
    import multiprocessing

    fork = multiprocessing.get_context("fork")
    failed = 0
    for round_number in range(40):
        folder = tmp_path / f"cache{round_number}"
        start = fork.Barrier(4)
        children = [
            fork.Process(target=_open_cache_and_ledger, args=(str(folder), start)) for _ in range(4)
        ]
        for child in children:
            child.start()
        for child in children:
            child.join(60)
        failed += sum(child.exitcode != 0 for child in children)
    assert failed == 0
