"""Teams on other machines, over the user's own ssh: no daemon, no port, no server of teamtui's.

One `RemoteHost` per machine runs `ssh -T <destination> teamtui stream` (cli/stream_cmd.py) as
an asyncio subprocess: the user's ssh, so their ~/.ssh/config, agent and ControlMaster apply;
`BatchMode=yes`, so a password prompt can never hang it; a new session, so ssh never writes to
the terminal. What comes back is protocol/stream.py's JSON lines, read as untrusted input: each
line size-capped, each value checked, each string capped and cleaned, unknown lines dropped.

Each remote team is a TeamSession whose model (session/remote_team.py StreamedTeam) is filled
from the stream, and whose capabilities are requests over the connection: nothing on the remote
is written from here, the remote carries each request out under its own rules and answers with a
result line. A connection with
no line for `STALL` seconds (not even a heartbeat) is dropped and said as "disconnected since
HH:MM"; it is tried again with a backoff (1, 2, 4 ... 30 s), and the new snapshot brings what
happened meanwhile. A `RemoteHost` is a source of teams (session/source.py) beside this
machine's, in the one fleet the control room reads (session/fleet.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import shlex
import time
from collections.abc import AsyncIterator, Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from teamtui.protocol import stream as wire
from teamtui.protocol.changes import Change
from teamtui.protocol.errors import ProtocolError
from teamtui.protocol.fleet.discover import FleetTeam
from teamtui.protocol.fleet.overview import FleetRow, count_members
from teamtui.protocol.settings import HostSettings
from teamtui.protocol.text import inert
from teamtui.protocol.traits import TeamTraits
from teamtui.session.items import Item
from teamtui.session.remote_answers import RemoteAnswers, hook_items
from teamtui.session.remote_team import Asks, StreamedTeam, remote_session
from teamtui.session.source import FleetBatch, SourceBase
from teamtui.session.team import Batch, TeamSession

Key = tuple[str, str, str]
STALL = 10.0  # seconds without a line (the remote beats every HEARTBEAT) before the connection counts as dead
HEARTBEAT = 3.0
BACKOFF_FIRST, BACKOFF_MAX = 1.0, 30.0
TEAMS_CAP = 1000  # teams kept per host (a hostile stream cannot fill memory with teams)


def install_hint(force: bool = False) -> str:
    """How to put this teamtui on another machine (it is not on PyPI): the README's Install."""
    from teamtui import __version__

    wheel = f"teamtui-{__version__}-py3-none-any.whl"
    again = " --force" if force else ""
    return f"`make wheel` here, copy dist/{wheel} there, then `pipx install{again} ./{wheel}` (README: Install)"


def host_key(host: str, root: str, name: str) -> Key:
    """A remote team's key in the control room: a row of the same overview as the local ones."""
    return (f"ssh:{host}", root, name)


def hhmm(at: float) -> str:
    return time.strftime("%H:%M", time.localtime(at))


# ------------------------------------------------------------------ one host


@dataclass(frozen=True, slots=True)
class RemoteTeam(FleetTeam):
    """A team of the fleet found on another machine: its key is the control room's (host, root, name)."""

    host: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", host_key(self.host, str(self.root), self.name))


class RemoteHost(SourceBase):
    """One machine's teams over one ssh connection, kept current; reconnects on its own. A source
    of teams (session/source.py): its name is the host's."""

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
        self.sessions: dict[Key, TeamSession] = {}
        self.teams: dict[Key, StreamedTeam] = {}  # each session's model, as its lines fill it
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
        # What its hooks say waits for the person there, by the remote's key of its team (None: no team).
        self._hook_items: dict[Key | None, list[Item]] = {}
        self._remote_keys: dict[Key, Key] = {}  # each team's key here -> the remote's own key of it
        self.answers = RemoteAnswers(Asks(self, None))  # its requests of no team it lists

    # ------------------------------------------------------------------ what it says

    def loose_answers(self) -> RemoteAnswers:
        """Its answers for the requests of no team it lists (Fleet.loose gives every source's)."""
        return self.answers

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

    def rows(self, now: float, changed: Collection[Key] | None = None) -> list[FleetRow]:
        """Its teams' rows as streamed (cheap: built each time), or one saying why there are none."""
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

    def prune(self) -> list[Key]:
        return []  # a host's ended teams age out there, and leave with a `gone` line

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

    def hook_items(self, remote_key: Key | None) -> list[Item]:
        """What the `hooks` line listed for the remote's team `remote_key` (None: of no team listed)."""
        return list(self._hook_items.get(remote_key, ()))

    # ------------------------------------------------------------------ the feed
    async def follow(self, stop: asyncio.Event) -> AsyncIterator[FleetBatch]:
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

    def _lost(self) -> FleetBatch:
        batch = FleetBatch(source=self.name)
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
        for key in self.sessions:
            self._connected(key, False, f"{why}: nothing can be sent")
            batch.changes[key] = Batch([])
        if self._hook_items:  # nothing there can be answered from here until it is back
            self._hook_items = {}
            batch.hooks = True
        lost = "not confirmed (the connection was lost); it may or may not have been carried out"
        for what, on_result in list(self._waiting.values()):
            if what:  # a request without one says its outcome itself (on_result)
                batch.notices.append((f"{self.name}: {what}: {lost}", "warning"))
            if on_result is not None:
                on_result(False, "the connection was lost", "")
        self._waiting.clear()
        self._progress.clear()
        if was or self.attempts == 1:
            batch.notices.append((f"{self.name}: {self.status}", "warning"))
        return batch

    async def _connection(self, stop: asyncio.Event) -> AsyncIterator[FleetBatch]:
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
        pending = FleetBatch(source=self.name)
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
                if self._ready and (
                    pending.changes or pending.appeared or pending.gone or pending.notices or pending.hooks
                ):
                    yield pending
                    pending = FleetBatch(source=self.name)
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
                f"{wire.PROTOCOL}: install the same teamtui on both: {install_hint(force=True)}"
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
                f"no teamtui there ({last or f'exit {code}'}): install it there: {install_hint()} "
                f'(or set teamtui = "/path/to/teamtui" in its [[hosts]])'
            )
        if "invalid choice: 'stream'" in err:
            return f"the teamtui there has no `stream` command (too old): upgrade it there: {install_hint(force=True)}"
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
    def _take(self, obj: dict[str, Any], batch: FleetBatch) -> None:
        kind = obj["type"]
        if kind == "heartbeat":
            return
        if kind == "ready":
            self._snapshot_done(batch)
            return
        if kind == "result":
            self._result(obj, batch)
            return
        if kind == "hooks":
            self._hooks(obj, batch)
            return
        if kind == "problem":
            text = wire.name(obj.get("text"), 500)
            if text and len(self.remote_problems) < 20:
                self.remote_problems.append(text)
            return
        if kind in ("progress", "diff", "hits"):  # what answers a request (before its result), to its asker
            rid = obj.get("id")
            callback = self._progress.get(rid) if isinstance(rid, str) else None
            if callback is not None:
                callback(obj)
            return
        rkey = wire.team_key(obj.get("team"))
        if rkey is None:
            self.dropped += 1
            return
        key = host_key(self.name, rkey[1], rkey[2])
        if kind == "gone":
            if key in self.rows_said or key in self.sessions:
                self.rows_said.pop(key, None)
                self._drop(key)
                batch.gone.append(key)
            return
        if kind == "team":
            self._team(key, rkey, obj, batch)
            return
        state = self.teams.get(key)
        if state is None:
            self.dropped += 1
            return
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
    def _changed(batch: FleetBatch, key: Key, changes: list[Change], full: bool = False) -> None:
        team = batch.changes.get(key)
        if team is None:
            batch.changes[key] = Batch(list(changes), full=full)
        else:
            team.changes.extend(changes)
            team.full = team.full or full

    def _team(self, key: Key, rkey: Key, obj: dict[str, Any], batch: FleetBatch) -> None:
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
            if self._drop(key):
                batch.gone.append(key)
            if appeared:
                batch.appeared.append(key)
            return
        session, state = self.sessions.get(key), self.teams.get(key)
        if session is None or state is None:
            traits = TeamTraits(
                layout=wire.name(obj.get("layout"), 32) or "remote",
                appends_to_inboxes=obj.get("appends_to_inboxes") is True,
                shutdown_via_lead=obj.get("shutdown_via_lead") is True,
                where=rkey[1],  # the folder there: error paths are shown relative to it
            )
            session, state = remote_session(
                self, rkey, traits, log_limit=self.log_limit, health_timeout=self.health_timeout, clock=self.clock
            )
            self.sessions[key], self.teams[key] = session, state
            self._remote_keys[key] = rkey
            appeared = True
        full = obj.get("full") is True
        changes = state.take_header(obj)
        state.read_only_said = wire.text(obj.get("read_only"), 500) or ""
        if obj.get("live") is False:
            session.ended_at = wire.number(obj.get("ended_at")) or session.ended_at or self.clock()
            state.read_only_said = state.read_only_said or "the team has ended: it is shown as it was"
        self._connected(key, self.connected, self.status)
        if appeared:
            batch.appeared.append(key)
        self._changed(batch, key, changes, full=full)

    def _drop(self, key: Key) -> bool:
        self.teams.pop(key, None)
        self._remote_keys.pop(key, None)
        return self.sessions.pop(key, None) is not None

    def _connected(self, key: Key, connected: bool, why: str) -> None:
        """While the host is disconnected nothing may be asked of its teams (their dashboards say why)."""
        session, state = self.sessions.get(key), self.teams.get(key)
        if session is not None and state is not None:
            session.read_only = state.read_only_said if connected else why

    def _snapshot_done(self, batch: FleetBatch) -> None:
        """The snapshot is complete: what it did not list is gone; the connection counts as up."""
        for key in [k for k in self.rows_said if k not in self._seen]:
            self.rows_said.pop(key, None)
            self._drop(key)
            batch.gone.append(key)
        back = self.down_since is not None or not self.ever_connected
        self._ready = self.connected = self.ever_connected = True
        if self.down_since is not None:
            batch.notices.append((f"{self.name}: connected again (down since {hhmm(self.down_since)})", "information"))
        self.down_since = None
        self.reason = ""
        for key in self.sessions:
            self._connected(key, True, "")
            if back and key not in batch.changes:
                batch.changes[key] = Batch([])

    def _result(self, obj: dict[str, Any], batch: FleetBatch) -> None:
        rid = obj.get("id")
        found = self._waiting.pop(rid, None) if isinstance(rid, str) else None
        if found is None:
            return
        what, on_result = found
        ok = obj.get("ok") is True
        error = wire.name(obj.get("error"), 1000) or ("refused" if not ok else "")
        detail = wire.name(obj.get("detail"), 1000) or ""
        if not ok:
            self._progress.pop(rid, None)  # type: ignore[arg-type]
        if not what:  # the asker says what came of it (a diff, in the changes view)
            pass
        elif ok:
            batch.notices.append((f"{self.name}: {what}: {detail or 'done'}", "information"))
        else:
            batch.notices.append((f"{self.name}: {what} not carried out: {error}", "error"))
        if on_result is not None:
            on_result(ok, error, detail)

    def _hooks(self, obj: dict[str, Any], batch: FleetBatch) -> None:
        """The remote's open permission requests and waiting sessions, each under its team."""
        found = hook_items(obj, set(self._remote_keys.values()))
        if found != self._hook_items:
            self._hook_items = found
            batch.hooks = True


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
    "RemoteHost",
    "RemoteTeam",
    "host_key",
    "hosts_for",
    "parse_ssh_url",
]
