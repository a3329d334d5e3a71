"""Keeping the history bounded: records older than `history_keep_days` removed, a little at a time.

Each chunk is its own short transaction, so a dashboard's writer (or another teamtui's) never
waits long behind a prune. A team not seen since the cutoff goes whole; a team still seen keeps
its header, its members and its tasks' last state, and loses its older records.
"""

from __future__ import annotations

import sqlite3

from teamtui.protocol.history.schema import TEAM_TABLES

CHUNK = 5000
# Each table's time column.
_TIME = {
    "member_events": "ts",
    "task_events": "ts",
    "entries": "ts",
    "messages": "at",
    "needs": "opened_at",
    "file_changes": "ts",
    "costs": "ts",
    "events": "ts",
}


def _chunked(con: sqlite3.Connection, sql: str, args: tuple) -> int:
    removed = 0
    while True:
        con.execute("BEGIN IMMEDIATE")
        try:
            n = con.execute(sql, (*args, CHUNK)).rowcount
            con.execute("COMMIT")
        except BaseException:
            if con.in_transaction:
                con.execute("ROLLBACK")
            raise
        removed += max(n, 0)
        if n < CHUNK:
            return removed


def prune(con: sqlite3.Connection, cutoff: float) -> int:
    """Remove what is older than `cutoff` (epoch seconds); the number of rows removed."""
    removed = 0
    old = [row[0] for row in con.execute("SELECT id FROM teams WHERE last_seen < ?", (cutoff,))]
    for tid in old:
        for table in TEAM_TABLES:
            if table in _TIME:
                removed += _chunked(
                    con,
                    f"DELETE FROM {table} WHERE rowid IN (SELECT rowid FROM {table} WHERE team_id = ? LIMIT ?)",
                    (tid,),
                )
        con.execute("BEGIN IMMEDIATE")
        try:
            for table in ("members", "tasks"):
                removed += con.execute(f"DELETE FROM {table} WHERE team_id = ?", (tid,)).rowcount
            con.execute("DELETE FROM teams WHERE id = ?", (tid,))
            con.execute("COMMIT")
        except BaseException:
            if con.in_transaction:
                con.execute("ROLLBACK")
            raise
    teams = [row[0] for row in con.execute("SELECT id FROM teams")]
    for table, column in _TIME.items():
        for tid in teams:
            removed += _chunked(
                con,
                f"DELETE FROM {table} WHERE rowid IN (SELECT rowid FROM {table} WHERE team_id = ? AND {column} < ? LIMIT ?)",
                (tid, cutoff),
            )
    return removed
