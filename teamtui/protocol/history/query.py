"""Reading the history: the teams it holds, one team's records, an ended team as a TeamState,
and one team's history for the timeline.

`open_history()` is how a reader (the CLI, a screen's worker) gets the database: the journals'
new records read in first, a damaged file moved aside and rebuilt (what happened is handed to
`tell`, in one line).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Set as AbstractSet
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING, Any

from teamtui.protocol.history import db_path
from teamtui.protocol.history.db import DAMAGED, LOCKED, Trouble, connect, file_id, trouble_kind
from teamtui.protocol.history.timeline import HistoryMember, TeamHistory

if TYPE_CHECKING:
    from teamtui.protocol.cost import Cost
    from teamtui.protocol.edits import Edit
    from teamtui.protocol.state import TeamState

# The newest messages whose text a report shows.
REPORT_MESSAGES = 500
# A cost row's tokens: every kind its messages used (as the room's Tokens column counts them).
_TOKENS = "input_tokens + output_tokens + cache_read_tokens + cache_write_tokens"
# The newest edits an ended team's changes view is given from the history.
EDITS_LOADED = 5000


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
    header: dict[str, object] = field(default_factory=dict)
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


def ended_teams(
    con: sqlite3.Connection, since: float, live: AbstractSet[tuple[str, str, str]] = frozenset()
) -> list[TeamRow]:
    """This machine's teams that ended (or were last seen) at or after `since` and are not `live`,
    the most recent first: what the control room lists as ended (the journal's _ended_teams, from here)."""
    rows = con.execute(
        f"SELECT {_TEAM_COLUMNS} FROM teams WHERE host = '' AND coalesce(ended_at, last_seen) >= ? "
        "ORDER BY coalesce(ended_at, last_seen) DESC",
        (since,),
    ).fetchall()
    return [t for t in (_team(r) for r in rows) if t.key not in live]


# ------------------------------------------------------------------ one team's records


def records(con: sqlite3.Connection, team_id: int, *, activity: bool = False) -> list[dict[str, object]]:
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
    for ts, member, model, usd, tokens, day in con.execute(
        f"SELECT ts, member, model, usd, {_TOKENS}, json_extract(detail, '$.day') FROM costs WHERE team_id = ?",
        (team_id,),
    ):
        out.append(
            {"ts": ts, "kind": "cost", "member": member, "model": model, "usd": usd, "tokens": tokens, "day": day}
        )
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
    keep_record(con, team_id, state)
    return state


def keep_record(con: sqlite3.Connection, team_id: int, state: TeamState) -> None:
    """What an ended team's model takes from its history beyond its members, tasks and messages:
    what it cost (each member's, by day) and the edits its teammates made (for its changes view)."""
    feed: Any = state.transcripts  # a TranscriptFeed: an ended team's cost is what it keeps (`kept`)
    if feed is None:
        return
    costs = team_costs(con, team_id)
    if costs and hasattr(feed, "kept"):
        from teamtui.protocol.cost import total

        feed.kept_members.update(costs)
        feed.kept = total(costs.values())
    log = getattr(feed, "edits", None)
    if log is not None:
        for edit in team_edits(con, team_id):
            log.add(edit)


def fill_ended(state: TeamState, path: Path | None = None) -> bool:
    """An ended team read back from elsewhere (its journal) given what only the history kept: its
    teammates' edits (its changes view), and its cost when the journal had none. Read-only; False
    when the history has no record of it (or cannot be read: the team is shown all the same)."""
    from teamtui.protocol.history.db import connect
    from teamtui.protocol.history.recorder import ident_of

    path = Path(path) if path is not None else db_path()
    if state.transcripts is None or not path.exists():
        return False
    ident = ident_of(state.store)
    try:
        con = connect(path, readonly=True)
    except Trouble:
        return False
    try:
        found = team_by_key(con, (ident.layout, ident.root, ident.name))
        if found is None:
            return False
        if getattr(state.transcripts, "kept", None) is None:
            keep_record(con, found.id, state)
        elif (log := getattr(state.transcripts, "edits", None)) is not None:
            for edit in team_edits(con, found.id):
                log.add(edit)
        return True
    except sqlite3.Error:
        return False
    finally:
        con.close()


def team_costs(con: sqlite3.Connection, team_id: int) -> dict[str, Cost]:
    """Each member's cost by day, as the recorder kept it (`cost_day` rows)."""
    from teamtui.protocol.cost import Cost

    per: dict[str, tuple[dict[str, Decimal], dict[str, tuple[int, int, int, int]], set[str]]] = {}
    for member, detail, inp, out, read, write in con.execute(
        "SELECT member, detail, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens FROM costs "
        "WHERE team_id = ? AND json_extract(detail, '$.day') IS NOT NULL",
        (team_id,),
    ):
        days, tokens, unknown = per.setdefault(member, ({}, {}, set()))
        said = _json(detail)
        day = said.get("day")
        if not isinstance(day, str):
            continue
        usd = _decimal(said.get("usd"))
        if usd is not None:
            days[day] = usd
        tokens[day] = (inp, out, read, write)
        unknown.update(m for m in said.get("unknown_models") or [] if isinstance(m, str))
    return {
        m: Cost(sum(days.values(), Decimal(0)), tuple(sorted(unknown)), 0, days, tokens)
        for m, (days, tokens, unknown) in per.items()
    }


def spend_by_team(con: sqlite3.Connection) -> dict[int, tuple[Decimal, bool]]:
    """Every team's recorded cost: (USD, whether some of it could not be priced)."""
    out: dict[int, tuple[Decimal, bool]] = {}
    for tid, detail in con.execute("SELECT team_id, detail FROM costs WHERE json_extract(detail, '$.day') IS NOT NULL"):
        said = _json(detail)
        usd, unknown = out.get(tid, (Decimal(0), False))
        out[tid] = (usd + (_decimal(said.get("usd")) or Decimal(0)), unknown or bool(said.get("unknown_models")))
    return out


def spend_by_day(con: sqlite3.Connection) -> dict[str, Decimal]:
    """Every team's recorded cost per local day."""
    out: dict[str, Decimal] = {}
    for detail in con.execute("SELECT detail FROM costs WHERE json_extract(detail, '$.day') IS NOT NULL"):
        said = _json(detail[0])
        day, usd = said.get("day"), _decimal(said.get("usd"))
        if isinstance(day, str) and usd is not None:
            out[day] = out.get(day, Decimal(0)) + usd
    return out


def team_edits(con: sqlite3.Connection, team_id: int, limit: int = EDITS_LOADED) -> list[Edit]:
    """The newest `limit` edits the team's teammates made, oldest first, with the hunks kept."""
    from teamtui.protocol.edits import Edit, Hunk

    rows = con.execute(
        "SELECT * FROM (SELECT ts, member, path, change, lines_added, lines_removed, detail, id FROM file_changes "
        "WHERE team_id = ? ORDER BY ts DESC, id DESC LIMIT ?) ORDER BY ts, id",
        (team_id, limit),
    ).fetchall()
    out = []
    for ts, member, path, change, added, removed, detail, _ in rows:
        said = _json(detail)
        if said.get("source") == "git" or not member or not path:
            continue  # a worktree's counts: not an edit of its own
        hunks = []
        for h in said.get("hunks") or []:
            if isinstance(h, list) and len(h) == 5 and isinstance(h[4], list):
                try:
                    hunks.append(Hunk(int(h[0]), int(h[1]), int(h[2]), int(h[3]), tuple(str(x) for x in h[4])))
                except (TypeError, ValueError):
                    continue
        out.append(
            Edit(
                member,
                path,
                str(said.get("tool") or "?"),
                ts,
                added,
                removed,
                tuple(hunks),
                note=str(said.get("note") or ""),
                cut=int(said.get("cut") or 0) if isinstance(said.get("cut"), int) else 0,
                uid=str(said.get("uid") or ""),
                created=change == "added",
                dropped=bool(said.get("dropped")),
            )
        )
    return out


def _json(text: Any) -> dict[str, Any]:
    try:
        found = json.loads(text) if text else {}
    except (TypeError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _decimal(value: object) -> Decimal | None:
    if not isinstance(value, str) or len(value) > 40:
        return None
    try:
        d = Decimal(value)
    except InvalidOperation:
        return None
    return d if d.is_finite() and d >= 0 else None


def _store(t: TeamRow) -> Any:
    from teamtui.protocol.claude import ClaudeTeam
    from teamtui.protocol.layout import is_layout, store_class

    try:
        if is_layout(t.layout):  # a layout the database holds that this teamtui knows
            return store_class(t.layout)(Path(t.root or "."), t.name)
    except Exception:  # noqa: BLE001 - a name its layout would refuse now: shown under a neutral store
        pass
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
        f"SELECT ts, member, usd, {_TOKENS} FROM costs WHERE team_id = ? AND ts BETWEEN ? AND ? ORDER BY ts",
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


def read_history(key: tuple[str, str, str], path: Path | None = None) -> TeamHistory | None:
    """One team's whole history by its control-room key (None: the database does not hold it); a
    live team's up to now. For a reader off its loop: the team's timeline here, or its machine's
    answer to a `timeline` request (session/ops/timeline.py)."""
    import time

    con = open_history(path, import_journals=False)
    try:
        row = team_by_key(con, key)
        h = team_history(con, row.id) if row is not None else None
    finally:
        con.close()
    if h is not None and h.ended_at is None:
        h.end = max(h.end, time.time())  # live: up to now
    return h
