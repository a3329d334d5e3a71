"""JSON-RPC teammates (Autohand's Agent Teams): JSON-RPC 2.0 notifications, one per line, over a
child process's stdin (lead → teammate) and stdout (teammate → lead).

`decode_line` turns one stdout line into a typed notification or a `Stray` (a stray print, a
malformed or unknown message); `Channel` owns the pipes on the event loop, bounds every line and
buffer, and never stops reading because of what a teammate printed.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from teamtui.protocol.models import Task
from teamtui.runtime.spawn import ChildProcess, start_shell

# A line longer than this is dropped (and said so in the log) without being held in memory.
MAX_LINE_BYTES = 1 << 20
# A teammate that stops reading its stdin gets no more notifications once this much is queued.
MAX_PENDING_WRITE = 4 << 20
# The most of a dropped line the log keeps.
STRAY_PREVIEW = 2000

TASK_STATUSES = ("pending", "in_progress", "completed")
LOG_LEVELS = ("debug", "info", "warning", "warn", "error")

# JSON-RPC 2.0 error codes, for a teammate that sent a request (with an id) we cannot serve.
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602


# ---------------------------------------------------------------- teammate → lead
@dataclass(frozen=True, slots=True)
class Ready:
    name: str


@dataclass(frozen=True, slots=True)
class TaskUpdate:
    task_id: str
    status: str
    result: str | None = None


@dataclass(frozen=True, slots=True)
class Say:
    """`team.message` from a teammate: the lead forwards `content` to `to`."""

    to: str
    content: str


@dataclass(frozen=True, slots=True)
class Idle:
    last_task: str | None = None


@dataclass(frozen=True, slots=True)
class ShutdownAck:
    pass


@dataclass(frozen=True, slots=True)
class Log:
    level: str
    text: str


@dataclass(frozen=True, slots=True)
class Stray:
    """A stdout line that is not a notification we know: kept for the teammate's log, never fatal."""

    text: str
    problem: str = ""  # empty for plain output (a print), else why a JSON-RPC-looking line was refused


Notification = Ready | TaskUpdate | Say | Idle | ShutdownAck | Log
Incoming = Notification | Stray


def _text(params: dict[str, object], key: str, *, required: bool = True) -> str | None:
    v = params.get(key)
    if v is None and not required:
        return None
    if isinstance(v, bool) or not isinstance(v, (str, int)):
        raise ValueError(f"params.{key} must be a string")
    return str(v)


def _result(v: object) -> str | None:
    if v is None or isinstance(v, str):
        return v
    # Autohand's result is free-form: keep structure readable rather than refuse it.
    return json.dumps(v, ensure_ascii=False)


def _ready(p: dict[str, object]) -> Ready:
    return Ready(_text(p, "name", required=False) or "")


def _task_update(p: dict[str, object]) -> TaskUpdate:
    status = _text(p, "status")
    if status not in TASK_STATUSES:
        raise ValueError(f"params.status must be one of {', '.join(TASK_STATUSES)}")
    return TaskUpdate(_text(p, "taskId") or "", status, _result(p.get("result")))


def _say(p: dict[str, object]) -> Say:
    return Say(_text(p, "to") or "", _text(p, "content") or "")


def _idle(p: dict[str, object]) -> Idle:
    return Idle(_text(p, "lastTask", required=False))


def _log(p: dict[str, object]) -> Log:
    level = (_text(p, "level", required=False) or "info").lower()
    return Log(level if level in LOG_LEVELS else "info", _text(p, "text") or "")


_DECODERS: dict[str, Callable[[dict[str, object]], Notification]] = {
    "team.ready": _ready,
    "team.taskUpdate": _task_update,
    "team.message": _say,
    "team.idle": _idle,
    "team.shutdownAck": lambda p: ShutdownAck(),
    "team.log": _log,
}


@dataclass(frozen=True, slots=True)
class Decoded:
    item: Incoming
    # For a request (a message with an id), the response the lead owes the teammate.
    reply: dict[str, object] | None = None


def decode_line(line: bytes) -> Decoded:
    """One stdout line (without its newline) as a notification, or a Stray saying why not."""
    text = line.decode("utf-8", "replace").rstrip("\r")
    stripped = text.strip()
    if not stripped.startswith("{"):
        return Decoded(Stray(text))
    try:
        msg = json.loads(stripped)
    except (ValueError, RecursionError):
        # Looks like a message but is not JSON: a print of a brace, or a torn write.
        return Decoded(Stray(text, "not valid JSON" if '"jsonrpc"' in stripped else ""))
    if not isinstance(msg, dict) or "jsonrpc" not in msg:
        return Decoded(Stray(text))
    has_id = "id" in msg and isinstance(msg.get("id"), (str, int)) and not isinstance(msg.get("id"), bool)
    rid = msg.get("id") if has_id else None

    def refused(problem: str, code: int) -> Decoded:
        reply = _error(rid, code, problem) if has_id else None
        return Decoded(Stray(text, problem), reply)

    if msg.get("jsonrpc") != "2.0":
        return refused('"jsonrpc" must be "2.0"', INVALID_REQUEST)
    method = msg.get("method")
    if not isinstance(method, str):
        if "result" in msg or "error" in msg:
            return Decoded(Stray(text, "a response to a request the lead never sent"))
        return refused('"method" must be a string', INVALID_REQUEST)
    decoder = _DECODERS.get(method)
    if decoder is None:
        return refused(f"unknown method {method[:80]!r}", METHOD_NOT_FOUND)
    params = msg.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, dict):
        return refused(f"{method}: params must be an object", INVALID_PARAMS)
    try:
        item = decoder(params)
    except ValueError as exc:
        return refused(f"{method}: {exc}", INVALID_PARAMS)
    return Decoded(item, {"jsonrpc": "2.0", "id": rid, "result": {}} if has_id else None)


def _error(rid: object, code: int, message: str) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}


# ---------------------------------------------------------------- lead → teammate
def encode(method: str, params: dict[str, object]) -> bytes:
    return (json.dumps({"jsonrpc": "2.0", "method": method, "params": params}, ensure_ascii=False) + "\n").encode(
        "utf-8"
    )


def task_object(task: Task) -> dict[str, object]:
    """A task as Autohand's TaskManager holds it (camelCase, `blockedBy`), plus teamtui's `files`."""
    obj: dict[str, object] = {
        "id": task.id,
        "subject": task.subject,
        "description": task.description,
        "status": task.status.value,
        "owner": task.owner or None,
        "blockedBy": list(task.blocked_by),
    }
    if task.files:
        obj["files"] = list(task.files)
    if task.completed_at is not None:
        obj["completedAt"] = task.completed_at
    if task.result is not None:
        obj["result"] = task.result
    return obj


def assign_task(task: Task) -> bytes:
    return encode("team.assignTask", {"task": task_object(task)})


def message(sender: str, content: str) -> bytes:
    return encode("team.message", {"from": sender, "content": content})


def update_context(tasks: Iterable[Task]) -> bytes:
    return encode("team.updateContext", {"tasks": [task_object(t) for t in tasks]})


def shutdown(reason: str) -> bytes:
    return encode("team.shutdown", {"reason": reason})


# ---------------------------------------------------------------- line framing
@dataclass(frozen=True, slots=True)
class Overlong:
    size: int
    head: bytes


class LineSplitter:
    """Bytes in, complete lines out; a line past `limit` is skipped to its newline and reported once."""

    def __init__(self, limit: int = MAX_LINE_BYTES):
        self.limit = limit
        self._buf = bytearray()
        self._skipping: Overlong | None = None

    def feed(self, data: bytes) -> list[bytes | Overlong]:
        out: list[bytes | Overlong] = []
        start = 0
        while start < len(data):
            nl = data.find(b"\n", start)
            end = len(data) if nl < 0 else nl
            piece = data[start:end]
            if self._skipping is not None:
                self._skipping = Overlong(self._skipping.size + len(piece), self._skipping.head)
            elif len(self._buf) + len(piece) > self.limit:
                self._skipping = Overlong(len(self._buf) + len(piece), bytes((self._buf + piece)[:STRAY_PREVIEW]))
                self._buf.clear()
            else:
                self._buf += piece
            if nl < 0:
                break
            if self._skipping is not None:
                out.append(self._skipping)
                self._skipping = None
            else:
                out.append(bytes(self._buf))
                self._buf.clear()
            start = nl + 1
        return out

    def flush(self) -> list[bytes | Overlong]:
        """At end of file: a last line without its newline still counts."""
        out: list[bytes | Overlong] = []
        if self._skipping is not None:
            out.append(self._skipping)
        elif self._buf:
            out.append(bytes(self._buf))
        self._buf.clear()
        self._skipping = None
        return out


# ---------------------------------------------------------------- the process and its pipes
class JsonRpcProcess(ChildProcess):
    """A teammate started by `sh -c` in its own session, stdin and stdout kept as pipes for the lead;
    stderr goes to its log like any teammate's output."""


def spawn_jsonrpc(name: str, command: str, *, cwd: Path, env: dict[str, str], log_path: Path) -> JsonRpcProcess:
    return JsonRpcProcess(name, start_shell(command, cwd=cwd, env=env, log_path=log_path, piped=True))


class Channel:
    """The lead's end of one JSON-RPC teammate: notifications arrive through `on_incoming`
    (in stdout order, strays included), `send` queues bytes for the teammate's stdin.

    Both pipes are non-blocking and watched by the event loop (no thread, no polling); a callback
    that raises is reported as a Stray and reading goes on."""

    READ_CHUNK = 64 << 10
    MAX_FINAL_READS = 64  # at most this many chunks read when closing

    def __init__(
        self,
        name: str,
        process: JsonRpcProcess,
        on_incoming: Callable[[Incoming], None],
        *,
        on_closed: Callable[[], None] | None = None,
        max_line: int = MAX_LINE_BYTES,
        max_pending: int = MAX_PENDING_WRITE,
    ):
        self.name = name
        self.process = process
        self.on_incoming = on_incoming
        self.on_closed = on_closed
        self.max_pending = max_pending
        self._splitter = LineSplitter(max_line)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._rfd: int | None = None
        self._wfd: int | None = None
        self._pending = bytearray()
        self._writer_armed = False
        self.ready = False  # set by the first team.ready
        self.dropped = 0  # notifications not sent because the teammate stopped reading

    def open(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Start reading stdout on `loop` (the running one by default)."""
        self._loop = loop or asyncio.get_running_loop()
        popen = self.process.popen
        assert popen.stdin is not None and popen.stdout is not None
        self._rfd, self._wfd = popen.stdout.fileno(), popen.stdin.fileno()
        os.set_blocking(self._rfd, False)
        os.set_blocking(self._wfd, False)
        self._loop.add_reader(self._rfd, self._readable)

    @property
    def reading(self) -> bool:
        return self._rfd is not None

    # ------------------------------------------------------------ lead → teammate
    def send(self, line: bytes) -> bool:
        """Queue one encoded notification; False when the pipe is closed or the teammate is not reading."""
        if self._wfd is None:
            return False
        if len(self._pending) + len(line) > self.max_pending:
            self.dropped += 1
            self._deliver(Stray("", f"not reading its stdin: dropped a message ({self.dropped} so far)"))
            return False
        self._pending += line
        self._flush()
        return self._wfd is not None

    def assign_task(self, task: Task) -> bool:
        return self.send(assign_task(task))

    def message(self, sender: str, content: str) -> bool:
        return self.send(message(sender, content))

    def update_context(self, tasks: Iterable[Task]) -> bool:
        return self.send(update_context(tasks))

    def shutdown(self, reason: str) -> bool:
        return self.send(shutdown(reason))

    def _flush(self) -> None:
        if self._wfd is None:
            return
        try:
            written = os.write(self._wfd, self._pending) if self._pending else 0
        except BlockingIOError:
            written = 0
        except OSError:  # EPIPE: the teammate closed its stdin or is gone
            self._close_write()
            return
        del self._pending[:written]
        assert self._loop is not None
        if self._pending and not self._writer_armed:
            self._loop.add_writer(self._wfd, self._flush)
            self._writer_armed = True
        elif not self._pending and self._writer_armed:
            self._loop.remove_writer(self._wfd)
            self._writer_armed = False

    def _close_write(self) -> None:
        if self._wfd is None:
            return
        if self._writer_armed and self._loop is not None:
            self._loop.remove_writer(self._wfd)
            self._writer_armed = False
        self._wfd = None
        self._pending.clear()
        stdin = self.process.popen.stdin
        if stdin is not None:
            try:
                stdin.close()
            except OSError:
                pass  # its unflushed bytes (none: we write to the fd) cannot go anywhere

    def close(self) -> None:
        """Close both pipes (once the teammate has ended, or to abandon it), after reading what
        is already in its stdout: its last lines may still be there when its exit is seen."""
        self._close_write()
        for _ in range(self.MAX_FINAL_READS):
            if self._rfd is None or not self._readable():
                break
        self._close_read()

    # ------------------------------------------------------------ teammate → lead
    def _readable(self) -> bool:
        """Read one chunk; False when there was nothing to read now (or the pipe has ended)."""
        if self._rfd is None:
            return False
        try:
            data = os.read(self._rfd, self.READ_CHUNK)
        except BlockingIOError:
            return False
        except OSError:
            data = b""
        if data:
            self._lines(self._splitter.feed(data))
            return True
        self._lines(self._splitter.flush())
        self._close_read()
        if self.on_closed is not None:
            self.on_closed()
        return False

    def _close_read(self) -> None:
        if self._rfd is None:
            return
        if self._loop is not None:
            self._loop.remove_reader(self._rfd)
        self._rfd = None
        stdout = self.process.popen.stdout
        if stdout is not None:
            stdout.close()

    def _lines(self, lines: list[bytes | Overlong]) -> None:
        for line in lines:
            if isinstance(line, Overlong):
                head = line.head[:STRAY_PREVIEW].decode("utf-8", "replace")
                self._deliver(
                    Stray(
                        head + "…", f"line of {line.size} bytes is over the {self._splitter.limit}-byte limit: dropped"
                    )
                )
                continue
            decoded = decode_line(line)
            if isinstance(decoded.item, Ready):
                self.ready = True
            if decoded.reply is not None:
                self.send((json.dumps(decoded.reply) + "\n").encode())
            self._deliver(decoded.item)

    def _deliver(self, item: Incoming) -> None:
        try:
            self.on_incoming(item)
        except Exception as exc:  # noqa: BLE001 - one bad notification must not stop the reader
            try:
                self.on_incoming(Stray(repr(item)[:STRAY_PREVIEW], f"could not be handled: {exc!r}"))
            except Exception:  # noqa: BLE001
                pass


def stray_log_line(stray: Stray) -> bytes:
    """How a Stray is kept in the teammate's output log: the line as printed, or a note on why it was refused."""
    if not stray.problem:
        return (stray.text + "\n").encode("utf-8", "replace")
    text = stray.text[:STRAY_PREVIEW]
    sep = ": " if text else ""
    return f"[teamtui] {stray.problem}{sep}{text}\n".encode("utf-8", "replace")


__all__ = [
    "Channel",
    "Decoded",
    "Idle",
    "Incoming",
    "JsonRpcProcess",
    "LineSplitter",
    "Log",
    "Notification",
    "Ready",
    "Say",
    "ShutdownAck",
    "Stray",
    "TaskUpdate",
    "assign_task",
    "decode_line",
    "encode",
    "message",
    "shutdown",
    "spawn_jsonrpc",
    "stray_log_line",
    "task_object",
    "update_context",
]
