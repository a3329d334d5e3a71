"""A team on another machine, as this side holds it: its model filled from the stream's lines
(StreamedTeam), and what can be done to it, each a request over its host's connection.

Nothing on the other machine is written from here: a message, a broadcast, a shutdown is asked of
the remote, which carries it out under its own rules (the honest sender there, a Claude Code
team's shutdown through its lead) and answers with a result line. The remote's panes are that
machine's: none is offered here.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from teamtui.protocol import stream as wire
from teamtui.protocol.changes import Change, ChangeKind, MemberView
from teamtui.protocol.health import is_disappeared
from teamtui.protocol.logbuffer import LogBuffer
from teamtui.protocol.model import TeamModel
from teamtui.protocol.models import Member, MemberStatus, Message, Task, TaskStatus
from teamtui.protocol.stream_edits import read_changes
from teamtui.protocol.traits import TeamTraits
from teamtui.session.actions import TeamActions
from teamtui.session.ops.answers import RemoteAnswers
from teamtui.session.ops.base import Asks
from teamtui.session.ops.diffs import RemoteDiffs
from teamtui.session.ops.messages import RemoteMessaging
from teamtui.session.ops.shutdown import RemoteShutdowns
from teamtui.session.ops.timeline import RemoteTimeline
from teamtui.session.remote_transcripts import StreamedTranscripts
from teamtui.session.team import TeamSession

TYPE_CHECKING = False
if TYPE_CHECKING:
    from teamtui.session.ops.base import Host


class StreamedTeam(TeamModel):
    """A team model filled from a stream's lines (each kind by its `take_*`), never from a file.
    The members' unread counts and status (a transcript's, on the remote) come from the remote's
    member views; who disappeared is this side's health rule, on its clock."""

    def __init__(self, name: str, traits: TeamTraits, *, log_limit: int, health_timeout: float):
        super().__init__(name, traits, log_limit=log_limit, health_timeout=health_timeout)
        self.remote_views: dict[str, dict[str, Any]] = {}
        self.sender = "teamtui"  # who a message from here is written as, there: the remote's honest sender
        self.lead_said: str | None = None  # its lead's process, as the remote reads it
        self.read_only_said = ""  # the remote's own reason nothing may be written (an ended team)

    def _view(self, m: Member, task: Task | None, now: float, departed: bool) -> MemberView:
        view = super()._view(m, task, now, departed)
        seen = self.remote_views.get(m.name)
        if seen is None:
            return view
        view.unread = seen.get("unread", 0)
        status = seen.get("status")
        if status is not None and not departed:
            view.status = MemberStatus(status)
            view.disappeared = is_disappeared(
                holds_task=task is not None,
                stopped=view.status == MemberStatus.SHUTDOWN,
                last_activity=view.last_activity,
                now=now,
                timeout=self.health_timeout,
            )
        return view

    # ------------------------------------------------------------------ the stream's records
    def take_header(self, line: dict[str, Any]) -> list[Change]:
        config = wire.read_config(line.get("config"))
        departed_list = _list(line, "departed")
        departed = {m.name: m for x in departed_list[: wire.MEMBERS_CAP] if (m := wire.read_member(x)) is not None}
        changes: list[Change] = []
        full = line.get("full") is True
        before = {m.name: m.status for m in self.config.members} if self.config is not None else {}
        if config is not None:
            if full:
                self.restore(config, departed, {}, [])
                self.logs.clear()
                self.activity.clear()
                self.remote_views.clear()
            else:
                self.config, self.departed = config, departed
            after = {m.name: m.status for m in config.members}
            changes += [Change(ChangeKind.MEMBER_JOINED, n) for n in after if n not in before and before]
            changes += [Change(ChangeKind.MEMBER_LEFT, n) for n in before if n not in after]
            changes += [
                Change(ChangeKind.MEMBER_STATUS, n, s.value) for n, s in after.items() if n in before and before[n] != s
            ]
            changes.append(Change(ChangeKind.CONFIG))
        errors = _list(line, "errors")
        had = bool(self.errors)
        self.errors = {}
        for e in (r for x in errors[: wire.ERRORS_CAP] if (r := wire.read_error(x)) is not None):
            self.errors.setdefault(e.path, []).append(e)
        if self.errors or had:
            changes.append(Change(ChangeKind.ERROR if self.errors else ChangeKind.ERROR_CLEARED, "remote"))
        sender = wire.name(line.get("sender"))
        if sender:
            self.sender = sender
        lead = line.get("lead_state")
        self.lead_said = lead if lead in ("alive", "ended", "unknown") else None
        return changes + self.take_views(line)

    def take_views(self, line: dict[str, Any]) -> list[Change]:
        changes, views = [], line.get("views")
        for v in (
            r for x in (views if isinstance(views, list) else [])[: wire.MEMBERS_CAP] if (r := wire.read_view(x))
        ):
            member = v["name"]
            if self.remote_views.get(member) != v:
                self.remote_views[member] = v
                changes.append(Change(ChangeKind.MEMBER_STATUS, member, v.get("status", "")))
            if v.get("last_activity") is not None:
                self.activity[member] = v["last_activity"]
        return changes

    def take_tasks(self, line: dict[str, Any]) -> list[Change]:
        changes = []
        removed = _list(line, "removed")
        for tid in (i for x in removed[: wire.TASKS_CAP] if (i := wire.name(x))):
            if self.tasks.pop(tid, None) is not None:
                self._board_remove(tid)
                changes.append(Change(ChangeKind.TASK_REMOVED, tid))
        tasks = _list(line, "tasks")
        for task in (t for x in tasks[: wire.TASKS_CAP] if (t := wire.read_task(x)) is not None):
            if task.id not in self.tasks and len(self.tasks) >= wire.TASKS_CAP:
                continue
            before = self.tasks.get(task.id)
            self.tasks[task.id] = task
            self._board_put(task)
            if before is not None and before.status != TaskStatus.COMPLETED and task.status == TaskStatus.COMPLETED:
                changes.append(Change(ChangeKind.TASK_COMPLETED, task.id, task.subject))
            changes.append(Change(ChangeKind.TASK, task.id))
        return changes

    def take_messages(self, line: dict[str, Any]) -> list[Change]:
        raw = _list(line, "messages")
        messages = [m for x in raw[: wire.MESSAGES_CAP] if (m := wire.read_message(x)) is not None]
        if not messages:
            return []
        if line.get("update") is True:  # flags flipped (read, delivered): the same messages, replaced
            by_id = {_message_id(m): m for m in messages}
            owners = []
            for i, m in enumerate(self.messages):
                new = by_id.get(_message_id(m))
                if new is not None:
                    self.messages[i] = new
                    owners.append(new.recipient)
            return [Change(ChangeKind.INBOX_READ, o) for o in dict.fromkeys(owners)]
        self._keep_newest(messages)
        per: dict[str, list[Message]] = {}
        for m in messages:
            per.setdefault(m.recipient, []).append(m)
        return [Change(ChangeKind.INBOX, owner, messages=ms) for owner, ms in per.items()]

    def take_insight(self, line: dict[str, Any]) -> list[Change]:
        """What the remote made of the team's transcripts: its figures in place of the last, a
        MEMBER_STATUS for each member whose row changed; the lead's assignments and the drift line
        as a local feed's would be (TeamState._sync_assignments)."""
        feed = self.transcripts
        if not isinstance(feed, StreamedTranscripts):
            feed = self.transcripts = StreamedTranscripts()
        insight = wire.read_insight(line)
        insight["changes"] = read_changes(line.get("changes"))  # the files each member changed, as counted there
        moved = feed.take_insight(insight)
        return [Change(ChangeKind.MEMBER_STATUS, m) for m in sorted(moved)] + self._sync_assignments([])

    def take_logs(self, line: dict[str, Any]) -> list[Change]:
        member = wire.name(line.get("member"))
        raw = _list(line, "entries")
        if not member or (member not in self.logs and len(self.logs) >= wire.MEMBERS_CAP):
            return []
        entries = [e for x in raw[-self.log_limit :] if (e := wire.read_log(member, x)) is not None]
        if line.get("reset") is True or member not in self.logs:
            self.logs[member] = LogBuffer(member, self.log_limit)
        self.logs[member].extend(entries)
        return [Change(ChangeKind.LOG, member, entries=entries)]


def _list(d: dict[str, Any], key: str) -> list[Any]:
    v = d.get(key)
    return v if isinstance(v, list) else []


def _message_id(m: Message) -> tuple[str, str, float, str, str]:
    return (m.sender, m.recipient, m.timestamp, m.type, m.content[:256])


def remote_session(
    host: Host,
    remote_key: tuple[str, str, str],
    traits: TeamTraits,
    *,
    log_limit: int,
    health_timeout: float,
    clock: Callable[[], float] = time.time,
) -> tuple[TeamSession, StreamedTeam]:
    """A remote team's session, and the model its host's stream fills; each capability an op's call
    (session/ops/)."""
    team = StreamedTeam(remote_key[2], traits, log_limit=log_limit, health_timeout=health_timeout)
    asks = Asks(host, remote_key)
    actions = TeamActions(
        messages=RemoteMessaging(asks, team),
        shutdowns=RemoteShutdowns(asks, team, clock),
        answers=RemoteAnswers(asks),
        panes_elsewhere=host.name,
        lead_state=lambda: team.lead_said,
        diffs=RemoteDiffs(asks),
        timeline=RemoteTimeline(asks),
    )
    return TeamSession(team, actions, clock=clock), team


__all__ = ["StreamedTeam", "remote_session"]
