"""TeamModel: everything known about one team, whatever fills it.

A team's source fills it: on this machine TeamState (protocol/state.py) reads a layout's files into
it; a team on another machine is filled from its stream (session/remote_team.py). It knows no
layout and opens no file: what the screens ask of a team (its members' views, the board, the
messages, the logs) is computed here from what the source put in, and the few facts about the
team's kind that change what is shown are its `TeamTraits`.
"""

from __future__ import annotations

import time
from collections import deque

from teamtui.protocol.board import Board
from teamtui.protocol.changes import Change, ChangeKind, LogUpdate, MemberView
from teamtui.protocol.errors import ReadError
from teamtui.protocol.health import is_disappeared
from teamtui.protocol.logbuffer import LogBuffer
from teamtui.protocol.models import Member, MemberStatus, Message, Task, TaskStatus, TeamConfig
from teamtui.protocol.taskmeta import FAILED
from teamtui.protocol.touching import Touch
from teamtui.protocol.traits import TeamTraits

TYPE_CHECKING = False  # not typing's: importing typing costs every CLI call ~2 ms
if TYPE_CHECKING:
    from pathlib import Path

    from teamtui.protocol.changes import ChangeObserver, TranscriptAnswers

DEFAULT_LOG_LIMIT = 1000
DEFAULT_MESSAGE_LIMIT = 2000
DEFAULT_HEALTH_TIMEOUT = 60.0


def task_sig(t: Task) -> tuple:
    return (t.status, t.subject, t.owner, t.result, t.description, t.metadata.get(FAILED))


class TeamModel:
    """One team's config, members, tasks, messages, logs and activity, and what is derived from them."""

    def __init__(
        self,
        name: str,
        traits: TeamTraits,
        *,
        log_limit: int = DEFAULT_LOG_LIMIT,
        message_limit: int = DEFAULT_MESSAGE_LIMIT,
        health_timeout: float = DEFAULT_HEALTH_TIMEOUT,
        journal: ChangeObserver | None = None,
    ):
        self.team_name = name  # until the config says
        self.traits = traits
        # Told of every batch (the journal, protocol/claude/journal.py); None: nobody.
        self.journal = journal
        self.log_limit = log_limit
        self.message_limit = message_limit
        self.health_timeout = health_timeout
        self.config: TeamConfig | None = None
        self.tasks: dict[str, Task] = {}
        # The work a Claude Code lead handed out (its Agent calls, its messages, the teammates'
        # idle notices), by id: the board's rows while the team keeps no task list (`task_source`).
        self.assigned: dict[str, Task] = {}
        self._drift_mark: tuple = ()  # the transcripts' drift when last told (ChangeKind.DRIFT)
        self._edits_mark = 0  # the transcripts' edits when last told (ChangeKind.FILES)
        self.errors: dict[Path, list[ReadError]] = {}
        self.messages: deque[Message] = deque(maxlen=message_limit)
        self.unread: dict[str, int] = {}  # per inbox owner
        self.logs: dict[str, LogBuffer] = {}
        self.activity: dict[str, float] = {}
        self.departed: dict[str, Member] = {}
        self._board: Board | None = None
        self._touches: list[Touch] = []  # Specflow's TOUCHING_FILE, as the team remembers them (native)
        # What the members' transcripts tell (where the team has them): a local feed, or a stream's figures.
        self.transcripts: TranscriptAnswers | None = None
        # What Claude Code's hooks last said of each teammate (status, when): session/hook_feed.py.
        self.said: dict[str, tuple[MemberStatus, float]] = {}

    # ------------------------------------------------------------- derived
    @property
    def board(self) -> Board:
        if self._board is None:
            self._board = Board(self.shown_tasks.values(), self._touches)
        return self._board

    @property
    def shown_tasks(self) -> dict[str, Task]:
        """The board's tasks: the task list, or, where the team keeps none, the lead's assignments."""
        return self.assigned if self.assigned and not self.tasks else self.tasks

    @property
    def task_source(self) -> str:
        """What the board shows: "task list", "assignments" (a Claude Code lead's, from its
        transcript, without a task list) or "" (nothing yet)."""
        return "task list" if self.tasks else "assignments" if self.assigned else ""

    def _board_put(self, task: Task) -> None:
        # Updated in place: rebuilding the board (and its order) for one task among 10,000 is what made updates slow.
        if self._board is not None:
            self._board.put(task)

    def _board_remove(self, task_id: str) -> None:
        if self._board is not None:
            self._board.remove(task_id)

    @property
    def name(self) -> str:
        return self.config.name if self.config else self.team_name

    @property
    def lead(self) -> str:
        return self.config.lead if self.config else self.traits.default_lead

    def all_errors(self) -> list[ReadError]:
        return [e for errs in self.errors.values() for e in errs]

    def member_views(self, now: float | None = None) -> list[MemberView]:
        now = time.time() if now is None else now
        by_owner = self.board.current_tasks()
        views = []
        members = list(self.config.members) if self.config else []
        seen: set[str] = set()
        for m in members:
            if m.name in seen:  # a duplicate name (reported by config_problems): one view per name
                continue
            seen.add(m.name)
            views.append(self._view(m, by_owner.get(m.name), now, departed=False))
        for name, m in self.departed.items():
            if not any(v.name == name for v in views):
                views.append(self._view(m, by_owner.get(name), now, departed=True))
        return views

    def _view(self, m: Member, task: Task | None, now: float, departed: bool) -> MemberView:
        last = self.activity.get(m.name)
        status = MemberStatus.SHUTDOWN if departed else m.status
        if status == MemberStatus.UNKNOWN and self.transcripts is not None:
            status = self.transcripts.status_of(m.name) or status  # an in-process teammate has no isActive
        said = self.said.get(m.name)
        if said is not None and not departed and said[1] >= (last or 0.0):
            status, last = said  # a hook's word is exact, and news of it, while nothing newer was seen
        disappeared = is_disappeared(
            holds_task=task is not None,
            stopped=status == MemberStatus.SHUTDOWN,
            last_activity=last,
            now=now,
            timeout=self.health_timeout,
        )
        return MemberView(
            name=m.name,
            status=status,
            agent_type=m.agent_type,
            color=m.color,
            current_task=task,
            last_activity=last,
            unread=self.unread.get(m.name, 0),
            disappeared=disappeared,
            departed=departed,
            member=m,
        )

    def inbox_messages(self, member: str) -> list[Message]:
        return [m for m in self.messages if m.recipient == member]

    def _statuses(self) -> dict[str, MemberStatus]:
        out = {v.name: v.status for v in self.member_views()}
        lead = self.transcripts.lead_view() if self.transcripts is not None else None
        if lead is not None:  # a Claude Code lead: a row of its own, out of the config's members
            out[lead.name] = lead.status
        return out

    # ------------------------------------------------------------- filling it
    def take_said(self, said: dict[str, tuple[MemberStatus, float]]) -> list[Change]:
        """What the team's hooks said of its teammates: a MEMBER_STATUS change for each whose shown status moved."""
        before = self._statuses()
        self.said = dict(said)
        after = self._statuses()
        moved = [Change(ChangeKind.MEMBER_STATUS, n, s.value) for n, s in after.items() if before.get(n) != s]
        return self._journaled(moved)

    def touch(self, member: str, when: float | None = None) -> None:
        if member:
            self.activity[member] = time.time() if when is None else when

    def restore(
        self,
        config: TeamConfig,
        departed: dict[str, Member],
        tasks: dict[str, Task],
        messages: list[Message],
        assigned: dict[str, Task] | None = None,
    ) -> None:
        """A team rebuilt from a record of it (the journal, a stream's snapshot) rather than from its files."""
        self.config = config
        self.departed = departed
        self.tasks = tasks
        if assigned is not None:
            self.assigned = assigned
        self._board = None
        self.messages.clear()
        self.messages.extend(sorted(messages, key=lambda m: m.timestamp)[-self.message_limit :])

    def _keep_newest(self, new: list[Message]) -> None:
        """Add `new` to the bounded history so that it keeps the newest messages by time: a flood of
        old-stamped messages arriving with (or after) a newer one must not push the newer one out."""
        room = self.message_limit - len(self.messages)
        newest = self.messages[-1].timestamp if self.messages else float("-inf")
        if len(new) <= room or all(m.timestamp >= newest for m in new):
            self.messages.extend(new)  # the live case: in time order, the oldest fall off
            return
        merged = sorted([*self.messages, *new], key=lambda m: m.timestamp)
        self.messages.clear()
        self.messages.extend(merged[-self.message_limit :])

    def _journaled(self, changes: list[Change]) -> list[Change]:
        if self.journal is not None:
            self.journal.observe(self, changes)
        return changes

    def _take_logs(self, updates: list[LogUpdate]) -> list[Change]:
        changes: list[Change] = []
        for u in updates:
            if u.reset or u.member not in self.logs:
                self.logs[u.member] = LogBuffer(u.member, self.log_limit)  # a new buffer: the panels start over
            self.logs[u.member].extend(u.entries)
            if u.last_write is not None and u.last_write > self.activity.get(u.member, 0.0):
                self.activity[u.member] = u.last_write
            if u.entries or u.reset:
                changes.append(Change(ChangeKind.LOG, u.member, entries=u.entries))
        return self._journaled(changes)  # the transcripts' lines reach the history's recorder too

    def _sync_assignments(self, changes: list[Change]) -> list[Change]:
        """What the transcripts tell beyond log lines, brought up to date (a team with transcripts
        only): the lead's assignments, a TASK change for each that appeared or changed while the
        board shows them (no task list); a DRIFT change when they hold something new that teamtui
        does not know."""
        feed = self.transcripts
        if feed is None:
            return []
        news: list[Change] = []
        mark = feed.drift_mark()
        if mark != self._drift_mark:
            if any(seen[2] for seen in (*mark, *self._drift_mark)):  # something was, or is, unknown
                news.append(Change(ChangeKind.DRIFT, self.name))
            self._drift_mark = mark
        edits = feed.edits_mark()
        if edits != self._edits_mark:  # a member changed a file: the changes view and collisions move
            news += [Change(ChangeKind.FILES, m) for m in feed.files_changed_since(self._edits_mark)]
            self._edits_mark = edits
        found = feed.assignments(changes)
        if found is None:
            return news
        old, self.assigned = self.assigned, found
        if self.journal is not None:
            self.journal.assignments(found)  # an ended team's board is read back from it
        shown = not self.tasks
        if shown and (not old or not found):
            self._board = None  # the board changes source: built again when asked
        out: list[Change] = []
        for tid, task in found.items():
            before = old.get(tid)
            if before is not None and task_sig(before) == task_sig(task):
                continue
            if not shown:
                continue
            self._board_put(task)
            if before is not None and before.status != TaskStatus.COMPLETED and task.status == TaskStatus.COMPLETED:
                out.append(Change(ChangeKind.TASK_COMPLETED, tid, task.subject))
            out.append(Change(ChangeKind.TASK, tid))
        for tid in old.keys() - found.keys():
            if shown:
                self._board_remove(tid)
                out.append(Change(ChangeKind.TASK_REMOVED, tid))
        return news + out


__all__ = [
    "TeamModel",
    "TeamTraits",
    "task_sig",
    "DEFAULT_LOG_LIMIT",
    "DEFAULT_MESSAGE_LIMIT",
    "DEFAULT_HEALTH_TIMEOUT",
]
