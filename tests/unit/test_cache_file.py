"""What a file named for the cache holds: a cache's tables, or a user's own."""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

import pytest
from requests_cache.backends.sqlite import SQLiteCache

from profnet_sheets.cache_file import foreign_tables, holds_other_data
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
    assert foreign_tables(tmp_path / "answers.sqlite") == []


def test_an_earlier_caches_tables_without_expires_are_a_caches(tmp_path: Path) -> None:
    old = _database(tmp_path / "old.sqlite", "CREATE TABLE responses (key PRIMARY KEY, value)")
    assert foreign_tables(old) == []


def test_a_users_tables_are_named_and_a_caches_name_with_other_columns_too(
    tmp_path: Path,
) -> None:
    shop = _database(
        tmp_path / "shop.db",
        "CREATE TABLE responses (id INTEGER, customer TEXT)",
        'CREATE TABLE "odd ""name""" (x)',
        "CREATE TABLE redirects (key, value, expires)",
    )
    assert foreign_tables(shop) == ["responses", 'odd "name"']


def test_nothing_is_said_of_what_is_not_a_readable_database(tmp_path: Path) -> None:
    notes = tmp_path / "notes.db"
    notes.write_text("monday\n")
    empty = tmp_path / "empty.db"
    empty.touch()
    assert foreign_tables(notes) == []
    assert foreign_tables(empty) == []
    assert foreign_tables(tmp_path / "none.db") == []
    assert foreign_tables(tmp_path) == []
    assert holds_other_data(notes)
    assert not holds_other_data(empty)


def test_a_cache_file_this_user_may_not_read_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mode 000 was accepted by `config --cache`; each later command then said "unable to
    open database file". (os.access is True for root, so this user is told it may not.)"""
    locked = _database(tmp_path / "locked.sqlite", "CREATE TABLE responses (key, value)")
    monkeypatch.setattr(os, "access", lambda path, mode: Path(path) != locked)
    assert unwritable_place(str(locked)) == f"this user may not read and write {locked}"
