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

from teamtui.protocol.changes import Change, ChangeKind
from teamtui.protocol.errors import ProtocolError, ReadError
from teamtui.protocol.fsio import load_json_file, split_glued
from teamtui.protocol.logbuffer import LogBuffer
from teamtui.protocol.model import DEFAULT_HEALTH_TIMEOUT, DEFAULT_LOG_LIMIT, DEFAULT_MESSAGE_LIMIT, TeamModel
from teamtui.protocol.models import (
    SHUTDOWN_REPLY_TYPES,
    LogEntry,
    LogLevel,
    Message,
    Task,
    TaskStatus,
    normalize_level,
)
from teamtui.protocol.store import FileRef, TeamStore
from teamtui.protocol.store.files import ONE_SHOT_SETTLE
from teamtui.protocol.tail import TailReader
from teamtui.protocol.taskmeta import scope_files
from teamtui.protocol.touching import load_touches, touches_path

TYPE_CHECKING = False  # not typing's: importing typing costs every CLI call ~2 ms
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from teamtui.protocol.changes import ChangeObserver, LogUpdate

# On first load a log is read from at most this far before its end: the buffer keeps only the tail anyway.
_LOG_TAIL_BYTES_PER_LINE = 512
# What every `.jsonl` log line carries: a line glued onto a torn one is known by it.
_LOG_KEYS = ("ts", "level")


_RECEIPTS_KEPT = 10_000  # transcript receipts remembered, so that one read again is not a second message


def _not_early(new: list[Message], inbox: _Inbox, key_of: Callable[[Message], str]) -> tuple[list[Message], set[str]]:
    """Of the entries a read found new, those a transcript showed delivered already (each once):
    (the rest, the keys of those)."""
    rest, taken = [], set()
    for m in new:
        pair = (m.sender, m.content.strip())
        if inbox.early.get(pair, 0) > 0:
            inbox.early[pair] -= 1
            if not inbox.early[pair]:
                del inbox.early[pair]
            taken.add(key_of(m))
        else:
            rest.append(m)
    return rest, taken


class _Inbox:
    """What a monitor knows of one inbox: its messages (bounded) and how to read more."""

    def __init__(self, path: Path, limit: int, member: str, unread: dict[str, int]):
        self.tail = TailReader(path)
        self.messages: deque[Message] = deque(maxlen=limit)
        self.member = member
        self._unread = unread  # the model's count per inbox owner: what the team panel shows
        # A pending queue (Claude Code's): the entries now in the file by the layout's entry_key, and
        # the keys of those that left it (read_queue keeps both).
        self.pending: dict[str, Message] = {}
        self.gone: dict[str, None] = {}
        # Messages a transcript showed received before any read found them, by (sender, text): a
        # later read that still finds such an entry takes it as that message (its key in `receipted`).
        self.early: dict[tuple[str, str], int] = {}
        self.receipted: set[str] = set()

    @property
    def unread(self) -> int:
        return self._unread.get(self.member, 0)

    @unread.setter
    def unread(self, count: int) -> None:
        self._unread[self.member] = count

    def count_pending_unread(self) -> None:
        """A pending queue's unread: the entries still in the file, not flipped to read."""
        self.unread = sum(1 for m in self.pending.values() if not m.read)


class TeamState(TeamModel):
    """A team read from its files, in its layout (its store): `load_all` once, then `apply` each
    changed path. What it reads goes into the TeamModel it is; the store says how to read."""

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
        super().__init__(
            store.name,
            store.traits(),
            log_limit=log_limit,
            message_limit=message_limit,
            health_timeout=health_timeout,
            journal=journal,
        )
        self.store = store
        self.show_internal = show_internal
        self._task_core: dict[str, Task] = {}
        self._task_side: dict[str, dict[str, Any]] = {}
        self._task_paths: dict[Path, str] = {}
        self._inboxes: dict[str, _Inbox] = {}
        self._log_readers: dict[Path, TailReader] = {}
        self.files_read = 0  # number of file reads, for the re-read-one-file guard
        self._loading = False  # the first full read: old messages are not fresh activity
        # (mtime, size, inode) of each file when last read: resync re-reads only what differs.
        self._file_stamps: dict[Path, tuple[int, int, int] | None] = {}
        # Transcript receipts taken in (their keys), and the messages they were for, by id().
        self._receipts_seen: dict[str, None] = {}
        self._receipted: dict[int, Message] = {}
        # What each team file is: classify builds a dozen paths per call, and a busy team sends thousands a second.
        self._refs: dict[Path, FileRef] = {}
        # The members' transcripts, where the layout has them: read by `transcripts.read()`, not by load_all.
        # The layout makes it (a native team's `status` loads no transcript code).
        self.transcripts = store.transcript_feed(self) if store.has_transcripts else None

    def inbox_messages(self, member: str) -> list[Message]:
        inbox = self._inboxes.get(member)
        return list(inbox.messages) if inbox else []

    # ------------------------------------------------------------- loading
    def load_all(self, one_shot: bool = False) -> list[Change]:
        """Read everything once (the first screen); afterwards only `apply` changed paths. `one_shot`:
        a config.json caught mid-rewrite is read again until whole (a one-shot command has no last
        good one to show meanwhile; a watcher gets the rewrite's own event instead, and never sleeps)."""
        self._loading = True
        try:
            changes = self._journaled(self._load_all(ONE_SHOT_SETTLE if one_shot else 0.0))
        finally:
            self._loading = False
        return changes + self._sync_assignments(changes)

    def _load_all(self, settle: float = 0.0) -> list[Change]:
        changes = self._apply_config(settle)
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

    def task_written(self, task_id: str) -> float | None:
        """When the task's file was last written, as it was read (its time, for a task that has none)."""
        try:
            stamp = self._file_stamps.get(self.store.task_path(task_id))
        except (ProtocolError, AttributeError, ValueError):  # an id no file can have, a layout without task files
            return None
        return stamp[0] / 1e9 if stamp else None

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
        return self.apply_paths(self.stale_paths())

    def apply_paths(self, paths: list[Path]) -> list[Change]:
        """`apply` for each of `paths` (the stale ones: `stale_paths` may run in a thread first)."""
        return [c for path in paths for c in self.apply(path)]

    def stale_paths(self) -> list[Path]:
        """The files `resync` would re-read. Only lists and stats (10,000 of them on a big team),
        changes nothing: a UI may run it in a thread, then apply the paths on its own."""
        present = set(self._candidate_paths())
        known = {p for p, stamp in list(self._file_stamps.items()) if stamp is not None}
        return [path for path in sorted(present | known) if self._file_stamp(path) != self._file_stamps.get(path, ())]

    def watch_dirs(self) -> list[Path]:
        """What a watcher must cover: the folders holding the team's files (each without its
        subfolders: `flat_watch_dirs`) and, where the layout has them, the transcripts' (with theirs)."""
        dirs = self.flat_watch_dirs()
        return dirs + self.transcripts.watch_dirs() if self.transcripts is not None else dirs

    def flat_watch_dirs(self) -> list[Path]:
        """The folders holding the team's files, for a watch without their subfolders: a chain of
        folders made inside the team's folder, however deep, costs the watcher nothing."""
        return self.store.file_dirs()

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
            changes += self._take_transcript_updates(
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
        changes = self._take_transcript_updates(self.transcripts.take(updates))
        return changes + self._sync_assignments(changes)

    def _take_transcript_updates(self, updates: list[LogUpdate]) -> list[Change]:
        return self._take_logs(updates) + self._journaled(self._take_receipts(updates))

    def _take_receipts(self, updates: list[LogUpdate]) -> list[Change]:
        """What each member's transcript says it received. A message already known (seen in the
        inbox file, or sent from here) is the same message; one that is not was taken out of the
        file before any read found it (an in-process teammate takes an entry within 20-110 ms):
        it is added now, delivered, once, and its entry, if a later read still finds it in the
        file, is not a second message."""
        changes: list[Change] = []
        for u in updates:
            for sender, body, ts, key in u.received:
                if key in self._receipts_seen:
                    continue  # the same line read again (a transcript read anew)
                self._receipts_seen[key] = None
                if len(self._receipts_seen) > _RECEIPTS_KEPT:
                    self._receipts_seen.pop(next(iter(self._receipts_seen)))
                if self._receipted_one(sender, u.member, body):
                    continue
                m = Message(
                    type="message",
                    sender=sender,
                    recipient=u.member,
                    content=body,
                    timestamp=ts if ts is not None else time.time(),
                    read=True,
                    delivered=True,
                )
                self._receipted[id(m)] = m
                inbox = self._inbox(u.member)
                inbox.early[(sender, body)] = inbox.early.get((sender, body), 0) + 1
                changes += self._add_messages(inbox, u.member, [m], fresh=False)  # found later: no news of its sender
                changes.append(Change(ChangeKind.DELIVERED, u.member, messages=[m]))
        return changes

    def _receipted_one(self, sender: str, recipient: str, body: str) -> bool:
        """A known message this receipt is for (the oldest not yet receipted), marked; False when none."""
        for m in self.messages:
            if (
                m.recipient == recipient
                and m.sender == sender
                and id(m) not in self._receipted
                and m.content.strip() == body
            ):
                self._receipted[id(m)] = m
                while len(self._receipted) > 2 * self.message_limit:
                    self._receipted.pop(next(iter(self._receipted)))
                return True
        return False

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

    def apply(self, path: Path) -> list[Change]:
        """Re-read the one file at `path` and return what changed."""
        # Path(a Path) parses every part again: on a 2,000-deep path, for every path of a batch.
        return self._journaled(self._apply(path if isinstance(path, Path) else Path(path)))

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
    def _apply_config(self, settle: float = 0.0) -> list[Change]:
        self._mark(self.store.config_path)
        self.files_read += 1
        cfg = self.store.load_config_whole(settle)
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
            inbox = _Inbox(self.store.inbox_path(member), self.message_limit, member, self.unread)
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

    def _add_messages(self, inbox: _Inbox, member: str, new: list[Message], fresh: bool = True) -> list[Change]:
        """`new` into the history; `fresh`: written just now (its sender's activity), not read back later."""
        if not new:
            return []
        self._keep_newest(new)
        for m in new:
            inbox.messages.append(m)
            if fresh and not self._loading:
                self.touch(m.sender, None)
        inbox.unread = sum(1 for m in inbox.messages if m.read is not True)
        return [Change(ChangeKind.INBOX, member, messages=new)]

    def _apply_queue_inbox(self, member: str, inbox: _Inbox) -> list[Change]:
        """An inbox the layout reads as a pending queue (Claude Code's): what entered it is new, what
        left it was delivered, as the layout's `read_queue` says."""
        self.files_read += 1
        read = self.store.read_queue(member, inbox.pending, inbox.gone, self.message_limit)
        if inbox.early:  # entries a transcript already showed delivered: not new, and not delivered twice
            read.new, taken = _not_early(read.new, inbox, self.store.entry_key)
            read.delivered = [m for m in read.delivered if self.store.entry_key(m) not in inbox.receipted]
            inbox.receipted.update(taken)
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
                glued = split_glued(line, _LOG_KEYS)  # a line cut short, with the next one glued on
                d = json.loads(glued[1]) if glued else None
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
