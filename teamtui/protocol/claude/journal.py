"""The journal: everything teamtui observed about a team, kept after the team's own files are gone.

Claude Code prunes an inbox entry within a second of its delivery and deletes the whole team
folder when the lead exits; the journal is the one place that still has the team's history.
One JSON object a line, one file per team under $XDG_STATE_HOME/teamtui/journal/ (default
~/.local/state/teamtui/journal/), bounded in size (a full file is rotated to `<file>.1`, the
older generation dropped). Records are built by the caller (cheap) and written by one writer
thread: a dashboard's loop never waits on the disk.

Record kinds: team (a header: layout, root, lead, members, task list), message, delivered,
task, task_removed, assigned, assigned_removed (the work a lead handed out without a task list),
member_joined, member_left, member_status, lead_ended, team_gone, and cost (what the team and
each member cost so far: written when it changed, at most once a minute, before team_gone and at
exit; an ended team shows the last).
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import queue
import threading
import time
import weakref
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from teamtui.protocol.changes import ChangeKind
from teamtui.protocol.fsio import append_bytes, split_glued
from teamtui.protocol.names import claude_sanitize

if TYPE_CHECKING:
    from teamtui.protocol.changes import Change
    from teamtui.protocol.claude.layout import ClaudeLayout
    from teamtui.protocol.models import Message
    from teamtui.protocol.state import TeamState
    from teamtui.protocol.store import TeamStore

# One file is rotated when it passes this size; with its one older generation a team costs at most twice it.
MAX_FILE_BYTES = 4 * 1024 * 1024
# Text longer than this is cut in a record (a pasted log must not fill the journal).
MAX_TEXT = 16 * 1024
# Records waiting for the writer; beyond this new ones are dropped (and counted), never waited for.
QUEUE_LIMIT = 20_000
SUFFIX = ".jsonl"


def journal_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "teamtui" / "journal"


def journal_file(store: TeamStore, directory: Path | None = None) -> Path:
    """One file per team: its name made safe, and a hash of where it lives so that two teams of
    the same name (two projects, two Claude folders) never share a file."""
    ident = f"{store.layout}\0{Path(store.root).resolve()}\0{store.name}"
    digest = hashlib.sha256(ident.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    safe = claude_sanitize(store.name)[:64].lstrip("-_") or "team"
    return (directory or journal_dir()) / f"{safe}.{digest}{SUFFIX}"


def _cut(text: object) -> str:
    text = text if isinstance(text, str) else str(text)
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "…"


# ------------------------------------------------------------------ the writer thread


class _Writer:
    """Appends queued (path, line) pairs to their files on its own thread."""

    def __init__(self, max_bytes: int = MAX_FILE_BYTES):
        self.max_bytes = max_bytes
        self.queue: queue.Queue[tuple[Path, str, str] | None] = queue.Queue(QUEUE_LIMIT)
        self.dropped = 0
        self.errors: list[str] = []
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._marks: list[threading.Event] = []

    def put(self, path: Path, line: str, header: str) -> None:
        self._start()
        try:
            self.queue.put_nowait((path, line, header))
        except queue.Full:
            self.dropped += 1

    def _start(self) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="teamtui-journal", daemon=True)
                self._thread.start()

    def flush(self, timeout: float = 5.0) -> None:
        """Wait (bounded) until everything queued so far is on disk: for exit and for tests."""
        if self._thread is None:
            return
        done = threading.Event()
        self._marks.append(done)
        try:
            self.queue.put((Path(), "", ""), timeout=timeout)  # a marker: the writer sets `done` at it
        except queue.Full:
            return
        done.wait(timeout)

    def _run(self) -> None:
        while True:
            item = self.queue.get()
            if item is None:
                return
            path, line, header = item
            if not line:
                while self._marks:
                    self._marks.pop(0).set()
                continue
            try:
                self._append(path, line, header)
            except OSError as exc:  # a full disk or a read-only home: say so once, keep the dashboard going
                if len(self.errors) < 10:
                    self.errors.append(f"{path}: {exc}")

    def _append(self, path: Path, line: str, header: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            size = 0
        if size and size + len(line) > self.max_bytes:
            os.replace(path, path.with_name(path.name + ".1"))
            size = 0
        # A new (or rotated) file starts with the team's header, so every file reads on its own.
        head = (header + "\n") if size == 0 and header and header != line else ""
        append_bytes(path, (head + line + "\n").encode(), mode=0o600)  # whole or not at all


_WRITER = _Writer()
atexit.register(_WRITER.flush, 2.0)
# A cost is journaled at most this often while it changes (every message changes it).
COST_EVERY = 60.0
# Journals holding a cost not written yet: written at exit, before the writer's last flush.
_UNSAVED: weakref.WeakValueDictionary[int, TeamJournal] = weakref.WeakValueDictionary()


@atexit.register
def _save_costs() -> None:
    for journal in list(_UNSAVED.values()):
        try:
            journal.save_cost()
        except RuntimeError:  # no thread can start this late (Python 3.12+): that cost stays unsaved
            return


def flush(timeout: float = 5.0) -> None:
    _WRITER.flush(timeout)


# ------------------------------------------------------------------ observing a team


def message_record(m: Message, key: str) -> dict[str, object]:
    return {
        "kind": "message",
        "key": key,
        "from": m.sender,
        "to": m.recipient,
        "type": m.type,
        "text": _cut(m.content),
        "summary": _cut(m.summary),
        "at": m.timestamp,
        "read": m.read,
    }


@dataclass
class TeamJournal:
    """What one watcher records about one team. `observe` is called with each batch of changes."""

    store: ClaudeLayout
    path: Path
    _header: str = ""
    _tasks: dict[str, tuple] = field(default_factory=dict)
    _assigned: dict[str, tuple] = field(default_factory=dict)
    _ended: bool = False
    _cost: dict[str, object] | None = None  # the last cost record made, and whether it is written
    _cost_saved: bool = True
    _cost_at: float = 0.0

    @classmethod
    def open(cls, store: ClaudeLayout, directory: Path | None = None) -> TeamJournal:
        return cls(store, journal_file(store, directory))

    def _put(self, record: dict[str, object]) -> None:
        record = {"ts": round(time.time(), 3), **record}
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        if record.get("kind") == "team":
            self._header = line
        _WRITER.put(self.path, line, self._header)

    def _team_record(self, state: TeamState) -> dict[str, object]:
        from teamtui.protocol.claude.config import member_backend, member_pane

        cfg = state.config
        lead = self.store.lead_process
        where, session = _where_and_session(getattr(cfg, "raw", None))
        return {
            "kind": "team",
            "team": state.name,
            "layout": self.store.layout,
            "root": str(self.store.root),
            # Where it worked and the lead's session: what tells its row apart once its folder is gone.
            "cwd": where,
            "session": session,
            "lead": state.lead,
            "description": cfg.description if cfg else "",
            "created_at": cfg.created_at if cfg else None,
            "task_list": self.store.task_list,
            "lead_pid": lead.pid if lead else None,
            "members": [
                {
                    "name": m.name,
                    "agent_type": m.agent_type,
                    "color": m.color,
                    "backend": member_backend(m),
                    "pane": member_pane(m),
                    "joined_at": m.joined_at,
                }
                for m in (cfg.members if cfg else [])
            ],
        }

    def observe(self, state: TeamState, changes: Iterable[Change]) -> None:
        from teamtui.protocol.claude.inbox import entry_key

        if not self._header and state.config is not None:
            self._put(self._team_record(state))
            for m in list(state.messages):
                self._put(message_record(m, entry_key(m)))
            for t in state.tasks.values():
                self._task(t)
            self.assignments(state.assigned)
        self.note_cost(state, force=any(c.kind == ChangeKind.TEAM_GONE for c in changes))
        for c in changes:
            kind = c.kind
            if kind == ChangeKind.INBOX:
                for m in c.messages:
                    self._put(message_record(m, entry_key(m)))
            elif kind == ChangeKind.DELIVERED:
                for m in c.messages:
                    self._put({"kind": "delivered", "key": entry_key(m), "to": m.recipient})
            elif kind in (ChangeKind.TASK, ChangeKind.TASK_COMPLETED):
                task = state.tasks.get(c.key)
                if task is not None:
                    self._task(task)
            elif kind == ChangeKind.TASK_REMOVED:
                self._tasks.pop(c.key, None)
                self._put({"kind": "task_removed", "id": c.key})
            elif kind == ChangeKind.MEMBER_JOINED:
                member = state.config.member(c.key) if state.config else None
                self._put(
                    {
                        "kind": "member_joined",
                        "name": c.key,
                        "agent_type": member.agent_type if member else "",
                        "color": member.color if member else "",
                    }
                )
            elif kind == ChangeKind.MEMBER_LEFT:
                self._put({"kind": "member_left", "name": c.key})
            elif kind == ChangeKind.MEMBER_STATUS:
                self._put({"kind": "member_status", "name": c.key, "status": c.detail})
            elif kind == ChangeKind.TEAM_GONE and not self._ended:
                self._ended = True
                self._lead_ended()
                self._put({"kind": "team_gone", "detail": c.detail})

    def note_cost(self, state: TeamState, force: bool = False) -> None:
        """The team's cost, journaled when it changed: the first known at once, then at most every
        COST_EVERY seconds (unless `force`: the team is gone); the last one at exit."""
        if not self._header or self._ended or state.transcripts is None or not state.transcripts.started:
            return
        from teamtui.protocol.cost import cost_json

        feed = state.transcripts
        team = feed.cost()
        if team is None:
            return  # still being counted: the last record stands
        record = {
            "kind": "cost",
            **(cost_json(team) or {}),
            "members": {m: cost_json(feed.member_cost(m)) for m in feed.members()},
        }
        if record != self._cost:
            self._cost, self._cost_saved = record, False
            _UNSAVED[id(self)] = self
        if not self._cost_saved and (force or time.time() - self._cost_at >= COST_EVERY):
            self.save_cost()

    def save_cost(self) -> None:
        if self._cost is not None and not self._cost_saved:
            self._put(self._cost)
            self._cost_saved, self._cost_at = True, time.time()
        _UNSAVED.pop(id(self), None)

    def _lead_ended(self) -> None:
        from teamtui.protocol.claude.leadproc import lead_state

        lead = self.store.lead_process
        if lead is not None and lead_state(lead) != "alive":
            self._put({"kind": "lead_ended", "pid": lead.pid})

    def assignments(self, assigned: dict[str, Any]) -> None:
        """The lead's assignments as they are now (TeamState._sync_assignments, on every change of
        them): what is new or changed, and what went. Nothing before the team's header."""
        if not self._header:
            return
        for t in assigned.values():
            self._task(t, kind="assigned", seen=self._assigned)
        for tid in [i for i in self._assigned if i not in assigned]:
            del self._assigned[tid]
            self._put({"kind": "assigned_removed", "id": tid})

    def _task(self, t: Any, kind: str = "task", seen: dict[str, tuple] | None = None) -> None:
        seen = self._tasks if seen is None else seen
        sig = (t.subject, t.status.value, t.owner, tuple(t.blocked_by))
        if seen.get(t.id) == sig:
            return
        seen[t.id] = sig
        self._put(
            {
                "kind": kind,
                "id": t.id,
                "subject": _cut(t.subject),
                "status": t.status.value,
                "owner": t.owner,
                "blocked_by": list(t.blocked_by),
                "description": _cut(t.description),
            }
        )


# ------------------------------------------------------------------ reading the journal back


def _lines(path: Path) -> Iterator[dict[str, Any]]:
    for p in (path.with_name(path.name + ".1"), path):
        try:
            fh = open(p, encoding="utf-8", errors="replace")
        except OSError:
            continue
        with fh:
            for line in fh:
                try:
                    rec = json.loads(line)
                except (ValueError, RecursionError):
                    # A line cut by a crash: the rest still reads, a line glued onto it too.
                    glued = split_glued(line.encode("utf-8", "surrogateescape"), ("kind",))
                    if glued is None:
                        continue
                    rec = json.loads(glued[1])
                if isinstance(rec, dict):
                    yield rec


def read_records(path: Path) -> list[dict[str, Any]]:
    return list(_lines(path))


def _where_and_session(raw: Any) -> tuple[str, str]:
    """Claude Code's config: the first member's cwd (the lead's) and leadSessionId ("" when not said)."""
    if not isinstance(raw, dict):
        return "", ""
    where = next(
        (m["cwd"] for m in raw.get("members") or [] if isinstance(m, dict) and isinstance(m.get("cwd"), str)), ""
    )
    session = raw.get("leadSessionId")
    return _cut(where), _cut(session) if isinstance(session, str) else ""


@dataclass
class JournalTeam:
    """One team as the journal knows it."""

    name: str
    path: Path
    layout: str = ""
    root: str = ""
    first_seen: float = 0.0
    last_seen: float = 0.0
    ended_at: float | None = None
    messages: int = 0
    cwd: str = ""  # where it worked, as its last team record said ("" in a journal from before it was kept)
    session: str = ""  # its lead's session id, likewise
    cost: dict[str, Any] | None = None  # the last cost record (protocol/cost.py read_cost reads it)

    @property
    def where(self) -> str:
        """What tells an ended team apart from another of its name: where it worked and its session,
        else the folder it lived under."""
        session = f"session {self.session[:8]}" if self.session else ""
        return " · ".join(p for p in (self.cwd, session) if p) or self.root


def journal_files(directory: Path | None = None) -> list[Path]:
    d = directory or journal_dir()
    try:
        return sorted(p for p in d.iterdir() if p.name.endswith(SUFFIX) and p.is_file())
    except OSError:
        return []


def summarize(path: Path) -> JournalTeam | None:
    team: JournalTeam | None = None
    for rec in _lines(path):
        raw_ts = rec.get("ts")
        ts: float = raw_ts if isinstance(raw_ts, (int, float)) else 0.0
        if rec.get("kind") == "team" and team is None:
            team = JournalTeam(
                str(rec.get("team", "")), path, str(rec.get("layout", "")), str(rec.get("root", "")), ts, ts
            )
        if team is None:
            continue
        team.last_seen = max(team.last_seen, ts)
        if rec.get("kind") == "message":
            team.messages += 1
        elif rec.get("kind") == "cost":
            team.cost = rec
        elif rec.get("kind") == "team_gone":
            team.ended_at = ts
        elif rec.get("kind") == "team":
            team.ended_at = None  # seen alive again after an end (a team of the same name came back)
        if rec.get("kind") == "team":
            team.cwd = str(rec.get("cwd") or "")
            team.session = str(rec.get("session") or "")
    return team


def list_teams(directory: Path | None = None) -> list[JournalTeam]:
    teams = [t for t in (summarize(p) for p in journal_files(directory)) if t is not None]
    return sorted(teams, key=lambda t: t.last_seen, reverse=True)


def find_journal(name: str, directory: Path | None = None) -> list[JournalTeam]:
    return [t for t in list_teams(directory) if t.name == name]
