"""JSON-RPC 2.0 teammates over stdio: decoding, framing, and a real Node.js teammate on real pipes."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import sys
from pathlib import Path

import pytest

from teamtui.protocol.models import Task
from teamtui.runtime import jsonrpc
from teamtui.runtime.jsonrpc import (
    Channel,
    Idle,
    LineSplitter,
    Log,
    Overlong,
    Ready,
    Say,
    ShutdownAck,
    Stray,
    TaskUpdate,
    decode_line,
    spawn_jsonrpc,
    stray_log_line,
)

AGENT = Path(__file__).with_name("agents") / "jsonrpc_teammate.js"
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")


def line(method: str, params: object = None, **extra: object) -> bytes:
    msg: dict[str, object] = {"jsonrpc": "2.0", "method": method, **extra}
    if params is not None:
        msg["params"] = params
    return json.dumps(msg).encode()


# ------------------------------------------------------------------ decoding
def test_each_teammate_notification_decodes_to_its_type():
    assert decode_line(line("team.ready", {"name": "scout"})).item == Ready("scout")
    assert decode_line(
        line("team.taskUpdate", {"taskId": 3, "status": "completed", "result": "done"})
    ).item == TaskUpdate("3", "completed", "done")
    assert decode_line(line("team.taskUpdate", {"taskId": "3", "status": "in_progress"})).item == TaskUpdate(
        "3", "in_progress"
    )
    assert decode_line(line("team.message", {"to": "hunter", "content": "look at src/"})).item == Say(
        "hunter", "look at src/"
    )
    assert decode_line(line("team.idle", {"lastTask": "2"})).item == Idle("2")
    assert decode_line(line("team.idle")).item == Idle(None)
    assert decode_line(line("team.shutdownAck", {})).item == ShutdownAck()
    assert decode_line(line("team.log", {"level": "error", "text": "boom"})).item == Log("error", "boom")
    # A structured result is kept as JSON text rather than refused.
    assert (
        decode_line(line("team.taskUpdate", {"taskId": "1", "status": "completed", "result": {"files": 2}})).item.result
        == '{"files": 2}'
    )


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (b"hello from a print", ""),
        (b"", ""),
        (b'{"not": "json-rpc"}', ""),
        (b"{ a brace in a print", ""),
        (b'{"jsonrpc": "2.0", "method": "team.log", "params": {"text": ', "not valid JSON"),
        (b'{"jsonrpc": "1.0", "method": "team.ready"}', '"jsonrpc" must be "2.0"'),
        (b'{"jsonrpc": "2.0", "method": "team.dance"}', "unknown method 'team.dance'"),
        (b'{"jsonrpc": "2.0", "method": "team.log", "params": [1]}', "team.log: params must be an object"),
        (
            b'{"jsonrpc": "2.0", "method": "team.taskUpdate", "params": {"taskId": "1", "status": "done"}}',
            "params.status must be one of",
        ),
        (
            b'{"jsonrpc": "2.0", "method": "team.message", "params": {"to": ["a"], "content": "x"}}',
            "params.to must be a string",
        ),
        (b'{"jsonrpc": "2.0", "method": 7}', '"method" must be a string'),
        (b'{"jsonrpc": "2.0", "id": 1, "result": {}}', "a response to a request the lead never sent"),
        (b"\xff\xfe not utf-8", ""),
    ],
)
def test_anything_else_is_a_stray_with_the_reason(raw, problem):
    item = decode_line(raw).item
    assert isinstance(item, Stray)
    assert problem in item.problem if problem else item.problem == ""
    assert item.text == raw.decode("utf-8", "replace")


def test_a_request_with_an_id_gets_a_response():
    ok = decode_line(line("team.ready", {"name": "a"}, id=7))
    assert ok.item == Ready("a") and ok.reply == {"jsonrpc": "2.0", "id": 7, "result": {}}
    bad = decode_line(line("team.nope", {}, id="x"))
    assert isinstance(bad.item, Stray)
    assert bad.reply == {
        "jsonrpc": "2.0",
        "id": "x",
        "error": {"code": jsonrpc.METHOD_NOT_FOUND, "message": "unknown method 'team.nope'"},
    }
    # Notifications (no id) never get an answer, right or wrong.
    assert decode_line(line("team.nope", {})).reply is None


def test_lead_notifications_carry_the_task_object_of_the_design():
    task = Task(
        id="2", subject="Write tests", description="cover auth", blocked_by=["1"], owner="scout", files=["a.py"]
    )
    msg = json.loads(jsonrpc.assign_task(task))
    assert msg == {
        "jsonrpc": "2.0",
        "method": "team.assignTask",
        "params": {
            "task": {
                "id": "2",
                "subject": "Write tests",
                "description": "cover auth",
                "status": "pending",
                "owner": "scout",
                "blockedBy": ["1"],
                "files": ["a.py"],
            }
        },
    }
    assert json.loads(jsonrpc.message("hunter", "hi")) == {
        "jsonrpc": "2.0",
        "method": "team.message",
        "params": {"from": "hunter", "content": "hi"},
    }
    assert json.loads(jsonrpc.shutdown("phase_complete"))["params"] == {"reason": "phase_complete"}
    ctx = json.loads(jsonrpc.update_context([task, Task(id="1", subject="x", status="completed")]))
    assert [t["id"] for t in ctx["params"]["tasks"]] == ["2", "1"]
    # One message, one line: a newline in the content cannot split it.
    assert jsonrpc.message("a", "two\nlines").count(b"\n") == 1


# ------------------------------------------------------------------ framing
def test_lines_are_joined_across_chunks_and_split_within_one():
    s = LineSplitter(limit=100)
    assert s.feed(b"ab") == []
    assert s.feed(b"c\nd\n\ne") == [b"abc", b"d", b""]
    assert s.flush() == [b"e"]
    assert s.flush() == []


def test_an_overlong_line_is_dropped_and_reported_once_and_reading_goes_on():
    s = LineSplitter(limit=10)
    out = s.feed(b"0123456789ABCDEF")  # over the limit, no newline yet
    assert out == []
    out = s.feed(b"GHIJ" * 100 + b"\nnext\n")
    assert len(out) == 2 and isinstance(out[0], Overlong)
    assert out[0].size == 16 + 400 and out[0].head.startswith(b"0123456789")
    assert out[1] == b"next"
    assert len(s._buf) == 0  # nothing of the long line is held


def test_stray_lines_keep_the_print_and_say_why_a_message_was_refused():
    assert stray_log_line(Stray("plain print")) == b"plain print\n"
    assert stray_log_line(Stray("{x", "not valid JSON")) == b"[teamtui] not valid JSON: {x\n"


# ------------------------------------------------------------------ real processes on real pipes
class Collector:
    def __init__(self) -> None:
        self.queue: asyncio.Queue[object] = asyncio.Queue()
        self.closed = asyncio.Event()

    def __call__(self, item: object) -> None:
        self.queue.put_nowait(item)

    async def next_of(self, kind: type, timeout: float = 10, strays: list | None = None):
        while True:
            item = await asyncio.wait_for(self.queue.get(), timeout)
            if isinstance(item, kind):
                return item
            if strays is not None and isinstance(item, Stray):
                strays.append(item)


async def start(tmp_path: Path, command: str, **env: str) -> tuple[Channel, Collector]:
    got = Collector()
    proc = spawn_jsonrpc(
        "scout",
        command,
        cwd=tmp_path,
        env={**os.environ, "TEAMTUI_NAME": "scout", **env},
        log_path=tmp_path / "scout.log",
    )
    ch = Channel("scout", proc, got, on_closed=got.closed.set)
    ch.open()
    return ch, got


async def exit_code(ch: Channel, timeout: float = 10) -> int | None:
    await asyncio.wait_for(asyncio.get_running_loop().run_in_executor(None, ch.process.popen.wait), timeout)
    return ch.process.poll()


@needs_node
async def test_node_teammate_works_a_task_hears_a_message_and_acknowledges_shutdown(tmp_path):
    ch, got = await start(tmp_path, f"exec node {AGENT}", JRPC_NOISE="1")
    strays: list[Stray] = []
    assert await got.next_of(Ready, strays=strays) == Ready("scout")
    assert ch.ready
    # The stray print, the torn line and the unknown method came first and stopped nothing.
    assert [s.text for s in strays if not s.problem] == ["hello from console.log, not a JSON-RPC message"]
    assert any("not valid JSON" in s.problem for s in strays)
    assert any("unknown method 'team.dance'" in s.problem for s in strays)

    task = Task(id="4", subject="Extract auth middleware", blocked_by=["1", "2"])
    assert ch.assign_task(task)
    assert await got.next_of(TaskUpdate) == TaskUpdate("4", "in_progress")
    log = await got.next_of(Log)
    assert log.text == 'working on #4: Extract auth middleware (blockedBy: ["1","2"])'
    assert await got.next_of(TaskUpdate) == TaskUpdate("4", "completed", "scout did Extract auth middleware")
    assert await got.next_of(Idle) == Idle("4")

    assert ch.message("hunter", "also check src/legacy/ [b]not markup[/b]")
    assert (await got.next_of(Log)).text == "message from hunter: also check src/legacy/ [b]not markup[/b]"

    assert ch.shutdown("phase_complete")
    assert await got.next_of(ShutdownAck) == ShutdownAck()
    assert await exit_code(ch) == 0
    await asyncio.wait_for(got.closed.wait(), 5)
    assert not ch.reading
    # Writing to a teammate that is gone never raises: it says the message did not go.
    assert ch.send(jsonrpc.shutdown("again")) is False
    ch.close()


@needs_node
async def test_a_teammate_that_ignores_shutdown_is_stopped_by_sigterm_to_its_group(tmp_path):
    ch, got = await start(tmp_path, f"exec node {AGENT}", JRPC_IGNORE_SHUTDOWN="1")
    await got.next_of(Ready)
    ch.shutdown("phase_complete")
    assert (await got.next_of(Log)).text == "ignoring shutdown (phase_complete)"
    assert ch.process.poll() is None
    ch.process.terminate()
    assert await exit_code(ch) == -signal.SIGTERM
    ch.close()


@needs_node
async def test_closing_stdin_ends_the_teammate(tmp_path):
    ch, got = await start(tmp_path, f"exec node {AGENT}")
    await got.next_of(Ready)
    ch.close()
    assert await exit_code(ch) == 0


async def test_an_overlong_line_and_stderr_do_not_stop_the_reader(tmp_path):
    # 3 MiB on one line, then a message on stderr, then a real notification.
    script = (
        "import sys, json\n"
        "sys.stdout.write('x' * (3 << 20) + '\\n'); sys.stdout.flush()\n"
        "sys.stderr.write('warning on stderr\\n'); sys.stderr.flush()\n"
        "print(json.dumps({'jsonrpc': '2.0', 'method': 'team.ready', 'params': {'name': 'scout'}}), flush=True)\n"
        "sys.stdin.read()\n"
    )
    (tmp_path / "t.py").write_text(script)
    ch, got = await start(tmp_path, f"exec {sys.executable} t.py")
    strays: list[Stray] = []
    assert await got.next_of(Ready, strays=strays) == Ready("scout")
    assert len(strays) == 1 and f"line of {3 << 20} bytes is over the" in strays[0].problem
    assert len(strays[0].text) <= jsonrpc.STRAY_PREVIEW + 1
    ch.close()
    assert await exit_code(ch) == 0
    assert (tmp_path / "scout.log").read_text() == "warning on stderr\n"


async def test_a_teammate_that_stops_reading_its_stdin_does_not_grow_the_lead(tmp_path):
    script = (
        "import json, time\n"
        "print(json.dumps({'jsonrpc': '2.0', 'method': 'team.ready', 'params': {}}), flush=True)\n"
        "time.sleep(60)\n"
    )
    (tmp_path / "t.py").write_text(script)
    got = Collector()
    proc = spawn_jsonrpc(
        "scout", f"exec {sys.executable} t.py", cwd=tmp_path, env=dict(os.environ), log_path=tmp_path / "scout.log"
    )
    ch = Channel("scout", proc, got, max_pending=256 << 10)
    ch.open()
    await got.next_of(Ready)
    big = "y" * 4096
    sent = 0
    while ch.message("lead", big):
        sent += 1
        assert sent < 1000, "the pending bytes were never bounded"
    assert ch.dropped == 1
    stray = await got.next_of(Stray)
    assert "not reading its stdin" in stray.problem
    ch.process.kill()
    await exit_code(ch)
    ch.close()


async def test_what_a_teammate_printed_before_it_ended_is_read_when_the_pipes_close(tmp_path):
    script = (
        "import json\n"
        "for i in range(3):\n"
        "    print(json.dumps({'jsonrpc': '2.0', 'method': 'team.log', 'params': {'text': f'last words {i}'}}))\n"
    )
    (tmp_path / "t.py").write_text(script)
    got = Collector()
    proc = spawn_jsonrpc(
        "scout", f"exec {sys.executable} t.py", cwd=tmp_path, env=dict(os.environ), log_path=tmp_path / "scout.log"
    )
    proc.popen.wait(10)  # ended before the loop read a byte of it
    ch = Channel("scout", proc, got)
    ch.open()
    ch.close()
    assert [got.queue.get_nowait() for _ in range(3)] == [Log("info", f"last words {i}") for i in range(3)]
    assert not ch.reading and ch._wfd is None  # both pipes closed
