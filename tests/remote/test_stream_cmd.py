"""`teamtui stream` on its own (no ssh): what it writes, line by line, and how it answers requests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from teamtui import __version__
from teamtui.protocol import stream as wire
from teamtui.protocol.native import NativeTeam
from teamtui.session.ops import LINE_TYPES

from .conftest import EXAMPLES, NATIVE_TEAM, copy_tree


class Stream:
    def __init__(self, proc: subprocess.Popen):
        self.proc = proc
        self.lines: list[dict] = []

    def ask(self, obj: dict | bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(obj if isinstance(obj, bytes) else json.dumps(obj).encode() + b"\n")
        self.proc.stdin.flush()

    def until(self, pred, what: str, limit: float = 15.0) -> dict:
        assert self.proc.stdout is not None
        end = time.monotonic() + limit
        for line in self.lines:
            if pred(line):
                return line
        while time.monotonic() < end:
            raw = self.proc.stdout.readline()
            if not raw:
                break
            assert len(raw) <= wire.MAX_LINE and raw.endswith(b"\n")
            obj = json.loads(raw)
            assert obj["type"] in LINE_TYPES
            self.lines.append(obj)
            if pred(obj):
                return obj
        raise AssertionError(f"never written: {what}")


def stream_env(home: Path, *, claude: Path | None = None, state: Path | None = None) -> dict[str, str]:
    """The environment of a `teamtui stream` on a machine whose HOME is `home`."""
    return {
        **os.environ,
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(claude or home / "claude"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(state or home / "state"),
    }


def start_stream(env: dict[str, str], cwd: Path, *args: str) -> Stream:
    """`teamtui stream --heartbeat 0.3 ARGS`, its stdin and stdout piped."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "teamtui", "stream", "--heartbeat", "0.3", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=cwd,
    )
    return Stream(proc)


@contextmanager
def streaming(env: dict[str, str], cwd: Path, *args: str) -> Iterator[Stream]:
    """A `start_stream`, killed at the end."""
    s = start_stream(env, cwd, *args)
    try:
        yield s
    finally:
        if s.proc.poll() is None:
            s.proc.kill()
        s.proc.wait()


@pytest.fixture
def there(tmp_path: Path) -> Path:
    copy_tree(EXAMPLES / "native", tmp_path / "proj")
    (tmp_path / "claude").mkdir()
    return tmp_path


@pytest.fixture
def stream(there: Path) -> Iterator[Stream]:
    with streaming(stream_env(there), there, str(there / "proj")) as s:
        yield s


def test_hello_then_the_teams_then_ready_then_heartbeats(stream: Stream, there: Path) -> None:
    hello = stream.until(lambda o: True, "the first line")
    assert hello["type"] == "hello" and hello["protocol"] == wire.PROTOCOL and hello["teamtui"] == __version__
    assert hello["host"]
    team = stream.until(lambda o: o["type"] == "team", "a team")
    assert team["team"][2] == NATIVE_TEAM and team["full"] is True and team["row"]["team"] == NATIVE_TEAM
    assert {m["name"] for m in team["config"]["members"]} >= {"hunter", "scout"}
    ready = stream.until(lambda o: o["type"] == "ready", "ready")
    assert ready["teams"] == 1
    kinds = [o["type"] for o in stream.lines]
    assert kinds.index("ready") > max(i for i, k in enumerate(kinds) if k in ("tasks", "messages", "logs"))
    stream.until(lambda o: o["type"] == "heartbeat", "a heartbeat", limit=3)
    # A change: only what changed.
    NativeTeam(there / "proj", NATIVE_TEAM).create_task("new one")
    line = stream.until(
        lambda o: o["type"] == "tasks" and any(t["subject"] == "new one" for t in o["tasks"]), "the task"
    )
    assert len(line["tasks"]) == 1
    # stdin closed: it ends.
    assert stream.proc.stdin is not None
    stream.proc.stdin.close()
    assert stream.proc.wait(10) == 0


def test_requests_are_answered(stream: Stream, there: Path) -> None:
    stream.until(lambda o: o["type"] == "ready", "ready")
    team = next(o["team"] for o in stream.lines if o["type"] == "team")
    stream.ask({"id": 1, "op": "ping"})
    assert stream.until(lambda o: o["type"] == "result" and o["id"] == 1, "ping")["ok"] is True
    stream.ask(b"not json\n")
    assert stream.until(lambda o: o["type"] == "result" and o["id"] is None, "garbage")["error"] == "not a JSON object"
    stream.ask(b'{"id": "big", "op": "send", "text": "' + b"x" * (wire.MAX_REQUEST + 10) + b'"}\n')  # dropped unread
    stream.ask({"id": "op", "op": "format-disk", "team": team})
    assert "unknown op" in stream.until(lambda o: o.get("id") == "op", "bad op")["error"]
    stream.ask({"id": "t", "op": "send", "team": ["native", "/nowhere", "x"], "to": "hunter", "text": "hi"})
    assert "no such team" in stream.until(lambda o: o.get("id") == "t", "bad team")["error"]
    stream.ask({"id": "n", "op": "send", "team": team, "to": "ghost", "text": "hi"})
    assert "not a member" in stream.until(lambda o: o.get("id") == "n", "not a member")["error"]
    stream.ask({"id": "s", "op": "send", "team": team, "to": "hunter", "text": "over the wire"})
    result = stream.until(lambda o: o.get("id") == "s", "sent")
    assert result["ok"] is True and "written to hunter's inbox as" in result["detail"]
    sender = NativeTeam(there / "proj", NATIVE_TEAM).outgoing_sender("teamtui")
    inbox = (there / "proj" / ".teams" / NATIVE_TEAM / "hunter_inbox.jsonl").read_text().splitlines()
    assert json.loads(inbox[-1])["content"] == "over the wire" and json.loads(inbox[-1])["sender"] == sender
    stream.until(
        lambda o: o["type"] == "messages" and any(m["content"] == "over the wire" for m in o["messages"]),
        "the message in the stream",
    )
    assert not any(o.get("id") == "big" for o in stream.lines)


def test_a_big_team_is_split_into_lines_under_the_cap(there: Path) -> None:
    root = there / "big"
    team = NativeTeam(root, "big")
    team.create(description="")
    team.add_member("ann")
    team.import_tasks(
        lambda first: [{"id": str(first + i), "subject": f"task {i}", "description": "d" * 3000} for i in range(800)]
    )
    env = {
        **os.environ,
        "HOME": str(there),
        "CLAUDE_CONFIG_DIR": str(there / "claude"),
        "XDG_STATE_HOME": str(there / "s"),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "teamtui", "stream", str(root)],
        input=b"",
        capture_output=True,
        env=env,
        cwd=there,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert all(len(line) < wire.MAX_LINE for line in lines)
    tasks = [t for line in lines if (o := json.loads(line))["type"] == "tasks" for t in o["tasks"]]
    assert len(tasks) == 800 and sum(json.loads(line)["type"] == "tasks" for line in lines) >= 3


def run_stream(there: Path, *args: str) -> Stream:
    env = stream_env(there)
    env.pop("TEAMTUI_TEAM", None)
    return start_stream(env, there, *args, str(there / "proj"))


@pytest.mark.parametrize(
    "args, expected",
    [
        (("--team", "second"), ["second"]),
        (("--layout", "native"), sorted([NATIVE_TEAM, "second"])),
        ((), sorted([NATIVE_TEAM, "second"])),
    ],
)
def test_team_and_layout_choose_what_is_streamed(there: Path, args: tuple[str, ...], expected: list[str]) -> None:
    second = NativeTeam(there / "proj", "second")
    second.create(description="")
    second.add_member("dee")
    stream = run_stream(there, *args)
    try:
        ready = stream.until(lambda o: o["type"] == "ready", "ready")
        assert sorted(o["team"][2] for o in stream.lines if o["type"] == "team") == expected
        assert ready["teams"] == len(expected)
    finally:
        stream.proc.kill()
        stream.proc.wait()


def test_a_team_not_there_yet_is_said_and_streamed_when_it_comes(there: Path) -> None:
    stream = run_stream(there, "--team", "later")
    try:
        problem = stream.until(lambda o: o["type"] == "problem", "the problem")
        assert problem["text"] == "no team 'later' here yet: only that is streamed"
        assert stream.until(lambda o: o["type"] == "ready", "ready")["teams"] == 0
        later = NativeTeam(there / "proj", "later")
        later.create(description="")
        later.add_member("eve")
        assert stream.until(lambda o: o["type"] == "team", "the team, once there")["team"][2] == "later"
        assert not any(o["type"] == "team" and o["team"][2] == NATIVE_TEAM for o in stream.lines)
    finally:
        stream.proc.kill()
        stream.proc.wait()
