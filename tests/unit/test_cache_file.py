"""What a file named for the cache holds: a cache's tables, or a user's own."""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

import pytest
from requests_cache.backends.sqlite import SQLiteCache

from profnet_sheets.cache_file import foreign_parts, holds_other_data
from profnet_sheets.client import wal
from profnet_sheets.config import unwritable_place


def _database(path: Path, *statements: str) -> Path:
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        for statement in statements:
            db.execute(statement)
    return path


def test_a_file_requests_cache_made_has_no_foreign_table(tmp_path: Path) -> None:
    cache = SQLiteCache(tmp_path / "answers.sqlite")
    cache.responses["k"] = "v"  # type: ignore[assignment]
    cache.close()  # type: ignore[no-untyped-call]
    assert foreign_parts(tmp_path / "answers.sqlite") == []


def test_an_earlier_caches_tables_without_expires_are_a_caches(tmp_path: Path) -> None:
    old = _database(tmp_path / "old.sqlite", "CREATE TABLE responses (key PRIMARY KEY, value)")
    assert foreign_parts(old) == []


def test_a_users_tables_are_named_and_a_caches_name_with_other_columns_too(
    tmp_path: Path,
) -> None:
    shop = _database(
        tmp_path / "shop.db",
        "CREATE TABLE responses (id INTEGER, customer TEXT)",
        'CREATE TABLE "odd ""name""" (x)',
        "CREATE TABLE redirects (key, value, expires)",
        "CREATE INDEX expires_idx ON redirects (expires)",
    )
    assert foreign_parts(shop) == [
        "table 'responses' of other columns",
        "table 'odd \"name\"'",
    ]


def test_a_caches_table_without_its_key_or_value_is_the_users(tmp_path: Path) -> None:
    """A review of decision 565: `responses(key)` passed (any columns within a cache's), and
    `cache clear` dropped the user's rows."""
    shop = _database(
        tmp_path / "shop.db", "CREATE TABLE responses (key)", "CREATE TABLE redirects (value)"
    )
    assert foreign_parts(shop) == [
        "table 'responses' of other columns",
        "table 'redirects' of other columns",
    ]


def test_a_link_is_read_as_its_file_whose_write_ahead_log_is_beside_it(tmp_path: Path) -> None:
    """A review of decision 565: through a link, the -wal beside the file was not seen, so
    tables only in it were not read."""
    real = tmp_path / "real"
    real.mkdir()
    path = real / "shop.db"
    writer = sqlite3.connect(path)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")  # the table stays in the -wal
    writer.execute("CREATE TABLE notes (x)")
    writer.commit()
    link = tmp_path / "link.db"
    link.symlink_to(path)
    try:
        assert Path(f"{path}-wal").stat().st_size > 0
        assert foreign_parts(link) == ["table 'notes'"]
    finally:
        writer.close()


def test_only_what_requests_cache_makes_is_a_caches(tmp_path: Path) -> None:
    """A review of decision 562: tables named `claims` or `answers` passed with any columns,
    as did a view named `responses` and a trigger named `answers`."""
    shop = _database(
        tmp_path / "shop.db",
        "CREATE TABLE claims (id, amount, patient)",
        "CREATE VIEW responses AS SELECT * FROM claims",
        "CREATE INDEX my_idx ON claims (id)",
        "CREATE TRIGGER answers AFTER INSERT ON claims BEGIN SELECT 1; END",
    )
    assert foreign_parts(shop) == [
        "table 'claims'",
        "view 'responses'",
        "index 'my_idx'",
        "trigger 'answers'",
    ]


def test_a_database_in_wal_mode_is_read_without_a_file_left_beside_it(tmp_path: Path) -> None:
    """A review of decision 562: reading a user's WAL database left -wal and -shm files."""
    path = tmp_path / "walu.db"
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("CREATE TABLE notes (x)")
        db.commit()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["walu.db"]
    before = path.read_bytes()
    assert foreign_parts(path) == ["table 'notes'"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["walu.db"]
    assert path.read_bytes() == before


def test_tables_that_cannot_be_read_are_not_told_as_none(tmp_path: Path) -> None:
    """A review of decision 562: a schema this SQLite cannot read (damaged, or a newer
    SQLite's) was taken for no tables, and `cache clear` then deleted the user's data."""
    damaged = tmp_path / "damaged.db"
    damaged.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    assert foreign_parts(damaged) is None


def test_nothing_is_said_of_what_is_not_a_readable_database(tmp_path: Path) -> None:
    notes = tmp_path / "notes.db"
    notes.write_text("monday\n")
    empty = tmp_path / "empty.db"
    empty.touch()
    assert foreign_parts(notes) == []
    assert foreign_parts(empty) == []
    assert foreign_parts(tmp_path / "none.db") == []
    assert foreign_parts(tmp_path) == []
    assert holds_other_data(notes)
    assert not holds_other_data(empty)


def test_a_cache_file_this_user_may_not_read_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mode 000 was accepted by `config --cache`; each later command then said "unable to
    open database file". (os.access is True for root, so this user is told it may not.)"""
    locked = _database(tmp_path / "locked.sqlite", "CREATE TABLE responses (key, value)")
    monkeypatch.setattr(os, "access", lambda path, mode: Path(path) != locked)
    said = unwritable_place(str(locked))
    assert said == f"this user may not read and write {locked} (`chmod u+rw` it, if it is yours)"


def test_a_file_is_set_aside_only_while_it_is_the_one_found_wanting(tmp_path: Path) -> None:
    """Two processes finding one ledger emptied: the second renamed aside the new ledger the
    first had made meanwhile (and its spend), onto the same name in the same second."""
    path = tmp_path / "svc-ledger.sqlite"
    path.write_bytes(b"")
    seen = wal.identity(path)
    first = wal.set_aside(path, seen)
    assert first is not None
    assert first.name.startswith("svc-ledger.sqlite.unreadable-")
    path.write_bytes(b"the new ledger")
    assert wal.set_aside(path, seen) is None, "another file now: left as it is"
    assert path.read_bytes() == b"the new ledger"
    path.unlink()
    assert wal.set_aside(path) is None, "gone: nothing to say"
