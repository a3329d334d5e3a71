"""The stream's server: this machine's teams written as protocol/stream.py's JSON lines, and the
requests read back carried out here.

`teamtui stream` (cli/stream_cmd.py) runs it on stdin/stdout, for another machine's control room
over ssh (session/remote.py is the other end); with `--publish`, its lines go to a NATS server
instead and its requests come from there (session/nats_publish.py NatsSink): where the lines go
and where requests come from is its sink's (PipeSink here). What is written: a `hello`, every team's state,
`ready`, then each batch of this machine's one watcher as the changed teams' updates, and a
`heartbeat` every few seconds. A request is carried out by this machine's rules: a message goes out
under TeamSession.sender (never a lead this process is not), a shutdown is TeamSession.shutdown's
(Claude Code's through its lead), and each is answered with a `result` line (and a shutdown's
`progress` lines). The other side never writes a file here; it only asks.
"""

from __future__ import annotations

import asyncio
import socket
import sys

from teamtui import __version__
from teamtui.protocol.changes import ChangeKind as K
from teamtui.protocol.fleet.overview import row_json
from teamtui.protocol.hooks.room import RoomPresence
from teamtui.protocol.stream import (
    ERRORS_CAP,
    MAX_LINE,
    PROTOCOL,
    chunks,
    config_json,
    dumps,
    error_json,
    insight_json,
    log_json,
    member_json,
    message_json,
    parse_request,
    task_json,
    team_key,
    view_json,
)
from teamtui.protocol.stream_edits import changes_json
from teamtui.session.alerts import needs_of, record_needs
from teamtui.session.fleet import Fleet
from teamtui.session.ops import OPS
from teamtui.session.ops.answers import hooks_items
from teamtui.session.pipe_sink import PipeSink

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    from teamtui.session.local import LocalSource
    from teamtui.session.shutdown import ShutdownController
    from teamtui.session.source import Key
    from teamtui.session.team import TeamSession

DEFAULT_HEARTBEAT = 3.0

if TYPE_CHECKING:

    class Sink(Protocol):
        """Where the stream's lines go and its requests come from."""

        via: str  # what carries the lines, as said where a request came from: "ssh", "NATS"

        async def open(self, streamer: Streamer) -> None: ...
        def put(self, obj: dict[str, Any], data: bytes) -> None: ...  # one line, checked and encoded
        async def flush(self) -> None: ...
        async def serve(self, streamer: Streamer) -> None: ...  # requests, each to streamer.request; ends: the run ends
        async def close(self) -> None: ...


class Streamer:
    """One fleet, written as the stream protocol; requests carried out on it."""

    def __init__(
        self,
        fleet: LocalSource,
        *,
        heartbeat: float = DEFAULT_HEARTBEAT,
        host: str | None = None,
        sink: Sink | None = None,
        hold_room: bool = True,
    ):
        self.fleet = fleet
        # While it runs a room follows it (over ssh): hooks here wait for that room's answer.
        self.hold_room = hold_room
        self.heartbeat = heartbeat
        self.host = host or socket.gethostname()
        self.sink: Sink = sink or PipeSink()
        self._sent_logs: dict[Key, dict[str, tuple[int, int]]] = {}  # member -> (id of its buffer, lines sent)
        self._sent_views: dict[Key, dict[str, dict]] = {}
        self._sent_rows: dict[Key, dict] = {}
        self._sent_insight: dict[Key, dict] = {}
        self.shutdowns: dict[Key, tuple[Any, ShutdownController]] = {}  # the request's id, its controller
        self._sent_hooks: dict | None = None
        self.closed = False

    # ------------------------------------------------------------------ writing
    def line(self, obj: dict[str, Any]) -> None:
        try:
            data = dumps(obj)
        except (ValueError, TypeError) as exc:  # a value JSON cannot carry: said on stderr, never sent half
            print(f"teamtui stream: a {obj.get('type')} line was not sent: {exc}", file=sys.stderr)
            return
        if len(data) > MAX_LINE:
            print(f"teamtui stream: a {obj.get('type')} line of {len(data)} bytes was not sent", file=sys.stderr)
            return
        self.sink.put(obj, data)

    async def flush(self) -> None:
        await self.sink.flush()

    # ------------------------------------------------------------------ one team, as lines
    def team_lines(self, key: Key, *, full: bool) -> None:
        """The team's header; with `full`, everything it holds after it (tasks, messages, logs)."""
        if key not in self.fleet.teams:
            return
        now = self.fleet.clock()
        team = list(key)
        row = row_json(self.fleet.row(key, now))
        self._sent_rows[key] = row
        header: dict[str, Any] = {"type": "team", "team": team, "full": full, "row": row}
        session = self.fleet.sessions.get(key)
        if session is None:
            self.line(header)
            return
        state = self.fleet.states[key]
        errors = state.all_errors()
        views = [view_json(v) for v in state.member_views(now)]
        self._sent_views[key] = {v["name"]: v for v in views}
        try:
            sender = session.sender
        except Exception:  # noqa: BLE001 - a config mid-rewrite: teamtui's own name, as the store would say
            sender = self.fleet.settings.sender
        header.update(
            live=session.live,
            read_only=session.read_only,
            ended_at=session.ended_at,
            layout=state.traits.layout,
            appends_to_inboxes=state.traits.appends_to_inboxes,
            shutdown_via_lead=state.traits.shutdown_via_lead,
            sender=sender,
            lead_state=self._lead_state(session),
            config=config_json(state.config) if state.config is not None else None,
            departed=[member_json(m) for m in state.departed.values()],
            views=views,
            errors=[error_json(e) for e in errors[:ERRORS_CAP]],
            errors_total=len(errors),
        )
        self._header(header)
        if not full:
            return
        for part in chunks(task_json(t) for t in state.tasks.values()):
            self.line({"type": "tasks", "team": team, "tasks": part, "removed": []})
        for part in chunks(message_json(m) for m in state.messages):
            self.line({"type": "messages", "team": team, "messages": part, "update": False})
        sent = self._sent_logs[key] = {}
        for member, buf in list(state.logs.items()):
            self._log_lines(team, member, list(buf), reset=True)
            sent[member] = (id(buf), buf.total)
        self._sent_insight.pop(key, None)
        self.insight_line(key, now=now)

    @staticmethod
    def _lead_state(session: TeamSession) -> str | None:
        try:
            return session.lead_state()
        except Exception:  # noqa: BLE001 - a config mid-rewrite, a process gone while read: not known
            return "unknown"

    def _header(self, header: dict[str, Any]) -> None:
        """A header too big for a line loses members (a config of thousands) until it fits."""
        config = header.get("config")
        while len(dumps(header)) > MAX_LINE and config is not None and config["members"]:
            config["members"] = config["members"][: len(config["members"]) // 2]
            header["errors"] = header["errors"][:10]
        self.line(header)

    def _log_lines(self, team: list[str], member: str, entries: list, *, reset: bool) -> None:
        first = True
        for part in chunks(log_json(e) for e in entries):
            self.line({"type": "logs", "team": team, "member": member, "entries": part, "reset": reset and first})
            first = False
        if first and reset:
            self.line({"type": "logs", "team": team, "member": member, "entries": [], "reset": True})

    def changes_lines(self, key: Key, changes: list, *, full: bool = False) -> None:
        """What one batch changed in a team, as the fewest lines that carry it."""
        session = self.fleet.sessions.get(key)
        if full or session is None:
            self.team_lines(key, full=True)
            return
        state, team = session.state, list(key)
        kinds = {c.kind for c in changes}
        if kinds & {K.CONFIG, K.MEMBER_JOINED, K.MEMBER_LEFT, K.MEMBER_STATUS, K.ERROR, K.ERROR_CLEARED, K.TEAM_GONE}:
            self.team_lines(key, full=False)
        ids = list(dict.fromkeys(c.key for c in changes if c.kind in (K.TASK, K.TASK_COMPLETED)))
        removed = list(dict.fromkeys(c.key for c in changes if c.kind == K.TASK_REMOVED))
        tasks = [task_json(state.tasks[i]) for i in ids if i in state.tasks]
        if removed and not tasks:
            self.line({"type": "tasks", "team": team, "tasks": [], "removed": removed})
        for n, part in enumerate(chunks(tasks)):
            self.line({"type": "tasks", "team": team, "tasks": part, "removed": removed if n == 0 else []})
        new = [m for c in changes if c.kind == K.INBOX for m in c.messages]
        for part in chunks(message_json(m) for m in new):
            self.line({"type": "messages", "team": team, "messages": part, "update": False})
        # Flags that flipped (read, delivered) on messages already sent: sent again, replacing them.
        flipped = [m for c in changes if c.kind == K.DELIVERED for m in c.messages]
        for c in changes:
            if c.kind == K.INBOX_READ:
                flipped += [m for m in list(state.messages)[-500:] if m.recipient == c.key]
        for part in chunks(message_json(m) for m in flipped):
            self.line({"type": "messages", "team": team, "messages": part, "update": True})
        if K.LOG in kinds:
            self._new_logs(key)
        self.views_line(key)
        self.insight_line(key)

    def _new_logs(self, key: Key) -> None:
        """Each member's lines since those sent (its whole buffer again when the buffer started over)."""
        session = self.fleet.sessions.get(key)
        if session is None:
            return
        sent = self._sent_logs.setdefault(key, {})
        for member, buf in list(session.state.logs.items()):
            ident, total = sent.get(member, (0, 0))
            if ident == id(buf) and total == buf.total:
                continue
            if ident != id(buf) or total > buf.total:
                self._log_lines(list(key), member, list(buf), reset=True)
            else:
                self._log_lines(list(key), member, buf.since(total), reset=False)
            sent[member] = (id(buf), buf.total)

    def views_line(self, key: Key, *, now: float | None = None) -> None:
        """The members' views and the row, when either changed since last sent."""
        if key not in self.fleet.teams:
            return
        now = self.fleet.clock() if now is None else now
        session = self.fleet.sessions.get(key)
        views = {v.name: view_json(v) for v in session.state.member_views(now)} if session is not None else {}
        before = self._sent_views.get(key, {})
        changed = [v for n, v in views.items() if before.get(n) != v]
        row = row_json(self.fleet.row(key, now))
        if not changed and row == self._sent_rows.get(key):
            return
        self._sent_views[key] = views
        self._sent_rows[key] = row
        self.line({"type": "views", "team": list(key), "views": changed, "row": row})

    def insight_line(self, key: Key, *, now: float | None = None) -> None:
        """What the team's transcripts tell (figures, needs, the lead's assignments), when it changed
        since last sent: the transcripts stay here, what was made of them goes."""
        session = self.fleet.sessions.get(key)
        if session is None or session.state.transcripts is None:
            return
        now = self.fleet.clock() if now is None else now
        try:
            insight = insight_json(session.state.transcripts, session.state, now)
            if insight is not None:  # the files each member changed: counts here, a diff when asked
                insight["changes"] = changes_json(getattr(session.state.transcripts, "edits", None))
        except Exception as exc:  # noqa: BLE001 - a transcript mid-rewrite: said here, the stream goes on
            print(f"teamtui stream: the transcripts of {key[2]} could not be summed up: {exc}", file=sys.stderr)
            return
        if insight is None or insight == self._sent_insight.get(key):
            return
        self._sent_insight[key] = insight
        self.line({"type": "insight", "team": list(key), **insight})

    def hooks_line(self) -> None:
        """This machine's open permission requests and waiting sessions, when they changed since last sent."""
        if self.fleet.hooks is None:
            return
        line = {"type": "hooks", "items": hooks_items(self.fleet)}
        if line != self._sent_hooks:
            self._sent_hooks = line
            self.line(line)

    def gone(self, key: Key) -> None:
        self._sent_insight.pop(key, None)
        self._sent_logs.pop(key, None)
        self._sent_views.pop(key, None)
        self._sent_rows.pop(key, None)
        self.shutdowns.pop(key, None)
        self.line({"type": "gone", "team": list(key)})

    # ------------------------------------------------------------------ the run
    async def run(self, stdin: Any = None, stdout: Any = None) -> None:
        if stdin is not None or stdout is not None:
            self.sink = PipeSink(stdin, stdout)
        await self.sink.open(self)
        fleet = self.fleet
        presence = None
        if self.hold_room and fleet.hooks is not None:
            presence = RoomPresence(fleet.hooks.spool).hold()
        try:
            await self._run(fleet)
        finally:
            if presence is not None:
                presence.release()

    async def _run(self, fleet: LocalSource) -> None:
        self.line(
            {"type": "hello", "protocol": PROTOCOL, "teamtui": __version__, "host": self.host, "time": fleet.clock()}
        )
        await asyncio.to_thread(fleet.discover)
        for problem in fleet.problems:
            self.line({"type": "problem", "text": str(problem)})
        if not fleet.teams and (fleet.only_team or fleet.only_layout):  # said, and followed: it may yet appear
            which = " ".join(f"{k} {v!r}" for k, v in (("team", fleet.only_team), ("layout", fleet.only_layout)) if v)
            self.line({"type": "problem", "text": f"no {which} here yet: only that is streamed"})
        for key in list(fleet.teams):
            self.team_lines(key, full=True)
            await self.flush()
        if fleet.hooks is not None:
            await asyncio.to_thread(fleet.hooks.load)
            self.hooks_line()
        self.line({"type": "ready", "teams": len(fleet.teams)})
        await self.flush()
        stop = asyncio.Event()
        tasks = [asyncio.ensure_future(t) for t in (self.sink.serve(self), self._follow(stop), self._beat())]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.set()
            for shutdown in self.shutdowns.values():
                shutdown[1].stop()
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await self.sink.close()
        for t in tasks:  # a write that failed (the other side went away) ends the run quietly; anything else is raised
            exc = None if t.cancelled() else t.exception()
            if isinstance(exc, (BrokenPipeError, ConnectionResetError)):
                self.closed = True
            elif exc is not None:
                raise exc

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(self.heartbeat)
            now = self.fleet.clock()
            for key in list(self.fleet.teams):  # the lead's process, the health rule: no file says so
                self.views_line(key, now=now)
                self.insight_line(key, now=now)  # a task owner gone silent: time, not a file, says so
                self._record_needs(key, now)
            if self.fleet.recheck_hooks():  # a request past its deadline whose hook was killed outright
                self.hooks_line()
            self.line({"type": "heartbeat", "time": now})
            await self.flush()

    async def _follow(self, stop: asyncio.Event) -> None:
        loop = asyncio.get_running_loop()
        pruned = loop.time()
        guard = Fleet([self.fleet])  # the one error path: a failing watcher is said and started again
        down = ""  # the problem line said while this machine's watcher is down
        async for batch in guard.follow(stop):
            failed = guard.failed.get(self.fleet.name)
            now_down = f"{self.fleet.name} {failed}" if failed else ""
            if now_down != down:  # said to the room; and, once it works again, said to be over
                if down:
                    self.line({"type": "problem", "text": down, "ends": True})
                if now_down:
                    self.line({"type": "problem", "text": now_down})
                down = now_down
            for key in batch.gone:
                self.gone(key)
            for key in batch.appeared:
                if key not in batch.changes:
                    self.team_lines(key, full=True)
            for key, team_batch in batch.changes.items():
                self.changes_lines(key, team_batch.changes, full=team_batch.full or key in batch.appeared)
                self._observe(key, team_batch)
                self._record_needs(key)
            if batch.hooks or batch.appeared or batch.gone:  # a team's requests follow its team
                self.hooks_line()
            if loop.time() - pruned > 60:
                pruned = loop.time()
                for key in self.fleet.prune():
                    self.gone(key)
            await self.flush()

    def _record_needs(self, key: Key, now: float | None = None) -> None:
        """What needs the person in the team, into this machine's history (where a room runs, its
        Alerts do it; here nobody else would): each item opened once, closed when it is gone."""
        session = self.fleet.sessions.get(key)
        if session is None:
            return
        now = self.fleet.clock() if now is None else now
        try:
            record_needs(session, needs_of(key, session, now), now)
        except Exception as exc:  # noqa: BLE001 - a team mid-rewrite: the next batch tries again, the stream goes on
            print(f"teamtui stream: the needs of {key[2]} were not recorded: {exc}", file=sys.stderr)

    def _observe(self, key: Key, batch: Any) -> None:
        found = self.shutdowns.get(key)
        if found is None:
            return
        controller = found[1]
        if batch.full or {c.kind for c in batch.changes} & controller.watches:
            controller.observe()

    # ------------------------------------------------------------------ requests
    @property
    def via(self) -> str:
        return self.sink.via

    def request(self, raw: bytes) -> None:
        """One request line, carried out by its op (session/ops/); answered with a result line
        (garbage: an error result, or nothing)."""
        req = parse_request(raw)
        if req is None:
            self.line({"type": "result", "id": None, "ok": False, "error": "not a JSON object"})
            return
        rid = req.get("id")
        if not (type(rid) is int and abs(rid) < 2**53 or isinstance(rid, str) and len(rid) <= 128):
            rid = None  # an id to answer with: an integer JSON holds exactly, or a short string
        name = req.get("op")
        op = OPS.get(name) if isinstance(name, str) else None
        if op is None:
            self.result(rid, False, f"unknown op {str(req.get('op'))[:40]!r}")
            return
        key = session = None
        if op.scope == "team" or op.scope == "either" and req.get("team") is not None:
            key = team_key(req.get("team"))
            session = self.fleet.sessions.get(key) if key is not None else None
            if session is None:
                self.result(rid, False, "no such team here (it may have ended)")
                return
        try:
            op.handle(self, rid, key, session, op.read(req))
        except Exception as exc:  # noqa: BLE001 - any refusal (not a member, a lock, a read-only team) is answered
            self.result(rid, False, " ".join(str(exc).splitlines())[:2000] or type(exc).__name__)

    def result(self, rid: Any, ok: bool, error: str = "", detail: str = "") -> None:
        self.line({"type": "result", "id": rid, "ok": ok, "error": error, "detail": detail})


__all__ = ["DEFAULT_HEARTBEAT", "PipeSink", "Streamer"]
