"""TeamState: everything known about one team, kept current one changed file at a time.

Pure of any UI: the dashboard, `teamtui status`, `follow` and the runtime all read it.
`apply(path)` re-reads only that file (logs and native inboxes from their last offset)
and returns the changes it found, so a UI redraws only what changed.
"""

from __future__ import annotations

import os
import posixpath
import time
from pathlib import Path

from teamtui.protocol.changes import Change, ChangeKind, TeamLookups
from teamtui.protocol.errors import ProtocolError, ReadError
from teamtui.protocol.logbuffer import LogBuffer
from teamtui.protocol.model import DEFAULT_HEALTH_TIMEOUT, DEFAULT_LOG_LIMIT, DEFAULT_MESSAGE_LIMIT, TeamModel
from teamtui.protocol.models import SHUTDOWN_REPLY_TYPES, Message, TaskStatus
from teamtui.protocol.store import FileRef, KeepsTranscripts, TeamStore
from teamtui.protocol.store.files import ONE_SHOT_SETTLE, Inbox
from teamtui.protocol.store.logs import TeamLog
from teamtui.protocol.taskmeta import scope_files
from teamtui.protocol.touching import load_touches, touches_path

TYPE_CHECKING = False  # not typing's: importing typing costs every CLI call ~2 ms
if TYPE_CHECKING:
    from typing import Any

    from teamtui.protocol.changes import ChangeObserver, LogUpdate, TranscriptFiles

_RECEIPTS_KEPT = 10_000  # transcript receipts remembered, so that one read again is not a second message


class TeamState(TeamModel):
    """A team read from its files, in its layout (its store): `load_all` once, then `apply` each
    changed path. What it reads goes into the TeamModel it is; the store hands it the readers of its
    layout (protocol/store/readers.py: inboxes, tasks, logs) and its transcript feed."""

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
        self._task_reader = store.task_reader()
        self._task_paths: dict[Path, str] = {}
        self._inboxes: dict[str, Inbox] = {}
        self._log_readers: dict[Path, TeamLog] = {}
        self.files_read = 0  # number of file reads, for the re-read-one-file guard
        self._loading = False  # the first full read: old messages are not fresh activity
        # (mtime, size, inode) of each file when last read: resync re-reads only what differs.
        self._file_stamps: dict[Path, tuple[int, int, int] | None] = {}
        # Transcript receipts taken in (their keys), and the messages they were for, by id().
        self._receipts_seen: dict[str, None] = {}
        self._receipted: dict[int, Message] = {}
        # What each team file is: classify builds a dozen paths per call, and a busy team sends thousands a second.
        self._refs: dict[Path, FileRef] = {}
        # The members' transcript files, where the layout has them: read by `transcript_files.read()`,
        # not by load_all; the same feed answers as `transcripts`. The layout makes it (a native team's
        # `status` loads no transcript code); it reads the team only through these lookups.
        self.transcript_files: TranscriptFiles | None = None
        if isinstance(store, KeepsTranscripts):
            self.transcripts = self.transcript_files = store.transcript_feed(
                TeamLookups(
                    config=lambda: self.config,
                    lead=lambda: self.lead,
                    said=lambda: self.said,
                    inbox=self.inbox_messages,
                    messages=lambda: self.messages,
                    departed=lambda: self.departed,
                    views=self.member_views,
                    log_limit=log_limit,
                    health_timeout=health_timeout,
                    note_edits=getattr(journal, "note_edits", None),
                )
            )

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
        for p in self._task_reader.sidecar_paths():
            changes += self._apply(p)
        for owner in self.store.inbox_owners():
            changes += self._apply_inbox(owner)
        touching = touches_path(self.store)
        if touching.exists():
            changes += self._apply(touching)  # where the layout keeps touches (classify knows the file)
        for p in self.store.teammate_logs():
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
        files = self.transcript_files
        return dirs + files.watch_dirs() if files is not None else dirs

    def flat_watch_dirs(self) -> list[Path]:
        """The folders holding the team's files, for a watch without their subfolders: a chain of
        folders made inside the team's folder, however deep, costs the watcher nothing."""
        return self.store.file_dirs()

    def apply_batch(self, paths: list[Path], *, rescan: bool = False) -> list[Change]:
        """One watch batch: each team file re-read, the transcripts among `paths` read from their offsets."""
        changes: list[Change] = []
        others: list[Path] = []
        files = self.transcript_files
        for path in paths:
            found = self.apply(path)
            changes += found
            if not found and files is not None and path not in self._refs:
                others.append(Path(path))
        if files is not None and (others or rescan or any(c.kind == ChangeKind.CONFIG for c in changes)):
            changes += self._take_transcript_updates(
                files.apply([p for p in others if files.concerns(p)], rescan=rescan)
            )
        return changes + self._sync_assignments(changes)

    def load_transcripts(self) -> list[Change]:
        """Every transcript read once, on this thread (`teamtui status`; a UI reads in a thread and
        hands the result to `take_transcripts`)."""
        return self.take_transcripts(self.transcript_files.read()) if self.transcript_files is not None else []

    def take_transcripts(self, updates: dict[str, Any]) -> list[Change]:
        """What the transcript feed read (`transcript_files.read`), put into the log buffers and activity."""
        assert self.transcript_files is not None
        changes = self._take_transcript_updates(self.transcript_files.take(updates))
        return changes + self._sync_assignments(changes)

    def _take_transcript_updates(self, updates: list[LogUpdate]) -> list[Change]:
        self._note_cost()
        return self._take_logs(updates) + self._journaled(self._take_receipts(updates))

    def _note_cost(self) -> None:
        note = getattr(self.journal, "note_cost", None)  # told what the team cost after every read
        if note is not None:
            note(self)

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
                inbox.received_early(sender, body)
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
    def counting_heads(self) -> bool:
        """Some transcript's head is still to be counted (`count_heads`, in a thread)."""
        return self.transcript_files is not None and self.transcript_files.counting

    def count_heads(self) -> dict[str, Any]:
        """The token sums of the transcripts' heads a read from the end left: safe in a thread."""
        return self.transcript_files.count_heads() if self.transcript_files is not None else {}

    def take_heads(self, heads: dict[str, Any]) -> bool:
        """The counted heads added (on the loop that took the reads); True when a figure (or the
        lead's assignments) changed."""
        if self.transcript_files is None:
            return False
        counted = bool(self.transcript_files.take_heads(heads))
        self._note_cost()
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
            changes = self._apply_config()  # a run's tasks are read from its config's files: read again
            rereads = self._task_reader.with_config(list(self._task_paths))
            return changes + [c for p in rereads for c in self._apply_task(p, initial=True)]
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
    def _apply_task(self, path: Path, initial: bool = False) -> list[Change]:
        self._mark(path)
        self.files_read += 1
        task = self._task_reader.read(path)  # with sidecars, the task file alone: its sidecar is read when it changes
        old_id = self._task_paths.get(path)
        if isinstance(task, ReadError):
            if task.reason == "file not found":
                changes = self._set_error(path, [])
                if old_id is not None:
                    self._task_paths.pop(path, None)
                    self._task_reader.forget(old_id)
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
        merged = self._task_reader.keep(task)
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
        merged, errors = self._task_reader.read_sidecar(path, task_id)
        changes = self._set_error(path, errors)
        if merged is not None:
            self.tasks[task_id] = merged
            self._board_put(merged)
            changes.append(Change(ChangeKind.TASK, task_id))
        return changes

    # ------------------------------------------------------------- inboxes
    def _inbox(self, member: str) -> Inbox:
        inbox = self._inboxes.get(member)
        if inbox is None:
            inbox = self._inboxes[member] = self.store.inbox_reader(member, self.message_limit)
        return inbox

    def _apply_inbox(self, member: str) -> list[Change]:
        try:
            inbox = self._inbox(member)
            self._mark(inbox.path)
        except Exception as exc:  # noqa: BLE001 - an unsafe name in a file name: report, never act on it
            return [Change(ChangeKind.ERROR, member, f"inbox {member!r} ignored: {exc}")]
        self.files_read += 1
        news = inbox.read()
        changes: list[Change] = []
        if news.drained:  # its owner read everything so far
            if self.unread.get(member):
                changes.append(Change(ChangeKind.INBOX_READ, member))
            self.touch(member)
        if news.report:
            changes += self._set_error(inbox.path, news.errors)
        if news.flipped or news.delivered:
            self.touch(member)
            changes.append(Change(ChangeKind.INBOX_READ, member))
        if news.delivered:
            changes.append(Change(ChangeKind.DELIVERED, member, messages=news.delivered))
        changes += self._add_messages(inbox, member, news.new)
        self.unread[member] = inbox.unread()
        return changes

    def _add_messages(self, inbox: Inbox, member: str, new: list[Message], fresh: bool = True) -> list[Change]:
        """`new` into the history; `fresh`: written just now (its sender's activity), not read back later."""
        if not new:
            return []
        self._keep_newest(new)
        for m in new:
            inbox.messages.append(m)
            if fresh and not self._loading:
                self.touch(m.sender, None)
        self.unread[member] = inbox.unread()
        return [Change(ChangeKind.INBOX, member, messages=new)]

    # ------------------------------------------------------------- logs
    def _apply_log(self, path: Path, initial: bool = False) -> list[Change]:
        self._mark(path)
        log = self._log_readers.get(path)
        if log is None:
            log = self._log_readers[path] = TeamLog(path, self.log_limit, initial=initial)
        self.files_read += 1
        entries, errors, report = log.read()
        buf = self.logs.get(log.member)
        if buf is None:
            buf = self.logs[log.member] = LogBuffer(log.member, self.log_limit)
        buf.extend(entries)
        changes = self._set_error(path, errors) if report else []
        if entries:
            if not initial:
                self.touch(log.member)
            changes.append(Change(ChangeKind.LOG, log.member, entries=entries))
        return changes

    def sent(self, messages: list[Message]) -> list[Change]:
        """Messages this process just wrote, recorded now: a Claude Code teammate may take one out of
        its inbox before the next read, and then it would never be seen (nor its delivery)."""
        changes: list[Change] = []
        for m in messages:
            inbox = self._inbox(m.recipient)
            if inbox.sent(m):  # not when a read has it already, or will (an appended inbox)
                changes += self._add_messages(inbox, m.recipient, [m])
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
