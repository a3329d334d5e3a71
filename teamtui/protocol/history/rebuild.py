"""A damaged (or locked-out) history database: moved aside, and rebuilt from what is still there.

What is still there: the JSON-lines journals (every Claude Code team a dashboard watched, its
messages, tasks and end) and the team folders on this machine (each team's config, tasks,
inboxes and logs, read as a dashboard reads them and recorded as a dashboard's recorder would).
Transcripts are not read again (they can be hundreds of MB; a live dashboard's recorder sends
its teams' logs again anyway). One process at a time does it (`recovery_lock`); one that finds
the file already replaced by another leaves it be.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from teamtui.protocol.history.db import (
    BUSY_TIMEOUT,
    DAMAGED,
    LOCKED,
    connect,
    file_id,
    move_aside,
    recovery_lock,
    trouble_kind,
)
from teamtui.protocol.history.ops import Txn

_WHAT = {DAMAGED: "damaged", LOCKED: "locked by another process for too long"}


def recover(
    path: Path,
    kind: str,
    why: str,
    *,
    bad: tuple[int, int] | None = None,
    rebuild: Callable[[sqlite3.Connection], str] | None = None,
    busy_timeout: float = BUSY_TIMEOUT,
) -> str:
    """Move the bad file at `path` aside and rebuild it; what happened, in one line for a person.
    `bad`: the file found bad ((device, inode)); default the one there now."""
    bad = bad or file_id(path)
    with recovery_lock(path):
        if file_id(path) != bad:
            return f"{path} was {_WHAT.get(kind, kind)}; another teamtui has rebuilt it"
        if kind == LOCKED and not _still_locked(path, busy_timeout):
            return f"{path} was locked for a while; it is free again"
        aside = move_aside(path, "damaged" if kind == DAMAGED else "locked")
        con = connect(path, timeout=busy_timeout)
        try:
            summary = (rebuild or rebuild_into)(con)
        finally:
            con.close()
    return f"{path} was {_WHAT.get(kind, kind)} ({why}): moved aside to {aside.name} and rebuilt from {summary}"


def _still_locked(path: Path, timeout: float) -> bool:
    try:
        con = sqlite3.connect(path, timeout=min(timeout, 1.0), isolation_level=None)
    except sqlite3.Error:
        return True
    try:
        con.execute("BEGIN IMMEDIATE")
        con.execute("ROLLBACK")
        return False
    except sqlite3.Error as exc:
        return trouble_kind(exc) == LOCKED
    finally:
        con.close()


def rebuild_into(con: sqlite3.Connection, *, journals: Path | None = None, folders: bool = True) -> str:
    """Fill a new database from the journals and the team folders; what it was rebuilt from."""
    from teamtui.protocol.history.importer import import_journals, journal_files

    files = len(journal_files(journals))
    records = import_journals(con, journals)
    teams = record_folders(con) if folders else 0
    return f"{files} journal file{'s' if files != 1 else ''} ({records} records) and {teams} team folder{'s' if teams != 1 else ''}"


def record_folders(con: sqlite3.Connection, roots: list[Path] | None = None) -> int:
    """Every team folder found on this machine (as the control room finds them), read and recorded."""
    from teamtui.protocol.fleet.discover import discover_fleet
    from teamtui.protocol.history.recorder import HistoryRecorder, OpList
    from teamtui.protocol.layout import open_team
    from teamtui.protocol.state import TeamState

    recorded = 0
    for team in discover_fleet(roots or [], ended=False).teams:
        if team.problem:
            continue
        sink = OpList()
        try:
            store = open_team(team.root, team.name, team.layout)
            recorder = HistoryRecorder.for_store(store, sink, live=False)
            TeamState(store, journal=recorder).load_all()
        except Exception:  # noqa: BLE001 - one unreadable team must not stop the others being rebuilt
            continue
        if not sink.ops:
            continue
        con.execute("BEGIN IMMEDIATE")
        try:
            txn = Txn(con)
            for op in sink.ops:
                txn.apply(op)
            txn.finish()
            con.execute("COMMIT")
        except BaseException:
            if con.in_transaction:
                con.execute("ROLLBACK")
            raise
        recorded += 1
    return recorded
