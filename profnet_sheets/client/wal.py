"""SQLite files: make one whole at once, put one in WAL mode (also when several processes open
it at the same moment), tell a damaged one, set one aside or remove it with its -wal and -shm."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from pathlib import Path

from profnet_sheets.errors import DamagedFile
from profnet_sheets.redact import clipped
from profnet_sheets.words import command

_BUSY, _LOCKED = 5, 6  # SQLITE_BUSY, SQLITE_LOCKED (primary codes)
_DAMAGED = (11, 26)  # SQLITE_CORRUPT, SQLITE_NOTADB
_MARK = "-damaged"  # beside a SQLite file found damaged inside: why, until it is mended
_COMPANIONS = ("", "-wal", "-shm", _MARK)


def ensure_wal(path: Path, timeout: float = 30.0) -> None:
    """Switch `path` (made if missing) to WAL, which then stays its mode for every connection.

    Switching needs an exclusive lock. Two processes switching a new file at once each hold a
    shared lock and want that exclusive one: SQLite answers one of them "database is locked"
    at once, without waiting (its busy timeout does not apply to a deadlock). Here the loser
    tries again, by when the winner has switched and the pragma has nothing left to do.

    A file SQLite cannot read (garbage, a damaged first page) raises DamagedFile, whose
    message is the cache's (the ledger sets its own aside: client/ledger.py).
    """
    deadline = time.monotonic() + timeout
    pause = 0.002
    while True:
        damaged = None
        connection = sqlite3.connect(path, timeout=timeout, isolation_level=None)
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("SELECT count(*) FROM sqlite_master")  # reads the first page
            return
        except sqlite3.DatabaseError as error:
            code = getattr(error, "sqlite_errorcode", _BUSY) & 0xFF
            if code in _DAMAGED:
                damaged = str(error)
            elif code not in (_BUSY, _LOCKED) or time.monotonic() > deadline:
                raise
        finally:
            connection.close()
        if damaged is not None:
            raise damaged_cache(path, damaged)
        time.sleep(pause)
        pause = min(pause * 2, 0.1)


def damaged_cache(path: Path, reason: str) -> DamagedFile:
    """The error of a cache file that cannot be read, and what to do about it."""
    return DamagedFile(
        f"The cache file {clipped(str(path))} cannot be read ({reason}): it is damaged, "
        f"or not a cache of profnet-sheets. Run `{command('cache clear')}` to start it "
        "anew (it is renamed aside and kept; what it held is asked for, and paid, again), or "
        "move it aside.",
        path=path,
        details=reason,
    )


def create(path: Path, script: str = "") -> None:
    """Make an empty SQLite file in WAL mode at `path` (with `script` run in it) at once: built
    aside, then linked in (a file another process made meanwhile is kept). A file made so is
    never seen at 0 bytes: one of 0 bytes was emptied."""
    building = path.with_name(f".{path.name}.{os.getpid()}-{threading.get_ident()}.new")
    try:
        with contextlib.closing(sqlite3.connect(building, isolation_level=None)) as db:
            db.execute("PRAGMA journal_mode=WAL")
            if script:
                db.executescript(script)
        link = getattr(os, "link", None)  # none under Pyodide: made in place, as SQLite does
        if link is not None:
            with contextlib.suppress(FileExistsError):
                link(building, path)
    except OSError:  # a file system without hard links: made in place, as SQLite does
        pass
    finally:
        remove(building)


def set_aside(path: Path, seen: tuple[int, int] | None = None) -> Path | None:
    """Rename `path`, with its -wal and -shm, to `<name>.unreadable-<time>-<pid>` (a name no
    other process renames to: a rename replaces what has the name); the new name, or None
    when `path` was gone, or (`seen`: the device and inode of the file found wanting) is
    another file now: another process set it aside first, and made a new one."""
    aside = path.with_name(f"{path.name}.unreadable-{int(time.time())}-{os.getpid()}")
    try:
        if seen is not None and identity(path) != seen:
            return None
        path.rename(aside)
    except FileNotFoundError:
        return None
    for suffix in _COMPANIONS[1:]:
        with contextlib.suppress(FileNotFoundError):
            path.with_name(path.name + suffix).rename(aside.with_name(aside.name + suffix))
    return aside


def mark_damaged(path: Path, reason: str) -> None:
    """Note beside the SQLite file `path` that it was found damaged inside (`reason`): SQLite
    opens it, and its damaged pages may be only those a save writes, so each run would pay
    again for answers it cannot keep. Every later open refuses it (`damage_marked`) until
    `cache clear` sets it aside, the mark with it."""
    with contextlib.suppress(OSError):
        path.with_name(path.name + _MARK).write_text(reason[:500], encoding="utf-8")


def damage_marked(path: Path) -> str | None:
    """Why the SQLite file `path` was found damaged inside, or None (no mark)."""
    try:
        return path.with_name(path.name + _MARK).read_text(encoding="utf-8") or "damaged"
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return "damaged"


def identity(path: Path) -> tuple[int, int]:
    """The device and inode of the file at `path` (FileNotFoundError: none there)."""
    found = path.stat()
    return found.st_dev, found.st_ino


def remove(path: Path) -> None:
    """Delete the SQLite file `path` with its -wal and -shm (and the mark of its damage)."""
    for suffix in _COMPANIONS:
        with contextlib.suppress(FileNotFoundError):
            path.with_name(path.name + suffix).unlink()
