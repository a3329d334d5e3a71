"""An ended Claude Code team, rebuilt from teamtui's journal of it (Claude Code deletes its folder)."""

from __future__ import annotations

from pathlib import Path

from teamtui.protocol.claude.journal import read_records
from teamtui.protocol.claude.team import ClaudeTeam
from teamtui.protocol.models import Member, MemberStatus, Message, Task, TeamConfig
from teamtui.protocol.state import TeamState


def load_state(path: Path) -> TeamState:
    """An ended team rebuilt from its journal: config (members who left included as departed),
    tasks (or the lead's assignments) and every message with its delivered flag. Read-only: its store's paths are gone."""
    records = read_records(path)
    head = next((r for r in records if r.get("kind") == "team"), None)
    if head is None:
        raise ValueError(f"{path}: no team record in this journal")
    name, root, layout = str(head.get("team")), Path(str(head.get("root") or ".")), head.get("layout")
    if layout != "claude":
        raise ValueError(f"{path}: a journal of a {layout!r} team (only Claude Code teams are journaled)")
    store = ClaudeTeam(root, name)
    state = TeamState(store)
    members: dict[str, Member] = {}
    left: dict[str, Member] = {}
    messages: dict[str, Message] = {}
    tasks: dict[str, Task] = {}
    assigned: dict[str, Task] = {}  # the lead's, while the team kept no task list
    for rec in records:
        kind = rec.get("kind")
        if kind == "team":
            for m in rec.get("members") or []:
                if isinstance(m, dict) and isinstance(m.get("name"), str):
                    members[m["name"]] = Member(
                        name=m["name"],
                        agent_type=m.get("agent_type") or "",
                        color=m.get("color") or "",
                        backend_type=m.get("backend") or "",
                        tmux_pane_id=m.get("pane") or "",
                    )
                    left.pop(m["name"], None)
        elif kind == "member_joined" and isinstance(rec.get("name"), str):
            members[rec["name"]] = Member(
                name=rec["name"], agent_type=rec.get("agent_type") or "", color=rec.get("color") or ""
            )
            left.pop(rec["name"], None)
        elif kind == "member_left" and rec.get("name") in members:
            left[rec["name"]] = members.pop(rec["name"])
        elif kind == "message" and isinstance(rec.get("key"), str) and rec["key"] not in messages:
            messages[rec["key"]] = Message(
                type=str(rec.get("type") or "message"),
                sender=str(rec.get("from") or ""),
                recipient=str(rec.get("to") or ""),
                content=str(rec.get("text") or ""),
                summary=str(rec.get("summary") or ""),
                timestamp=float(rec.get("at") or 0.0),
                read=rec.get("read") if isinstance(rec.get("read"), bool) else None,
            )
        elif kind == "delivered" and rec.get("key") in messages:
            messages[rec["key"]].delivered = True
            messages[rec["key"]].read = True
        elif kind in ("task", "assigned") and isinstance(rec.get("id"), str):
            try:
                (tasks if kind == "task" else assigned)[rec["id"]] = Task(
                    id=rec["id"],
                    subject=rec.get("subject") or "",
                    description=rec.get("description") or "",
                    status=rec.get("status") or "pending",
                    owner=rec.get("owner") or "",
                    blocked_by=rec.get("blocked_by") or [],
                )
            except ValueError:
                continue
        elif kind == "task_removed":
            tasks.pop(str(rec.get("id")), None)
        elif kind == "assigned_removed":
            assigned.pop(str(rec.get("id")), None)
    cfg = TeamConfig(
        name=name, lead=str(head.get("lead") or store.default_lead), description=str(head.get("description") or "")
    )
    cfg.members = list(members.values())
    for m in left.values():
        m.status = MemberStatus.SHUTDOWN
    state.restore(cfg, left, tasks, list(messages.values()), assigned)
    _keep_cost(state, next((r for r in reversed(records) if r.get("kind") == "cost"), None))
    return state


def _keep_cost(state: TeamState, record: dict | None) -> None:
    """What the team cost when last seen, as the journal kept it: shown for a team that ended."""
    from teamtui.protocol.claude.transcripts.feed import TranscriptFeed
    from teamtui.protocol.cost import read_cost

    feed = state.transcripts
    if record is None or not isinstance(feed, TranscriptFeed):
        return
    feed.kept = read_cost(record)
    members = record.get("members")
    for name, said in list(members.items())[:200] if isinstance(members, dict) else []:
        if isinstance(name, str) and (cost := read_cost(said)) is not None:
            feed.kept_members[name] = cost
