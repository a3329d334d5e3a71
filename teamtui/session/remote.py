"""Teams on other machines, over the user's own ssh: no daemon, no port, no server of teamtui's.

One `RemoteHost` per machine runs `ssh -T <destination> teamtui stream` (cli/stream_cmd.py) as
an asyncio subprocess: the user's ssh, so their ~/.ssh/config, agent and ControlMaster apply;
`BatchMode=yes`, so a password prompt can never hang it; a new session, so ssh never writes to
the terminal. What comes back is protocol/stream.py's JSON lines, read as untrusted input: each
line size-capped, each value checked, each string capped and cleaned, unknown lines dropped.

Each remote team is a `RemoteSession` (a TeamSession) whose `RemoteState` (a TeamState) is
filled from the stream rather than from files, behind a `RemoteStore` (a TeamStore) whose
writes are requests over the connection: nothing on the remote is written from here, the remote
carries each request out under its own rules and answers with a result line. A connection with
no line for `STALL` seconds (not even a heartbeat) is dropped and said as "disconnected since
HH:MM"; it is tried again with a backoff (1, 2, 4 ... 30 s), and the new snapshot brings what
happened meanwhile. `HostsFleet` puts the hosts beside the local FleetSession, behind the one
interface the control room reads (sessions, rows, follow).
"""

from __future__ import annotations

import asyncio
import contextlib
import shlex
import time
from collections.abc import AsyncIterator, Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from teamtui.protocol import stream as wire
from teamtui.protocol.changes import Change, ChangeKind, MemberView
from teamtui.protocol.errors import ProtocolError, ReadError, UnsupportedError
from teamtui.protocol.fleet.discover import FleetTeam
from teamtui.protocol.fleet.overview import FleetRow, count_members, order_rows
from teamtui.protocol.health import is_disappeared
from teamtui.protocol.logbuffer import LogBuffer
from teamtui.protocol.models import Member, MemberStatus, Message, Task, TaskStatus, TeamConfig
from teamtui.protocol.settings import HostSettings
from teamtui.protocol.shutdown import Outcome, ShutdownRun
from teamtui.protocol.state import TeamState
from teamtui.protocol.store import FileRef, InboxRead, TeamStore
from teamtui.protocol.text import inert
from teamtui.session.fleet import FleetBatch, FleetSession
from teamtui.session.shutdown import Background, Report, SetTimer, ShutdownController, ShutdownNews
from teamtui.session.team import Batch, TeamSession

Key = tuple[str, str, str]
STALL = 10.0  # seconds without a line (the remote beats every HEARTBEAT) before the connection counts as dead
HEARTBEAT = 3.0
BACKOFF_FIRST, BACKOFF_MAX = 1.0, 30.0
TEAMS_CAP = 1000  # teams kept per host (a hostile stream cannot fill memory with teams)
INSTALL_HINT = "pipx install teamtui"


def host_key(host: str, root: str, name: str) -> Key:
    """A remote team's key in the control room: a row of the same overview as the local ones."""
    return (f"ssh:{host}", root, name)


def hhmm(at: float) -> str:
    return time.strftime("%H:%M", time.localtime(at))


# ------------------------------------------------------------------ a remote team's store


class RemoteStore(TeamStore):
    """A team on another machine: nothing here reads or writes a file. What the dashboard asks
    of a store (its config, who it may write as, who a broadcast reaches) comes from the stream;
    a write is a request over the connection (`send`, `broadcast`), answered by a result line."""

    layout = "remote"  # the remote's own layout name: set per class by `remote_store_class`
    files_here = False  # a write is a request: its outcome arrives later, as a result line

    def __init__(self, host: RemoteHost, remote_key: Key):
        super().__init__(Path(remote_key[1]), remote_key[2])
        self.host = host
        self.remote_key = remote_key
        self.sender = "teamtui"  # the remote's honest sender, as its header says
        self.said_lead_state: str | None = None
        self.config: TeamConfig | None = None  # as last streamed

    # paths: never opened (a remote path means nothing here)
    @property
    def team_dir(self) -> Path:
        return self.root / self.name

    @property
    def tasks_dir(self) -> Path:
        return self.team_dir / "tasks"

    def inbox_path(self, member: str) -> Path:
        return self.team_dir / "inboxes" / member

    def log_paths(self, member: str) -> list[Path]:
        return []

    def task_path(self, task_id: str) -> Path:
        return self.tasks_dir / task_id

    def watch_dirs(self) -> list[Path]:
        return []

    def file_dirs(self) -> list[Path]:
        return []

    def classify(self, path: Path) -> FileRef | None:
        return None

    # reading: the stream's
    def decode_config(self, data: Any, path: Path) -> TeamConfig:
        raise self._unsupported("reading a remote team's files")

    def load_config(self) -> TeamConfig | ReadError:
        return self.config if self.config is not None else ReadError(self.config_path, "not streamed yet")

    def task_paths(self) -> list[Path]:
        return []

    def read_task(self, path: Path) -> Task | ReadError:
        return ReadError(path, "a remote team's tasks arrive over its stream")

    def inbox_owners(self) -> list[str]:
        return []

    def peek(self, member: str) -> InboxRead:
        return InboxRead([], [])

    def check_recipient(self, to: str) -> None:
        """Refused here already when `to` is not in the streamed config (the remote checks again)."""
        if self.config is None:
            raise ProtocolError(f"team {self.name!r} on {self.host.name}: its config has not arrived; nothing was sent")
        super().check_recipient(to)

    def outgoing_sender(self, configured: str) -> str:
        return self.sender  # the remote decides who a message from this control room is from

    def lead_state(self) -> str | None:
        return self.said_lead_state

    # writing: a request to the remote
    def send(
        self, to: str, content: str, sender: str, *, type: str = "message", extra: dict[str, Any] | None = None
    ) -> Message:
        """Ask the remote to write `content` to `to`: a provisional Message (the real one arrives in the stream)."""
        self.check_recipient(to)
        self.host.request("send", self.remote_key, f"message to {to}", to=to, text=content)
        return Message(type="message", sender=self.sender, recipient=to, content=content, timestamp=time.time())

    def broadcast(self, content: str, sender: str) -> list[Message]:
        names = self.members_for_broadcast(self.sender)
        self.host.request("broadcast", self.remote_key, "broadcast", text=content)
        now = time.time()
        return [
            Message(type="broadcast", sender=self.sender, recipient=n, content=content, timestamp=now) for n in names
        ]

    def send_shutdown_request(self, to: str, sender: str, reason: str, deadline_seconds: float) -> str:
        raise UnsupportedError("a remote team's shutdown is asked of its machine (S or x on its dashboard)")

    def send_shutdown_response(
        self,
        sender: str,
        request_id: str,
        *,
        approve: bool,
        status: str = "clean",
        pending_work: list[str] | None = None,
        artifacts_committed: bool = False,
        reason: str = "",
    ) -> None:
        raise UnsupportedError("a remote teammate answers its own shutdown requests")


_STORE_CLASSES: dict[tuple[str, bool, bool], type[RemoteStore]] = {}


def remote_store_class(layout: str, appends_to_inboxes: bool, shutdown_via_lead: bool) -> type[RemoteStore]:
    """A RemoteStore whose flags are the remote store's (the panels and the shutdown flow ask them)."""
    key = (layout, appends_to_inboxes, shutdown_via_lead)
    cls = _STORE_CLASSES.get(key)
    if cls is None:
        cls = type(
            "RemoteStore",
            (RemoteStore,),
            {"layout": layout, "appends_to_inboxes": appends_to_inboxes, "shutdown_via_lead": shutdown_via_lead},
        )
        _STORE_CLASSES[key] = cls
    return cls


# ------------------------------------------------------------------ a remote team's state


class RemoteState(TeamState):
    """A TeamState filled from the stream (TeamState.restore, the log buffers) rather than from files:
    nothing here reads one. The members' unread counts and status (a transcript's, on the remote)
    come from the remote's member views; who disappeared is this side's health rule, on its clock."""

    def __init__(self, store: RemoteStore, *, log_limit: int, health_timeout: float):
        super().__init__(store, log_limit=log_limit, health_timeout=health_timeout)
        self.remote_views: dict[str, dict[str, Any]] = {}

    # nothing to read, nothing to watch: the stream is the feed
    def load_all(self) -> list[Change]:
        return []

    def stale_paths(self) -> list[Path]:
        return []

    def watch_dirs(self) -> list[Path]:
        return []

    def apply(self, path: Path) -> list[Change]:
        return []

    def apply_batch(self, paths: list[Path], *, rescan: bool = False) -> list[Change]:
        return []

    def sent(self, messages: list[Message]) -> list[Change]:
        return []  # asked of the remote: what it wrote arrives in the stream

    def ingest(self, recipient: str, messages: list[Message]) -> list[Change]:
        return []

    def inbox_messages(self, member: str) -> list[Message]:
        return [m for m in self.messages if m.recipient == member]

    def shutdown_replies(self) -> list[Message]:
        return []

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
        store = self.store
        assert isinstance(store, RemoteStore)
        config = wire.read_config(line.get("config"))
        departed_list = _list(line, "departed")
        departed = {m.name: m for x in departed_list[: wire.MEMBERS_CAP] if (m := wire.read_member(x)) is not None}
        changes: list[Change] = []
        full = line.get("full") is True
        before = {m.name: m.status for m in self.config.members} if self.config is not None else {}
        if config is not None:
            store.config = config
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
            store.sender = sender
        lead = line.get("lead_state")
        store.said_lead_state = lead if lead in ("alive", "ended", "unknown") else None
        return changes + self.take_views(line.get("views"))

    def take_views(self, views: Any) -> list[Change]:
        changes = []
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
                if self._board is not None:
                    self._board.remove(tid)
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
        from teamtui.session.remote_transcripts import StreamedTranscripts

        feed = self.transcripts
        if not isinstance(feed, StreamedTranscripts):
            feed = self.transcripts = StreamedTranscripts()
        moved = feed.take_insight(wire.read_insight(line))
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


def _dict(d: dict[str, Any], key: str) -> dict[Any, Any]:
    v = d.get(key)
    return v if isinstance(v, dict) else {}


def _message_id(m: Message) -> tuple[str, str, float, str, str]:
    return (m.sender, m.recipient, m.timestamp, m.type, m.content[:256])


# ------------------------------------------------------------------ a remote team's session


class RemoteSession(TeamSession):
    """A TeamSession whose team is on another machine: its state arrives over the host's stream,
    its actions are requests over it. Panes are the remote's: none here."""

    def __init__(self, state: RemoteState, host: RemoteHost):
        super().__init__(state, clock=host.clock)
        self.host = host
        self.remote_read_only = ""  # the remote's own reason (an ended team)

    @property
    def remote_store(self) -> RemoteStore:
        store = self.store
        assert isinstance(store, RemoteStore)
        return store

    def load(self) -> list[Change]:
        return []

    async def follow(self, stop: asyncio.Event) -> AsyncIterator[Batch]:
        """Nothing of its own to follow: its host's feed keeps it current."""
        await stop.wait()
        return
        yield  # an async generator

    def note_changes(self, changes: list[Change]) -> bool:
        return False  # the remote says when a team ended (its header)

    def count_heads(self) -> dict:
        return {}

    def take_heads(self, heads: dict) -> bool:
        return False

    def shutdown(
        self, only: str | None, report: Report, set_timer: SetTimer, background: Background
    ) -> ShutdownController:
        """Asked of the remote, which carries it out by its own rules (a Claude Code team's through its lead)."""
        return RemoteShutdown(report, self, only)

    @property
    def panes_on(self) -> str:
        return self.host.name

    def pane_of(self, name: str, lead: bool = True) -> str | None:
        return None

    def select_pane(self, name: str) -> str | None:
        return None

    def orphan_panes(self, names: list[str]) -> dict[str, str] | None:
        return None

    def close_orphan_panes(self, panes: dict[str, str]) -> tuple[list[str], list[str]]:
        return [], [f"the panes are on {self.host.name}: close them there"]

    def set_connected(self, connected: bool, why: str) -> None:
        """While its host is disconnected nothing may be asked of it (the dashboard says why)."""
        self.read_only = self.remote_read_only if connected else why


class RemoteShutdown(ShutdownController):
    """`S` / `x` on a remote team: one request; the remote's progress lines mirrored into a
    ShutdownRun here, reported as a local run's are."""

    watches: frozenset[ChangeKind] = frozenset()

    def __init__(self, report: Report, session: RemoteSession, only: str | None):
        super().__init__(report)
        self.session, self.only = session, only
        self.rid: str | None = None

    def start(self, targets: list[str], reason: str, deadline: float) -> None:
        session = self.session
        store = session.remote_store
        self.run = ShutdownRun(
            store, targets, sender=store.sender, reason=reason, deadline_seconds=deadline, clock=session.clock
        )
        self.run.started_at = session.clock()
        self.rid = session.host.request(
            "shutdown",
            store.remote_key,
            f"shutdown of {self.only or 'the team'}",
            on_result=self._result,
            on_progress=self._progress,
            only=self.only,
            reason=reason,
            deadline=deadline,
        )

    def _result(self, ok: bool, error: str, detail: str) -> None:
        if not ok:
            self.report(ShutdownNews(None, asked=f"Shutdown not started on {self.session.host.name}: {error}"))

    def _progress(self, line: dict[str, Any]) -> None:
        run = self.run
        if run is None:
            return
        said = line.get("run")
        changed = (
            [n for x in (line.get("changed") or [])[:200] if (n := wire.name(x)) and n in run.teammates]
            if isinstance(line.get("changed"), list)
            else []
        )
        if isinstance(said, dict):
            run.note = wire.text(said.get("note"), 2000) or ""
            run.started_at = wire.number(said.get("started_at")) or run.started_at
            run.finished_at = wire.number(said.get("finished_at"))
            for t in (said.get("teammates") or [])[:1000] if isinstance(said.get("teammates"), list) else []:
                if not isinstance(t, dict) or wire.name(t.get("teammate")) not in run.teammates:
                    continue
                mine = run.teammates[str(t["teammate"])]
                try:
                    mine.outcome = Outcome(t.get("outcome"))
                except ValueError:
                    continue
                mine.detail = wire.text(t.get("detail"), 2000) or ""
                mine.request_id = wire.name(t.get("request_id")) or ""
                mine.answered_at = wire.number(t.get("answered_at"))
                mine.pending_work = (
                    [p for x in (t.get("pending_work") or [])[:100] if (p := wire.text(x, 2000))]
                    if isinstance(t.get("pending_work"), list)
                    else []
                )
        offer = _dict(line, "offer_panes")
        panes = {n: p for k, v in list(offer.items())[:100] if (n := wire.name(k)) and (p := wire.name(v, 64))}
        self.report(
            ShutdownNews(
                run,
                changed,
                error=wire.text(line.get("error"), 2000) or "",
                offer_panes=panes,
                offer_title=wire.name(line.get("offer_title")) or "",
                offer_why=wire.text(line.get("offer_why"), 2000) or "",
                asked=wire.text(line.get("asked"), 2000) or "",
            )
        )

    def close_panes(self, names: list[str]) -> None:
        store = self.session.remote_store
        self.session.host.request(
            "close_panes", store.remote_key, f"closing the panes of {', '.join(names)}", names=list(names)
        )

    def stop(self) -> None:
        if self.rid is not None:
            self.session.host.forget(self.rid)


# ------------------------------------------------------------------ one host


@dataclass(frozen=True, slots=True)
class RemoteTeam(FleetTeam):
    """A team of the fleet found on another machine: its key is the control room's (host, root, name)."""

    host: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", host_key(self.host, str(self.root), self.name))


@dataclass
class HostBatch(FleetBatch):
    """A host's batch: the teams it changed, and what to tell the person (a request's result, the
    connection lost or back) as (text, severity)."""

    host: str = ""
    notices: list[tuple[str, str]] = field(default_factory=list)


class RemoteHost:
    """One machine's teams over one ssh connection, kept current; reconnects on its own."""

    def __init__(
        self,
        spec: HostSettings,
        *,
        log_limit: int = 1000,
        health_timeout: float = 60.0,
        clock: Callable[[], float] = time.time,
        stall: float = STALL,
        heartbeat: float = HEARTBEAT,
        backoff_first: float = BACKOFF_FIRST,
        backoff_max: float = BACKOFF_MAX,
        ssh: str = "ssh",
    ):
        self.spec = spec
        self.name = spec.name
        self.log_limit, self.health_timeout, self.clock = log_limit, health_timeout, clock
        self.stall, self.heartbeat, self.ssh = stall, heartbeat, ssh
        self.backoff_first, self.backoff_max = backoff_first, backoff_max
        self.sessions: dict[Key, RemoteSession] = {}
        self.rows_said: dict[Key, dict[str, Any]] = {}  # the remote's row of each team (read_row's)
        self.connected = False
        self.ever_connected = False
        self.down_since: float | None = None  # when the connection was lost (None: up, or never up)
        self.reason = ""  # why it is not connected: one line, with the fix
        self.remote_problems: list[str] = []
        self.remote_version = ""
        self.remote_host = ""
        self.proc: asyncio.subprocess.Process | None = None
        self.lines = 0  # lines taken, for the tests and benchmarks
        self.dropped = 0  # lines dropped (too long, not JSON, unknown)
        self.attempts = 0
        self._next_id = 0
        self._waiting: dict[str, tuple[str, Callable[[bool, str, str], None] | None]] = {}
        self._progress: dict[str, Callable[[dict[str, Any]], None]] = {}
        self._seen: set[Key] = set()  # teams of the snapshot under way
        self._ready = False

    # ------------------------------------------------------------------ what it says
    def command(self) -> list[str]:
        """ssh's argv. BatchMode first (ssh keeps the first value of an option: the user's cannot
        turn it off); the keepalive and timeout after the user's options (theirs win)."""
        remote = [
            self.spec.teamtui,
            "stream",
            "--heartbeat",
            f"{self.heartbeat:g}",
            "--",
            *(shlex.quote(r) for r in self.spec.roots),
        ]
        alive = max(1, int(self.stall // 3))
        return [
            self.ssh,
            "-T",
            "-o",
            "BatchMode=yes",
            *self.spec.ssh_options,
            "-o",
            f"ServerAliveInterval={alive}",
            "-o",
            "ServerAliveCountMax=3",
            "-o",
            "ConnectTimeout=10",
            "--",
            self.spec.ssh,
            " ".join(remote),
        ]

    @property
    def status(self) -> str:
        """What its rows say about the connection: "" when connected."""
        if self.connected:
            return ""
        if self.down_since is not None:
            return f"disconnected since {hhmm(self.down_since)}" + (f": {self.reason}" if self.reason else "")
        return self.reason or "connecting…"

    @property
    def problems(self) -> list[str]:
        out = [f"{self.name}: {p}" for p in self.remote_problems]
        if not self.connected and self.reason:
            out.insert(0, f"{self.name}: {self.status}")
        return out

    def rows(self, now: float) -> list[FleetRow]:
        out = []
        for key, said in self.rows_said.items():
            out.append(self._row(key, said, now))
        if not out and not self.connected:  # a host with nothing to show still has a row: why
            team = RemoteTeam(Path(""), "", "ssh", "ssh", problem=self.status, host=self.name)
            out.append(FleetRow(team, self.name, "host", cwd=self.name, problem=self.status))
        return out

    def _row(self, key: Key, said: dict[str, Any], now: float) -> FleetRow:
        session = self.sessions.get(key)
        ended = bool(said.get("ended")) or (session is not None and not session.live)
        team = RemoteTeam(
            Path(key[1]),
            key[2],
            said.get("layout") or "remote",
            said.get("source") or "remote",
            ended=ended,
            ended_at=said.get("ended_at"),
            host=self.name,
        )
        problem = said.get("problem")
        if not self.connected:
            problem = self.status if not problem else f"{self.status} · {problem}"
        row = FleetRow(
            team,
            said.get("team") or key[2],
            said.get("label") or "",
            lead=said.get("lead") or "unknown",
            needs_you=said.get("needs_you") or 0,
            tokens=said.get("tokens"),
            cost=said.get("cost"),  # priced over there (protocol/stream.py read_row checked it)
            last_activity=said.get("last_activity"),
            cwd=f"{self.name}:{said.get('cwd') or key[1]}",
            errors=said.get("errors") or 0,
            problem=problem,
        )
        row.working, row.idle, row.gone, row.unknown = (
            said.get(f"members_{k}", 0) for k in ("working", "idle", "gone", "unknown")
        )
        row.tasks_done, row.tasks_total = said.get("tasks_done", 0), said.get("tasks_total", 0)
        row.run_status = said.get("run_status")  # a workflow run's, as the other machine says
        if session is not None and session.state.config is not None:  # counted here, on this clock (the health rule)
            row.working = row.idle = row.gone = row.unknown = 0
            count_members(row, session.state, now)
            row.tasks_done, row.tasks_total = session.state.board.progress()
        return row

    # ------------------------------------------------------------------ requests
    def request(
        self,
        op: str,
        remote_key: Key | None,
        what: str,
        *,
        on_result: Callable[[bool, str, str], None] | None = None,
        on_progress: Callable[[dict[str, Any]], None] | None = None,
        **fields: Any,
    ) -> str:
        """Send one request line; its result arrives as a notice (and to `on_result`). Raises when not connected."""
        proc = self.proc
        if not self.connected or proc is None or proc.stdin is None or proc.stdin.is_closing():
            raise ProtocolError(f"{self.name} is {self.status or 'not connected'}: nothing was sent")
        self._next_id += 1
        rid = f"r{self._next_id}"
        line = {"id": rid, "op": op, **({"team": list(remote_key)} if remote_key is not None else {}), **fields}
        data = wire.dumps(line)
        if len(data) > wire.MAX_REQUEST:
            raise ProtocolError(f"too long to send ({len(data)} bytes; at most {wire.MAX_REQUEST})")
        proc.stdin.write(data)
        self._waiting[rid] = (what, on_result)
        if on_progress is not None:
            self._progress[rid] = on_progress
        return rid

    def forget(self, rid: str) -> None:
        self._progress.pop(rid, None)

    # ------------------------------------------------------------------ the feed
    async def follow(self, stop: asyncio.Event) -> AsyncIterator[HostBatch]:
        """The host's batches until `stop`: connects, reads, and after a loss says so and tries again."""
        delay = self.backoff_first
        while not stop.is_set():
            self.attempts += 1
            was_ready = False
            try:
                async for batch in self._connection(stop):
                    was_ready = was_ready or self._ready
                    yield batch
            except Exception as exc:  # noqa: BLE001 - one host's failure never stops the others
                self.reason = self._one_line(f"{type(exc).__name__}: {exc}")
            if stop.is_set():
                return
            if was_ready:
                delay = self.backoff_first  # it worked: the first retry comes soon
            yield self._lost()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), delay)
            delay = min(delay * 2, self.backoff_max)

    def _lost(self) -> HostBatch:
        batch = HostBatch(host=self.name)
        was = self.connected
        self.connected = False
        self._ready = False
        if was:
            self.down_since = self.clock()
        why = (
            f"{self.name} is disconnected since {hhmm(self.down_since)}"
            if self.down_since is not None
            else f"{self.name} is not connected"
        )
        for key, session in self.sessions.items():
            session.set_connected(False, f"{why}: nothing can be sent")
            batch.changes[key] = Batch([])
        for what, on_result in list(self._waiting.values()):
            batch.notices.append(
                (
                    f"{self.name}: {what}: not confirmed (the connection was lost); it may or may not "
                    "have been carried out",
                    "warning",
                )
            )
            if on_result is not None:
                on_result(False, "the connection was lost", "")
        self._waiting.clear()
        self._progress.clear()
        if was or self.attempts == 1:
            batch.notices.append((f"{self.name}: {self.status}", "warning"))
        return batch

    async def _connection(self, stop: asyncio.Event) -> AsyncIterator[HostBatch]:
        import subprocess

        self._seen = set()
        self._ready = False
        got_hello = False
        proc = await asyncio.create_subprocess_exec(
            *self.command(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # no controlling terminal: ssh can never prompt on, or paint, the user's
        )
        self.proc = proc
        assert proc.stdout is not None and proc.stderr is not None
        errors = _Tail()
        err_task = asyncio.ensure_future(errors.read(proc.stderr))
        stop_task = asyncio.ensure_future(stop.wait())
        splitter = wire.LineSplitter(wire.MAX_LINE)
        pending = HostBatch(host=self.name)
        stalled = ended = False
        said = ""
        try:
            while True:
                read = asyncio.ensure_future(proc.stdout.read(1 << 16))
                done, _ = await asyncio.wait({read, stop_task}, timeout=self.stall, return_when=asyncio.FIRST_COMPLETED)
                if read not in done:
                    read.cancel()
                    stalled = stop_task not in done
                    break
                data = read.result()
                if not data:
                    ended = True
                    break
                for raw in splitter.feed(data):
                    obj = wire.parse(raw)
                    if obj is None:
                        self.dropped += 1
                        if not got_hello and not said:  # a login banner, a shell's echo: kept to say what came instead
                            said = self._one_line(raw[:200].decode("utf-8", errors="replace"))
                        continue
                    self.lines += 1
                    if not got_hello:
                        problem = self._hello(obj)
                        if problem:
                            self.reason = problem
                            return
                        got_hello = True
                        continue
                    self._take(obj, pending)
                self.dropped += splitter.dropped
                splitter.dropped = 0
                if self._ready and (pending.changes or pending.appeared or pending.gone or pending.notices):
                    yield pending
                    pending = HostBatch(host=self.name)
        finally:
            stop_task.cancel()
            code = await self._end(proc, ended)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(err_task, 1)  # ssh's last words: why it ended
            err_task.cancel()
            self.proc = None
        if stop.is_set():
            return
        if not got_hello and said:
            self.reason = (
                f"`{self._one_line(self.spec.teamtui)} stream` did not start with a hello line (it said "
                f"{said!r}): is it teamtui, and does the shell there print nothing on stdout?"
            )
        elif stalled:
            self.reason = f"no line for {self.stall:g} s (not even a heartbeat): the connection stalled"
        elif not got_hello:
            self.reason = self._why_failed(code, errors.text())
        else:
            self.reason = f"the connection closed (exit {code})" + (
                f": {self._last(errors.text())}" if errors.text() else ""
            )

    async def _end(self, proc: asyncio.subprocess.Process, ended: bool) -> int | None:
        """The ssh process ended (stdin closed first: the remote ends with it), reaped. One whose
        output `ended` is given a moment to exit by itself: its exit code says why."""
        if proc.stdin is not None:
            with contextlib.suppress(Exception):
                proc.stdin.close()
        if ended:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(proc.wait(), 3)
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(proc.wait(), 5)
        return proc.returncode

    def _hello(self, obj: dict[str, Any]) -> str:
        """The first line: "" when this side can read what follows, else why not (with the fix)."""
        if obj.get("type") != "hello":
            return f"{self.name}: `{self.spec.teamtui} stream` did not start with a hello line: is it teamtui?"
        version = wire.name(obj.get("teamtui"), 64) or "?"
        protocol = wire.whole(obj.get("protocol"))
        if protocol != wire.PROTOCOL:
            from teamtui import __version__

            return (
                f"teamtui {version} there speaks stream protocol {protocol}, teamtui {__version__} here speaks "
                f"{wire.PROTOCOL}: install the same teamtui on both (pipx upgrade teamtui)"
            )
        self.remote_version = version
        self.remote_host = wire.name(obj.get("host"), 255) or ""
        self.remote_problems = []
        return ""

    def _why_failed(self, code: int | None, err: str) -> str:
        last = self._last(err)
        dest = self.spec.ssh
        if code == 127 or "command not found" in err or "No such file or directory" in last:
            return (
                f"no teamtui there ({last or f'exit {code}'}): install it there: {INSTALL_HINT} "
                f'(or set teamtui = "/path/to/teamtui" in its [[hosts]])'
            )
        if "invalid choice: 'stream'" in err:
            return "the teamtui there has no `stream` command (too old): upgrade it there: pipx upgrade teamtui"
        if code == 255:
            if "Permission denied" in err or "Too many authentication failures" in err:
                return (
                    f"ssh refused the key ({last}): add yours there (ssh-copy-id {dest}) or name one with "
                    'ssh_options = ["-i", "~/.ssh/KEY"]'
                )
            if "Host key verification failed" in err or "REMOTE HOST IDENTIFICATION HAS CHANGED" in err:
                return f"ssh does not know its host key ({last}): run `ssh {dest}` once to check and accept it"
            return f"cannot reach it ({last or 'ssh failed'}): is it up, and are its host and port right?"
        return f"`teamtui stream` there ended (exit {code})" + (f": {last}" if last else "")

    @staticmethod
    def _last(err: str) -> str:
        lines = [
            ln.strip() for ln in err.splitlines() if ln.strip() and not ln.startswith("Warning: Permanently added")
        ]
        return RemoteHost._one_line(lines[-1]) if lines else ""

    @staticmethod
    def _one_line(text: str) -> str:
        return inert(" ".join(text.split()))[:300]

    # ------------------------------------------------------------------ one line
    def _take(self, obj: dict[str, Any], batch: HostBatch) -> None:
        kind = obj["type"]
        if kind == "heartbeat":
            return
        if kind == "ready":
            self._snapshot_done(batch)
            return
        if kind == "result":
            self._result(obj, batch)
            return
        if kind == "problem":
            text = wire.name(obj.get("text"), 500)
            if text and len(self.remote_problems) < 20:
                self.remote_problems.append(text)
            return
        rkey = wire.team_key(obj.get("team"))
        if rkey is None:
            self.dropped += 1
            return
        key = host_key(self.name, rkey[1], rkey[2])
        if kind == "progress":
            rid = obj.get("id")
            callback = self._progress.get(rid) if isinstance(rid, str) else None
            if callback is not None:
                callback(obj)
            return
        if kind == "gone":
            if key in self.rows_said or key in self.sessions:
                self.rows_said.pop(key, None)
                self.sessions.pop(key, None)
                batch.gone.append(key)
            return
        if kind == "team":
            self._team(key, rkey, obj, batch)
            return
        session = self.sessions.get(key)
        if session is None:
            self.dropped += 1
            return
        state = session.state
        assert isinstance(state, RemoteState)
        if kind == "tasks":
            changes = state.take_tasks(obj)
        elif kind == "messages":
            changes = state.take_messages(obj)
        elif kind == "logs":
            changes = state.take_logs(obj)
        elif kind == "insight":
            changes = state.take_insight(obj)
        elif kind == "views":
            changes = state.take_views(obj.get("views"))
            row = wire.read_row(obj.get("row"))
            if row is not None:
                self.rows_said[key] = row
        else:
            return
        self._changed(batch, key, changes)

    @staticmethod
    def _changed(batch: HostBatch, key: Key, changes: list[Change], full: bool = False) -> None:
        team = batch.changes.get(key)
        if team is None:
            batch.changes[key] = Batch(list(changes), full=full)
        else:
            team.changes.extend(changes)
            team.full = team.full or full

    def _team(self, key: Key, rkey: Key, obj: dict[str, Any], batch: HostBatch) -> None:
        row = wire.read_row(obj.get("row"))
        if row is None:
            self.dropped += 1
            return
        if key not in self.rows_said and len(self.rows_said) >= TEAMS_CAP:
            return
        self._seen.add(key)
        appeared = key not in self.rows_said
        self.rows_said[key] = row
        if "live" not in obj:
            # A team the remote cannot read: its row says why; nothing to open.
            if self.sessions.pop(key, None) is not None:
                batch.gone.append(key)
            if appeared:
                batch.appeared.append(key)
            return
        session = self.sessions.get(key)
        if session is None:
            cls = remote_store_class(
                wire.name(obj.get("layout"), 32) or "remote",
                obj.get("appends_to_inboxes") is True,
                obj.get("shutdown_via_lead") is True,
            )
            store = cls(self, rkey)
            session = RemoteSession(
                RemoteState(store, log_limit=self.log_limit, health_timeout=self.health_timeout), self
            )
            self.sessions[key] = session
            appeared = True
        state = session.state
        assert isinstance(state, RemoteState)
        full = obj.get("full") is True
        changes = state.take_header(obj)
        session.remote_read_only = wire.text(obj.get("read_only"), 500) or ""
        if obj.get("live") is False:
            session.ended_at = wire.number(obj.get("ended_at")) or session.ended_at or self.clock()
            session.remote_read_only = session.remote_read_only or "the team has ended: it is shown as it was"
        if self.connected:
            session.set_connected(True, "")
        if appeared:
            batch.appeared.append(key)
        self._changed(batch, key, changes, full=full)

    def _snapshot_done(self, batch: HostBatch) -> None:
        """The snapshot is complete: what it did not list is gone; the connection counts as up."""
        for key in [k for k in self.rows_said if k not in self._seen]:
            self.rows_said.pop(key, None)
            self.sessions.pop(key, None)
            batch.gone.append(key)
        back = self.down_since is not None or not self.ever_connected
        self._ready = self.connected = self.ever_connected = True
        if self.down_since is not None:
            batch.notices.append((f"{self.name}: connected again (down since {hhmm(self.down_since)})", "information"))
        self.down_since = None
        self.reason = ""
        for key, session in self.sessions.items():
            session.set_connected(True, "")
            if back and key not in batch.changes:
                batch.changes[key] = Batch([])

    def _result(self, obj: dict[str, Any], batch: HostBatch) -> None:
        rid = obj.get("id")
        found = self._waiting.pop(rid, None) if isinstance(rid, str) else None
        if found is None:
            return
        what, on_result = found
        ok = obj.get("ok") is True
        error = wire.name(obj.get("error"), 1000) or ("refused" if not ok else "")
        detail = wire.name(obj.get("detail"), 1000) or ""
        if ok:
            batch.notices.append((f"{self.name}: {what}: {detail or 'done'}", "information"))
        else:
            batch.notices.append((f"{self.name}: {what} not carried out: {error}", "error"))
            self._progress.pop(rid, None)  # type: ignore[arg-type]
        if on_result is not None:
            on_result(ok, error, detail)


class _Tail:
    """The last few KiB of ssh's stderr: why a connection failed."""

    def __init__(self, cap: int = 8192):
        self.cap = cap
        self.data = bytearray()

    async def read(self, stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(4096):
            self.data += chunk
            del self.data[: max(0, len(self.data) - self.cap)]

    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


# ------------------------------------------------------------------ the fleet with its hosts


class HostsFleet:
    """This machine's FleetSession and each host's RemoteHost, behind the interface the control
    room reads of a fleet: `sessions`, `rows`, `problems`, `clock`, `prune`, `follow`."""

    def __init__(self, local: FleetSession, hosts: Sequence[RemoteHost]):
        self.local = local
        self.hosts = list(hosts)
        self.clock = local.clock

    @property
    def sessions(self) -> dict[Key, TeamSession]:
        merged: dict[Key, TeamSession] = dict(self.local.sessions)
        for host in self.hosts:
            merged.update(host.sessions)
        return merged

    @property
    def problems(self) -> list[str]:
        return [*self.local.problems, *(p for h in self.hosts for p in h.problems)]

    def rows(self, now: float | None = None, changed: Collection[Key] | None = None) -> list[FleetRow]:
        now = self.clock() if now is None else now  # a host's rows are as streamed: cheap to build each time
        return order_rows([*self.local.rows(now, changed), *(r for h in self.hosts for r in h.rows(now))])

    def discover(self) -> tuple[list[Key], list[Key]]:
        return self.local.discover()

    def prune(self) -> list[Key]:
        return self.local.prune()  # a host's ended teams age out there, and leave with a `gone` line

    async def follow(self, stop: asyncio.Event) -> AsyncIterator[FleetBatch]:
        """The local fleet's batches and every host's, as they come; one source failing stops none of the others."""
        queue: asyncio.Queue[FleetBatch | BaseException] = asyncio.Queue()

        async def pump(source: AsyncIterator[Any]) -> None:
            try:
                async for batch in source:
                    await queue.put(batch)
            except asyncio.CancelledError:
                raise
            except BaseException as exc:  # noqa: BLE001 - handed to the reader, which raises it
                await queue.put(exc)

        sources: list[AsyncIterator[Any]] = [self.local.follow(stop), *(h.follow(stop) for h in self.hosts)]
        pumps = [asyncio.ensure_future(pump(s)) for s in sources]
        stopping = asyncio.ensure_future(stop.wait())
        try:
            while not stop.is_set():
                getting = asyncio.ensure_future(queue.get())
                done, _ = await asyncio.wait({getting, stopping}, return_when=asyncio.FIRST_COMPLETED)
                if getting not in done:
                    getting.cancel()
                    break
                item = getting.result()
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            stopping.cancel()
            for p in pumps:
                p.cancel()
            await asyncio.gather(*pumps, return_exceptions=True)


# ------------------------------------------------------------------ hosts from the command line


def parse_ssh_url(url: str) -> HostSettings:
    """`ssh://[user@]host[:port]/ROOT` as a host: its name is the host, its root the path (`/~/x`: `~/x`).
    Raises ValueError with what is wrong."""
    from urllib.parse import unquote, urlsplit

    parts = urlsplit(url)
    if parts.scheme != "ssh" or not parts.hostname:
        raise ValueError(f"{url!r} is not ssh://[user@]host[:port]/ROOT")
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"{url!r}: the port must be a number from 1 to 65535") from None
    host = parts.hostname
    if host.startswith("-") or any(c.isspace() for c in host):
        raise ValueError(f"{url!r}: {host!r} is not a host name")
    user = unquote(parts.username) if parts.username else ""
    if user.startswith("-") or any(c.isspace() or c == "@" for c in user):
        raise ValueError(f"{url!r}: {user!r} is not a user name")
    path = unquote(parts.path)
    root = path[1:] if path.startswith("/~") else path
    name = "".join(c if c.isalnum() or c in "._-" else "-" for c in host)[:64] or "host"
    return HostSettings(
        name=name,
        ssh=f"{user}@{host}" if user else host,
        ssh_options=["-p", str(port)] if port else [],
        roots=[root] if root not in ("", "/") else [],
    )


def hosts_for(settings_hosts: Iterable[HostSettings], urls: Iterable[str]) -> list[HostSettings]:
    """config.toml's hosts, and those named on the command line (a URL naming a configured host
    adds its root to that host's connection: one connection per host)."""
    out: dict[str, HostSettings] = {}
    for h in settings_hosts:
        out[h.name] = HostSettings(h.name, h.ssh, list(h.ssh_options), list(h.roots), h.teamtui)
    for url in urls:
        h = parse_ssh_url(url)
        same = out.get(h.name) or next(
            (o for o in out.values() if o.ssh == h.ssh and o.ssh_options == h.ssh_options), None
        )
        if same is not None:
            same.roots += [r for r in h.roots if r not in same.roots]
        else:
            out[h.name] = h
    return list(out.values())


__all__ = [
    "HostBatch",
    "HostsFleet",
    "RemoteHost",
    "RemoteSession",
    "RemoteShutdown",
    "RemoteState",
    "RemoteStore",
    "RemoteTeam",
    "host_key",
    "hosts_for",
    "parse_ssh_url",
    "remote_store_class",
]
