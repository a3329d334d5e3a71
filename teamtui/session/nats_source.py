"""Teams of many machines through one NATS server: a source of teams (session/source.py) for the
control room, beside this machine's and those over ssh. `[[nats]]` in config.toml makes one.

Each host publishes with `teamtui stream --publish` (session/nats_publish.py). This side reads
the stream TEAMTUI from its start through an ordered consumer: for each team the server holds its
last snapshot and the changes after it (protocol/nats_subjects.py), so the first screen shows every
team as it is now; then it follows them live, and after a lost connection (the server restarted,
the network) nats-py takes it up again from the last message read. Each host's lines are taken by
session/stream_reader.py, as ssh's are: a team's dashboard is the same wherever it runs.

Untrusted input, as over ssh: the host is the subject's (a host may publish only under its own
subjects: the server's permissions), each message's team must be its subject's, every line is
size-capped and checked by protocol/stream.py, and a message whose (epoch, rev) is not the next
of its team is not applied (a duplicate is dropped; a snapshot starts a team again). Heartbeats
tell which hosts are up: one not heard for `stall` seconds is shown as "disconnected since HH:MM"
(when it was last heard). Requests (m, b, S) go on the host's request subject and its answers come
back to this side's own inbox; who may send them is the server's to decide.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Collection, Mapping
from pathlib import Path
from typing import Any

import nats.errors
from nats.aio.msg import Msg
from nats.js.api import DeliverPolicy

from teamtui.protocol import nats_subjects as subjects, stream as wire
from teamtui.protocol.errors import ProtocolError
from teamtui.protocol.fleet.overview import FleetRow
from teamtui.session.nats_link import NatsLink, NatsUnavailable, connect, ensure_stream
from teamtui.session.ops import LINE_TYPES
from teamtui.session.source import FleetBatch, Key
from teamtui.session.stream_reader import NOT_CONNECTED, STALE_ROWS, RemoteTeam, StreamedHost, hhmm, one_line
from teamtui.session.team import TeamSession

TYPE_CHECKING = False
if TYPE_CHECKING:
    from nats.aio.client import Client

    from teamtui.protocol.settings import NatsSettings
    from teamtui.session.actions import Answers
    from teamtui.session.source import AskedHost

STALL = 10.0  # seconds without a heartbeat (hosts beat every 3) before a host counts as disconnected
REQUEST_WAIT = 30.0  # seconds a request waits for its result before it is said as not confirmed
HOSTS_CAP = 5000
QUEUE = 10_000  # messages read ahead of the room (the server holds the rest)
BATCH = 2000  # messages taken into one batch at most
CATCH_UP_MAX = 20.0  # seconds the first screen waits for the stream's end before showing what it has


class NatsHost(StreamedHost):
    """One publishing host, as its subjects say; its requests go through the source's connection."""

    via = "nats"

    def __init__(self, source: NatsSource, name: str, **kw: Any):
        super().__init__(name, **kw)
        self.source = source
        self.revs: dict[str, tuple[int, int]] = {}  # team token -> (epoch, rev) applied last
        self.heard: float | None = None  # when it last counted as heard: liveness (this clock)
        self.last_said: float | None = None  # when it really said something last: "disconnected since"
        self.tokens: dict[Key, str] = {}  # this side's key of a team -> its subject's token
        self.incompatible = False  # speaks another stream protocol: its teams are not read
        self.duplicates = 0  # messages already applied, dropped
        self.gaps = 0  # messages that were not the next of their team, dropped
        self._asked: dict[str, float] = {}  # request id -> when it was sent

    def _send(self, line: dict[str, Any], data: bytes) -> None:
        self.source.send(self, line, data)
        self._asked[line["id"]] = self.source.clock()

    def listed(self, tokens: set[str], batch: FleetBatch) -> None:
        """The host says which teams it has now: the others (ended while nobody listened) go."""
        for key in [k for k in self.rows_said if self.tokens.get(k) not in tokens]:
            self.rows_said.pop(key, None)
            self.tokens.pop(key, None)
            self._drop(key)
            batch.gone.append(key)


class NatsSource:
    """Every host publishing through one NATS server (a [[nats]] table), each host's teams as rows."""

    def __init__(
        self,
        spec: NatsSettings,
        *,
        log_limit: int = 1000,
        health_timeout: float = 60.0,
        clock: Callable[[], float] = time.time,
        stall: float = STALL,
        request_wait: float = REQUEST_WAIT,
    ):
        self.spec = spec
        self.link = NatsLink(spec.url, spec.credentials, spec.tls_ca, "teamtui room", fix="credentials = in [[nats]]")
        self.name = spec.name or self.link.shown
        self.log_limit, self.health_timeout, self.clock = log_limit, health_timeout, clock
        self.stall, self.request_wait = stall, request_wait
        self.hosts: dict[str, NatsHost] = {}
        self.nc: Client | None = None
        self.connected = False
        self.reason = ""  # why the server cannot be used now, with the fix
        self.down_since: float | None = None
        self.caught_up = False
        self.messages = 0  # stored messages taken
        self.dropped = 0  # messages dropped: not teamtui's, a team that is not its subject's, too big
        self._queue: asyncio.Queue[tuple[str, Any]] | None = None
        self._inbox = ""
        self._replies: dict[str, tuple[str, str]] = {}  # reply subject -> (host, request id)
        self._tasks: set[asyncio.Future] = set()

    # ------------------------------------------------------------------ what it holds
    @property
    def sessions(self) -> Mapping[Key, TeamSession]:
        out: dict[Key, TeamSession] = {}
        for host in self.hosts.values():
            out.update(host.sessions)
        return out

    @property
    def problems(self) -> list[str]:
        out = [f"{self.name}: {self.reason}"] if self.reason else []
        return out + [p for h in self.hosts.values() for p in h.problems]

    def rows(self, now: float, changed: Collection[Key] | None = None) -> list[FleetRow]:
        stale = [STALE_ROWS]  # one budget for every host's rows that are only old (StreamedHost.rows)
        out = [r for h in self.hosts.values() for r in h.rows(now, changed, stale)]
        if not out and self.reason:  # nothing to show: a row saying why
            team = RemoteTeam(Path(""), "", None, "nats", problem=self.reason, host=self.name, via="nats")
            out.append(FleetRow(team, self.name, "NATS", lead="", cwd=self.name, problem=NOT_CONNECTED, no_team=True))
        return out

    def loose(self) -> list[tuple[str, Answers]]:
        """Each host's answers for its requests of no team it lists."""
        return [pair for host in self.hosts.values() for pair in host.loose()]

    def hosts_asked(self) -> list[AskedHost]:
        return list(self.hosts.values())

    # ------------------------------------------------------------------ requests
    def send(self, host: NatsHost, line: dict[str, Any], data: bytes) -> None:
        """A request line on the host's request subject; its answers come back to this side's inbox."""
        nc = self.nc
        if nc is None or not self.connected or not self._inbox:
            raise ProtocolError(f"{self.name} is {self.reason or 'not connected'}: nothing was sent")
        key = wire.team_key(line.get("team"))
        token = subjects.team_token(key) if key is not None else subjects.HOST
        reply = f"{self._inbox}.{len(self._replies) + 1}"
        self._replies[reply] = (host.name, line["id"])
        task = asyncio.ensure_future(nc.publish(subjects.request_subject(host.name, token), data, reply=reply))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ------------------------------------------------------------------ the feed
    async def follow(self, stop: asyncio.Event) -> AsyncIterator[FleetBatch]:
        """Each host's teams, from the stream's start, then live, until `stop`. Raises NatsUnavailable
        (in words) when the server cannot be used: the fleet says it and tries again."""
        queue = self._queue = asyncio.Queue(QUEUE)
        try:
            nc = await connect(
                self.link,
                error_cb=self._error,
                disconnected_cb=self._disconnected,
                reconnected_cb=self._reconnected,
            )
        except NatsUnavailable as exc:
            self.reason = str(exc)
            raise
        self.nc = nc
        try:
            async for batch in self._read(nc, queue, stop):
                yield batch
        finally:
            self.connected = False
            self.nc = None
            with contextlib.suppress(Exception):
                await nc.close()

    async def _read(self, nc: Client, queue: asyncio.Queue[tuple[str, Any]], stop: asyncio.Event):
        js = nc.jetstream()
        try:
            await ensure_stream(js, self.link)
        except NatsUnavailable as exc:
            self.reason = str(exc)
            raise
        self._inbox = nc.new_inbox()

        async def answer(msg: Msg) -> None:
            await queue.put(("answer", msg))

        async def beat(msg: Msg) -> None:
            # A host up and heard: its beat only moves when it was heard (no batch, no wake-up of
            # the room: hundreds of hosts beat every few seconds). Anything else is the feed's to say.
            parsed = subjects.parse_subject(msg.subject) or ("", "", "")
            host = self.hosts.get(parsed[0])
            if host is not None and host.connected and self.caught_up and parsed[1:] == (subjects.HOST, "beat"):
                host.heard = host.last_said = self.clock()
                return
            await queue.put(("beat", msg))

        async def stored(msg: Msg) -> None:
            await queue.put(("stored", msg))

        await nc.subscribe(f"{self._inbox}.*", cb=answer)
        await nc.subscribe(subjects.beats_of(self.spec.subjects), cb=beat)
        sub = await js.subscribe(
            self.spec.subjects,
            stream=subjects.STREAM,
            cb=stored,
            ordered_consumer=True,
            deliver_policy=DeliverPolicy.ALL,
            idle_heartbeat=2.0,
        )
        self.connected, self.reason, self.down_since = True, "", None
        started = self.clock()
        info = await sub.consumer_info()
        self.caught_up = False
        first = FleetBatch(source=self.name)
        if info.num_pending == 0 and not (info.delivered and info.delivered.consumer_seq):  # nothing stored yet
            self._caught_up(first)
            yield first
            first = FleetBatch(source=self.name)
        stopping = asyncio.ensure_future(stop.wait())
        try:
            while not stop.is_set():
                getting = asyncio.ensure_future(queue.get())
                done, _ = await asyncio.wait({getting, stopping}, timeout=1.0, return_when=asyncio.FIRST_COMPLETED)
                if getting not in done:
                    getting.cancel()
                    if stopping in done:
                        return
                    items = []
                else:
                    items = [getting.result()]
                    while len(items) < BATCH and not queue.empty():
                        items.append(queue.get_nowait())
                batch = first if not self.caught_up else FleetBatch(source=self.name)
                for kind, msg in items:
                    self._take(kind, msg, batch)
                if not self.caught_up:
                    last = next((m for k, m in reversed(items) if k == "stored"), None)
                    left = _pending(last) if last is not None else None
                    if left == 0 or self.clock() - started > CATCH_UP_MAX:
                        self._caught_up(batch)
                    else:
                        continue
                self._check(batch)
                if batch.changes or batch.appeared or batch.gone or batch.notices or batch.rediscovered or batch.hooks:
                    yield batch
        finally:
            stopping.cancel()

    def _caught_up(self, batch: FleetBatch) -> None:
        """The first screen: every host that published counts as up until a heartbeat is missed."""
        self.caught_up = True
        now = self.clock()
        for host in self.hosts.values():
            if not host.incompatible:
                host._up(batch)
                host.heard = max(host.heard or 0.0, now)
        batch.rediscovered = True

    def _check(self, batch: FleetBatch) -> None:
        """Hosts not heard for `stall` seconds are down; requests unanswered for too long are said."""
        now = self.clock()
        for host in self.hosts.values():
            if host.connected and host.heard is not None and now - host.heard > self.stall:
                host._disconnected(batch, since=host.last_said)
                host.reason = f"no heartbeat for {self.stall:g} s (is its `teamtui stream --publish` running?)"
                batch.notices.append((f"{host.name}: {host.status}", "warning"))
            for rid, at in list(host._asked.items()):
                if rid not in host._waiting:
                    host._asked.pop(rid)
                elif now - at > self.request_wait:
                    host._asked.pop(rid)
                    what, on_result = host._waiting.pop(rid)
                    host._progress.pop(rid, None)
                    batch.notices.append(
                        (
                            f"{host.name}: {what}: no answer in {self.request_wait:g} s; it may or may not have been carried out",
                            "warning",
                        )
                    )
                    if on_result is not None:
                        on_result(False, "no answer", "")

    # ------------------------------------------------------------------ one message
    def _take(self, kind: str, msg: Any, batch: FleetBatch) -> None:
        if kind == "answer":
            self._answer(msg, batch)
            return
        if kind == "refused":  # (host, a result line said here)
            refused = self.hosts.get(msg[0])
            if refused is not None:
                refused._take(msg[1], batch)
            return
        parsed = subjects.parse_subject(msg.subject)
        if parsed is None:
            self.dropped += 1
            return
        name, token, what = parsed
        host = self.hosts.get(name)
        if host is None:
            if len(self.hosts) >= HOSTS_CAP or kind == "beat":
                return  # a beat of a host that never published: nothing to show yet
            host = self.hosts[name] = NatsHost(
                self, name, log_limit=self.log_limit, health_timeout=self.health_timeout, clock=self.clock
            )
        if kind == "beat":
            if what == "beat" and token == subjects.HOST:
                self._heard(host, batch)
            return
        if what != "state":
            self.dropped += 1
            return
        self.messages += 1
        if self.caught_up:
            self._heard(host, batch)
        else:
            host.last_said = max(host.last_said or 0.0, _stored_at(msg) or 0.0) or None
        if token == subjects.HOST:
            self._host_state(host, msg, batch)
        elif not host.incompatible:
            self._team_message(host, token, msg, batch)

    def _heard(self, host: NatsHost, batch: FleetBatch) -> None:
        now = self.clock()
        host.heard = host.last_said = now
        if not host.connected and not host.incompatible and self.caught_up:
            host._up(batch)

    def _host_state(self, host: NatsHost, msg: Msg, batch: FleetBatch) -> None:
        lines = _lines(msg.data)
        hello = lines[0] if lines else None
        if hello is None or hello.get("type") != "hello":
            self.dropped += 1
            return
        problem = host._protocol_problem(hello, f"on {host.name}")
        host.incompatible = bool(problem)
        if problem:
            host.reason = problem
            for key in list(host.rows_said):
                host.rows_said.pop(key, None)
                host._drop(key)
                batch.gone.append(key)
            return
        for obj in lines[1:]:
            kind = obj["type"]
            if kind == "ready":
                tokens = obj.get("tokens")
                if isinstance(tokens, list):
                    host.listed({t for t in tokens[: wire.MEMBERS_CAP] if isinstance(t, str)}, batch)
            elif kind not in wire.STATE_LINES and kind not in ("hello", "heartbeat") and obj.get("id") is None:
                host._take(obj, batch)  # a problem, or any other line of the host's own, as over ssh
            else:
                self.dropped += 1  # a team's state or an answer has no place in the host's state

    def _team_message(self, host: NatsHost, token: str, msg: Msg, batch: FleetBatch) -> None:
        headers = msg.headers or {}
        epoch, rev = _whole(headers.get("Teamtui-Epoch")), _whole(headers.get("Teamtui-Rev"))
        if epoch is None or rev is None:
            self.dropped += 1
            return
        have = host.revs.get(token)
        if have is not None and (epoch, rev) <= have:
            host.duplicates += 1
            return
        if headers.get("Teamtui-Snapshot") != "1" and (have is None or have != (epoch, rev - 1)):
            host.gaps += 1  # not the next of its team: its next snapshot puts it right
            return
        host.revs[token] = (epoch, rev)
        for obj in _lines(msg.data):
            key = wire.team_key(obj.get("team"))
            if obj.get("type") not in wire.STATE_LINES or key is None or _token(obj["team"]) != token:
                self.dropped += 1  # a line about another team than its subject's, or no team line at all
                continue
            host.lines += 1
            host.tokens[host.key(key[1], key[2])] = token
            host._take(obj, batch)

    def _answer(self, msg: Msg, batch: FleetBatch) -> None:
        found = self._replies.get(msg.subject)
        host = self.hosts.get(found[0]) if found is not None else None
        if found is None or host is None:
            return
        if msg.headers and msg.headers.get("Status") == "503":  # nobody subscribes to the host's requests
            self._replies.pop(msg.subject, None)
            host._take(
                {
                    "type": "result",
                    "id": found[1],
                    "ok": False,
                    "error": f"nobody answers for {host.name} (is its `teamtui stream --publish` running?)",
                },
                batch,
            )
            return
        obj = wire.parse(msg.data, LINE_TYPES)  # any line type of the stream's but a team's state: as the ssh stream's
        if obj is None or obj["type"] in wire.STATE_LINES | wire.HOST_LINES or obj.get("id") != found[1]:
            self.dropped += 1
            return
        if obj["type"] == "result" and obj.get("ok") is not True:
            self._replies.pop(msg.subject, None)
        host._take(obj, batch)

    # ------------------------------------------------------------------ the connection
    async def _error(self, exc: Exception) -> None:
        text = " ".join(str(exc).split())
        if "permissions violation" in text.lower() and ".req" in text:
            subject = text.split('"')[1] if text.count('"') >= 2 else ""
            parsed = subjects.parse_subject(subject)
            host = self.hosts.get(parsed[0]) if parsed is not None else None
            if host is not None and self._queue is not None:  # said as the answer of every request waiting there
                for rid in list(host._waiting):
                    refusal = {
                        "type": "result",
                        "id": rid,
                        "ok": False,
                        "error": f"the NATS server does not let you act on {host.name}'s teams (README: NATS)",
                    }
                    await self._queue.put(("refused", (host.name, refusal)))
            return
        if not isinstance(exc, (OSError, nats.errors.UnexpectedEOF, nats.errors.StaleConnectionError)):
            self.reason = one_line(text) if not self.connected else self.reason

    async def _disconnected(self) -> None:
        if self.connected:
            self.connected = False
            self.down_since = self.clock()
            self.reason = f"the NATS server is away since {hhmm(self.down_since)}; reconnecting (1 s doubling to 30 s)"

    async def _reconnected(self) -> None:
        self.connected, self.reason, self.down_since = True, "", None


def _lines(data: bytes) -> list[dict[str, Any]]:
    """A message's lines, each parsed as the stream's (garbage dropped)."""
    out = []
    for raw in data.split(b"\n"):
        if raw:
            obj = wire.parse(raw, LINE_TYPES)
            if obj is not None:
                out.append(obj)
    return out


def _token(v: Any) -> str | None:
    """The subject token of a team line's key as the host wrote it (before any cleaning)."""
    if isinstance(v, list) and len(v) == 3 and all(isinstance(x, str) for x in v):
        return subjects.team_token((v[0], v[1], v[2]))
    return None


def _whole(v: Any) -> int | None:
    return int(v) if isinstance(v, str) and v.isdigit() and len(v) <= 20 else None


def _pending(msg: Msg) -> int | None:
    with contextlib.suppress(Exception):
        return msg.metadata.num_pending
    return None


def _stored_at(msg: Msg) -> float | None:
    with contextlib.suppress(Exception):
        return msg.metadata.timestamp.timestamp()
    return None


__all__ = ["NatsHost", "NatsSource", "STALL"]
