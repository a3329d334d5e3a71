"""Opening the history database, and telling what went wrong with it.

WAL: readers (a search, a timeline, another teamtui) never wait for the writer, and a committed
transaction is in the WAL file before COMMIT returns, so a process killed after it loses nothing
(synchronous=NORMAL: only a power cut can take the last transactions back). Two processes write
in turn: each waits up to `busy_timeout` for the other's transaction.

What can go wrong is one of a few kinds (`Trouble`): the file is damaged (or not a database at
all), another process holds the write lock for too long, the disk is full, the file cannot be
written, or a newer teamtui made it. A damaged or locked-out file is moved aside (`move_aside`)
and rebuilt (rebuild.py); a full disk stops the recording; the rest are said.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from teamtui.protocol.history.schema import NewerSchema, ensure

if TYPE_CHECKING:
    from collections.abc import Iterator

# How long one statement waits for another process's transaction before it counts as busy.
BUSY_TIMEOUT = 5.0

DAMAGED = "damaged"
LOCKED = "locked"
FULL = "full"
UNWRITABLE = "unwritable"
NEWER = "newer"
OTHER = "other"

_DAMAGED_NAMES = ("SQLITE_CORRUPT", "SQLITE_NOTADB")
_LOCKED_NAMES = ("SQLITE_BUSY", "SQLITE_LOCKED")
_UNWRITABLE_NAMES = ("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_AUTH")


class Trouble(Exception):
    """The history database cannot be used as it is: `kind` says why, the message says it to a person."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def trouble_kind(exc: BaseException) -> str:
    """Which kind of trouble an exception from sqlite3 (or the file system) is."""
    if isinstance(exc, Trouble):
        return exc.kind
    if isinstance(exc, NewerSchema):
        return NEWER
    if isinstance(exc, OSError):
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return FULL
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            return UNWRITABLE
        return OTHER
    name = str(getattr(exc, "sqlite_errorname", "") or "")
    text = str(exc).lower()
    if name.startswith("SQLITE_FULL") or "database or disk is full" in text:
        return FULL
    if name.startswith(_DAMAGED_NAMES) or "malformed" in text or "not a database" in text:
        return DAMAGED
    if name.startswith(_LOCKED_NAMES) or "database is locked" in text:
        return LOCKED
    if name.startswith(_UNWRITABLE_NAMES) or "readonly" in text or "unable to open" in text:
        return UNWRITABLE
    if name.startswith("SQLITE_IOERR") and _disk_full_hint(text):
        return FULL
    return OTHER


def _disk_full_hint(text: str) -> bool:
    return "space" in text or "full" in text


def connect(path: Path, *, timeout: float = BUSY_TIMEOUT, readonly: bool = False) -> sqlite3.Connection:
    """The database at `path`, its tables there (created in a new file). Raises Trouble."""
    try:
        if not readonly:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if readonly:
            con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=timeout, isolation_level=None)
        else:
            con = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
    except (sqlite3.Error, OSError) as exc:
        raise Trouble(trouble_kind(exc), f"{path}: {exc}") from exc
    try:
        if not readonly:
            os.chmod(path, 0o600)
            con.execute("PRAGMA journal_mode=WAL")
            con.execute("PRAGMA synchronous=NORMAL")
            ensure(con)
        else:
            con.execute("SELECT count(*) FROM sqlite_master").fetchone()
        con.execute("PRAGMA foreign_keys=OFF")
    except (sqlite3.Error, OSError, NewerSchema) as exc:
        con.close()
        raise Trouble(trouble_kind(exc), f"{path}: {exc}") from exc
    return con


def file_id(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the file at `path`: another process moving it aside changes it."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def move_aside(path: Path, why: str, now: float | None = None) -> Path:
    """The database (and its WAL and shared-memory files) renamed to `<name>.<why>-<time>`: kept
    for a person to look at, out of the way of a new one."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(time.time() if now is None else now))
    aside = path.with_name(f"{path.name}.{why}-{stamp}")
    n = 1
    while aside.exists():
        n += 1
        aside = path.with_name(f"{path.name}.{why}-{stamp}-{n}")
    for suffix in ("", "-wal", "-shm"):
        try:
            os.replace(f"{path}{suffix}", f"{aside}{suffix}")
        except FileNotFoundError:
            continue
    return aside


@contextmanager
def recovery_lock(path: Path) -> Iterator[None]:
    """One process at a time moves a bad database aside and rebuilds it (an flock beside it)."""
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def quick_check(con: sqlite3.Connection) -> str:
    """'ok', or SQLite's first word on what is damaged (reads the whole file: for tests and doctor)."""
    row = con.execute("PRAGMA quick_check(1)").fetchone()
    return str(row[0]) if row else "ok"
