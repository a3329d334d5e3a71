"""The JSON-lines journals (protocol/claude/journal.py) read into the history database, once.

A journal only grows, then is rotated to `<file>.1` (the same inode under another name) and a new
file begun. So each file is known by its inode, with how far it was read (`imports.offset`): a
second import reads only what was appended since, a rotated file is not read again, and a journal
a dashboard still writes to is picked up where it was left. A record a live recorder also saw (at
or after the team's `recorded_since`) is skipped: the recorder has it.

An import is confirmed (`imports.confirmed_at`) once the database holds every record read from the
file; `retire=True` then deletes the confirmed journal files (kept until then, and kept by default
while dashboards still write journals).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from teamtui.protocol.history.ops import TeamIdent, Txn

SUFFIX = ".jsonl"
# Records applied per transaction: a big journal never holds the write lock for long.
CHUNK = 2000


def journal_dir() -> Path:
    from teamtui.protocol.history import state_dir

    return state_dir() / "journal"


def journal_files(directory: Path | None = None) -> list[Path]:
    """Every journal file, the older generation (`.jsonl.1`) before the current one."""
    d = directory or journal_dir()
    try:
        names = sorted(
            p for p in d.iterdir() if p.is_file() and (p.name.endswith(SUFFIX) or p.name.endswith(SUFFIX + ".1"))
        )
    except OSError:
        return []
    return sorted(names, key=lambda p: (p.name.removesuffix(".1"), not p.name.endswith(".1")))


class _FileImport:
    """One journal file's records turned into ops (the team's header first, then its records)."""

    def __init__(self, path: Path, team: TeamIdent | None = None, since: float | None = None):
        self.path = path
        self.team = team
        self.since = since  # the team's recorded_since: records from then on are the recorder's
        self.messages: dict[str, tuple] = {}  # the journal's key → the message's fields (for deliveries)
        self.records = 0

    def ops(self, rec: dict[str, Any]) -> list[tuple]:
        kind, ts = rec.get("kind"), rec.get("ts")
        if not isinstance(ts, (int, float)) or isinstance(ts, bool):
            return []
        ts = float(ts)
        if kind == "team":
            self.team = TeamIdent(
                "", _s(rec.get("layout")) or "claude", _real(_s(rec.get("root"))), _s(rec.get("team"))
            )
        if self.team is None or not self.team.name:
            return []
        if kind == "message" and isinstance(rec.get("key"), str):
            fields = (
                _s(rec.get("from")),
                _s(rec.get("to")),
                _s(rec.get("type")) or "message",
                _s(rec.get("text")),
                _num(rec.get("at")),
            )
            self.messages[rec["key"]] = fields
        if self.since is not None and ts >= self.since and kind != "team":
            return []
        op = self._op(kind, rec, ts)
        return [] if op is None else [op]

    def _op(self, kind: object, rec: dict[str, Any], ts: float) -> tuple | None:
        team = self.team
        if kind == "team":
            members = [
                (
                    _s(m.get("name")),
                    _s(m.get("agent_type")),
                    _s(m.get("color")),
                    _s(m.get("backend")),
                    _s(m.get("pane")),
                    _when(m.get("joined_at")),
                )
                for m in rec.get("members") or []
                if isinstance(m, dict) and isinstance(m.get("name"), str)
            ]
            extra = {"journal": str(self.path.with_name(self.path.name.removesuffix(".1")))}
            for key in ("task_list", "lead_pid"):
                if rec.get(key) is not None:
                    extra[key] = rec[key]
            payload = (
                _s(rec.get("lead")),
                _s(rec.get("description")),
                _when(rec.get("created_at")),
                members,
                extra,
                False,
            )
            return ("header", team, ts, payload)
        ref = rec.get("key")
        said = self.messages.get(ref) if isinstance(ref, str) else None  # a message's fields, by its key
        if kind == "message":
            sender, recipient, mtype, text, at = said or ("", "", "message", "", 0.0)
            read = rec.get("read") if isinstance(rec.get("read"), bool) else None
            return ("message", team, ts, (sender, recipient, mtype, text, _s(rec.get("summary")), at, read, False))
        if kind == "delivered":
            return None if said is None else ("delivered", team, ts, said)
        if kind in ("task", "assigned"):
            blocked: list[object] = rec["blocked_by"] if isinstance(rec.get("blocked_by"), list) else []
            task: tuple = (
                "task" if kind == "task" else "assigned",
                _s(rec.get("id")),
                _s(rec.get("subject")),
                _s(rec.get("description")),
                _s(rec.get("status")) or "pending",
                _s(rec.get("owner")),
                [str(b) for b in blocked],
            )
            return ("task", team, ts, task) if task[1] else None
        if kind in ("task_removed", "assigned_removed"):
            return ("task_removed", team, ts, ("task" if kind == "task_removed" else "assigned", _s(rec.get("id"))))
        if kind in ("member_joined", "member_left", "member_status"):
            what = {"member_joined": "joined", "member_left": "left", "member_status": "status"}[kind]
            member: tuple = (
                _s(rec.get("name")),
                what,
                _s(rec.get("status")),
                _s(rec.get("agent_type")),
                _s(rec.get("color")),
            )
            return ("member", team, ts, member) if member[0] else None
        if kind in ("lead_ended", "team_gone"):
            return ("event", team, ts, (kind, _s(rec.get("detail") or rec.get("pid") or "")))
        return None


def _s(value: object) -> str:
    return value if isinstance(value, str) else "" if value is None else str(value)


def _num(value: object) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def _when(value: object) -> float | None:
    """A time as the journal kept it: epoch seconds, Claude Code's epoch milliseconds, or nothing."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value / 1000.0 if value > 1e11 else float(value)


def _real(root: str) -> str:
    try:
        return os.path.realpath(root) if root else root
    except (OSError, ValueError):
        return root


def import_journals(con: sqlite3.Connection, directory: Path | None = None, *, retire: bool = False) -> int:
    """Every journal's records not read yet, into the database; the number of records applied."""
    total = 0
    for path in journal_files(directory):
        try:
            total += import_file(con, path)
        except OSError:
            continue  # unreadable now: tried again next time
    if retire:
        retire_confirmed(con, directory)
    return total


def import_file(con: sqlite3.Connection, path: Path) -> int:
    st = os.stat(path)
    row = con.execute(
        "SELECT offset, records FROM imports WHERE device = ? AND inode = ?", (st.st_dev, st.st_ino)
    ).fetchone()
    offset, records = (row[0], row[1]) if row else (0, 0)
    if offset >= st.st_size:
        # Read to its end already (perhaps under its name before a rotation): only its name is new.
        con.execute("UPDATE imports SET path = ? WHERE device = ? AND inode = ?", (str(path), st.st_dev, st.st_ino))
        return 0
    imp = _FileImport(path)
    applied = 0
    with open(path, "rb") as fh:
        if offset:
            imp.team, imp.since = _team_of(con, path, fh)  # the header is the file's first line
            fh.seek(offset)
        pending: list[tuple] = []
        read_to = offset
        for raw in fh:
            if not raw.endswith(b"\n"):
                break  # a line still being written: read next time
            read_to += len(raw)
            try:
                rec = json.loads(raw)
            except ValueError:
                continue  # a line cut by a crash: the rest still reads
            if not isinstance(rec, dict):
                continue
            if rec.get("kind") == "team" and imp.since is None and imp.team is None:
                imp.since = _recorded_since(con, rec)
            records += 1
            pending += imp.ops(rec)
            if len(pending) >= CHUNK:
                applied += _apply(con, pending)
                pending = []
        applied += _apply(con, pending)
    now = time.time()
    con.execute(
        "INSERT INTO imports(device, inode, path, offset, records, imported_at, confirmed_at) VALUES (?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT(device, inode) DO UPDATE SET path = excluded.path, offset = excluded.offset, "
        "records = excluded.records, imported_at = excluded.imported_at, confirmed_at = excluded.confirmed_at",
        (st.st_dev, st.st_ino, str(path), read_to, records, now, now),
    )
    return applied


def _team_of(con: sqlite3.Connection, path: Path, fh: Any) -> tuple[TeamIdent | None, float | None]:
    first = fh.readline()
    try:
        rec = json.loads(first)
    except ValueError:
        return None, None
    if not isinstance(rec, dict) or rec.get("kind") != "team":
        return None, None
    team = TeamIdent("", _s(rec.get("layout")) or "claude", _real(_s(rec.get("root"))), _s(rec.get("team")))
    return team, _recorded_since(con, rec)


def _recorded_since(con: sqlite3.Connection, rec: dict[str, object]) -> float | None:
    row = con.execute(
        "SELECT recorded_since FROM teams WHERE host = '' AND layout = ? AND root = ? AND name = ?",
        (_s(rec.get("layout")) or "claude", _real(_s(rec.get("root"))), _s(rec.get("team"))),
    ).fetchone()
    return row[0] if row else None


def _apply(con: sqlite3.Connection, ops: list[tuple]) -> int:
    if not ops:
        return 0
    con.execute("BEGIN IMMEDIATE")
    try:
        txn = Txn(con)
        for op in ops:
            txn.apply(op)
        txn.finish()
        con.execute("COMMIT")
    except BaseException:
        if con.in_transaction:
            con.execute("ROLLBACK")
        raise
    return len(ops)


def retire_confirmed(con: sqlite3.Connection, directory: Path | None = None) -> list[Path]:
    """Delete the journal files whose every record is in the database (confirmed, not grown since)."""
    gone: list[Path] = []
    for path in journal_files(directory):
        try:
            st = os.stat(path)
        except OSError:
            continue
        row = con.execute(
            "SELECT offset, confirmed_at FROM imports WHERE device = ? AND inode = ?", (st.st_dev, st.st_ino)
        ).fetchone()
        if row and row[1] is not None and row[0] >= st.st_size:
            try:
                path.unlink()
                gone.append(path)
            except OSError:
                continue
    return gone
