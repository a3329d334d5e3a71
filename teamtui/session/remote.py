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
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any

from teamtui.protocol import stream as wire
from teamtui.protocol.errors import ProtocolError
from teamtui.protocol.settings import HostSettings
from teamtui.session.ops import LINE_TYPES
from teamtui.session.source import FleetBatch
from teamtui.session.stream_reader import (
    TEAMS_CAP,
    RemoteTeam,
    StreamedHost,
    hhmm,
    host_key,
    install_hint,
    one_line,
)

Key = tuple[str, str, str]
STALL = 10.0  # seconds without a line (the remote beats every HEARTBEAT) before the connection counts as dead
HEARTBEAT = 3.0
BACKOFF_FIRST, BACKOFF_MAX = 1.0, 30.0


# ------------------------------------------------------------------ one host


class RemoteHost(StreamedHost):
    """One machine's teams over one ssh connection, kept current; reconnects on its own. A source
    of teams (session/source.py): its name is the host's. What it does with each line is
    session/stream_reader.py's (StreamedHost), as for a machine that publishes through NATS."""

    via = "ssh"

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
        super().__init__(spec.name, log_limit=log_limit, health_timeout=health_timeout, clock=clock)
        self.spec = spec
        self.stall, self.heartbeat, self.ssh = stall, heartbeat, ssh
        self.backoff_first, self.backoff_max = backoff_first, backoff_max
        self.proc: asyncio.subprocess.Process | None = None
        self.attempts = 0

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

    # ------------------------------------------------------------------ requests
    def _send(self, line: dict[str, Any], data: bytes) -> None:
        proc = self.proc
        if proc is None or proc.stdin is None or proc.stdin.is_closing():
            raise ProtocolError(f"{self.name} is {self.status or 'not connected'}: nothing was sent")
        proc.stdin.write(data)

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
                self.reason = one_line(f"{type(exc).__name__}: {exc}")
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
        self._disconnected(batch)
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
                    obj = wire.parse(raw, LINE_TYPES)
                    if obj is None:
                        self.dropped += 1
                        if not got_hello and not said:  # a login banner, a shell's echo: kept to say what came instead
                            said = one_line(raw[:200].decode("utf-8", errors="replace"))
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
                f"`{one_line(self.spec.teamtui)} stream` did not start with a hello line (it said "
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
        return self._protocol_problem(obj, "there")

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
        return one_line(lines[-1]) if lines else ""


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
    "TEAMS_CAP",
    "RemoteHost",
    "RemoteTeam",
    "hhmm",
    "host_key",
    "hosts_for",
    "install_hint",
    "parse_ssh_url",
]
