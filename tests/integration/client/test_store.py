"""The store: requests-cache's public API, JSON on disk and in Redis, one key, purge, migration."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import requests
import time_machine

from profnet_sheets import Client
from profnet_sheets.client.cache import CachePolicy
from profnet_sheets.client.keys import call_key
from profnet_sheets.client.ledger import Ledger
from profnet_sheets.client.store import AnswerStore, namespace
from profnet_sheets.client.transport import Transport
from profnet_sheets.config import Settings
from profnet_sheets.spec import API_KEY_HEADER, endpoint

from .conftest import KEY, MakeClient


def _store(client: Client) -> AnswerStore:
    return client._shared.store


def _lookups(client: Client) -> None:
    client.get_company_details(domain="stored.io")
    client.get_profile_details(profnet_url="https://www.profnet.com/in/anna-schmidt")
    client.find_geocode_by_location(location="Berlin")
    client.search_leads(title_keywords="CTO", limit=30).results()


def test_every_answer_in_a_sqlite_cache_is_json_without_the_key(make_client: MakeClient) -> None:
    client = make_client()
    _lookups(client)
    path = Path(_store(client).described())
    client.close()
    rows = sqlite3.connect(path).execute("SELECT key, value FROM responses").fetchall()
    assert len(rows) >= 4
    for _key, value in rows:
        text = value if isinstance(value, str) else bytes(value).decode("utf-8")
        answer = json.loads(text)  # plain JSON: nothing that runs code when read
        assert answer["request"]["headers"][API_KEY_HEADER] == "REDACTED"
        assert KEY not in text
        assert isinstance(answer["_decoded_content"], dict), "the body is readable JSON too"


def test_answers_are_requests_caches_json_in_one_line_both_ways(
    make_client: MakeClient, tmp_path: Path
) -> None:
    """Written without indentation (indented JSON is written in Python, not C: ~2 ms a cold
    save, issue 23); requests-cache's own JSON serializer reads them, and ours reads its."""
    from requests_cache.backends.sqlite import SQLiteCache

    client = make_client()
    answer = client.get_company_details(domain="stored.io")
    key = client.key("get-company-details", {"domain": "stored.io"})
    path = Path(_store(client).described())
    client.close()
    (ours,) = sqlite3.connect(path).execute("SELECT value FROM responses").fetchone()
    assert isinstance(ours, str)
    assert "\n" not in ours
    theirs = SQLiteCache(path, serializer="json", decode_content=True)
    assert theirs.get_response(key.digest).json()["data"] == answer
    indented = SQLiteCache(tmp_path / "indented.sqlite", serializer="json", decode_content=True)
    indented.save_response(theirs.get_response(key.digest), cache_key=key.digest)
    theirs.close()  # type: ignore[no-untyped-call]
    (text,) = sqlite3.connect(indented.db_path).execute("SELECT value FROM responses").fetchone()
    indented.close()  # type: ignore[no-untyped-call]
    assert isinstance(text, str)
    assert "\n" in text
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE responses SET value = ? WHERE key = ?", (text, key.digest))
    again = make_client()
    held = _store(again).get(key)
    assert held is not None
    assert json.loads(held.text) == json.loads(ours)["_decoded_content"]
    again.close()


def test_every_answer_in_a_redis_cache_is_json_without_the_key(
    make_client: MakeClient, redis_url: str
) -> None:
    import redis

    client = make_client(cache=redis_url)
    _lookups(client)
    client.close()
    connection = redis.Redis.from_url(redis_url)
    stored = [k for k in connection.keys(f"{namespace('')}*") if not k.endswith(b"redirects")]
    answers = [connection.get(k) for k in stored]
    answers = [a for a in answers if a is not None and not a.startswith(b"profnet-claim")]
    assert len(answers) >= 4
    for raw in answers:
        answer = json.loads(raw)
        if isinstance(answer, dict) and "request" in answer:
            assert answer["request"]["headers"][API_KEY_HEADER] == "REDACTED"
        assert KEY.encode() not in raw


def test_the_keys_are_those_the_cache_files_already_hold() -> None:
    """The key of a call is what earlier versions wrote under: their answers still hit."""
    expected = {
        ("get-company-details", "acct"): "660dd3e6e404dc77bb1d8eb0938f84987a42774c",
        ("find-geocode-by-location", ""): "a854aa843f8dc84a3af9af38a1b27a61dabaf11c",
        ("search-leads", "acct"): "5707a2fa835e9e4c6a9c17679e99e942d50d7f77",
    }
    params = {
        "get-company-details": {"domain": "acme.com"},
        "find-geocode-by-location": {"location": "Berlin"},
        "search-leads": {"title_keywords": ["CTO"], "limit": 30},
    }
    for (name, account), digest in expected.items():
        assert call_key("profnet", account, endpoint(name), params[name]).digest == digest


def test_an_answer_is_kept_as_long_as_the_policy_says(make_client: MakeClient) -> None:
    client = make_client()
    before = time.time()
    client.get_company_details(domain="kept-for.io")
    after = time.time()
    path = Path(_store(client).described())
    (expires,) = sqlite3.connect(path).execute("SELECT expires FROM responses").fetchone()
    fresh = CachePolicy(client.settings).fresh_for(endpoint("get-company-details"))
    assert round(before + fresh) <= expires <= round(after + fresh), "whole seconds, rounded"


def test_saving_leaves_the_callers_response_as_it_was(make_client: MakeClient) -> None:
    """The stored copy has the key (and what requests-cache redacts) redacted; the response
    the caller holds keeps its headers."""
    client = make_client()
    response = requests.get(
        client.base_url + endpoint("get-company-details").path,
        params={"domain": "untouched.io"},
        headers={API_KEY_HEADER: KEY},
        timeout=10,
    )
    response.request.headers["authorization"] = "Bearer secret"  # requests-cache's names too
    key = client.key("get-company-details", {"domain": "u.io"})
    _store(client).save(key, response, 60)
    assert response.request.headers[API_KEY_HEADER] == KEY
    path = Path(_store(client).described())
    (value,) = (
        sqlite3.connect(path)
        .execute("SELECT value FROM responses WHERE key = ?", (key.digest,))
        .fetchone()
    )
    headers = json.loads(value)["request"]["headers"]
    assert headers[API_KEY_HEADER] == "REDACTED"
    assert headers["authorization"] == "REDACTED"
    assert "Bearer secret" not in value


def test_an_expired_answer_is_a_miss_unless_stale_answers_are_wanted(
    make_client: MakeClient, wall_clock: time_machine.Coordinates
) -> None:
    client = make_client(expiry={"get-company-details": 1})
    client.get_company_details(domain="short-lived.io")
    wall_clock.shift(1.1)
    fresh = make_client(expiry={"get-company-details": 1})
    assert not fresh.is_cached("get-company-details", {"domain": "short-lived.io"})
    stale = make_client(expiry={"get-company-details": 1}, stale_ok=True)
    assert stale.is_cached("get-company-details", {"domain": "short-lived.io"})


def test_purge_removes_expired_answers_and_info_counts_them(
    make_client: MakeClient, wall_clock: time_machine.Coordinates
) -> None:
    client = make_client(expiry={"get-company-details": 1})
    client.get_company_details(domain="goes.io")
    client.find_geocode_by_location(location="Paris")
    info = client.cache_info()
    assert (info["answers"], info["expired"]) == (2, 0)
    assert info["size"] > 0
    wall_clock.shift(2.1)  # the table keeps expiry in whole seconds
    assert client.cache_info()["expired"] == 1
    assert client.purge_cache() == 1
    info = client.cache_info()
    assert (info["answers"], info["expired"]) == (1, 0)


def test_opening_a_cache_purges_at_most_once_a_day(
    make_client: MakeClient, wall_clock: time_machine.Coordinates
) -> None:
    client = make_client(expiry={"get-company-details": 1})
    client.get_company_details(domain="old.io")
    path = Path(_store(client).described())
    wall_clock.shift(1.1)
    make_client(expiry={"get-company-details": 1})  # purged a moment ago: not due
    assert len(_store(client).cache.responses) == 1
    stamp = path.with_name(f".{path.name}.purged")
    long_ago = time.time() - 2 * 86400
    os.utime(stamp, (long_ago, long_ago))
    make_client(expiry={"get-company-details": 1})  # due: purges the expired answer
    assert len(_store(client).cache.responses) == 0


def _old_format_file(folder: Path, service: str, client: Client) -> tuple[Path, str]:
    """A cache file as the earlier version wrote it: requests-cache's default serializer,
    the same keys."""
    from requests_cache.backends.sqlite import SQLiteCache

    folder.mkdir(parents=True, exist_ok=True)
    old = folder / f"{service}-http.sqlite"
    ep = endpoint("get-company-details")
    response = requests.get(
        client.base_url + ep.path,
        params={"domain": "migrated.io"},
        headers={API_KEY_HEADER: KEY},
        timeout=10,
    )
    earlier = SQLiteCache(old, wal=True)
    key = client.key(ep.name, {"domain": "migrated.io"}).digest
    earlier.save_response(response, cache_key=key, expires=datetime.now(UTC) + timedelta(days=1))
    earlier.close()  # type: ignore[no-untyped-call]
    return old, key


def test_a_cache_file_of_the_earlier_format_is_converted_once(
    make_client: MakeClient, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    probe = make_client(cache="memory")
    folder = tmp_path / "migrating"
    old, _ = _old_format_file(folder, probe.service, probe)
    client = make_client(cache=str(folder), cache_dir=folder)
    assert "1 cached answers of an earlier version moved" in capfd.readouterr().err
    assert not old.exists()
    assert client.is_cached("get-company-details", {"domain": "migrated.io"})
    make_client(cache=str(folder), cache_dir=folder)
    assert "earlier version" not in capfd.readouterr().err, "said once"


def test_a_file_of_the_earlier_formats_name_that_is_no_cache_is_left_alone(
    make_client: MakeClient, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Not a cache of an earlier version (not SQLite, or tables it cannot read): perhaps the
    user's, so neither read in nor renamed (decision 568; it was set aside)."""
    probe = make_client(cache="memory")
    folder = tmp_path / "broken"
    folder.mkdir()
    old = folder / f"{probe.service}-http.sqlite"
    old.write_bytes(b"this is not a database" * 100)
    client = make_client(cache=str(folder), cache_dir=folder)
    assert "earlier version" not in capfd.readouterr().err
    assert old.read_bytes() == b"this is not a database" * 100
    assert not list(folder.glob("*.unreadable-*"))
    client.get_company_details(domain="works.io")


def test_a_remote_service_takes_the_proxy_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.corp.example:3128")
    monkeypatch.setenv("NO_PROXY", "")
    settings = Settings.load(cache="memory", cache_dir=tmp_path)
    remote = Transport(settings, "https://api.example.com")
    found = remote.outgoing.environment  # what every attempt is sent with
    assert found["proxies"].get("https") == "http://proxy.corp.example:3128"
    assert not Transport(settings, "http://127.0.0.1:9").session.trust_env, "never on loopback"


def test_the_policy_keeps_each_endpoint_for_its_time() -> None:
    """What the store keeps, and for how long, is the policy's: a status never."""
    policy = CachePolicy(Settings.load(environ={}))
    assert policy.fresh_for(endpoint("get-lead-search-status")) == 0
    assert policy.fresh_for(endpoint("get-company-details")) == 30 * 86400
    assert policy.fresh_for(endpoint("search-leads")) == 24 * 3600


@contextlib.contextmanager
def warnings_raised() -> Iterator[None]:
    """Raise, at the end, on any warning profnet_sheets logged within."""
    said: list[str] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = lambda record: said.append(record.getMessage())  # type: ignore[method-assign]
    logger = logging.getLogger("profnet_sheets")
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)
    assert not said, said


def _open_cache_and_ledger(folder: str, start: Any) -> None:
    """In a forked child: open the store and the ledger as a Client does; exit 1 on an error,
    or on a warning (a new ledger met half made would be taken for an emptied one). Everything
    is imported before the fork, so that the children really start together."""
    start.wait()
    try:
        with warnings_raised():
            settings = Settings.load(environ={}, cache=folder, cache_dir=folder)
            AnswerStore(settings, "svc-race", "", CachePolicy(settings)).close()
            Ledger(Path(folder) / "svc-race-ledger.sqlite")
    except Exception as error:  # any error: the child reports it as its exit code
        print(f"{type(error).__name__}: {error}", file=sys.stderr)
        os._exit(1)
    os._exit(0)


def test_processes_opening_a_new_cache_at_once_all_succeed(tmp_path: Path) -> None:
    """Switching a new file to WAL deadlocks between processes doing it at the same moment;
    SQLite then fails one at once ("database is locked", ~4% of openings before the fix)."""
    import multiprocessing

    import requests_cache  # noqa: F401 - imported before the fork, as the docstring says

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


def test_an_answer_is_on_disk_for_other_processes_when_its_save_returns(
    make_client: MakeClient,
) -> None:
    """Threads saving at once through one SQLite connection: each save is committed when it
    returns, so that a process waiting on the claim finds the answer and pays nothing."""
    writer, other_process = make_client(), make_client()
    store, elsewhere = _store(writer), _store(other_process)
    response = requests.get(
        writer.base_url + endpoint("get-company-details").path,
        params={"domain": "saved.io"},
        headers={API_KEY_HEADER: KEY},
        timeout=10,
    )
    unseen: list[str] = []

    def save_and_look(thread: int) -> None:
        for number in range(150):
            key = writer.key("get-company-details", {"domain": f"t{thread}-{number}.io"})
            store.save(key, response, 3600)
            if elsewhere.get(key) is None:
                unseen.append(key.digest)

    threads = [threading.Thread(target=save_and_look, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not unseen, f"{len(unseen)} of 900 saved answers were not yet on disk"


class _HeldBody(requests.Response):
    """A response whose body is read only when the test lets it: its save waits inside."""

    def __init__(self, sent: requests.Response, entered: threading.Event, go: threading.Event):
        super().__init__()
        self.__dict__.update(sent.__dict__)
        self.entered, self.go = entered, go

    @property  # type: ignore[override]
    def content(self) -> bytes:
        self.entered.set()
        self.go.wait()
        return self._content or b""


def test_a_read_does_not_wait_for_another_threads_save(make_client: MakeClient) -> None:
    """Threads of one process read while another thread saves: no lock of the whole process
    (a save holding one made every read of 16 threads wait: 75 s of 2,000 cold calls)."""
    client = make_client()
    store = _store(client)
    sent = requests.get(
        client.base_url + endpoint("get-company-details").path,
        params={"domain": "held.io"},
        headers={API_KEY_HEADER: KEY},
        timeout=10,
    )
    present = client.key("get-company-details", {"domain": "present.io"})
    store.save(present, sent, 3600)
    entered, go = threading.Event(), threading.Event()
    held = client.key("get-company-details", {"domain": "held.io"})
    saver = threading.Thread(target=store.save, args=(held, _HeldBody(sent, entered, go), 3600))
    saver.start()
    assert entered.wait(30), "the save never reached the body"
    found: list[object] = []
    reader = threading.Thread(target=lambda: found.append(store.get(present)))
    reader.start()
    reader.join(20)  # only bounds a hang: the read waits on nothing
    read_while_saving = not reader.is_alive()
    go.set()
    reader.join()
    saver.join()
    assert read_while_saving, "the read waited for another thread's save"
    (answer,) = found
    assert answer is not None
    assert store.get(held) is not None
