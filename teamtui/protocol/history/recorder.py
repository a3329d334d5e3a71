"""HistoryRecorder: what one team did, as TeamState sees it, handed to the history writer.

The same observer as the journal (protocol/changes.py ChangeObserver): TeamState calls
`observe(state, changes)` with every batch and `assignments(assigned)` when the lead's work
changes. It reads only what every team model has (config, tasks, assigned, messages, logs,
transcripts), never a layout's files, so it records any team: native, Claude Code, a workflow
run, a team streamed from another machine. Its identity (`TeamIdent`: host, layout, root, name)
is given when it is made.

It runs on the caller's thread (a dashboard's loop): it only builds small tuples and queues them
(writer.py does the rest on its own thread). Besides the observer, the caller may tell it what
needs the person (`needs`), and the changes and cost features tell it files changed (`file_changed`)
and what a teammate cost (`cost`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

from teamtui.protocol.changes import ChangeKind
from teamtui.protocol.history.ops import TeamIdent
from teamtui.protocol.history.timeline import task_steps

if TYPE_CHECKING:
    from collections.abc import Callable

    from teamtui.protocol.changes import Change
    from teamtui.protocol.model import TeamModel
    from teamtui.protocol.models import Message, Task
    from teamtui.protocol.store import TeamStore


# Diff text kept in the history per team and recorder (characters of hunk lines): past it an edit is
# kept as its counts only. With edits.py's own bounds (2,000 lines of 2,000 characters an edit).
DIFF_CHARS = 4 * 1024 * 1024


class OpSink(Protocol):
    """Where ops go: a HistoryWriter, or a list for a rebuild."""

    generation: int
    stopped: str

    def put(self, op: tuple) -> None: ...


def ident_of(store: TeamStore, host: str = "") -> TeamIdent:
    """A team's identity from its store (layout, real root, name): the fleet's team key, plus the host."""
    try:
        root = os.path.realpath(store.root)
    except (OSError, ValueError):
        root = str(store.root)
    return TeamIdent(host, str(store.layout), root, str(store.name))


def _task_sig(t: Task) -> tuple:
    return (t.subject, t.status.value, t.owner, tuple(t.blocked_by), t.description)


class HistoryRecorder:
    """Records one team into the history database (through the writer's queue)."""

    def __init__(self, team: TeamIdent, writer: OpSink, *, clock: Callable[[], float] = time.time, live: bool = True):
        self.team = team
        self.writer = writer
        self.clock = clock
        # Watching the team as it runs (a dashboard, a stream): from now on the journal's records of it are this one's.
        self.live = live
        self._generation = -1  # the writer's when the snapshot was sent (a rebuilt database wants it again)
        self._header: tuple = ()
        self._tasks: dict[str, tuple] = {}
        self._assigned: dict[str, tuple] = {}
        self._needs: dict[str, str] = {}  # open needs-you items: key → member
        self._ended = False
        self._costs: dict[tuple[str, str], tuple] = {}  # (member, day) -> what was recorded of it
        self.diff_chars = 0  # diff text this recorder sent for the team (bounded: DIFF_CHARS)

    @classmethod
    def for_store(cls, store: TeamStore, writer: OpSink, host: str = "", live: bool = True) -> HistoryRecorder:
        return cls(ident_of(store, host), writer, live=live)

    @property
    def recording(self) -> bool:
        return not self.writer.stopped

    def _put(self, name: str, ts: float, payload: tuple) -> None:
        self.writer.put((name, self.team, ts, payload))

    # ------------------------------------------------------------------ the observer
    def observe(self, state: TeamModel, changes: Iterable[Change]) -> None:
        if self.writer.stopped:
            return
        now = self.clock()
        if self._generation != self.writer.generation and state.config is not None:
            self._snapshot(state, now)
            changes = [c for c in changes if c.kind == ChangeKind.TEAM_GONE]  # the snapshot holds the rest
        if not self._header:
            return  # nothing before the team's config (as the journal)
        log_kind = "transcript" if state.transcripts is not None else "log"
        for c in changes:
            kind = c.kind
            if kind == ChangeKind.LOG:
                if c.entries:
                    self._put("entries", now, (log_kind, c.entries))
            elif kind == ChangeKind.INBOX:
                for m in c.messages:
                    self._message(m, now)
            elif kind == ChangeKind.DELIVERED:
                for m in c.messages:
                    self._put("delivered", now, (m.sender, m.recipient, m.type, m.content, m.timestamp))
            elif kind in (ChangeKind.TASK, ChangeKind.TASK_COMPLETED):
                task = state.tasks.get(c.key)
                if task is not None:
                    self._task(task, now, "task", self._tasks, state)
            elif kind == ChangeKind.TASK_REMOVED:
                if self._tasks.pop(c.key, None) is not None:
                    self._put("task_removed", now, ("task", c.key))
            elif kind == ChangeKind.CONFIG:
                self._maybe_header(state, now)
            elif kind in (ChangeKind.MEMBER_JOINED, ChangeKind.MEMBER_LEFT, ChangeKind.MEMBER_STATUS):
                self._member(state, c, now)
            elif kind == ChangeKind.TEAM_GONE and not self._ended:
                self._ended = True
                self._close_needs("team ended", now)
                self._put("event", now, ("team_gone", c.detail))

    def assignments(self, assigned: dict[str, Task]) -> None:
        """The lead's assignments as they are now: what is new or changed, and what went."""
        if not self._header or self.writer.stopped:
            return
        now = self.clock()
        for t in assigned.values():
            self._task(t, now, "assigned", self._assigned)
        for tid in [i for i in self._assigned if i not in assigned]:
            del self._assigned[tid]
            self._put("task_removed", now, ("assigned", tid))

    # ------------------------------------------------------------------ told by others
    def needs(self, items: Iterable[Any], now: float | None = None) -> None:
        """What needs the person in this team now (items with kind, member, text, key, since: the
        dashboard's strip, the room's needs): new ones are opened, those gone answered."""
        if not self._header or self.writer.stopped:
            return
        now = self.clock() if now is None else now
        present: dict[str, str] = {}
        for n in items:
            present[n.key] = n.member
            if n.key not in self._needs:
                self._put("need_open", now, (n.key, n.kind, n.member, n.text, n.since))
        for key in [k for k in self._needs if k not in present]:
            self._put("need_closed", now, (key, "answered"))
        self._needs = present

    def file_changed(
        self,
        member: str,
        path: str,
        change: str,
        *,
        task_id: str = "",
        added: int | None = None,
        removed: int | None = None,
        detail: dict[str, Any] | None = None,
        at: float | None = None,
    ) -> None:
        """A file a teammate changed (the changes feature): searchable by its path."""
        self._put("change", self.clock() if at is None else at, (member, path, change, task_id, added, removed, detail))

    def cost(
        self,
        member: str,
        *,
        model: str = "",
        input_tokens: int = 0,
        output_tokens: int = 0,
        cache_read_tokens: int = 0,
        cache_write_tokens: int = 0,
        usd: float | None = None,
        detail: dict[str, object] | None = None,
        at: float | None = None,
    ) -> None:
        """What a teammate's turn cost (the cost feature)."""
        payload = (member, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, usd, detail)
        self._put("cost", self.clock() if at is None else at, payload)

    def note_cost(self, state: TeamModel, force: bool = False) -> None:
        """What each teammate cost per day as its transcripts say now (the feed calls it after every
        read, as it calls the journal's): the days whose figures moved, recorded (replacing the
        day's row). Nothing while a member's bill is still being counted or priced."""
        feed = state.transcripts
        if feed is None or not getattr(feed, "started", False) or not self._header or self.writer.stopped:
            return
        now = self.clock()
        for member in feed.members():
            cost = feed.member_cost(member)
            if cost is None:
                continue
            stats = feed.stats(member)
            model = str(getattr(stats, "model", "") or "")
            unknown = list(cost.unknown)
            for day in cost.days.keys() | cost.day_tokens.keys():
                usd = cost.days.get(day)
                tokens = cost.day_tokens.get(day, (0, 0, 0, 0))
                said = (None if usd is None else str(usd), tokens, model, unknown)
                if self._costs.get((member, day)) == said:
                    continue
                self._costs[(member, day)] = said
                self._put("cost_day", now, (member, day, *said))

    def note_edits(self, edits: Iterable[Any]) -> None:
        """Edits a teammate made (the transcripts' Write/Edit/... as the feed takes them): each kept
        in the history with its counts and its hunks, the hunks bounded (DIFF_CHARS a team, then
        counts only)."""
        if not self._header or self.writer.stopped:
            return
        now = self.clock()
        for e in edits:
            lines = [list(h.lines) for h in e.hunks]
            chars = sum(len(x) for h in lines for x in h)
            detail: dict[str, object] = {"tool": e.tool, "uid": e.uid, "note": e.note, "cut": e.cut}
            if e.hunks and self.diff_chars + chars <= DIFF_CHARS:
                self.diff_chars += chars
                detail["hunks"] = [
                    [h.old_start, h.old_lines, h.new_start, h.new_lines, x] for h, x in zip(e.hunks, lines, strict=True)
                ]
            elif e.hunks or e.dropped:
                detail["dropped"] = True
            change = "added" if e.created else "modified"
            self._put(
                "change", now if e.at is None else e.at, (e.member, e.path, change, "", e.added, e.removed, detail)
            )

    def lead_ended(self, detail: str = "") -> None:
        self._put("event", self.clock(), ("lead_ended", detail))

    # ------------------------------------------------------------------ records
    def _snapshot(self, state: TeamModel, now: float) -> None:
        self._generation = self.writer.generation
        self._header = ()
        self._tasks.clear()
        self._assigned.clear()
        self._maybe_header(state, now)
        for m in list(state.messages):
            self._message(m, now)
        for t in list(state.tasks.values()):
            self._task(t, now, "task", self._tasks, state)
        for t in list(state.assigned.values()):
            self._task(t, now, "assigned", self._assigned)
        log_kind = "transcript" if state.transcripts is not None else "log"
        for buf in list(state.logs.values()):
            entries = list(buf)  # a LogBuffer iterates its LogEntry lines
            if entries:
                self._put("entries", now, (log_kind, entries))

    def _maybe_header(self, state: TeamModel, now: float) -> None:
        cfg = state.config
        if cfg is None:
            return
        members = tuple(
            (
                m.name,
                m.agent_type or "",
                m.color or "",
                m.backend_type or "",
                m.tmux_pane_id or "",
                _epoch(m.joined_at),
            )
            for m in cfg.members
        )
        sig = (state.lead, cfg.description or "", members)
        if sig == self._header:
            return
        self._header = sig
        created = _epoch(cfg.created_at)
        self._put("header", now, (state.lead, cfg.description or "", created, list(members), {}, self.live))

    def _message(self, m: Message, now: float) -> None:
        self._put(
            "message",
            now,
            (m.sender, m.recipient, m.type, m.content, m.summary, m.timestamp, m.read, m.delivered),
        )

    def _task(self, t: Task, now: float, source: str, seen: dict[str, tuple], state: Any = None) -> None:
        sig = _task_sig(t)
        before = seen.get(t.id)
        if before == sig:
            return
        seen[t.id] = sig
        # At the task's own times (a team recorded days after it ran places its tasks when they happened).
        fallback = _written(state, t.id, now) or now
        for ts, status in task_steps(t, now, fallback, first=before is None):
            payload = (source, t.id, t.subject, t.description, status, t.owner, list(t.blocked_by))
            self._put("task", ts, payload)

    def _member(self, state: TeamModel, c: Change, now: float) -> None:
        kind = {"member_joined": "joined", "member_left": "left", "member_status": "status"}[c.kind]
        member = state.config.member(c.key) if state.config is not None and kind == "joined" else None
        self._put(
            "member",
            now,
            (c.key, kind, c.detail, member.agent_type if member else "", member.color if member else ""),
        )
        if kind == "left":
            for key in [k for k, who in self._needs.items() if who == c.key]:
                del self._needs[key]
                self._put("need_closed", now, (key, "member left"))

    def _close_needs(self, why: str, now: float) -> None:
        for key in list(self._needs):
            self._put("need_closed", now, (key, why))
        self._needs.clear()


def _written(state: Any, task_id: str, now: float) -> float | None:
    """When the task's file was last written (Claude Code's tasks carry no times of their own)."""
    when = state.task_written(task_id) if state is not None and hasattr(state, "task_written") else None
    return min(when, now) if when else None


def _epoch(value: Any) -> float | None:
    """A time from a config (epoch seconds, or Claude Code's epoch milliseconds)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value / 1000.0 if value > 1e11 else float(value)


class OpList:
    """An OpSink that keeps the ops (a rebuild applies them itself)."""

    def __init__(self) -> None:
        self.ops: list[tuple] = []
        self.generation = 0
        self.stopped = ""

    def put(self, op: tuple) -> None:
        self.ops.append(op)


__all__ = ["HistoryRecorder", "OpList", "TeamIdent", "ident_of"]
