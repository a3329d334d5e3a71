"""TeamState: everything known about one team, kept current one changed file at a time.

Pure of any UI: the dashboard, `teamtui status`, `follow` and the runtime all read it.
`apply(path)` re-reads only that file (logs and native inboxes from their last offset)
and returns the changes it found, so a UI redraws only what changed.
"""

from __future__ import annotations

import json
import os
import posixpath
import time
from collections import deque
from pathlib import Path

from teamtui.protocol.board import Board
from teamtui.protocol.changes import Change, ChangeKind, LogUpdate, MemberView
from teamtui.protocol.errors import ProtocolError, ReadError
from teamtui.protocol.fsio import load_json_file
from teamtui.protocol.health import is_disappeared
from teamtui.protocol.logbuffer import LogBuffer
from teamtui.protocol.models import (
    SHUTDOWN_REPLY_TYPES,
    LogEntry,
    LogLevel,
    Member,
    MemberStatus,
    Message,
    Task,
    TaskStatus,
    TeamConfig,
    normalize_level,
)
from teamtui.protocol.store import FileRef, TeamStore
from teamtui.protocol.tail import TailReader
from teamtui.protocol.taskmeta import FAILED, scope_files
from teamtui.protocol.touching import Touch, load_touches, touches_path

TYPE_CHECKING = False  # not typing's: importing typing costs every CLI call ~2 ms
if TYPE_CHECKING:
    from typing import Any

    from teamtui.protocol.changes import ChangeObserver, MemberTranscripts

DEFAULT_LOG_LIMIT = 1000
DEFAULT_MESSAGE_LIMIT = 2000
DEFAULT_HEALTH_TIMEOUT = 60.0
# On first load a log is read from at most this far before its end: the buffer keeps only the tail anyway.
_LOG_TAIL_BYTES_PER_LINE = 512


def _task_sig(t: Task) -> tuple:
    return (t.status, t.subject, t.owner, t.result, t.description, t.metadata.get(FAILED))


class _Inbox:
    """What a monitor knows of one inbox: its messages (bounded) and how to read more."""

    def __init__(self, path: Path, limit: int):
        self.tail = TailReader(path)
        self.messages: deque[Message] = deque(maxlen=limit)
        self.unread = 0
        # A pending queue (Claude Code's): the entries now in the file by the layout's entry_key, and
        # the keys of those that left it (read_queue keeps both).
        self.pending: dict[str, Message] = {}
        self.gone: dict[str, None] = {}

    def count_pending_unread(self) -> None:
        """A pending queue's unread: the entries still in the file, not flipped to read."""
        self.unread = sum(1 for m in self.pending.values() if not m.read)


class TeamState:
    def __init__(
        self,
        store: TeamStore,
        *,
        log_limit: int = DEFAULT_LOG_LIMIT,
        message_limit: int = DEFAULT_MESSAGE_LIMIT,
        health_timeout: float = DEFAULT_HEALTH_TIMEOUT,
        show_internal: bool = False,
        journal: ChangeObserver | None = None,
    ):
        self.store = store
        # Told of every batch (a Claude Code team's journal, protocol/claude/journal.py); None: nobody.
        self.journal = journal
        self.log_limit = log_limit
        self.message_limit = message_limit
        self.health_timeout = health_timeout
        self.show_internal = show_internal
        self.config: TeamConfig | None = None
        self.tasks: dict[str, Task] = {}
        # The work a Claude Code lead handed out (its Agent calls, its messages, the teammates'
        # idle notices), by id: the board's rows while the team keeps no task list (`task_source`).
        self.assigned: dict[str, Task] = {}
        self._drift_mark: tuple = ()  # the transcripts' drift when last told (ChangeKind.DRIFT)
        self._task_core: dict[str, Task] = {}
        self._task_side: dict[str, dict[str, Any]] = {}
        self._task_paths: dict[Path, str] = {}
        self.errors: dict[Path, list[ReadError]] = {}
        self._inboxes: dict[str, _Inbox] = {}
        self.messages: deque[Message] = deque(maxlen=message_limit)
        self.logs: dict[str, LogBuffer] = {}
        self._log_readers: dict[Path, TailReader] = {}
        self.activity: dict[str, float] = {}
        self.departed: dict[str, Member] = {}
        self._board: Board | None = None
        self._touches: list[Touch] = []  # Specflow's TOUCHING_FILE, as the team remembers them (native)
        self.files_read = 0  # number of file reads, for the re-read-one-file guard
        self._loading = False  # the first full read: old messages are not fresh activity
        # (mtime, size, inode) of each file when last read: resync re-reads only what differs.
        self._file_stamps: dict[Path, tuple[int, int, int] | None] = {}
        # What each team file is: classify builds a dozen paths per call, and a busy team sends thousands a second.
        self._refs: dict[Path, FileRef] = {}
        # The members' transcripts, where the layout has them: read by `transcripts.read()`, not by load_all.
        # The layout makes it (a native team's `status` loads no transcript code).
        self.transcripts: MemberTranscripts | None = store.transcript_feed(self) if store.has_transcripts else None

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

    @property
    def name(self) -> str:
        return self.config.name if self.config else self.store.name

    @property
    def lead(self) -> str:
        return self.config.lead if self.config else self.store.default_lead

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
        disappeared = is_disappeared(
            holds_task=task is not None,
            stopped=status == MemberStatus.SHUTDOWN,
            last_activity=last,
            now=now,
            timeout=self.health_timeout,
        )
        inbox = self._inboxes.get(m.name)
        return MemberView(
            name=m.name,
            status=status,
            agent_type=m.agent_type,
            color=m.color,
            current_task=task,
            last_activity=last,
            unread=inbox.unread if inbox else 0,
            disappeared=disappeared,
            departed=departed,
            member=m,
        )

    def inbox_messages(self, member: str) -> list[Message]:
        inbox = self._inboxes.get(member)
        return list(inbox.messages) if inbox else []

    # ------------------------------------------------------------- loading
    def load_all(self) -> list[Change]:
        """Read everything once (the first screen); afterwards only `apply` changed paths."""
        self._loading = True
        try:
            changes = self._journaled(self._load_all())
        finally:
            self._loading = False
        return changes + self._sync_assignments(changes)

    def _journaled(self, changes: list[Change]) -> list[Change]:
        if self.journal is not None:
            self.journal.observe(self, changes)
        return changes

    def _load_all(self) -> list[Change]:
        changes = self._apply_config()
        for p in self.store.task_paths():
            changes += self._apply_task(p, initial=True)
        if self.store.has_task_sidecars:
            for p in self.store.sidecar_paths():
                ref = self.store.classify(p)
                if ref and ref.kind == "task_sidecar":
                    changes += self._apply_sidecar(p, ref.key)
        for owner in self.store.inbox_owners():
            changes += self._apply_inbox(owner)
        if self.store.writes_tasks and touches_path(self.store).exists():
            changes += self._apply_touches()
        for p in self.store.log_files() if self.store.has_teammate_logs else []:
            changes += self._apply_log(p, initial=True)
        self._seed_activity()
        return changes

    def _seed_activity(self) -> None:
        # Before any event, a member's last activity is the newest of its files' mtimes.
        claimed: dict[str, float] = {}  # one pass over the tasks, not one per member
        for t in self.tasks.values():
            if t.owner and t.claimed_at:
                claimed[t.owner] = max(claimed.get(t.owner, 0.0), t.claimed_at)
        for m in self.config.members if self.config else []:
            stamps = [m.last_seen or 0.0, m.joined_at or 0.0]
            try:
                paths = [*self.store.log_paths(m.name), self.store.inbox_path(m.name)]
            except ProtocolError:  # an unsafe name: reported by config_problems, never used as a path
                paths = []
            for p in paths:
                try:
                    stamps.append(os.stat(p).st_mtime)
                except OSError:
                    pass
            stamps.append(claimed.get(m.name, 0.0))
            best = max(stamps)
            if best > 0:
                self.activity[m.name] = max(self.activity.get(m.name, 0.0), best)

    @staticmethod
    def _file_stamp(path: Path) -> tuple[int, int, int] | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def _mark(self, path: Path) -> None:
        # Taken before the read: a change racing the read leaves a stale mark, so resync reads it again.
        self._file_stamps[path] = self._file_stamp(path)

    def _candidate_paths(self) -> list[Path]:
        out: list[Path] = []
        for d in self.store.file_dirs():
            try:
                out.extend(p for p in d.iterdir() if self.store.classify(p) is not None)
            except OSError:
                continue
        return out

    def resync(self) -> list[Change]:
        """Re-read only the files changed (or appeared, or vanished) since they were last read:
        the catch-up after a watcher starts, without re-reading everything."""
        return [c for path in self.stale_paths() for c in self.apply(path)]

    def stale_paths(self) -> list[Path]:
        """The files `resync` would re-read. Only lists and stats (10,000 of them on a big team),
        changes nothing: a UI may run it in a thread, then apply the paths on its own."""
        present = set(self._candidate_paths())
        known = {p for p, stamp in list(self._file_stamps.items()) if stamp is not None}
        return [path for path in sorted(present | known) if self._file_stamp(path) != self._file_stamps.get(path, ())]

    def watch_dirs(self) -> list[Path]:
        """What a watcher must cover: the team's folders and, where the layout has them, the transcripts'."""
        dirs = self.store.watch_dirs()
        return dirs + self.transcripts.watch_dirs() if self.transcripts is not None else dirs

    def apply_batch(self, paths: list[Path], *, rescan: bool = False) -> list[Change]:
        """One watch batch: each team file re-read, the transcripts among `paths` read from their offsets."""
        changes: list[Change] = []
        others: list[Path] = []
        for path in paths:
            found = self.apply(path)
            changes += found
            if not found and self.transcripts is not None and path not in self._refs:
                others.append(Path(path))
        if self.transcripts is not None and (others or rescan or any(c.kind == ChangeKind.CONFIG for c in changes)):
            changes += self._take_logs(
                self.transcripts.apply([p for p in others if self.transcripts.concerns(p)], rescan=rescan)
            )
        return changes + self._sync_assignments(changes)

    def load_transcripts(self) -> list[Change]:
        """Every transcript read once, on this thread (`teamtui status`; a UI reads in a thread and
        hands the result to `take_transcripts`)."""
        return self.take_transcripts(self.transcripts.read()) if self.transcripts is not None else []

    def take_transcripts(self, updates: dict[str, Any]) -> list[Change]:
        """What the transcript feed read (`transcripts.read`), put into the log buffers and activity."""
        assert self.transcripts is not None
        changes = self._take_logs(self.transcripts.take(updates))
        return changes + self._sync_assignments(changes)

    @property
    def transcripts_read(self) -> bool:
        """The members' transcripts were read once (or the layout has none)."""
        return self.transcripts is None or self.transcripts.started

    @property
    def counting_heads(self) -> bool:
        """Some transcript's head is still to be counted (`count_heads`, in a thread)."""
        return self.transcripts is not None and self.transcripts.counting

    def count_heads(self) -> dict[str, Any]:
        """The token sums of the transcripts' heads a read from the end left: safe in a thread."""
        return self.transcripts.count_heads() if self.transcripts is not None else {}

    def take_heads(self, heads: dict[str, Any]) -> bool:
        """The counted heads added (on the loop that took the reads); True when a figure (or the
        lead's assignments) changed."""
        if self.transcripts is None:
            return False
        counted = bool(self.transcripts.take_heads(heads))
        return bool(self._sync_assignments([])) or counted

    def _sync_assignments(self, changes: list[Change]) -> list[Change]:
        """What the transcripts tell beyond log lines, brought up to date (a layout with transcripts
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
            if before is not None and _task_sig(before) == _task_sig(task):
                continue
            if not shown:
                continue
            self._board_put(task)
            if before is not None and before.status != TaskStatus.COMPLETED and task.status == TaskStatus.COMPLETED:
                out.append(Change(ChangeKind.TASK_COMPLETED, tid, task.subject))
            out.append(Change(ChangeKind.TASK, tid))
        for tid in old.keys() - found.keys():
            if shown:
                if self._board is not None:
                    self._board.remove(tid)
                out.append(Change(ChangeKind.TASK_REMOVED, tid))
        return news + out

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

    def restore(
        self,
        config: TeamConfig,
        departed: dict[str, Member],
        tasks: dict[str, Task],
        messages: list[Message],
        assigned: dict[str, Task] | None = None,
    ) -> None:
        """A team rebuilt from a record of it (the journal) rather than read from its files."""
        self.config = config
        self.departed = departed
        self.tasks = tasks
        if assigned is not None:
            self.assigned = assigned
        self._board = None
        self.messages.clear()
        self.messages.extend(sorted(messages, key=lambda m: m.timestamp)[-self.message_limit :])

    def touch(self, member: str, when: float | None = None) -> None:
        if member:
            self.activity[member] = time.time() if when is None else when

    def apply(self, path: Path) -> list[Change]:
        """Re-read the one file at `path` and return what changed."""
        return self._journaled(self._apply(Path(path)))

    def _apply(self, path: Path) -> list[Change]:
        ref = self._refs.get(path)
        if ref is None:
            ref = self.store.classify(path)
            if ref is not None:
                self._refs[path] = ref
        if ref is None:
            if path == self.store.team_dir and not path.exists():
                return [Change(ChangeKind.TEAM_GONE, self.name, f"{path} was removed")]
            return []
        if ref.kind == "config":
            return self._apply_config() + (self._reread_tasks() if self.store.tasks_follow_config else [])
        if ref.kind == "task":
            return self._apply_task(path)
        if ref.kind == "task_sidecar":
            return self._apply_sidecar(path, ref.key)
        if ref.kind == "inbox":
            return self._apply_inbox(ref.key)
        if ref.kind == "log":
            return self._apply_log(path)
        if ref.kind == "touching":
            return self._apply_touches()
        return []

    def _apply_touches(self) -> list[Change]:
        """touching.json changed: the ready tasks using a file touched (or no longer touched) change view."""
        path = touches_path(self.store)
        self._mark(path)
        self.files_read += 1
        touches, error = load_touches(self.store)
        changes = self._set_error(path, [error] if error else [])
        before = self.board.touched_files()
        self._touches = touches
        self.board.touches = touches
        after = self.board.touched_files()
        moved = {f for f in before.keys() | after.keys() if before.get(f) != after.get(f)}
        if moved:
            changes += [
                Change(ChangeKind.TASK, t.id)
                for t in self.tasks.values()
                if any(posixpath.normpath(f) in moved for f in scope_files(t))
            ]
        return changes

    # ------------------------------------------------------------- errors
    def _set_error(self, path: Path, errors: list[ReadError]) -> list[Change]:
        had = bool(self.errors.get(path))
        if errors:
            self.errors[path] = errors
            return [Change(ChangeKind.ERROR, str(path), str(errors[0]))]
        if had:
            del self.errors[path]
            return [Change(ChangeKind.ERROR_CLEARED, str(path))]
        return []

    # ------------------------------------------------------------- config
    def _apply_config(self) -> list[Change]:
        self._mark(self.store.config_path)
        self.files_read += 1
        cfg = self.store.load_config()
        if isinstance(cfg, ReadError):
            if cfg.reason == "file not found" and not self.store.team_dir.exists():
                return [Change(ChangeKind.TEAM_GONE, self.name, f"{self.store.team_dir} is gone")]
            # A half-written config is normal while a peer rewrites it: keep the last good one.
            return self._set_error(cfg.path, [cfg])
        changes = self._set_error(self.store.config_path, self.store.config_problems(cfg))
        old = {m.name: m for m in self.config.members} if self.config else {}
        new = {m.name: m for m in cfg.members}
        now = time.time()
        for name, m in new.items():
            if name not in old:
                self.departed.pop(name, None)
                if self.config is not None:
                    changes.append(Change(ChangeKind.MEMBER_JOINED, name))
                    self.touch(name, now)
            elif old[name].raw != m.raw:
                self.touch(name, now)
                if old[name].status != m.status:
                    changes.append(Change(ChangeKind.MEMBER_STATUS, name, m.status.value))
        for name, m in old.items():
            if name not in new:
                self.departed[name] = m
                changes.append(Change(ChangeKind.MEMBER_LEFT, name))
        self.config = cfg
        changes.append(Change(ChangeKind.CONFIG))
        return changes

    # ------------------------------------------------------------- tasks
    def _reread_tasks(self) -> list[Change]:
        """Every task read again, and those gone removed: a layout whose tasks are read from its
        config's files (tasks_follow_config). Their owners are not touched: nothing they wrote."""
        paths = self.store.task_paths()
        gone = set(self._task_paths) - set(paths)
        return [c for p in [*paths, *sorted(gone)] for c in self._apply_task(p, initial=True)]

    def _merge(self, task_id: str) -> Task | None:
        core = self._task_core.get(task_id)
        if core is None:
            return None
        if self.store.has_task_sidecars:
            return self.store.merge_sidecar(core, self._task_side.get(task_id))
        return core

    def _apply_task(self, path: Path, initial: bool = False) -> list[Change]:
        self._mark(path)
        self.files_read += 1
        # With sidecars, the task file alone: its sidecar is read (and merged) when it changes.
        task = self.store.read_task_core(path) if self.store.has_task_sidecars else self.store.read_task(path)
        old_id = self._task_paths.get(path)
        if isinstance(task, ReadError):
            if task.reason == "file not found":
                changes = self._set_error(path, [])
                if old_id is not None:
                    self._task_paths.pop(path, None)
                    self._task_core.pop(old_id, None)
                    self.tasks.pop(old_id, None)
                    if self._board is not None:
                        self._board.remove(old_id)
                    changes.append(Change(ChangeKind.TASK_REMOVED, old_id))
                    if not self.tasks and self.assigned:  # the task list emptied: the lead's assignments show again
                        self._board = None
                        changes += [Change(ChangeKind.TASK, tid) for tid in self.assigned]
                return changes
            return self._set_error(path, [task])
        changes = self._set_error(path, [])
        if task.internal and not self.show_internal:
            return changes
        self._task_paths[path] = task.id
        before = self.tasks.get(task.id)
        self._task_core[task.id] = task
        merged = self._merge(task.id)
        assert merged is not None
        if not self.tasks and self.assigned:  # a task list appeared: it wins over the lead's assignments
            self._board = None
            changes += [Change(ChangeKind.TASK_REMOVED, tid) for tid in self.assigned]
        self.tasks[task.id] = merged
        self._board_put(merged)
        if not initial:
            self.touch(merged.owner)
            if before is not None and before.owner and before.owner != merged.owner:
                self.touch(before.owner)
        if before is not None and before.status != TaskStatus.COMPLETED and merged.status == TaskStatus.COMPLETED:
            changes.append(Change(ChangeKind.TASK_COMPLETED, task.id, merged.subject))
        changes.append(Change(ChangeKind.TASK, task.id))
        return changes

    def _apply_sidecar(self, path: Path, task_id: str) -> list[Change]:
        self._mark(path)
        self.files_read += 1
        data = load_json_file(path)
        if isinstance(data, ReadError):
            if data.reason == "file not found":
                self._task_side.pop(task_id, None)
                return self._set_error(path, [])
            return self._set_error(path, [data])
        if not isinstance(data, dict):
            return self._set_error(path, [ReadError(path, "expected a JSON object")])
        problem = self.store.sidecar_problem(data)
        if problem:
            self._task_side.pop(task_id, None)
            return self._set_error(path, [ReadError(path, problem)])
        changes = self._set_error(path, [])
        self._task_side[task_id] = data
        merged = self._merge(task_id)
        if merged is not None:
            self.tasks[task_id] = merged
            self._board_put(merged)
            changes.append(Change(ChangeKind.TASK, task_id))
        return changes

    # ------------------------------------------------------------- inboxes
    def _inbox(self, member: str) -> _Inbox:
        inbox = self._inboxes.get(member)
        if inbox is None:
            inbox = _Inbox(self.store.inbox_path(member), self.message_limit)
            self._inboxes[member] = inbox
        return inbox

    def _apply_inbox(self, member: str) -> list[Change]:
        try:
            inbox = self._inbox(member)
            self._mark(inbox.tail.path)
        except Exception as exc:  # noqa: BLE001 - an unsafe name in a file name: report, never act on it
            return [Change(ChangeKind.ERROR, member, f"inbox {member!r} ignored: {exc}")]
        if self.store.appends_to_inboxes:
            return self._apply_appended_inbox(member, inbox)
        return self._apply_queue_inbox(member, inbox)

    def _apply_appended_inbox(self, member: str, inbox: _Inbox) -> list[Change]:
        self.files_read += 1
        batch = inbox.tail.read_all()
        changes: list[Change] = []
        if batch.reset:
            # The file was truncated: its owner drained it, so everything so far was read.
            for m in inbox.messages:
                m.read = True
            if inbox.unread:
                inbox.unread = 0
                changes.append(Change(ChangeKind.INBOX_READ, member))
            self.touch(member)
        read = self.store.decode_inbox_batch(member, batch)
        for m in read.messages:
            m.read = False
        if read.errors or read.messages or batch.reset:
            changes += self._set_error(inbox.tail.path, read.errors)
        return changes + self._add_messages(inbox, member, read.messages)

    def _add_messages(self, inbox: _Inbox, member: str, new: list[Message]) -> list[Change]:
        if not new:
            return []
        self._keep_newest(new)
        for m in new:
            inbox.messages.append(m)
            if not self._loading:
                self.touch(m.sender, None)
        inbox.unread = sum(1 for m in inbox.messages if m.read is not True)
        return [Change(ChangeKind.INBOX, member, messages=new)]

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

    def _apply_queue_inbox(self, member: str, inbox: _Inbox) -> list[Change]:
        """An inbox the layout reads as a pending queue (Claude Code's): what entered it is new, what
        left it was delivered, as the layout's `read_queue` says."""
        self.files_read += 1
        read = self.store.read_queue(member, inbox.pending, inbox.gone, self.message_limit)
        changes = self._set_error(self.store.inbox_path(member), read.errors)
        if read.flipped or read.delivered:
            self.touch(member)
            changes.append(Change(ChangeKind.INBOX_READ, member))
        if read.delivered:
            changes.append(Change(ChangeKind.DELIVERED, member, messages=read.delivered))
        inbox.count_pending_unread()
        changes += self._add_messages(inbox, member, read.new)
        inbox.count_pending_unread()
        return changes

    # ------------------------------------------------------------- logs
    def _apply_log(self, path: Path, initial: bool = False) -> list[Change]:
        self._mark(path)
        member = path.name.rsplit(".", 1)[0]
        reader = self._log_readers.get(path)
        if reader is None:
            reader = TailReader(path)
            if initial:
                reader.seek_tail(self.log_limit * _LOG_TAIL_BYTES_PER_LINE)
            self._log_readers[path] = reader
        self.files_read += 1
        batch = reader.read_all()
        buf = self.logs.get(member)
        if buf is None:
            buf = self.logs[member] = LogBuffer(member, self.log_limit)
        errors = batch.read_errors(path)
        # Only the newest log_limit lines can stay in the buffer: decode no more than those.
        keep = self.log_limit
        entries = [
            self._log_entry(member, path, line, no)
            for line, no in zip(batch.lines[-keep:], batch.line_numbers[-keep:], strict=True)
        ]
        buf.extend(entries)
        # A read that found nothing new keeps the errors already reported (as the inbox does).
        changes = self._set_error(path, errors) if (errors or entries or batch.reset or batch.missing) else []
        if entries:
            if not initial:
                self.touch(member)
            changes.append(Change(ChangeKind.LOG, member, entries=entries))
        return changes

    @staticmethod
    def _log_entry(member: str, path: Path, line: bytes, no: int) -> LogEntry:
        text = line.decode("utf-8", errors="replace").rstrip("\r")
        # str(path) is cached by pathlib, path.suffix is not: this runs for every line of every log.
        if text.startswith("{") and str(path).endswith(".jsonl"):
            try:
                d = json.loads(text)
            except (ValueError, RecursionError):
                d = None
            if isinstance(d, dict):
                ts = d.get("ts")
                body = d.get("text", d.get("message", ""))
                try:
                    when = float(ts) if isinstance(ts, (int, float)) and not isinstance(ts, bool) else None
                except OverflowError:  # an int too large for a float (e.g. 10**400)
                    when = None
                return LogEntry(
                    member=member,
                    ts=when,
                    level=normalize_level(d.get("level")),
                    text=body if isinstance(body, str) else str(body),
                    line=no,
                )
        return LogEntry(member=member, ts=None, level=LogLevel.INFO, text=text, line=no)

    def sent(self, messages: list[Message]) -> list[Change]:
        """Messages this process just wrote, recorded now: a Claude Code teammate may take one out of
        its inbox before the next read, and then it would never be seen (nor its delivery)."""
        if self.store.appends_to_inboxes:
            return []  # an appended inbox is read on from its offset: the next read has them
        changes: list[Change] = []
        for m in messages:
            inbox = self._inbox(m.recipient)
            key = self.store.entry_key(m)
            if key in inbox.pending or key in inbox.gone:
                continue  # the feed read it first
            inbox.pending[key] = m
            changes += self._add_messages(inbox, m.recipient, [m])
            inbox.count_pending_unread()
        return self._journaled(changes)

    def ingest(self, recipient: str, messages: list[Message]) -> list[Change]:
        """Messages its owner drained before the monitor could read them (handed over in-process):
        added once, marked read."""
        inbox = self._inbox(recipient)
        seen = {(m.sender, m.timestamp, m.type, m.content) for m in inbox.messages}
        new = []
        for m in messages:
            key = (m.sender, m.timestamp, m.type, m.content)
            if key in seen:
                continue
            seen.add(key)
            m = m.model_copy()
            m.recipient = recipient
            m.read = True
            new.append(m)
        return self._journaled(self._add_messages(inbox, recipient, new))

    # ------------------------------------------------------------- replies
    def shutdown_replies(self) -> list[Message]:
        """Replies to shutdown requests seen in the lead's inbox."""
        inbox = self._inboxes.get(self.lead)
        return [m for m in inbox.messages if m.type in SHUTDOWN_REPLY_TYPES] if inbox else []
