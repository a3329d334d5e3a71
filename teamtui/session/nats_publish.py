"""`teamtui stream --publish nats://…`: this machine's teams published through NATS JetStream, and
the requests about them taken from there (a sink of session/stream_server.py's Streamer).

The lines are the ssh stream's, grouped: each flush of the Streamer becomes one message per team
that changed, on `teamtui.<host>.<team>.state` (protocol/nats_subjects.py). A team's snapshot (its
`team` header with `full`, and what follows it) goes with `Nats-Rollup: sub`, so the server keeps
only the last snapshot and the changes after it: a room that starts late reads each team whole.
The host's hello, its problems, the last of any other line of its own and which teams it has now
go on `teamtui.<host>._host.state`; a heartbeat every few seconds on `teamtui.<host>._host.beat`
(not stored).

Every team message carries its epoch (this process's start) and rev (one more per message of the
team), and `Nats-Msg-Id` from both: sent twice after a lost acknowledgement, it is stored once,
and a room never applies a rev twice. Messages wait in a spool until the server acknowledges them,
one at a time and in order; while the server is away the spool holds them, up to `spool_bytes`:
past that a team's waiting messages are dropped and the team is sent whole once the server is
back. A team is sent whole again after `resnapshot_after` changes, and daily (the stream forgets
what is older than a week).

Requests arrive on `teamtui.<host>.*.req` (core NATS, not stored: a request to a host that is
away is answered by no one); each is checked against its subject (a team's request names that
team, one on the host's own names none), carried out by the Streamer under this machine's rules
whatever its op, and answered on the requester's reply subject: every line carrying its id (the
result, a shutdown's progress, a diff, ...). Who may send them is the server's permissions' to say.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import nats.errors
import nats.js.errors
from nats.aio.msg import Msg

from teamtui.protocol import nats_subjects as subjects, stream as wire
from teamtui.session.nats_link import NatsLink, NatsUnavailable, connect, ensure_stream, explain

TYPE_CHECKING = False
if TYPE_CHECKING:
    from nats.aio.client import Client

    from teamtui.session.stream_server import Streamer

Key = tuple[str, str, str]
SPOOL_BYTES = 64 * 1024 * 1024
RESNAPSHOT_AFTER = 500  # changes of a team before it is sent whole again (what a late room replays, at most)
REFRESH_S = 86400.0  # a team unchanged this long is sent whole again (the stream keeps a week)
HEADROOM = 4096  # bytes of a message left for its headers
ACK_TIMEOUT = 5.0
REPLIES = 1000  # requests whose answers are still routed (a shutdown's progress comes long after)


@dataclass(slots=True)
class _Out:
    subject: str
    payload: bytes
    headers: dict[str, str]
    token: str  # the team's ("" for the host's own)
    whole: bool  # a snapshot (or the host's state): what was queued before it on its subject is moot
    group: int = 0  # the flush of one team it came from (a group is never cut by its own size)


class NatsSink:
    """The Streamer's lines into JetStream, its requests from NATS."""

    via = "NATS"

    def __init__(
        self,
        link: NatsLink,
        host: str,
        *,
        spool_bytes: int = SPOOL_BYTES,
        resnapshot_after: int = RESNAPSHOT_AFTER,
        say: Callable[[str], None] | None = None,
        first: float = 1.0,
        most: float = 30.0,
    ):
        if not subjects.HOST_TOKEN.fullmatch(host):
            raise ValueError(f"{host!r} is no host name for NATS: letters, digits, '-' or '_' (at most 64)")
        self.link, self.host = link, host
        self.epoch = time.time_ns()
        self.spool_bytes, self.resnapshot_after = spool_bytes, resnapshot_after
        self.say = say or (lambda text: print(f"teamtui stream: {text}", file=sys.stderr, flush=True))
        self.first, self.most = first, most
        self.nc: Client | None = None
        self.streamer: Streamer | None = None
        self.max_payload = 1 << 20
        self._groups: dict[
            str, list[tuple[str, bool, bytes]]
        ] = {}  # per team token: (type, full, line) since the flush
        self.keys: dict[str, Key] = {}  # token -> the team's key (the Streamer's)
        self.revs: dict[str, int] = {}
        self._since: dict[str, int] = {}  # changes since the team's last snapshot
        self._whole_at: dict[str, float] = {}
        self._host_lines: list[bytes] = []  # hello, problems
        self._host_state: dict[str, bytes] = {}  # any other line of the host's own: the last of each type
        self._host_said: tuple[str, ...] | None = None  # the teams the last host state listed
        self._host_dirty = False
        self.spool: deque[_Out] = deque()
        self.spooled = 0  # bytes in the spool
        self._in_flight: _Out | None = None
        self.stale: set[str] = set()  # teams whose spooled messages were dropped: sent whole when the server is back
        self._replies: OrderedDict[str, tuple[str, Any]] = OrderedDict()  # our id -> (reply subject, theirs)
        self._next = 0
        self.sent = 0  # messages the server acknowledged
        self.dropped = 0  # messages dropped from a full spool
        self._work: asyncio.Event | None = None
        self._up: asyncio.Event | None = None
        self._fatal: asyncio.Future[str] | None = None
        self._down_since: float | None = None
        self._said_drop = False
        self._tasks: set[asyncio.Future] = set()
        self._closing = False
        self._stream_made: Any = None  # when the stream was made, as last seen
        self._group = 0  # the group being spooled

    # ------------------------------------------------------------------ lines in
    async def open(self, streamer: Streamer) -> None:
        self.streamer = streamer
        self._work, self._up = asyncio.Event(), asyncio.Event()
        self._fatal = asyncio.get_running_loop().create_future()

    def put(self, obj: dict[str, Any], data: bytes) -> None:
        kind = obj.get("type")
        if kind == "hello":
            self._host_lines, self._host_dirty = [data], True
        elif kind == "problem" and obj.get("ends") is True:  # over: the host's stored state holds it no more
            self._host_lines = [d for d in self._host_lines if not _says_problem(d, obj.get("text"))]
            self._host_dirty = True
        elif kind == "problem":
            self._host_lines.append(data)
            self._host_dirty = True
        elif kind == "ready":
            self._host_dirty = True
        elif kind == "heartbeat":
            self._core(subjects.beat_subject(self.host), data)
        elif kind not in wire.STATE_LINES and obj.get("id") is not None:
            self._answer(obj)  # an answer to a request (result, progress, diff, ...)
        elif kind not in wire.STATE_LINES:
            # Any other line of the host's own (what its hooks wait on, ...) is a whole state of it:
            # the last of each type goes in the host's stored state, with no code here knowing it.
            self._host_state[str(kind)] = data
            self._host_dirty = True
        else:
            key = wire.team_key(obj.get("team"))
            if key is None:
                return
            token = subjects.team_token(key)
            self.keys[token] = key
            self._groups.setdefault(token, []).append((str(kind), obj.get("full") is True, data))

    async def flush(self) -> None:
        now = time.time()
        before = self._group
        for _ in range(2):  # the second round: the teams just asked for whole
            groups, self._groups = self._groups, {}
            for token, lines in groups.items():
                self._queue_team(token, lines, now)
            due = [
                t
                for t in self.keys
                if self._since.get(t, 0) >= self.resnapshot_after or now - self._whole_at.get(t, now) > REFRESH_S
            ]
            if not due or self.streamer is None:
                break
            for token in due:
                self._since[token] = 0
                self.streamer.team_lines(self.keys[token], full=True)
        listed = tuple(sorted(self.keys))
        if self._host_lines and (self._host_dirty or listed != self._host_said):
            self._queue_host(listed, before)
        if self._work is not None and self.spool:
            self._work.set()

    def _queue_team(self, token: str, lines: list[tuple[str, bool, bytes]], now: float) -> None:
        # Everything before the last full header (or `gone`) in this group is superseded by it.
        start = max((i for i, (kind, full, _) in enumerate(lines) if kind == "gone" or full), default=-1)
        whole = start >= 0
        if whole:
            lines = lines[start:]
        gone = lines[0][0] == "gone" and whole
        budget = self.max_payload - HEADROOM
        chunks: list[list[bytes]] = [[]]
        size = 0
        for _, _, data in lines:
            if len(data) > budget:
                self.say(f"a line of {len(data)} bytes was not published (the server takes {self.max_payload} at most)")
                continue
            if size + len(data) > budget and chunks[-1]:
                chunks.append([])
                size = 0
            chunks[-1].append(data)
            size += len(data)
        subject = subjects.state_subject(self.host, token)
        self._group += 1
        for n, chunk in enumerate(c for c in chunks if c):
            rev = self.revs[token] = self.revs.get(token, 0) + 1
            headers = {
                "Nats-Msg-Id": f"{self.host}.{self.epoch}.{token}.{rev}",
                "Teamtui-Epoch": str(self.epoch),
                "Teamtui-Rev": str(rev),
            }
            first = whole and n == 0
            if first:
                headers["Nats-Rollup"] = "sub"
                headers["Teamtui-Snapshot"] = "1"
            self._spool(_Out(subject, b"".join(chunk), headers, token, first, self._group))
        if whole:
            self._since[token] = 0
            self._whole_at[token] = now
        else:
            self._since[token] = self._since.get(token, 0) + 1
        if gone:
            self.keys.pop(token, None)
            self._since.pop(token, None)
            self._whole_at.pop(token, None)

    def _queue_host(self, listed: tuple[str, ...], before: int) -> None:
        """The host's state, ahead of the teams' messages of this flush, and in the place of a state
        it replaces that was not sent yet (its hello before their rows, as on the ssh stream)."""
        ready = wire.dumps({"type": "ready", "teams": len(listed), "tokens": list(listed)})
        headers = {"Nats-Rollup": "sub", "Teamtui-Epoch": str(self.epoch)}
        subject = subjects.host_subject(self.host)
        waiting = [o for o in self.spool if o.subject == subject and o is not self._in_flight]
        follows = None  # what followed the replaced state
        if waiting:
            seen = False
            for o in self.spool:
                if o is waiting[0]:
                    seen = True
                elif seen and o.subject != subject:
                    follows = o
                    break
        lines = [*self._host_lines, *self._host_state.values(), ready]
        self._spool(_Out(subject, b"".join(lines), headers, "", True))
        out = self.spool.pop()
        at = next((i for i, o in enumerate(self.spool) if o is follows or (o.token and o.group > before)), None)
        self.spool.insert(len(self.spool) if at is None else at, out)
        self._host_said, self._host_dirty = listed, False

    def _spool(self, out: _Out) -> None:
        if out.whole:  # the rollup drops them on the server anyway: never sent
            self._remove(lambda o: o.subject == out.subject)
        self.spool.append(out)
        self.spooled += len(out.payload)
        while self.spooled > self.spool_bytes:
            # The oldest team's go first; never the group being spooled (a snapshot bigger than the
            # spool is sent whole, not dropped and asked for again without end).
            oldest = next(
                (o for o in self.spool if o is not self._in_flight and o.token and o.group != self._group), None
            )
            if oldest is None:
                break
            self.dropped += self._remove(lambda o, t=oldest.token: o.token == t)  # type: ignore[misc]
            self.stale.add(oldest.token)
            if not self._said_drop:
                self._said_drop = True
                self.say(
                    f"the spool is full ({self.spool_bytes // (1 << 20)} MiB waiting for the server): the oldest "
                    "teams' changes are dropped; each is sent whole when the server is back"
                )

    def _remove(self, which: Callable[[_Out], bool]) -> int:
        kept = deque(o for o in self.spool if o is self._in_flight or not which(o))
        gone = len(self.spool) - len(kept)
        self.spool = kept
        self.spooled = sum(len(o.payload) for o in kept)
        return gone

    # ------------------------------------------------------------------ the run
    async def serve(self, streamer: Streamer) -> None:
        """The connection kept, the spool sent, the requests taken; returns never, raises NatsUnavailable
        when the server says no (a refused credential, a subject this host may not publish on)."""
        assert self._fatal is not None
        tasks: list[asyncio.Future[Any]] = [
            asyncio.ensure_future(self._keep_connected()),
            asyncio.ensure_future(self._send()),
        ]
        try:
            done, _ = await asyncio.wait([*tasks, self._fatal], return_when=asyncio.FIRST_COMPLETED)
            if self._fatal.done():
                raise NatsUnavailable(self._fatal.result(), fatal=True)
            for t in done:
                t.result()
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _keep_connected(self) -> None:
        assert self._up is not None
        delay = self.first
        while True:
            try:
                nc = await connect(
                    self.link,
                    error_cb=self._error,
                    disconnected_cb=self._disconnected,
                    reconnected_cb=self._reconnected,
                    inbox_prefix=f"_INBOX.{self.host}",
                    first=self.first,
                    most=self.most,
                )
                await self._check_stream(nc)
            except NatsUnavailable as exc:
                if exc.fatal:
                    self._fail(str(exc))
                    return
                self.say(f"{exc}; trying again in {delay:g} s")
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.most)
                continue
            delay = self.first
            self.nc = nc
            self.max_payload = nc.max_payload or self.max_payload
            await nc.subscribe(f"{subjects.PREFIX}.{self.host}.*.req", cb=self._request)
            if self._down_since is not None:
                self.say(f"{self.link.shown}: connected again")
            self._down_since = None
            self._up.set()
            assert self._work is not None
            self._work.set()
            while not nc.is_closed:  # nats-py reconnects by itself; closed only when it gave up
                await asyncio.sleep(1)
            self._up.clear()

    async def _disconnected(self) -> None:
        if self._up is not None:
            self._up.clear()
        if self._down_since is None and not self._closing:
            self._down_since = time.time()
            self.say(f"{self.link.shown} is away: changes wait in the spool (reconnecting, 1 s doubling to 30 s)")

    async def _reconnected(self) -> None:
        self._down_since = None
        self.say(f"{self.link.shown}: connected again")
        if self.nc is not None:
            try:
                await self._check_stream(self.nc)
            except NatsUnavailable as exc:
                self.say(str(exc))
        if self._up is not None:
            self._up.set()
        if self._work is not None:
            self._work.set()

    async def _check_stream(self, nc: Client) -> None:
        """The stream there; one made anew since it was last seen (a server started on an empty
        store) holds nothing of this host's: every team is sent whole again."""
        made = await ensure_stream(nc.jetstream(), self.link)
        if self._stream_made is not None and made != self._stream_made:
            self._resend_all()
        self._stream_made = made

    def _resend_all(self) -> None:
        self.stale.update(t for t in self.keys if not any(o.token == t and o.whole for o in self.spool))
        self._host_dirty = True
        self._remove(lambda o: bool(o.token) and not o.whole)
        if self._work is not None:
            self._work.set()

    async def _error(self, exc: Exception) -> None:
        text = str(exc)
        if "permissions violation" in text.lower():
            self._fail(
                f"{self.link.shown} does not let this user publish there ({' '.join(text.split())[:200]}): this host "
                f"publishes as `{self.host}` (--name): the server's permissions must allow it "
                f"{subjects.PREFIX}.{self.host}.> (README: NATS)"
            )
        elif "authorization violation" in text.lower() or "authentication" in text.lower():
            self._fail(explain(exc, self.link))
        elif not isinstance(exc, (OSError, nats.errors.UnexpectedEOF, nats.errors.StaleConnectionError)):
            self.say(" ".join(text.split())[:300] or type(exc).__name__)

    def _fail(self, why: str) -> None:
        if self._fatal is not None and not self._fatal.done():
            self._fatal.set_result(why)

    async def _send(self) -> None:
        """The spool, one message at a time and in order, each until the server stored it."""
        assert self._work is not None and self._up is not None
        while True:
            if not self.spool:
                if self.stale and self._up.is_set() and self.streamer is not None:
                    self._send_stale()
                    await self.flush()
                    await asyncio.sleep(0)
                    continue
                self._work.clear()
                await self._work.wait()
                continue
            if not self._up.is_set():
                await self._up.wait()
                continue  # the spool may have changed meanwhile (a stream made anew: teams sent whole)
            nc = self.nc
            out = self._in_flight = self.spool[0]
            try:
                assert nc is not None
                await nc.jetstream().publish(
                    out.subject, out.payload, timeout=ACK_TIMEOUT, stream=subjects.STREAM, headers=out.headers
                )
            except (nats.errors.NoRespondersError, nats.js.errors.NoStreamResponseError):
                await self._stream_lost()
                continue
            except nats.js.errors.APIError as exc:  # refused for good (too big, ...): said, dropped
                self.say(f"{out.subject}: not stored: {exc.description or exc}")
                if out.token:
                    self.stale.add(out.token)
            except (TimeoutError, nats.errors.TimeoutError, nats.errors.ConnectionClosedError, OSError):
                await asyncio.sleep(0.2)  # not acknowledged: sent again (the server stores it once)
                continue
            finally:
                self._in_flight = None
            if self.spool and self.spool[0] is out:
                self.spool.popleft()
                self.spooled -= len(out.payload)
            self.sent += 1

    def _send_stale(self) -> None:
        """The teams whose changes were dropped, whole again: as many as half the spool holds at a
        time (the rest when it is empty again), so they do not push each other out."""
        assert self.streamer is not None
        for token in list(self.stale):
            self.stale.discard(token)
            if token in self.keys:
                self.streamer.team_lines(self.keys[token], full=True)
                self._queue_team(token, self._groups.pop(token, []), time.time())
            if self.spooled >= self.spool_bytes // 2:
                return
        self._said_drop = False

    async def _stream_lost(self) -> None:
        """No stream answered (a server started on an empty store): made again, everything sent whole."""
        nc = self.nc
        try:
            assert nc is not None
            self._stream_made = await ensure_stream(nc.jetstream(), self.link)
        except NatsUnavailable as exc:
            self.say(str(exc))
            await asyncio.sleep(1)
            return
        self._resend_all()
        await self.flush()

    async def close(self) -> None:
        """What is spooled goes out if the server takes it within a moment; then the connection closes."""
        nc = self.nc
        if nc is None:
            return
        self._closing = True
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(2):
                while self.spool and nc.is_connected:
                    await asyncio.sleep(0.05)
        with contextlib.suppress(Exception):
            await nc.close()

    # ------------------------------------------------------------------ requests
    async def _request(self, msg: Msg) -> None:
        parsed = subjects.parse_subject(msg.subject)
        if parsed is None or parsed[0] != self.host or self.streamer is None:
            return
        token = parsed[1]
        req = wire.parse_request(msg.data) if len(msg.data) <= wire.MAX_REQUEST else None
        if req is None:
            self._reply(msg.reply, {"type": "result", "id": None, "ok": False, "error": "not a JSON object"})
            return
        theirs = req.get("id")
        key = wire.team_key(req.get("team"))
        if token == subjects.HOST:  # any request of no team (ping, an answer to a request of no team, ...)
            if req.get("team") is not None:
                return self._reply(msg.reply, _refusal(theirs, "a request about a team goes on that team's subject"))
        elif key is None or subjects.team_token(key) != token:
            return self._reply(msg.reply, _refusal(theirs, "the request's team is not the one of its subject"))
        self._next += 1
        ours = f"n{self._next}"
        self._replies[ours] = (msg.reply, theirs)
        while len(self._replies) > REPLIES:
            self._replies.popitem(last=False)
        req["id"] = ours
        self.streamer.request(json.dumps(req).encode())
        await self.flush()

    def _answer(self, obj: dict[str, Any]) -> None:
        """A line answering a request (its result, a shutdown's progress, a diff), to the reply subject
        of the request it answers, with the requester's own id: whatever the line, no code here knows
        the ops."""
        found = self._replies.get(obj.get("id"))  # type: ignore[arg-type]
        if found is None:
            return
        reply, theirs = found
        if obj.get("type") == "result" and obj.get("ok") is not True:
            self._replies.pop(obj["id"], None)  # refused: no progress follows
        self._reply(reply, {**obj, "id": theirs})

    def _reply(self, reply: str, obj: dict[str, Any]) -> None:
        if reply:
            self._core(reply, wire.dumps(obj))

    def _core(self, subject: str, data: bytes) -> None:
        """A message not stored (a heartbeat, an answer): sent when connected, else let go."""
        nc = self.nc
        if nc is None or not nc.is_connected:
            return
        task = asyncio.ensure_future(nc.publish(subject, data))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _refusal(rid: Any, why: str) -> dict[str, Any]:
    return {"type": "result", "id": rid, "ok": False, "error": why, "detail": ""}


__all__ = ["NatsSink", "RESNAPSHOT_AFTER", "SPOOL_BYTES"]


def _says_problem(data: bytes, text: object) -> bool:
    """Whether a stored host line is the problem line saying `text`."""
    if b'"problem"' not in data:
        return False
    try:
        obj = json.loads(data)
    except ValueError:
        return False
    return isinstance(obj, dict) and obj.get("type") == "problem" and obj.get("text") == text
