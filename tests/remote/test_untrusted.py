"""The stream is untrusted input: garbage, huge lines, escapes, markup and wrong types never crash,
hang or paint the terminal; they are dropped, capped or cleaned. Fed to the parser directly, and
through a fake `ssh` that writes a hostile stream (the real pipeline, without a server)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from teamtui.protocol import stream as wire
from teamtui.protocol.settings import HostSettings
from teamtui.session.ops import LINE_TYPES
from teamtui.session.remote import RemoteHost
from teamtui.session.remote_team import StreamedTeam
from teamtui.session.source import FleetBatch

from .conftest import following

ESC = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\x9b31m"
KEY = ["native", "/srv/p", "t"]


def header(**over) -> dict:
    line = {
        "type": "team",
        "team": KEY,
        "full": True,
        "live": True,
        "read_only": "",
        "ended_at": None,
        "layout": "native",
        "appends_to_inboxes": True,
        "shutdown_via_lead": False,
        "sender": "lead",
        "lead_state": None,
        "row": {
            "team": "t",
            "folder": "t",
            "root": "/srv/p",
            "layout": "native",
            "source": "native",
            "label": "native",
            "lead": "unknown",
            "members": {"working": 1, "idle": 0, "gone": 0, "unknown": 0},
            "tasks": {"done": 0, "total": 1},
            "cwd": "/srv/p",
        },
        "config": {"name": "t", "lead": "lead", "members": [{"name": "ann", "status": "working"}]},
        "departed": [],
        "views": [{"name": "ann", "status": "working", "unread": 2, "last_activity": 1.0}],
        "errors": [],
        "errors_total": 0,
    }
    line.update(over)
    return line


def host() -> RemoteHost:
    return RemoteHost(HostSettings("box", "me@box"))


def take(h: RemoteHost, *lines: dict) -> FleetBatch:
    batch = FleetBatch(source=h.name)
    for line in lines:
        obj = wire.parse(wire.dumps(line), LINE_TYPES)
        if obj is not None:
            h._take(obj, batch)
    return batch


# ------------------------------------------------------------------ lines


def test_a_line_too_long_is_dropped_whole_and_the_next_one_kept() -> None:
    split = wire.LineSplitter(cap=100)
    assert split.feed(b"a" * 60) == []
    assert split.feed(b"b" * 60) == []  # over the cap: skipping to its newline
    assert split.feed(b"c" * 10_000) == []
    assert split.feed(b"tail\nnext\nhalf") == [b"next"]
    assert split.feed(b"way\n") == [b"halfway"]
    assert split.dropped == 1
    assert split.feed(b"x" * 100 + b"\n" + b"y" * 101 + b"\nz\n") == [b"x" * 100, b"z"]
    assert split.dropped == 2
    assert len(split._buf) == 0


def test_a_flood_without_newlines_keeps_memory_bounded() -> None:
    split = wire.LineSplitter(cap=1 << 20)
    chunk = b"\x00" * (1 << 16)
    for _ in range(200):  # 12.5 MiB, never a newline
        assert split.feed(chunk) == []
        assert len(split._buf) <= 1 << 20
    assert split.feed(b'\n{"type":"heartbeat"}\n') == [b'{"type":"heartbeat"}']


@pytest.mark.parametrize(
    "line",
    [
        b"",
        b"garbage",
        b"\xff\xfe\x00",
        b"[1,2]",
        b'"str"',
        b"null",
        b"1" * 5000,
        b"[" * 100_000,
        b"{" * 50_000,
        b'{"type": 3}',
        b'{"type": "nosuch"}',
        b'{"type": "hello"',
        b'{"type": "team", "team": NaN}' + b" " * 10,
        ("{" + '"type":"team",' + '"x":' + "9" * 5000 + "}").encode(),
    ],
)
def test_garbage_lines_are_dropped_never_raised(line: bytes) -> None:
    obj = wire.parse(line, LINE_TYPES)
    if obj is not None:  # valid JSON of a known type: every field is checked when taken
        h = host()
        h._take(obj, FleetBatch())
        assert h.sessions == {}


def test_hostile_values_are_typed_capped_and_cleaned() -> None:
    h = host()
    evil = {
        "type": "team",
        "team": KEY,
        "full": True,
        "live": True,
        "layout": ESC,
        "sender": "x" * 10_000 + ESC,
        "row": {
            "team": ESC + "[bold red]boom[/]",
            "layout": "native" + ESC,
            "members": "lots",
            "tasks": {"done": -5, "total": 10**30},
            "last_activity": float("inf"),
            "needs_you": "9",
            "tokens": 2**80,
            "cwd": "\x1b[31m/srv",
        },
        "config": {
            "name": "t" + ESC,
            "lead": ["x"],
            "members": [
                {"name": ESC},
                {"name": 7},
                "ann",
                {"name": "ok", "status": "sleeping", "pid": 2**70, "joined_at": float("nan")},
            ]
            + [{}] * 5000,
        },
        "departed": {"not": "a list"},
        "views": [{"name": "ok", "unread": -3, "status": "gone"}, None, 5],
        "errors": [["/x" + ESC, "bad\x00", None], "no", [1, 2, 3]],
        "read_only": {"x": 1},
    }
    batch = FleetBatch()
    h._take(json.loads(json.dumps(evil)), batch)
    session = h.sessions[("ssh:box", "/srv/p", "t")]
    state = session.state
    assert isinstance(state, StreamedTeam) and state.config is not None
    everything = json.dumps(
        [
            str(state.config),
            [str(m) for m in state.config.members],
            session.sender,
            str(state.all_errors()),
            str(h.rows(time.time())),
            session.read_only,
        ]
    )
    assert "\\u001b" not in everything and "\\u009b" not in everything and "\\u0000" not in everything
    assert [r.team.layout for r in h.rows(time.time())] == [None]  # no layout teamtui knows: none, never its words
    assert len(session.sender) <= wire.NAME_CAP
    assert [m.name for m in state.config.members][1:] == ["ok"]
    assert state.config.members[1].pid is None
    assert state.remote_views["ok"]["unread"] == 0 and "status" not in state.remote_views["ok"]
    row = h.rows(time.time())[0]
    assert row.tasks_done == 0 and row.tokens is None and row.last_activity is None and row.needs_you == 0
    assert (
        row.name.startswith("\ufffd]52") and "[bold red]" in row.name
    )  # markup kept as text: the table shows it literally


def test_records_of_wrong_shape_are_dropped_the_rest_kept() -> None:
    h = host()
    take(h, header())
    state = h.sessions[("ssh:box", "/srv/p", "t")].state
    batch = take(
        h,
        {
            "type": "tasks",
            "team": KEY,
            "tasks": [
                {"id": "1", "subject": "ok"},
                {"id": 5},
                {"subject": "no id"},
                "x",
                {"id": "2", "status": "weird", "blocked_by": "1", "metadata": [1]},
            ],
            "removed": [None, 3],
        },
        {
            "type": "messages",
            "team": KEY,
            "messages": [
                {"sender": "a", "recipient": "ann", "content": "hi" + ESC, "timestamp": "yesterday"},
                {"sender": "a", "recipient": "ann", "content": "fine", "timestamp": 5},
                {"payload": {"type": "shutdown_request", "deadline_seconds": "x"}},
            ],
        },
        {
            "type": "logs",
            "team": KEY,
            "member": "ann",
            "entries": [[1.0, "error", "boom" + ESC, 1], [None, "??", "x", "y"], "line", [1, 2]],
            "reset": True,
        },
        {"type": "logs", "team": KEY, "member": {"a": 1}, "entries": [[1, "info", "x", 1]]},
        {"type": "tasks", "team": ["native", "/other", "t"], "tasks": [{"id": "9"}]},  # a team never announced
        {"type": "views", "team": KEY, "views": "no", "row": None},
    )
    assert sorted(state.tasks) == ["1", "2"] and state.tasks["2"].status.value == "pending"
    assert state.tasks["2"].blocked_by == []  # a string where a list belongs: dropped, not split into characters
    assert [m.content for m in state.messages if m.sender == "a"] == [
        "hi\ufffd]52;c;cm0gLXJmIH4=\ufffd\ufffd[2J\ufffd31m",
        "fine",
    ]
    assert [(e.text, e.level.value) for e in state.logs["ann"]] == [
        ("boom\ufffd]52;c;cm0gLXJmIH4=\ufffd\ufffd[2J\ufffd31m", "error"),
        ("x", "info"),
    ]
    assert batch.changes and h.dropped == 1


def test_a_hostile_insight_is_typed_capped_and_cleaned() -> None:
    """What the other machine says its transcripts tell is checked like the rest: wrong shapes
    dropped, figures out of range dropped, text cleaned of what a terminal acts on."""
    h = host()
    take(h, header())
    state = h.sessions[("ssh:box", "/srv/p", "t")].state
    take(
        h,
        {
            "type": "insight",
            "team": KEY,
            "tokens": -4,
            "drift": ESC * 500,
            "members": {
                "ann": {
                    "activity": ["tool", "soon", "Bash: " + ESC],
                    "tokens": 2**80,
                    "context_share": 1e9,
                    "last_write": 1e300,
                    "counted": "yes",
                },
                ESC: {"activity": "busy"},
                "bob": "x",
                "cy": {"activity": [1, 2, 3], "tokens": 12},
            },
            "lead": {"name": "lead" + ESC, "status": "plotting", "unread": -1},
            "needs": [
                {"kind": "permission", "member": "ann", "key": "p1", "text": "ok" + ESC, "detail": ESC},
                {"kind": "rm -rf", "key": "x", "text": "x"},
                {"kind": "plan", "text": "no key"},
                "need",
                None,
            ],
            "assigned": [{"id": "a1", "subject": "work" + ESC, "status": "done?"}, {"subject": "no id"}, 7],
        },
    )
    feed = state.transcripts
    assert feed is not None and feed.total_tokens() is None
    assert sorted(feed.members()) == sorted(["ann", "\ufffd]52;c;cm0gLXJmIH4=\ufffd\ufffd[2J\ufffd31m", "cy"])
    ann = feed.stats("ann")
    assert ann.tokens.total is None and ann.context_share is None and ann.last_write is None
    assert ann.activity is not None and ann.activity.ts is None and "\x1b" not in ann.activity.label()
    assert feed.stats("cy").activity is None and feed.stats("cy").tokens.total == 12
    lead = feed.lead_view()
    assert (
        lead is not None and lead.name.startswith("lead\ufffd") and lead.status.value == "unknown" and lead.unread == 0
    )
    needs = feed.needs_you(time.time())
    assert [(n.kind, n.key) for n in needs] == [("permission", "p1")] and "\x1b" not in needs[0].text + needs[0].detail
    assert "\x1b" not in feed.drift().summary() and len(feed.drift().summary()) <= 2 * wire.NAME_CAP
    assert list(state.assigned) == ["a1"] and state.task_source == "assignments"
    assert state.board.tasks["a1"].status.value == "pending" and "\x1b" not in state.board.tasks["a1"].subject
    # A flood is bounded (within a line's size): members, needs and assignments each capped.
    flood = {
        "type": "insight",
        "team": KEY,
        "members": {f"m{i}": {"tokens": i} for i in range(1200)},
        "needs": [{"kind": "silent", "member": "ann", "key": f"s{i}", "text": "quiet"} for i in range(300)],
        "assigned": [{"id": f"a{i}", "subject": "x"} for i in range(21000)],
    }
    assert len(wire.dumps(flood)) < wire.MAX_LINE
    take(h, flood)
    assert len(feed.members()) == wire.MEMBERS_CAP and len(feed.needs_you(time.time())) == wire.NEEDS_CAP
    assert len(state.assigned) == wire.TASKS_CAP
    # A later insight replaces the last: the need answered there is gone here.
    take(h, {"type": "insight", "team": KEY, "members": {}, "needs": [], "assigned": []})
    assert feed.needs_you(time.time()) == [] and not state.assigned


def test_a_flood_of_teams_is_bounded() -> None:
    h = host()
    from teamtui.session import remote

    for i in range(remote.TEAMS_CAP + 50):
        take(h, header(team=["native", "/srv/p", f"t{i}"]))
    assert len(h.sessions) == remote.TEAMS_CAP


# ------------------------------------------------------------------ through a fake ssh


def fake_ssh(tmp_path: Path, body: str) -> str:
    """An executable standing in for ssh: ignores its arguments, writes what `body` writes."""
    path = tmp_path / "fake-ssh"
    path.write_text(f"#!{sys.executable}\nimport json, sys, time\nout = sys.stdout.buffer\n{body}\n")
    path.chmod(0o755)
    return str(path)


HELLO = f"out.write(json.dumps({{'type': 'hello', 'protocol': {wire.PROTOCOL}, 'teamtui': 'x', 'host': 'h'}}).encode() + b'\\n')"


async def test_a_hostile_stream_through_the_pipe_is_survived(tmp_path: Path) -> None:
    team = json.dumps(header())
    body = "\n".join(
        [
            HELLO,
            "out.write(b'garbage\\n' + b'\\xff\\xfe\\n' + b'x' * (3 << 20) + b'\\n')",  # a 3 MiB line
            f'out.write(b\'{{"type": "team", "team": 1}}\\n\' + {team!r}.encode() + b\'\\n\')',
            'out.write(b\'{"type": "ready", "teams": 1}\\n\')',
            'out.write(b\'{"type": "result", "id": "r999", "ok": true}\\n\' + b\'{"type": "progress", "id": [], "team": 5}\\n\')',
            "out.flush()",
            'while True:\n    out.write(b\'{"type": "heartbeat"}\\n\'); out.flush(); time.sleep(0.2)',
        ]
    )
    h = RemoteHost(HostSettings("box", "me@box"), ssh=fake_ssh(tmp_path, body), stall=3.0)
    async with following(h) as feed:
        await feed.until(lambda: h.connected, "connected", limit=10)
        assert ("ssh:box", "/srv/p", "t") in h.sessions
        await feed.until(lambda: h.dropped >= 4, "the garbage counted", limit=5)


async def test_a_stream_that_goes_silent_is_dropped_as_stalled(tmp_path: Path) -> None:
    body = "\n".join([HELLO, 'out.write(b\'{"type": "ready", "teams": 0}\\n\')', "out.flush()", "time.sleep(60)"])
    h = RemoteHost(HostSettings("box", "me@box"), ssh=fake_ssh(tmp_path, body), stall=1.0, backoff_first=30)
    async with following(h) as feed:
        await feed.until(lambda: h.connected, "connected", limit=10)
        t0 = time.monotonic()
        await feed.until(lambda: not h.connected, "dropped", limit=5)
        assert time.monotonic() - t0 < 3
        assert h.status.startswith("disconnected since ") and "stalled" in h.status
        assert any("disconnected since" in n for n in feed.notices)


async def test_a_stream_that_is_no_teamtui_says_so(tmp_path: Path) -> None:
    body = "out.write(b'Welcome to the box! Last login: ...\\n'); out.flush(); time.sleep(30)"
    h = RemoteHost(HostSettings("box", "me@box"), ssh=fake_ssh(tmp_path, body), stall=2.0)
    async with following(h) as feed:
        await feed.until(lambda: bool(h.reason), "a reason", limit=10)
        assert not h.connected and "hello" in h.reason and "Welcome to the box" in h.reason


def test_the_ssh_command_keeps_batch_mode_and_quotes_the_roots() -> None:
    h = RemoteHost(
        HostSettings(
            "box", "me@box", ["-o", "BatchMode=no", "-p", "2222"], ["~/my src", "-x; rm -rf ~"], "~/.local/bin/teamtui"
        )
    )
    argv = h.command()
    assert argv[:4] == ["ssh", "-T", "-o", "BatchMode=yes"]  # first: ssh keeps the first value of an option
    assert argv[4:8] == ["-o", "BatchMode=no", "-p", "2222"]
    assert argv[-3:-1] == ["--", "me@box"]
    assert argv[-1].startswith("~/.local/bin/teamtui stream --heartbeat 3 -- ")
    assert argv[-1].endswith("'~/my src' '-x; rm -rf ~'")


async def test_a_host_that_keeps_failing_is_retried_with_a_growing_backoff() -> None:
    h = RemoteHost(HostSettings("box", "me@box"), ssh="/bin/false", backoff_first=0.1, backoff_max=0.4)
    async with following(h) as feed:
        await feed.until(lambda: len(feed.batches) >= 6, "six attempts", limit=10)
        times = list(feed.at)
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)][:5]
    for gap, want in zip(gaps, (0.1, 0.2, 0.4, 0.4, 0.4), strict=True):  # 1, 2, 4 ... capped (here scaled down)
        assert want <= gap < want + 0.25, gaps
    assert h.attempts >= 6 and "exit 1" in h.reason
    assert len([n for n in feed.notices if "box:" in n]) == 1  # said once, not at every retry
