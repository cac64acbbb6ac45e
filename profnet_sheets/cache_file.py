"""What a file named for the cache holds: a cache's SQLite tables, or a user's own data."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

SQLITE_HEADER = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database
# The tables (and index) a cache of this or an earlier version makes, with their columns:
# requests-cache's `responses` and `redirects` (`expires` added in its 1.0).
_CACHE_COLUMNS: dict[str, frozenset[str] | None] = {
    "responses": frozenset({"key", "value", "expires"}),
    "redirects": frozenset({"key", "value", "expires"}),
    "expires_idx": None,
    "answers": None,
    "claims": None,
}


def holds_other_data(path: Path) -> bool:
    """Whether `path` is a file of some bytes that do not begin as every SQLite database does:
    a file of the user's (notes named `*.db`), never one a cache made, so never deleted."""
    try:
        with path.open("rb") as file:
            head = file.read(len(SQLITE_HEADER))
    except OSError:  # none there, a folder, or not ours to read
        return False
    return bool(head) and head != SQLITE_HEADER


def foreign_tables(path: Path) -> list[str]:
    """The tables of the SQLite file `path` that no cache makes, a table of a cache's name
    but other columns among them: a user's own database named for the cache, which the
    cache must neither write its tables into nor empty. Read only;
    nothing is said of a file that is not SQLite or cannot be read (said where it is opened)."""
    with contextlib.suppress(OSError):
        if not path.is_file() or path.stat().st_size == 0:
            return []
    uri = f"{path.expanduser().absolute().as_uri()}?mode=ro"
    try:
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as db:
            tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master")]
            columns = {
                name: {row[1] for row in db.execute(f"PRAGMA table_info({_quoted(name)})")}
                for name in tables
                if _CACHE_COLUMNS.get(name) is not None
            }
    except sqlite3.Error:  # damaged, or not ours to read: said when the cache opens it
        return []
    foreign = []
    for name in tables:
        if name.startswith("sqlite_"):
            continue
        if name not in _CACHE_COLUMNS or (
            (made := _CACHE_COLUMNS[name]) is not None and not columns[name] <= made
        ):
            foreign.append(name)
    return foreign


def _quoted(name: str) -> str:
    """`name` as a SQLite identifier."""
    return '"' + name.replace('"', '""') + '"'
