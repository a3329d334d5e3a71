"""Reading the history: the teams it holds, one team's records, an ended team as a TeamState,
and one team's history for the timeline.

`open_history()` is how a reader (the CLI, a screen's worker) gets the database: the journals'
new records read in first, a damaged file moved aside and rebuilt (what happened is handed to
`tell`, in one line).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from teamtui.protocol.history import db_path
from teamtui.protocol.history.db import DAMAGED, LOCKED, Trouble, connect, file_id, trouble_kind
from teamtui.protocol.history.timeline import HistoryMember, TeamHistory

if TYPE_CHECKING:
    from teamtui.protocol.state import TeamState

# The newest messages whose text a report shows.
REPORT_MESSAGES = 500


def open_history(
    path: Path | None = None, *, tell: Callable[[str], None] | None = None, import_journals: bool = True
) -> sqlite3.Connection:
    """The database, ready to read (and the journals' new records in it). Raises db.Trouble when
    it cannot be had (a full disk, a file made by a newer teamtui)."""
    path = Path(path) if path is not None else db_path()
    for attempt in (1, 2):
        try:
            con = connect(path)
            if import_journals:
                from teamtui.protocol.history.importer import import_journals as read_in

                read_in(con)
            return con
        except (Trouble, sqlite3.Error) as exc:
            kind = trouble_kind(exc)
            if kind not in (DAMAGED, LOCKED) or attempt == 2:
                raise exc if isinstance(exc, Trouble) else Trouble(kind, f"{path}: {exc}") from exc
            from teamtui.protocol.history.rebuild import recover

            done = recover(path, kind, str(exc), bad=file_id(path))
            if tell is not None:
                tell(f"history: {done}")
    raise AssertionError("unreachable")


@dataclass
class TeamRow:
    """One team the history holds."""

    id: int
    host: str
    layout: str
    root: str
    name: str
    lead: str = ""
    description: str = ""
    first_seen: float = 0.0
    last_seen: float = 0.0
    ended_at: float | None = None
    header: dict[str, Any] = field(default_factory=dict)
    messages: int = 0

    @property
    def key(self) -> tuple[str, str, str]:
        """The control room's key of this team: (layout, root, name) here, ("ssh:<host>", root, name) for another machine's."""
        return (f"ssh:{self.host}", self.root, self.name) if self.host else (self.layout, self.root, self.name)

    @property
    def journal(self) -> str | None:
        found = self.header.get("journal")
        return found if isinstance(found, str) else None


_TEAM_COLUMNS = "id, host, layout, root, name, lead, description, first_seen, last_seen, ended_at, header"


def _team(row: tuple, messages: int = 0) -> TeamRow:
    try:
        header = json.loads(row[10]) if row[10] else {}
    except ValueError:
        header = {}
    tid, host, layout, root, name, lead, description, first_seen, last_seen, ended_at = row[:10]
    return TeamRow(
        tid,
        host,
        layout,
        root,
        name,
        lead,
        description,
        first_seen,
        last_seen,
        ended_at,
        header if isinstance(header, dict) else {},
        messages,
    )


def teams(con: sqlite3.Connection, name: str | None = None) -> list[TeamRow]:
    """Every team (or those called `name`), the most recently seen first, with their message counts."""
    where, args = ("WHERE name = ?", (name,)) if name is not None else ("", ())
    rows = con.execute(f"SELECT {_TEAM_COLUMNS} FROM teams {where} ORDER BY last_seen DESC", args).fetchall()
    counts = dict(con.execute("SELECT team_id, count(*) FROM messages GROUP BY team_id").fetchall()) if rows else {}
    return [_team(r, counts.get(r[0], 0)) for r in rows]


def team(con: sqlite3.Connection, team_id: int) -> TeamRow | None:
    row = con.execute(f"SELECT {_TEAM_COLUMNS} FROM teams WHERE id = ?", (team_id,)).fetchone()
    return _team(row) if row else None


def team_by_key(con: sqlite3.Connection, key: tuple[str, str, str]) -> TeamRow | None:
    """The team of a control-room key (see TeamRow.key)."""
    first, root, name = key
    if first.startswith("ssh:"):
        row = con.execute(
            f"SELECT {_TEAM_COLUMNS} FROM teams WHERE host = ? AND root = ? AND name = ? ORDER BY last_seen DESC",
            (first[4:], root, name),
        ).fetchone()
    else:
        row = con.execute(
            f"SELECT {_TEAM_COLUMNS} FROM teams WHERE host = '' AND layout = ? AND root = ? AND name = ?",
            (first, root, name),
        ).fetchone()
    return _team(row) if row else None


def ended_teams(con: sqlite3.Connection, since: float, live: set[tuple[str, str, str]] = frozenset()) -> list[TeamRow]:  # type: ignore[assignment]
    """This machine's teams that ended (or were last seen) at or after `since` and are not `live`,
    the most recent first: what the control room lists as ended (the journal's _ended_teams, from here)."""
    rows = con.execute(
        f"SELECT {_TEAM_COLUMNS} FROM teams WHERE host = '' AND coalesce(ended_at, last_seen) >= ? "
        "ORDER BY coalesce(ended_at, last_seen) DESC",
        (since,),
    ).fetchall()
    return [t for t in (_team(r) for r in rows) if t.key not in live]


# ------------------------------------------------------------------ one team's records


def records(con: sqlite3.Connection, team_id: int, *, activity: bool = False) -> list[dict[str, Any]]:
    """One team's records in time order, in the journal's shape (`kind`, `ts`, ...): what `teamtui
    history TEAM` prints. `activity`: the log and transcript lines too."""
    t = team(con, team_id)
    if t is None:
        return []
    members = con.execute(
        "SELECT name, agent_type, color, backend, pane, joined_at, left_at FROM members WHERE team_id = ? ORDER BY joined_at",
        (team_id,),
    ).fetchall()
    out: list[dict[str, Any]] = [
        {
            "ts": t.first_seen,
            "kind": "team",
            "team": t.name,
            "layout": t.layout,
            "root": t.root,
            "host": t.host,
            "lead": t.lead,
            "description": t.description,
            "members": [
                {"name": m[0], "agent_type": m[1], "color": m[2], "backend": m[3], "pane": m[4], "joined_at": m[5]}
                for m in members
            ],
        }
    ]
    for at, sender, recipient, kind, summary, read, delivered, text in con.execute(
        "SELECT m.at, m.sender, m.recipient, m.type, m.summary, m.read, m.delivered_at, e.text FROM messages m "
        "LEFT JOIN entries e ON e.id = m.entry_id WHERE m.team_id = ?",
        (team_id,),
    ):
        out.append(
            {
                "ts": at,
                "kind": "message",
                "from": sender,
                "to": recipient,
                "type": kind,
                "text": text or "",
                "summary": summary,
                "at": at,
                "read": None if read is None else bool(read),
            }
        )
        if delivered is not None:
            out.append({"ts": delivered, "kind": "delivered", "to": recipient, "from": sender})
    for ts, source, tid, status, owner, subject in con.execute(
        "SELECT ts, source, task_id, status, owner, subject FROM task_events WHERE team_id = ?", (team_id,)
    ):
        kind = "task" if source == "task" else "assigned"
        if status == "removed":
            out.append({"ts": ts, "kind": f"{kind}_removed", "id": tid})
        else:
            out.append({"ts": ts, "kind": kind, "id": tid, "status": status, "owner": owner, "subject": subject})
    for ts, name, kind, detail in con.execute(
        "SELECT ts, name, kind, detail FROM member_events WHERE team_id = ?", (team_id,)
    ):
        out.append(
            {
                "ts": ts,
                "kind": f"member_{kind}" if kind != "status" else "member_status",
                "name": name,
                "status": detail,
            }
        )
    for ts, kind, detail in con.execute("SELECT ts, kind, detail FROM events WHERE team_id = ?", (team_id,)):
        out.append({"ts": ts, "kind": kind, "detail": detail})
    for opened, answered, member, kind, text, answer in con.execute(
        "SELECT opened_at, answered_at, member, kind, text, answer FROM needs WHERE team_id = ?", (team_id,)
    ):
        out.append({"ts": opened, "kind": "need", "member": member, "need": kind, "text": text})
        if answered is not None:
            out.append({"ts": answered, "kind": "need_answered", "member": member, "need": kind, "answer": answer})
    for ts, member, path, change in con.execute(
        "SELECT ts, member, path, change FROM file_changes WHERE team_id = ?", (team_id,)
    ):
        out.append({"ts": ts, "kind": "change", "member": member, "path": path, "change": change})
    for ts, member, model, usd, tokens in con.execute(
        "SELECT ts, member, model, usd, input_tokens + output_tokens FROM costs WHERE team_id = ?", (team_id,)
    ):
        out.append({"ts": ts, "kind": "cost", "member": member, "model": model, "usd": usd, "tokens": tokens})
    if activity:
        for ts, kind, who, text in con.execute(
            "SELECT ts, kind, who, text FROM entries WHERE team_id = ? AND kind IN ('log', 'transcript')", (team_id,)
        ):
            out.append({"ts": ts, "kind": kind, "who": who, "text": text})
    head, rest = out[0], out[1:]
    rest.sort(key=lambda r: r["ts"] or 0.0)
    return [head, *rest]


# ------------------------------------------------------------------ an ended team, as a model


def load_state(con: sqlite3.Connection, team_id: int) -> TeamState:
    """An ended team rebuilt from the history (any layout): its config (members who left as
    departed), its tasks (or the lead's assignments) and its newest messages with their receipts.
    Read-only: its store's paths may be gone (or on another machine)."""
    from teamtui.protocol.models import Member, MemberStatus, Message, Task, TeamConfig
    from teamtui.protocol.state import DEFAULT_MESSAGE_LIMIT, TeamState

    t = team(con, team_id)
    if t is None:
        raise KeyError(f"no team {team_id} in the history")
    state = TeamState(_store(t))
    members: list[Member] = []
    departed: dict[str, Member] = {}
    for name, agent_type, color, backend, pane, left_at in con.execute(
        "SELECT name, agent_type, color, backend, pane, left_at FROM members WHERE team_id = ? ORDER BY joined_at",
        (team_id,),
    ):
        m = Member(name=name, agent_type=agent_type, color=color, backend_type=backend, tmux_pane_id=pane)
        if left_at is None:
            members.append(m)
        else:
            m.status = MemberStatus.SHUTDOWN
            departed[name] = m
    tasks: dict[str, Task] = {}
    assigned: dict[str, Task] = {}
    for source, tid, subject, description, status, owner, blocked in con.execute(
        "SELECT source, task_id, subject, description, status, owner, blocked_by FROM tasks "
        "WHERE team_id = ? AND removed_at IS NULL",
        (team_id,),
    ):
        try:
            task = Task(
                id=tid,
                subject=subject,
                description=description,
                status=status or "pending",
                owner=owner,
                blocked_by=json.loads(blocked or "[]"),
            )
        except ValueError:
            continue
        (tasks if source == "task" else assigned)[tid] = task
    messages = []
    for at, sender, recipient, kind, summary, read, delivered, text in con.execute(
        "SELECT * FROM (SELECT m.at, m.sender, m.recipient, m.type, m.summary, m.read, m.delivered_at, e.text "
        "FROM messages m LEFT JOIN entries e ON e.id = m.entry_id WHERE m.team_id = ? ORDER BY m.at DESC LIMIT ?) "
        "ORDER BY at",
        (team_id, DEFAULT_MESSAGE_LIMIT),
    ):
        msg = Message(
            type=kind,
            sender=sender,
            recipient=recipient,
            content=text or "",
            summary=summary,
            timestamp=at,
            read=True if delivered is not None else (None if read is None else bool(read)),
        )
        msg.delivered = delivered is not None
        messages.append(msg)
    config = TeamConfig(name=t.name, lead=t.lead or state.store.default_lead, description=t.description)
    config.members = members
    state.restore(config, departed, tasks, messages, assigned)
    return state


def _store(t: TeamRow) -> Any:
    from teamtui.protocol.layout import store_class

    try:
        return store_class(t.layout)(Path(t.root or "."), t.name)  # type: ignore[arg-type]
    except Exception:  # noqa: BLE001 - a name its layout would refuse now: shown under a neutral store
        from teamtui.protocol.claude import ClaudeTeam

        return ClaudeTeam(Path(t.root or "."), "ended-team")


# ------------------------------------------------------------------ one team, for the timeline


def team_history(
    con: sqlite3.Connection, team_id: int, start: float | None = None, end: float | None = None
) -> TeamHistory:
    """What the timeline and the report draw of one team (between `start` and `end`, default all)."""
    t = team(con, team_id)
    if t is None:
        raise KeyError(f"no team {team_id} in the history")
    lo = -1e18 if start is None else start
    hi = 1e18 if end is None else end
    h = TeamHistory(
        name=t.name,
        layout=t.layout,
        host=t.host,
        root=t.root,
        lead=t.lead,
        description=t.description,
        start=t.first_seen,
        end=t.ended_at if t.ended_at is not None else t.last_seen,
        ended_at=t.ended_at,
    )
    args = (team_id, lo, hi)
    h.members = [
        HistoryMember(*r)
        for r in con.execute(
            "SELECT name, agent_type, color, joined_at, left_at FROM members WHERE team_id = ? ORDER BY joined_at, name",
            (team_id,),
        )
    ]
    h.member_events = con.execute(
        "SELECT ts, name, kind, detail FROM member_events WHERE team_id = ? AND ts BETWEEN ? AND ? ORDER BY ts", args
    ).fetchall()
    h.activity = con.execute(
        "SELECT ts, who FROM entries WHERE team_id = ? AND ts BETWEEN ? AND ? AND kind IN ('log', 'transcript') ORDER BY ts",
        args,
    ).fetchall()
    h.task_events = con.execute(
        "SELECT ts, source, task_id, status, owner, subject FROM task_events WHERE team_id = ? AND ts BETWEEN ? AND ? "
        "ORDER BY ts, id",
        args,
    ).fetchall()
    h.messages = con.execute(
        "SELECT at, sender, recipient, type FROM messages WHERE team_id = ? AND at BETWEEN ? AND ? ORDER BY at", args
    ).fetchall()
    h.needs = con.execute(
        "SELECT opened_at, answered_at, member, kind, text, answer FROM needs WHERE team_id = ? AND opened_at <= ? "
        "AND coalesce(answered_at, 1e18) >= ? ORDER BY opened_at",
        (team_id, hi, lo),
    ).fetchall()
    h.changes = con.execute(
        "SELECT ts, member, path, change FROM file_changes WHERE team_id = ? AND ts BETWEEN ? AND ? ORDER BY ts", args
    ).fetchall()
    h.costs = con.execute(
        "SELECT ts, member, usd, input_tokens + output_tokens FROM costs WHERE team_id = ? AND ts BETWEEN ? AND ? ORDER BY ts",
        args,
    ).fetchall()
    firsts = [rows[0][0] for rows in (h.member_events, h.activity, h.task_events, h.messages) if rows]
    h.start = (
        min([h.start, *firsts]) if start is None else h.start
    )  # a record older than the first sight (a log's own time)
    h.message_texts = con.execute(
        "SELECT * FROM (SELECT m.at, m.sender, m.recipient, coalesce(e.text, '') FROM messages m "
        "LEFT JOIN entries e ON e.id = m.entry_id WHERE m.team_id = ? AND m.at BETWEEN ? AND ? ORDER BY m.at DESC LIMIT ?) "
        "ORDER BY 1",
        (*args, REPORT_MESSAGES),
    ).fetchall()
    return h
