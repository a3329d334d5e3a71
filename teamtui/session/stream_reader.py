"""One publishing machine's teams as its stream's lines describe them, whatever carried the lines.

protocol/stream.py's JSON lines reach this side over ssh (session/remote.py RemoteHost: one
connection per machine) or through NATS JetStream (session/nats_source.py: many machines through
one server). Either way each line is untrusted input and is taken here, the one way: its values
checked (protocol/stream.py's readers), each team a TeamSession whose model is a StreamedTeam
filled from its lines (session/remote_team.py), and whose capabilities are requests back to that
machine (`request`, carried by the subclass's `_send`). A `StreamedHost` is a source of teams
(session/source.py) in its own right (RemoteHost), or one machine of a source that has many.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from teamtui import __version__
from teamtui.protocol import stream as wire
from teamtui.protocol.changes import Change
from teamtui.protocol.errors import ProtocolError
from teamtui.protocol.fleet.discover import FleetTeam
from teamtui.protocol.fleet.overview import FleetRow, count_members
from teamtui.protocol.layout import layout_of
from teamtui.protocol.text import inert
from teamtui.protocol.traits import TeamTraits
from teamtui.session.items import Item
from teamtui.session.ops import ANSWER_LINES
from teamtui.session.ops.answers import RemoteAnswers, hook_items
from teamtui.session.ops.base import Asks
from teamtui.session.remote_team import StreamedTeam, remote_session
from teamtui.session.source import ROW_FRESH, FleetBatch, Severity
from teamtui.session.team import Batch, TeamSession

TYPE_CHECKING = False
if TYPE_CHECKING:
    from teamtui.session.actions import Answers
    from teamtui.session.source import AskedHost

Key = tuple[str, str, str]
TEAMS_CAP = 1000  # teams kept per host (a hostile stream cannot fill memory with teams)
NOT_CONNECTED = "⚠ not connected"  # a row's word for a host that could not be reached (the room's problems say why)
STALE_ROWS = 100  # rows older than ROW_FRESH built again per call, at most (touched ones always)


def install_hint(force: bool = False) -> str:
    """How to put this teamtui on another machine (it is not on PyPI): the README's Install."""
    wheel = f"teamtui-{__version__}-py3-none-any.whl"
    again = " --force" if force else ""
    return f"`make wheel` here, copy dist/{wheel} there, then `pipx install{again} ./{wheel}` (README: Install)"


def host_key(host: str, root: str, name: str, via: str = "ssh") -> Key:
    """A remote team's key in the control room: a row of the same overview as the local ones."""
    return (f"{via}:{host}", root, name)


def hhmm(at: float) -> str:
    return time.strftime("%H:%M", time.localtime(at))


def one_line(text: str) -> str:
    return inert(" ".join(text.split()))[:300]


@dataclass(frozen=True, slots=True)
class RemoteTeam(FleetTeam):
    """A team of the fleet found on another machine: its key is the control room's (host, root, name)."""

    host: str = ""
    via: str = "ssh"  # what carried its lines: "ssh", "nats"

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", host_key(self.host, str(self.root), self.name, self.via))


class StreamedHost:
    """One machine's teams, kept as its lines say; requests to it go out through `_send`."""

    via = "ssh"  # the first part of its teams' keys

    def __init__(
        self, name: str, *, log_limit: int = 1000, health_timeout: float = 60.0, clock: Callable[[], float] = time.time
    ):
        self.name = name
        self.log_limit, self.health_timeout, self.clock = log_limit, health_timeout, clock
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
        self.lines = 0  # lines taken, for the tests and benchmarks
        self.dropped = 0  # lines dropped (too long, not JSON, unknown)
        self._next_id = 0
        self._waiting: dict[str, tuple[str, Callable[[bool, str, str], None] | None]] = {}
        self._progress: dict[str, Callable[[dict[str, Any]], None]] = {}
        # What its hooks say waits for the person there, by the remote's key of its team (None: no team).
        self._hook_items: dict[Key | None, list[Item]] = {}
        self._hooks_line: dict[str, Any] | None = None  # the last `hooks` line: read again when a team of it appears
        self._remote_keys: dict[Key, Key] = {}  # each team's key here -> the remote's own key of it
        self.answers = RemoteAnswers(Asks(self, None))  # its requests of no team it lists
        self._seen: set[Key] = set()  # teams of the snapshot under way
        self._rows: dict[Key, tuple[FleetRow, float, str]] = {}  # each row as last built: when, and the status then
        self._ready = False

    def key(self, root: str, name: str) -> Key:
        return host_key(self.name, root, name, self.via)

    # ------------------------------------------------------------------ what it says
    @property
    def status(self) -> str:
        """What its rows say about the connection: "" when connected."""
        if self.connected:
            return ""
        if self.down_since is not None:
            return f"disconnected since {hhmm(self.down_since)}" + (f": {self.reason}" if self.reason else "")
        return self.reason or "connecting…"

    @property
    def standing(self) -> str:
        """The connection's standing in a row's few words ("" when connected): why is among the problems."""
        if self.connected:
            return ""
        if self.down_since is not None:
            return f"disconnected since {hhmm(self.down_since)}"
        return NOT_CONNECTED if self.reason else "connecting…"

    @property
    def problems(self) -> list[str]:
        out = [f"{self.name}: {p}" for p in self.remote_problems]
        if not self.connected and self.reason:
            out.insert(0, f"{self.name}: {self.status}")
        return out

    def rows(
        self, now: float, changed: Collection[Key] | None = None, stale: list[int] | None = None
    ) -> list[FleetRow]:
        """Its teams' rows as streamed, or one saying why there are none. With `changed`, only those
        rows are built again, and of the ones older than ROW_FRESH only as many as `stale` allows
        (a budget, shared by the hosts of one source; STALE_ROWS by default): at hundreds of teams
        a row each is most of a batch's cost, and the first change after a quiet spell must not pay
        for every row (the next calls take the next ones). A row is built again whenever the
        connection's standing changed since."""
        if changed is None:
            self._rows.clear()
        touched = changed or ()
        status = self.status
        budget = stale if stale is not None else [STALE_ROWS]
        out = []
        for key, said in self.rows_said.items():
            kept = self._rows.get(key)
            old = kept is not None and not 0 <= now - kept[1] <= ROW_FRESH and budget[0] > 0
            if kept is None or key in touched or kept[2] != status or old:
                budget[0] -= old
                kept = self._rows[key] = (self._row(key, said, now), now, status)
            kept[0].needs_you = said.get("needs_you") or 0  # the room raises it to its own count, each time
            out.append(kept[0])
        if len(self._rows) > len(self.rows_said):
            for key in [k for k in self._rows if k not in self.rows_said]:
                del self._rows[key]
        if not out and not self.connected:  # a host with nothing to show still has a row: how it stands
            team = RemoteTeam(Path(""), "", None, self.via, problem=self.status, host=self.name, via=self.via)
            out.append(FleetRow(team, self.name, "host", lead="", cwd=self.name, problem=self.standing, no_team=True))
        return out

    def _row(self, key: Key, said: dict[str, Any], now: float) -> FleetRow:
        session = self.sessions.get(key)
        # The row's `ended` is also true of a live team whose lead ended (FleetRow.ended): whether the
        # team itself ended is its session's (its `live`), else its members would all count as gone.
        ended = not session.live if session is not None else bool(said.get("ended"))
        team = RemoteTeam(
            Path(key[1]),
            key[2],
            layout_of(said.get("layout")),
            said.get("source") or "remote",
            ended=ended,
            ended_at=said.get("ended_at"),
            host=self.name,
            via=self.via,
        )
        problem = said.get("problem")
        if not self.connected:  # in a few words: the whole of why is among the room's problems
            problem = self.standing if not problem else f"{self.standing} · {problem}"
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
        if not self.connected:
            raise ProtocolError(f"{self.name} is {self.status or 'not connected'}: nothing was sent")
        self._next_id += 1
        rid = f"r{self._next_id}"
        line = {"id": rid, "op": op, **({"team": list(remote_key)} if remote_key is not None else {}), **fields}
        data = wire.dumps(line)
        if len(data) > wire.MAX_REQUEST:
            raise ProtocolError(f"too long to send ({len(data)} bytes; at most {wire.MAX_REQUEST})")
        self._send(line, data)
        self._waiting[rid] = (what, on_result)
        if on_progress is not None:
            self._progress[rid] = on_progress
        return rid

    def _send(self, line: dict[str, Any], data: bytes) -> None:
        """Put one request on its way to the machine (raises ProtocolError when it cannot go)."""
        raise NotImplementedError

    def forget(self, rid: str) -> None:
        self._progress.pop(rid, None)

    def loose(self) -> list[tuple[str, Answers]]:
        """Its answers for the requests of no team it lists (Fleet.loose gives every source's)."""
        return [(self.name, self.answers)]

    def hosts_asked(self) -> list[AskedHost]:
        return [self]

    def hook_items(self, remote_key: Key | None) -> list[Item]:
        """What the `hooks` line listed for the remote's team `remote_key` (None: of no team listed)."""
        return list(self._hook_items.get(remote_key, ()))

    def _unanswered(self, batch: FleetBatch, why: str) -> None:
        """The requests still waiting will get no answer: each said as not confirmed (a request
        asked with no words of its own says its outcome itself, through on_result)."""
        for what, on_result in list(self._waiting.values()):
            if what:
                batch.notices.append(
                    (f"{self.name}: {what}: not confirmed ({why}); it may or may not have been carried out", "warning")
                )
            if on_result is not None:
                on_result(False, why, "")
        self._waiting.clear()
        self._progress.clear()

    def _disconnected(self, batch: FleetBatch, since: float | None = None) -> None:
        """Lost: its teams read-only, saying since when; the requests under way said as unconfirmed."""
        was = self.connected
        self.connected = False
        self._ready = False
        if was:
            self.down_since = self.clock() if since is None else since
        why = (
            f"{self.name} is disconnected since {hhmm(self.down_since)}"
            if self.down_since is not None
            else f"{self.name} is not connected"
        )
        for key in self.sessions:
            self._connected(key, False, f"{why}: nothing can be sent")
            batch.changes[key] = Batch([])
        if self._hook_items:  # nothing there can be answered from here until it is back
            self._hook_items, self._hooks_line = {}, None
            batch.hooks = True
        self._unanswered(batch, "the connection was lost")

    # ------------------------------------------------------------------ one line
    def _protocol_problem(self, obj: dict[str, Any], what: str) -> str:
        """A hello line's: "" when this side can read what follows, else why not (with the fix)."""
        version = wire.name(obj.get("teamtui"), 64) or "?"
        protocol = wire.whole(obj.get("protocol"))
        if protocol != wire.PROTOCOL:
            return (
                f"teamtui {version} {what} speaks stream protocol {protocol}, teamtui {__version__} here speaks "
                f"{wire.PROTOCOL}: install the same teamtui on both: {install_hint(force=True)}"
            )
        self.remote_version = version
        self.remote_host = wire.name(obj.get("host"), 255) or ""
        self.remote_problems = []
        return ""

    def _problem_news(self, batch: FleetBatch, text: str, severity: Severity) -> None:
        """A problem said (or over) once the snapshot is in: a notice, and the rows and problems drawn again."""
        if self._ready:
            batch.notices.append((text, severity))
            batch.rediscovered = True

    def _take(self, obj: dict[str, Any], batch: FleetBatch) -> None:
        """One line, by its kind: an answer to its asker, the host's own, or a team's."""
        kind = obj["type"]
        if kind in ANSWER_LINES:  # what answers a request (before its result): to its asker
            rid = obj.get("id")
            callback = self._progress.get(rid) if isinstance(rid, str) else None
            if callback is not None:
                callback(obj)
        elif kind in _HOST_TAKES:
            _HOST_TAKES[kind](self, obj, batch)
        elif (rkey := wire.team_key(obj.get("team"))) is None:
            self.dropped += 1
        elif kind in _TEAM_TAKES:
            _TEAM_TAKES[kind](self, self.key(rkey[1], rkey[2]), rkey, obj, batch)
        elif kind in _STATE_TAKES:
            key = self.key(rkey[1], rkey[2])
            state = self.teams.get(key)
            if state is None:  # a team not announced yet
                self.dropped += 1
                return
            if (row := wire.read_row(obj.get("row"))) is not None:  # a line carrying the team's row (views)
                self.rows_said[key] = row
            self._changed(batch, key, _STATE_TAKES[kind](state, obj))

    def _problem(self, obj: dict[str, Any], batch: FleetBatch) -> None:
        text = wire.name(obj.get("text"), 500)
        if obj.get("ends") is True:  # over (the remote's watcher works again)
            if text in self.remote_problems:
                self.remote_problems.remove(text)
                self._problem_news(batch, f"{self.name}: over: {text}", "information")
        elif text and len(self.remote_problems) < 20:
            self.remote_problems.append(text)
            self._problem_news(batch, f"{self.name}: {text}", "error")

    def _gone(self, key: Key, rkey: Key, obj: dict[str, Any], batch: FleetBatch) -> None:
        if key in self.rows_said or key in self.sessions:
            self.rows_said.pop(key, None)
            self._drop(key)
            batch.gone.append(key)

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
            if self._hooks_line is not None and self._hook_items.get(None):
                # Its requests, listed before the team (a NATS host's state read before a newer snapshot
                # of the team): under their team now, not among the requests of no team as well.
                self._hooks(self._hooks_line, batch)
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
        self._up(batch)

    def _up(self, batch: FleetBatch) -> None:
        """The connection counts as up: its teams may be asked again, and the rows say so."""
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
        self._hooks_line = obj
        found = hook_items(obj, set(self._remote_keys.values()))
        if found != self._hook_items:
            self._hook_items = found
            batch.hooks = True


# The stream's own lines, each kind once (the lines answering a request are its op's: session/ops/).
_HOST_TAKES: dict[str, Callable[[StreamedHost, dict[str, Any], FleetBatch], None]] = {
    "heartbeat": lambda host, obj, batch: None,
    "ready": lambda host, obj, batch: host._snapshot_done(batch),
    "result": StreamedHost._result,
    "hooks": StreamedHost._hooks,
    "problem": StreamedHost._problem,
}
_TEAM_TAKES: dict[str, Callable[[StreamedHost, Key, Key, dict[str, Any], FleetBatch], None]] = {
    "gone": StreamedHost._gone,
    "team": StreamedHost._team,
}
_STATE_TAKES: dict[str, Callable[[StreamedTeam, dict[str, Any]], list[Change]]] = {
    "tasks": StreamedTeam.take_tasks,
    "messages": StreamedTeam.take_messages,
    "logs": StreamedTeam.take_logs,
    "insight": StreamedTeam.take_insight,
    "views": StreamedTeam.take_views,
}

__all__ = ["RemoteTeam", "StreamedHost", "hhmm", "host_key", "install_hint", "one_line"]
