"""What a file named for the cache holds: a cache's SQLite tables, or a user's own data."""

from __future__ import annotations

import contextlib
import sqlite3
import time
from pathlib import Path
from typing import Any

from profnet_sheets.redact import shown

SQLITE_HEADER = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database
# What requests-cache makes in a cache file, of this version or an earlier one: its tables
# (`expires` added in its 1.0) and their index, named once for the whole file.
_CACHE_TABLES = ("responses", "redirects")
_CACHE_COLUMNS = frozenset({"key", "value", "expires"})
_CACHE_KEYED = frozenset({"key", "value"})  # ...of which these two in every version
_CACHE_INDEX = "expires_idx"
# Seconds before the tables are read again when they could not be (another process making
# the file a cache at that moment); then "cannot tell".
_AGAIN_AFTER = (0.05, 0.2, 0.5)


def holds_other_data(path: Path) -> bool:
    """Whether `path` is a file of some bytes that do not begin as every SQLite database does:
    a file of the user's (notes named `*.db`), never one a cache made, so never deleted."""
    try:
        with path.open("rb") as file:
            head = file.read(len(SQLITE_HEADER))
    except OSError:  # none there, a folder, or not ours to read
        return False
    return bool(head) and head != SQLITE_HEADER


def foreign_parts(path: Path) -> list[str] | None:
    """What the SQLite file `path` holds that no cache makes (`table 'notes'`, `table
    'responses' of other columns`, `view 'x'`): a user's own database named for the cache,
    which the cache must neither write in nor empty. [] when it holds only a cache's, and for
    no file, an empty one or one that is not SQLite (said where it is opened); None when it
    cannot be told (its tables unreadable, also when asked again briefly: damaged, locked, or
    a newer SQLite's). Nothing is written, nor left beside it (no -wal or -shm file where there
    was none)."""
    with contextlib.suppress(OSError):
        if not path.is_file() or path.stat().st_size == 0 or holds_other_data(path):
            return []
    real = path.expanduser().resolve()  # its -wal is beside the file, not beside a link
    for pause in (*_AGAIN_AFTER, None):
        try:
            made, columns = _tables(real)
            break
        except sqlite3.Error:
            # Another process may be making it a cache at this moment (switching it to WAL:
            # read as whole, its header half-written, or locked): asked again, briefly.
            if pause is None:
                return None
            time.sleep(pause)
    foreign = []
    for kind, name, table in made:
        if name.startswith("sqlite_"):  # SQLite's own (an autoindex of a primary key)
            continue
        if kind == "table" and name in _CACHE_TABLES:
            if not _CACHE_KEYED <= columns[name] <= _CACHE_COLUMNS:
                foreign.append(f"table {shown(name)} of other columns")
        elif not (kind == "index" and name == _CACHE_INDEX and table in _CACHE_TABLES):
            foreign.append(f"{kind} {shown(name)}")
    return foreign


def _tables(real: Path) -> tuple[list[Any], dict[str, set[str]]]:
    """The schema rows of the SQLite file `real`, and the columns of its cache-named tables."""
    # With no write-ahead log beside it, the file is whole: read as it is, no file made.
    whole = not Path(f"{real}-wal").exists()
    uri = f"{real.as_uri()}?mode=ro{'&immutable=1' if whole else ''}"
    with contextlib.closing(sqlite3.connect(uri, uri=True, timeout=1)) as db:
        made = db.execute("SELECT type, name, tbl_name FROM sqlite_master").fetchall()
        columns = {
            name: {row[1] for row in db.execute(f"PRAGMA table_info({_quoted(name)})")}
            for kind, name, _ in made
            if kind == "table" and name in _CACHE_TABLES
        }
    return made, columns


def _quoted(name: str) -> str:
    """`name` as a SQLite identifier."""
    return '"' + name.replace('"', '""') + '"'
